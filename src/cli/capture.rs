//! `premarket capture --device D --out DIR`: save every planned command's raw output in the
//! offline layout `DIR/<device>/<Command::file_name()>`, so the run can be judged later with
//! `premarket run --offline DIR` or kept as test fixtures.
//!
//! Each file starts with the line as typed at the device (`sw1#show running-config diffs`),
//! then the output: an empty output still gives a non-empty file, and a reader can see which
//! prompt (privileged or not, which VDOM) the command ran at. A capture is written down like
//! the archive: with the platform's redaction (EOS `secret`/`password` lines, FortiOS `ENC`
//! blobs) on top of the session's own removal of the device's login secrets.

use std::path::{Path, PathBuf};

use futures::StreamExt;

use super::{SelectArgs, Stop, load};
use crate::collect::ssh::{collect, settings};
use crate::core::{Command, Platform};
use crate::plan::Plan;
use crate::platform;
use crate::ssh::Captured;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Directory to write DIR/<device>/<file> into (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let config = load(dir)?;
    let plan = Plan::new(&config, &args.select.selection())?;
    let settings = settings(&config);
    let concurrency = config.site.ssh.concurrency.max(1);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Stop {
        code: crate::core::Exit::Error.code(),
        message: format!("cannot start: {e}"),
    })?;
    let devices = runtime.block_on(
        futures::stream::iter(plan.devices.iter())
            .map(|d| {
                let settings = &settings;
                async move { (d, collect(&d.device, &d.commands, settings).await) }
            })
            .buffered(concurrency)
            .collect::<Vec<_>>(),
    );
    let mut failed = 0;
    for (device, results) in devices {
        let folder = args.out.join(&device.device.name);
        std::fs::create_dir_all(&folder).map_err(|e| Stop {
            code: crate::core::Exit::Error.code(),
            message: format!("cannot create {}: {e}", folder.display()),
        })?;
        for (command, result) in results {
            match result {
                Ok(captured) => {
                    let path = folder.join(command.file_name());
                    write(&path, device.device.platform, &command, &captured).map_err(|e| {
                        Stop {
                            code: crate::core::Exit::Error.code(),
                            message: format!("cannot write {}: {e}", path.display()),
                        }
                    })?;
                    println!("{}  {}  -> {}", device.device.name, command, path.display());
                }
                Err(e) => {
                    failed += 1;
                    println!("{}  {}  ERROR {e}", device.device.name, command);
                }
            }
        }
    }
    Ok(if failed == 0 {
        0
    } else {
        crate::core::Exit::Error.code()
    })
}

/// The typed line, then the output, redacted piece by piece (a large one is never held whole).
fn write(
    path: &Path,
    platform: Platform,
    command: &Command,
    captured: &Captured,
) -> std::io::Result<()> {
    use std::io::Write;
    let mut file = std::io::BufWriter::new(std::fs::File::create(path)?);
    let typed = format!("{}{}\n", captured.prompt, command.text);
    file.write_all(platform::redact(platform, &typed).as_bytes())?;
    crate::spool::for_each_piece(captured.output.reader()?, |piece| {
        file.write_all(platform::redact(platform, piece).as_bytes())
    })?;
    file.flush()
}
