//! Saved outputs: `DIR/<device>/<file>` where `<file>` is [`Command::file_name`]. `premarket
//! capture` writes the same layout, so a capture can be replayed and judged later. The archive
//! writes it too, with `<file>.empty` beside an output that was empty when collected and
//! `<file>.error` for one that was not collected, so a replay of an archived run judges
//! exactly what the run judged.

use std::path::PathBuf;

use super::{BoxFuture, Collector};
use crate::core::Command;
use crate::core::{CollectError, Outputs};
use crate::plan::DevicePlan;

pub struct Offline {
    pub dir: PathBuf,
}

impl Offline {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Offline { dir: dir.into() }
    }

    fn read(&self, device: &str, command: &Command) -> Result<String, CollectError> {
        let path = self.dir.join(device).join(command.file_name());
        let shown = path.display().to_string();
        let beside = |suffix: &str| path.with_file_name(format!("{}{suffix}", command.file_name()));
        match std::fs::read(&path) {
            Ok(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {
                if beside(".empty").exists() {
                    return Ok(String::from_utf8_lossy(&bytes).into_owned());
                }
                Err(CollectError::FileEmpty { path: shown })
            }
            // Device text is not always UTF-8 (banners, hostnames); keep what can be read.
            Ok(bytes) => Ok(String::from_utf8_lossy(&bytes).into_owned()),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                match std::fs::read_to_string(beside(".error")) {
                    Ok(error) => Err(CollectError::Other(format!(
                        "not collected in the archived run: {}",
                        error.trim()
                    ))),
                    Err(_) => Err(CollectError::FileMissing { path: shown }),
                }
            }
            Err(e) => Err(CollectError::FileUnreadable {
                path: shown,
                reason: e.to_string(),
            }),
        }
    }
}

impl Collector for Offline {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            let results = plan
                .commands
                .iter()
                .map(|c| (c.clone(), self.read(&plan.device.name, c)))
                .collect();
            Outputs { results }
        })
    }
}
