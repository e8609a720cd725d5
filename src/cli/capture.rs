//! `premarket capture --device D --out DIR`: save every planned command's raw output in the
//! offline layout `DIR/<device>/<Command::file_name()>`, so the run can be judged later with
//! `premarket run --offline DIR` or kept as test fixtures.
//!
//! Each file starts with the line as typed at the device (`sw1#show running-config diffs`),
//! then the output: an empty output still gives a non-empty file, and a reader can see which
//! prompt (privileged or not, which VDOM) the command ran at. A capture is written down like
//! the archive: with the platform's redaction (EOS `secret`/`password` lines, FortiOS `ENC`
//! blobs) and every secret of the configuration masked, on top of the session's own removal of
//! the device's login secrets. Nothing is written through a link: a device folder or a file
//! that is a link is refused.

use std::path::{Path, PathBuf};

use futures::StreamExt;

use super::{SelectArgs, Stop, load};
use crate::collect::ssh::{collect, settings};
use crate::core::{Command, Platform};
use crate::files::{self as file, AtomicFile, FileError};
use crate::plan::Plan;
use crate::report::redact::{self, Redactor};
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
    let redactor = redact::from_config(&config);
    let mut failed = 0;
    for (device, results) in devices {
        let folder = args.out.join(&device.device.name);
        // Never into a link planted as the device's folder.
        file::ensure_dir(&folder).map_err(|e| Stop {
            code: crate::core::Exit::Error.code(),
            message: e.to_string(),
        })?;
        for (command, result) in results {
            match result {
                Ok(captured) => {
                    let path = folder.join(command.file_name());
                    let platform = device.device.platform;
                    write(&path, platform, &command, &captured, &redactor).map_err(|e| Stop {
                        code: crate::core::Exit::Error.code(),
                        message: e.to_string(),
                    })?;
                    outln!("{}  {}  -> {}", device.device.name, command, path.display());
                }
                Err(e) => {
                    failed += 1;
                    let e = redactor.literals(&e.to_string());
                    outln!("{}  {}  ERROR {e}", device.device.name, command);
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

/// The typed line, then the output, redacted piece by piece (a large one is never held whole):
/// the platform's rules on each piece, the secrets on one stream across them; into a new file
/// renamed over `path` once complete ([`AtomicFile`]): a link planted at `path` is refused,
/// never written through.
fn write(
    path: &Path,
    platform: Platform,
    command: &Command,
    captured: &Captured,
    redactor: &Redactor,
) -> Result<(), FileError> {
    use std::io::Write;
    let failed = |source| FileError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut file = std::io::BufWriter::new(AtomicFile::create(path)?);
    let typed = format!("{}{}\n", captured.prompt, command.text);
    file.write_all(redact::device_text(redactor, platform, &typed).as_bytes())
        .map_err(failed)?;
    let mut secrets = redactor.stream();
    let mut out = Vec::new();
    let reader = captured.output.reader().map_err(failed)?;
    crate::spool::for_each_piece(reader, |piece| {
        secrets.push(redact::rules(platform, piece).as_bytes(), &mut out);
        file.write_all(&out)?;
        out.clear();
        Ok(())
    })
    .map_err(failed)?;
    secrets.finish(&mut out);
    file.write_all(&out).map_err(failed)?;
    file.into_inner()
        .map_err(|e| failed(e.into_error()))?
        .commit()
}
