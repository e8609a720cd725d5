//! A spool's file on disk and what of an output stays in memory: the [`SpoolFile`]
//! premarket-core's [`Spool`] reads through (decompressing as it goes, stopping at the cap),
//! removed with its last handle when premarket wrote it, and the bounded head kept beside it.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use premarket_core::Megabytes;
use premarket_core::spool::{Spool, SpoolFile};
use premarket_files::{FileError, Kind};

/// Outputs up to this size stay in memory (every ordinary command's output does).
pub const IN_MEMORY: usize = 1 << 20;
/// The start of a spooled output kept in memory, cut at a line end: evidence and excerpts.
pub const HEAD: usize = 64 << 10;

/// Why an output could not be written or read whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpoolError {
    #[error("output exceeded {0}")]
    Exceeded(Megabytes),
    #[error("cannot spool the output to disk: {0}")]
    Io(String),
}

/// A spool's file: what premarket-core's [`Spool`] reads through.
pub(crate) struct OnDisk {
    pub(crate) path: PathBuf,
    pub(crate) compressed: bool,
    /// Bytes of text, when known (a `.zst` written without its size does not say).
    pub(crate) size: Option<u64>,
    /// Reading stops with an error past this many bytes.
    pub(crate) cap: Megabytes,
    /// Set for a file premarket wrote: it is removed when the last handle goes, and its
    /// directory lives as long as it does. A saved output is never removed.
    pub(crate) temporary: Option<Arc<tempfile::TempDir>>,
}

impl Drop for OnDisk {
    fn drop(&mut self) {
        if self.temporary.is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl SpoolFile for OnDisk {
    fn path(&self) -> &Path {
        &self.path
    }

    fn is_compressed(&self) -> bool {
        self.compressed
    }

    fn size(&self) -> Option<u64> {
        self.size
    }

    fn is_temporary(&self) -> bool {
        self.temporary.is_some()
    }

    /// The text from its start, decompressed as it is read; an error past the cap.
    fn open(&self) -> io::Result<Box<dyn BufRead + Send>> {
        // A saved output is opened by the same rules as the first time (the path may have
        // become a FIFO since); a spool premarket wrote is its own.
        let file: Box<dyn Read + Send> = match self.temporary {
            Some(_) => Box::new(File::open(&self.path)?),
            None => Box::new(
                premarket_files::open(&self.path, Kind::saved_output(self.cap))
                    .map_err(FileError::into_io)?,
            ),
        };
        let text: Box<dyn Read + Send> = if self.compressed {
            Box::new(zstd::stream::read::Decoder::new(file)?)
        } else {
            Box::new(file)
        };
        Ok(Box::new(BufReader::with_capacity(
            64 << 10,
            Capped::new(text, self.cap),
        )))
    }
}

impl OnDisk {
    /// The spool of this file, with the head kept in memory.
    pub(crate) fn spool(self, head: String) -> Spool {
        Spool::new(Arc::new(self), head)
    }
}

/// A reader that fails once more than the cap has been read.
pub(crate) struct Capped<R> {
    inner: R,
    left: u64,
    cap: Megabytes,
}

impl<R> Capped<R> {
    pub(crate) fn new(inner: R, cap: Megabytes) -> Capped<R> {
        Capped {
            inner,
            left: cap.bytes(),
            cap,
        }
    }
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(n)
            }
            None => Err(io::Error::other(SpoolError::Exceeded(self.cap).to_string())),
        }
    }
}

/// The first [`HEAD`] bytes of `text`, cut after the last whole line in them.
pub(crate) fn head_of(text: &[u8]) -> String {
    let start = &text[..text.len().min(HEAD)];
    let cut = match memchr::memrchr(b'\n', start) {
        Some(i) if text.len() > HEAD => i + 1,
        _ => start.len(),
    };
    String::from_utf8_lossy(&start[..cut]).into_owned()
}
