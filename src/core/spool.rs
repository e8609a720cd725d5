//! An output kept on disk, as the stages see it: where the file is, whether it is compressed,
//! its size, a bounded head kept in memory for evidence and excerpts, and its text read from
//! the start.
//!
//! Core only names the thing, so that an [`Output`](super::Output) can be one. How a spool is
//! written and read (zstd, the run's spool directory, the per-command cap) is the
//! `premarket-spool` crate beside this one, which implements [`SpoolFile`].

use std::fmt;
use std::io::{self, BufRead};
use std::path::Path;
use std::sync::Arc;

/// The file behind a [`Spool`]: where it is and how its text is read.
pub trait SpoolFile: Send + Sync {
    fn path(&self) -> &Path;

    /// Whether the file is zstd-compressed.
    fn is_compressed(&self) -> bool;

    /// Bytes of text, when known.
    fn size(&self) -> Option<u64>;

    /// Whether premarket wrote this file for the run (and removes it), rather than reading a
    /// saved output where it lies.
    fn is_temporary(&self) -> bool;

    /// The text from its start, decompressed as it is read; an error past the cap.
    fn open(&self) -> io::Result<Box<dyn BufRead + Send>>;
}

/// A command's output on disk.
#[derive(Clone)]
pub struct Spool {
    file: Arc<dyn SpoolFile>,
    head: Arc<str>,
}

impl Spool {
    /// A spool of `file`, with the start of its text kept in memory.
    pub fn new(file: Arc<dyn SpoolFile>, head: impl Into<Arc<str>>) -> Spool {
        Spool {
            file,
            head: head.into(),
        }
    }

    pub fn path(&self) -> &Path {
        self.file.path()
    }

    /// Whether the file is zstd-compressed.
    pub fn is_compressed(&self) -> bool {
        self.file.is_compressed()
    }

    /// Bytes of text, when known.
    pub fn size(&self) -> Option<u64> {
        self.file.size()
    }

    /// The start of the output (whole lines, bounded: at most 64 kB).
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The same file with its head replaced (redacted for the report); the file is not.
    pub fn with_head(&self, head: String) -> Spool {
        Spool {
            file: self.file.clone(),
            head: head.into(),
        }
    }

    /// Whether premarket wrote this file for the run (and removes it), rather than reading a
    /// saved output where it lies.
    pub fn is_temporary(&self) -> bool {
        self.file.is_temporary()
    }

    /// The text from its start, decompressed as it is read; an error past the cap.
    pub fn open(&self) -> io::Result<Box<dyn BufRead + Send>> {
        self.file.open()
    }
}

impl PartialEq for Spool {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.file, &other.file) || self.path() == other.path()
    }
}

impl Eq for Spool {}

impl fmt::Debug for Spool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spool")
            .field("path", &self.path())
            .field("compressed", &self.is_compressed())
            .field("size", &self.size())
            .finish_non_exhaustive()
    }
}
