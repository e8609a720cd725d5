//! Where a spool's compressed bytes go as they are written, moving when a place fails: a file
//! in the run's spool directory under the archive, in the system's temporary directory, then
//! memory ([`super::dir`]). A write the disk refuses ("No space left on device") moves the
//! spool to the next place with the bytes it already held there, read back from its file, and
//! the output goes on arriving: a full archive disk never ends a device's session.
//!
//! A spool that ends in memory is held compressed (a session list shrinks about tenfold), and
//! its text is still bounded by the per-command cap like any other.

use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, Cursor, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::dir::{SpoolDir, Start};
use super::disk::{Capped, OnDisk};
use premarket_core::Megabytes;
use premarket_core::spool::{Spool, SpoolFile};

/// The compressed stream of one spool, wherever it is now.
pub(crate) struct Sink {
    dir: SpoolDir,
    place: Place,
}

enum Place {
    File {
        path: PathBuf,
        dir: Arc<tempfile::TempDir>,
        file: File,
        level: usize,
        /// Bytes the file took so far.
        written: u64,
    },
    Memory(Vec<u8>),
}

impl Sink {
    /// A new spool's stream, at the first place that can take it.
    pub(crate) fn new(dir: &SpoolDir) -> Result<Sink, super::SpoolError> {
        let place = Place::from(dir.start()?);
        Ok(Sink {
            dir: dir.clone(),
            place,
        })
    }

    /// The finished spool, read back through the cap.
    pub(crate) fn spool(self, head: String, size: u64, cap: Megabytes) -> Spool {
        match self.place {
            Place::File { path, dir, .. } => OnDisk {
                path,
                compressed: true,
                size: Some(size),
                cap,
                temporary: Some(dir),
            }
            .spool(head),
            Place::Memory(bytes) => Spool::new(
                Arc::new(InMemory {
                    label: PathBuf::from(format!("(in memory: {} bytes compressed)", bytes.len())),
                    bytes: bytes.into(),
                    size,
                    cap,
                }),
                head,
            ),
        }
    }

    /// The place failed with `error`: the spool moves on with what it held there.
    fn move_on(&mut self, error: io::Error) -> io::Result<()> {
        let Place::File {
            path,
            level,
            written,
            ..
        } = &self.place
        else {
            return Err(error);
        };
        self.dir.failed(*level, &error);
        let held = File::open(path)?.take(*written);
        let next = Place::from(self.dir.start().map_err(io::Error::other)?);
        let old = std::mem::replace(&mut self.place, next);
        // Copied through `write`, so a next place that fails too moves the spool once more.
        io::copy(&mut BufReader::new(held), self)?;
        if let Place::File { path, .. } = old {
            let _ = fs::remove_file(path);
        }
        Ok(())
    }
}

impl From<Start> for Place {
    fn from(start: Start) -> Place {
        match start {
            Start::File {
                path,
                dir,
                file,
                level,
            } => Place::File {
                path,
                dir,
                file,
                level,
                written: 0,
            },
            Start::Memory => Place::Memory(Vec::new()),
        }
    }
}

impl Write for Sink {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            match &mut self.place {
                Place::Memory(held) => {
                    held.extend_from_slice(buf);
                    return Ok(buf.len());
                }
                Place::File { file, written, .. } => match file.write(buf) {
                    Ok(n) => {
                        *written += n as u64;
                        return Ok(n);
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => self.move_on(e)?,
                },
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// A spool held in memory, compressed: what a run spools when no disk would take it.
struct InMemory {
    /// What the spool's path says (it has none).
    label: PathBuf,
    bytes: Arc<[u8]>,
    size: u64,
    cap: Megabytes,
}

impl SpoolFile for InMemory {
    fn path(&self) -> &Path {
        &self.label
    }

    fn is_compressed(&self) -> bool {
        true
    }

    fn size(&self) -> Option<u64> {
        Some(self.size)
    }

    fn is_temporary(&self) -> bool {
        true
    }

    fn open(&self) -> io::Result<Box<dyn BufRead + Send>> {
        let text = zstd::stream::read::Decoder::new(Cursor::new(self.bytes.clone()))?;
        Ok(Box::new(BufReader::with_capacity(
            64 << 10,
            Capped::new(text, self.cap),
        )))
    }
}
