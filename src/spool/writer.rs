//! One output as it arrives from a device: in memory up to [`IN_MEMORY`] bytes, then a
//! zstd-compressed spool in the run's [`SpoolDir`] (a file, or memory when no disk takes it:
//! [`Sink`]), refusing to grow past the per-command cap.

use std::io::{self, BufWriter, Write};
use std::sync::Arc;

use super::dir::SpoolDir;
use super::disk::{IN_MEMORY, SpoolError, head_of};
use super::sink::Sink;
use premarket_core::{Megabytes, Output};

/// Spools are compressed for speed, not size: a session list still shrinks about tenfold.
const SPOOL_LEVEL: i32 = 1;
/// Receives one output as it arrives: memory first, a compressed file past [`IN_MEMORY`].
pub struct SpoolWriter {
    dir: SpoolDir,
    cap: Megabytes,
    memory: Vec<u8>,
    file: Option<Spilled>,
    size: u64,
}

struct Spilled {
    head: String,
    encoder: zstd::stream::write::Encoder<'static, BufWriter<Sink>>,
}

impl SpoolWriter {
    pub fn new(dir: &SpoolDir, cap: Megabytes) -> SpoolWriter {
        SpoolWriter {
            dir: dir.clone(),
            cap,
            memory: Vec::new(),
            file: None,
            size: 0,
        }
    }

    /// Bytes written so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends `bytes`; past the cap nothing more is taken.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), SpoolError> {
        self.size += bytes.len() as u64;
        if self.size > self.cap.bytes() {
            return Err(SpoolError::Exceeded(self.cap));
        }
        match &mut self.file {
            Some(spilled) => spilled
                .encoder
                .write_all(bytes)
                .map_err(|e| SpoolError::Io(e.to_string())),
            None => {
                self.memory.extend_from_slice(bytes);
                if self.memory.len() > IN_MEMORY {
                    self.spill()?;
                }
                Ok(())
            }
        }
    }

    fn spill(&mut self) -> Result<(), SpoolError> {
        let sink = Sink::new(&self.dir)?;
        let io = |e: io::Error| SpoolError::Io(e.to_string());
        let mut encoder = zstd::stream::write::Encoder::new(
            BufWriter::with_capacity(256 << 10, sink),
            SPOOL_LEVEL,
        )
        .map_err(io)?;
        encoder.write_all(&self.memory).map_err(io)?;
        let head = head_of(&self.memory);
        self.memory = Vec::new();
        self.file = Some(Spilled { head, encoder });
        Ok(())
    }

    /// The output: text when it stayed small, else the finished spool.
    pub fn finish(mut self) -> Result<Output, SpoolError> {
        let Some(spilled) = self.file.take() else {
            // Kept until the run ends in an allocation of its own size: without the room the
            // buffer grew into (up to twice the output), a thousand devices' outputs held a
            // hundred MB more.
            let text: Arc<str> = match std::str::from_utf8(&self.memory) {
                Ok(text) => text.into(),
                Err(_) => String::from_utf8_lossy(&self.memory).into(),
            };
            return Ok(Output::Text(text));
        };
        let io = |e: io::Error| SpoolError::Io(e.to_string());
        let out = spilled.encoder.finish().map_err(io)?;
        let sink = out.into_inner().map_err(|e| io(e.into_error()))?;
        Ok(Output::Spooled(sink.spool(
            spilled.head,
            self.size,
            self.cap,
        )))
    }
}
