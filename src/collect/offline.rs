//! Saved outputs: `DIR/<device>/<file>` where `<file>` is [`Command::file_name`], or
//! `<file>.zst` compressed (the archive keeps its raw outputs so). `premarket capture` writes the
//! same layout, so a capture can be replayed and judged later. The archive writes it too, with
//! `<file>.empty` beside an output that was empty when collected and `<file>.error` for one that
//! was not collected, so a replay of an archived run judges exactly what the run judged.
//!
//! A saved output is opened where it lies: a small one is read whole, a large one stays on disk
//! and its parser streams it. The per-command cap (`ssh.max_output_mb`) applies as it does live.
//! As live, the saved identity output (`show version`) is read first and tells the model: a
//! command the model lacks is not read, and a saved "no such command" answer is judged the way
//! the SSH driver judges it.

use std::path::{Path, PathBuf};

use super::{BoxFuture, Collector};
use premarket_core::{CollectError, Command, Megabytes, Output, Outputs};
use premarket_files::{self as file, Kind};
use premarket_plan::DevicePlan;
use premarket_spool::{self as spool, SavedError};
use premarket_ssh::session::MAX_OUTPUT;

pub struct Offline {
    pub dir: PathBuf,
    cap: Megabytes,
}

/// The compressed form of a saved output's file name.
pub const COMPRESSED: &str = ".zst";

impl Offline {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Offline {
            dir: dir.into(),
            cap: MAX_OUTPUT,
        }
    }

    /// Outputs larger than `cap` are an error, as they are live.
    pub fn capped(mut self, cap: Megabytes) -> Self {
        self.cap = cap;
        self
    }

    fn read(&self, device: &str, command: &Command) -> Result<Output, CollectError> {
        let folder = self.dir.join(device);
        let name = command.file_name();
        let beside = |suffix: &str| folder.join(format!("{name}{suffix}"));
        let plain = folder.join(&name);
        let path = if !plain.exists() && beside(COMPRESSED).exists() {
            beside(COMPRESSED)
        } else {
            plain
        };
        match read(&path, self.cap) {
            Ok(output) if output.is_blank() => {
                if beside(".empty").exists() {
                    return Ok(output);
                }
                Err(CollectError::FileEmpty {
                    path: path.display().to_string(),
                })
            }
            Ok(output) => Ok(output),
            Err(Unread::Missing) => match file::read_text(&beside(".error"), Kind::NOTE) {
                Ok(error) => Err(CollectError::Other(format!(
                    "not collected in the archived run: {}",
                    error.trim()
                ))),
                Err(_) => Err(CollectError::FileMissing {
                    path: path.display().to_string(),
                }),
            },
            Err(Unread::Error(e)) => Err(e),
        }
    }
}

enum Unread {
    Missing,
    Error(CollectError),
}

/// A saved output, plain or `.zst`.
fn read(path: &Path, cap: Megabytes) -> Result<Output, Unread> {
    spool::read_saved(path, cap).map_err(|e| match e {
        SavedError::File(e) if e.is_missing() => Unread::Missing,
        // A FIFO, a device: the message names the file and why it is not read.
        SavedError::File(e) => Unread::Error(CollectError::Other(e.to_string())),
        SavedError::Io(e) => Unread::Error(CollectError::FileUnreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
        exceeded @ SavedError::Exceeded { .. } => Unread::Error(CollectError::FileUnreadable {
            path: path.display().to_string(),
            reason: exceeded.to_string(),
        }),
    })
}

impl Offline {
    /// A saved output, or the device's own "no such command" answer saved in it, as the SSH
    /// driver would have judged it live.
    fn answer(&self, plan: &DevicePlan, command: &Command) -> Result<Output, CollectError> {
        let output = self.read(&plan.device.name, command)?;
        let refused = super::ssh::profile(plan.device.platform)
            .and_then(|p| p.error_in(output.head()))
            .filter(|(e, _)| e.unsupported)
            .map(|(e, said)| format!("`{}`: {said} ({})", command.text, e.advice));
        match refused {
            Some(message) => Err(CollectError::Unsupported(message)),
            None => Ok(output),
        }
    }
}

impl Collector for Offline {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        let reader = Offline {
            dir: self.dir.clone(),
            cap: self.cap,
        };
        let owned = plan.clone();
        Box::pin(async move {
            // Reading files blocks: off the async threads, as every file read is.
            let read = tokio::task::spawn_blocking(move || reader.read_all(&owned));
            match read.await {
                Ok(outputs) => outputs,
                Err(e) => Outputs::all_failed(
                    &plan.commands,
                    CollectError::Other(format!("reading the saved outputs failed: {e}")),
                ),
            }
        })
    }
}

impl Offline {
    /// Every planned output of one device: the saved identity output first, since the model
    /// says which other files to read.
    fn read_all(&self, plan: &DevicePlan) -> Outputs {
        let mut read: Vec<Option<Result<Output, CollectError>>> = vec![None; plan.commands.len()];
        for i in plan.identity_commands() {
            read[i] = Some(self.answer(plan, &plan.commands[i]));
        }
        let model = plan.model_from(|i| read[i].as_ref()?.as_ref().ok());
        let results = plan
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let result =
                    read[i]
                        .take()
                        .unwrap_or_else(|| match plan.withhold(i, model.as_ref()) {
                            Some(why) => Err(CollectError::NotApplicable(why)),
                            None => self.answer(plan, c),
                        });
                (c.clone(), result)
            })
            .collect();
        Outputs { results }
    }
}
