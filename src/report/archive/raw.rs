//! A run's raw outputs as the archive keeps them: `raw/<device>/<file>.zst`, zstd-compressed
//! (`zstdcat` reads one; `run --offline <archive>/<run>/raw` replays the run from them), with
//! `<file>.empty` beside an output that was empty and `<file>.error` (plain text) for one that
//! was not collected.
//!
//! An output in memory was redacted when the report took it; a spooled one is redacted here,
//! piece by piece, as it streams from its spool into the archive, so neither is ever held
//! whole. Its compression runs on a worker thread (zstd's own), beside the redaction.

use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::Path;

use super::{ArchiveError, EMPTY_MARK};
use crate::DeviceOutputs;
use crate::redact::{self, Redactor};
use premarket_core::{Output, in_halves};
use premarket_spool::COMPRESSED;
use premarket_spool::for_each_piece;

/// Small outputs compress in one call at zstd's default level; a session list shrinks about
/// tenfold.
const LEVEL: i32 = 3;

/// A spooled output (hundreds of MB) at zstd's fastest level: as small as the default on a
/// session list (42 against 50 MB for 1.1 GB) and about half the CPU time.
const SPOOLED_LEVEL: i32 = 1;

/// Writes every device's outputs under `raw` (`raw/<device>/...`), the devices shared between
/// two threads ([`in_halves`]): compressing and creating files are most of the archive's time.
pub(super) fn write_all(
    raw: &Path,
    devices: &[&DeviceOutputs],
    redactor: &Redactor,
) -> Result<(), ArchiveError> {
    if devices.is_empty() {
        return Ok(());
    }
    let [first, second] = in_halves(devices.to_vec(), |half| write_some(raw, &half, redactor));
    first.and(second)
}

fn write_some(
    raw: &Path,
    devices: &[&DeviceOutputs],
    redactor: &Redactor,
) -> Result<(), ArchiveError> {
    let mut writer = RawWriter::new(redactor).map_err(|source| ArchiveError::Write {
        path: raw.to_path_buf(),
        source,
    })?;
    for device in devices {
        writer.under(raw, device)?;
    }
    Ok(())
}

/// Writes raw outputs, reusing one compression context for the many small ones.
pub(super) struct RawWriter<'r> {
    compressor: zstd::bulk::Compressor<'static>,
    redactor: &'r Redactor,
}

impl<'r> RawWriter<'r> {
    pub(super) fn new(redactor: &'r Redactor) -> io::Result<RawWriter<'r>> {
        Ok(RawWriter::with(Self::compressor()?, redactor))
    }

    /// A compression context for [`RawWriter::with`] (building one per device cost more than
    /// compressing its outputs).
    pub(super) fn compressor() -> io::Result<zstd::bulk::Compressor<'static>> {
        zstd::bulk::Compressor::new(LEVEL)
    }

    pub(super) fn with(
        compressor: zstd::bulk::Compressor<'static>,
        redactor: &'r Redactor,
    ) -> RawWriter<'r> {
        RawWriter {
            compressor,
            redactor,
        }
    }

    /// The compression context, for the next writer.
    pub(super) fn into_compressor(self) -> zstd::bulk::Compressor<'static> {
        self.compressor
    }

    /// Writes every output of `device` into `raw/<device>`.
    pub(super) fn under(&mut self, raw: &Path, device: &DeviceOutputs) -> Result<(), ArchiveError> {
        let dir = raw.join(super::file_safe(&device.device));
        fs::create_dir_all(&dir).map_err(|source| ArchiveError::Write {
            path: dir.clone(),
            source,
        })?;
        self.device(&dir, device)
            .map_err(|(path, source)| ArchiveError::Write { path, source })
    }

    /// Writes every output of `device` into `dir`; `Err` names the file that failed.
    fn device(
        &mut self,
        dir: &Path,
        device: &DeviceOutputs,
    ) -> Result<(), (std::path::PathBuf, io::Error)> {
        for (command, output) in &device.outputs {
            let name = command.file_name();
            let at = |file: String| dir.join(file);
            match output {
                Ok(output) => {
                    if output.is_blank() {
                        let marker = at(format!("{name}{EMPTY_MARK}"));
                        fs::write(&marker, b"").map_err(|e| (marker, e))?;
                    }
                    let path = at(format!("{name}{COMPRESSED}"));
                    self.output(&path, output, device).map_err(|e| (path, e))?;
                }
                Err(e) => {
                    let path = at(format!("{name}.error"));
                    fs::write(&path, format!("{command}: {e}\n")).map_err(|e| (path, e))?;
                }
            }
        }
        Ok(())
    }

    fn output(&mut self, path: &Path, output: &Output, device: &DeviceOutputs) -> io::Result<()> {
        match output {
            Output::Text(text) => {
                let compressed = self.compressor.compress(text.as_bytes())?;
                fs::write(path, compressed)
            }
            Output::Spooled(_) => {
                let file = BufWriter::with_capacity(256 << 10, File::create(path)?);
                let mut encoder = zstd::stream::write::Encoder::new(file, SPOOLED_LEVEL)?;
                // The second core compresses while this one reads and redacts.
                encoder.multithread(1)?;
                // The platform's rules piece by piece (pieces end at a line break), the known
                // secrets on one stream across them: a secret cut by a piece is still masked.
                let mut secrets = self.redactor.stream();
                let mut out = Vec::new();
                for_each_piece(output.reader()?, |piece| {
                    secrets.push(redact::rules(device.platform, piece).as_bytes(), &mut out);
                    encoder.write_all(&out)?;
                    out.clear();
                    Ok(())
                })?;
                secrets.finish(&mut out);
                encoder.write_all(&out)?;
                encoder.finish()?.flush()
            }
        }
    }
}
