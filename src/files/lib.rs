#![doc = include_str!("README.md")]

use std::fmt;
use std::fs::{File, Metadata};
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use premarket_core::Megabytes;

pub mod os;
pub mod private;
pub mod write;

pub use write::{
    AtomicFile, append_line, ensure_dir, ensure_private_dir, open_lock, sync_dir, temp_dir,
    write_atomic, write_atomic_unsynced,
};

/// What a file is to premarket, and so the most of it premarket reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Kind {
    /// Named in messages: "known_hosts file /etc/... is ...".
    pub what: &'static str,
    /// Bytes; a larger file is refused.
    pub cap: u64,
}

impl Kind {
    /// `site.yaml`, a device baseline, a catalog file: written by hand, kilobytes each.
    pub const CONFIG: Kind = Kind::new("configuration file", 16 << 20);
    /// The site's known_hosts: a line of about 100 bytes per host key.
    pub const KNOWN_HOSTS: Kind = Kind::new("known_hosts file", 16 << 20);
    /// An SSH private key file (`ssh.key_file`): a few kilobytes.
    pub const KEY: Kind = Kind::new("key file", 64 << 10);
    /// An OpenSSH user certificate (`ssh.cert_file`): a few kilobytes.
    pub const SSH_CERTIFICATE: Kind = Kind::new("SSH certificate file", 64 << 10);
    /// The relay's CA certificates (`email.ca_file`), PEM.
    pub const CERTIFICATES: Kind = Kind::new("certificate file", 4 << 20);
    /// An archived run's `report.json`: about 20 KB for three devices, a few MB for hundreds.
    pub const REPORT: Kind = Kind::new("archived report", 64 << 20);
    /// An archived run's `facts/<device>.json`: counters and tables, tens of KB.
    pub const FACTS: Kind = Kind::new("archived facts file", 16 << 20);
    /// The archive's reference store: one file per device holding the readings its checks judge
    /// against (a configuration or two and their counters), and the log of acceptances.
    pub const REFERENCES: Kind = Kind::new("reference store file", 64 << 20);
    /// A message waiting in the outbox: the email as it would have been sent.
    pub const MESSAGE: Kind = Kind::new("kept message", 64 << 20);
    /// A few lines premarket wrote for itself: a run's sequence number, a `.error` note beside
    /// a saved output, an outbox envelope, a lock's holder.
    pub const NOTE: Kind = Kind::new("note", 1 << 20);
    /// The site's environment file (`environment_file:`): a few secrets, one a line.
    pub const ENVIRONMENT: Kind = Kind::new("environment file", 1 << 20);
    /// A packet capture (`probe analyze`, a probe device's `source:`): read as a stream, so it
    /// may be as large as the disk; it must still be a regular file.
    pub const CAPTURE: Kind = Kind::new("capture file", u64::MAX);

    pub const fn new(what: &'static str, cap: u64) -> Kind {
        Kind { what, cap }
    }

    /// A saved device output (`run --offline`, `premarket parse`, an archived raw output): at
    /// most the per-command cap the site sets for live outputs (`ssh.max_output_mb`).
    pub fn saved_output(cap: Megabytes) -> Kind {
        Kind::new("saved output", cap.bytes())
    }
}

/// A byte count as a person reads it: `64 KiB`, `16 MiB`, `1.5 GiB`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Size(pub u64);

impl fmt::Display for Size {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [(&str, u64); 3] = [("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)];
        for (unit, scale) in UNITS {
            if self.0 >= scale {
                let whole = self.0 / scale;
                let tenth = (self.0 % scale) * 10 / scale;
                return match tenth {
                    0 => write!(f, "{whole} {unit}"),
                    t => write!(f, "{whole}.{t} {unit}"),
                };
            }
        }
        write!(f, "{} bytes", self.0)
    }
}

/// Why a file was not read or written. Every message names the file.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("cannot read {what} {}: it does not exist", path.display())]
    Missing { what: &'static str, path: PathBuf },
    #[error(
        "{what} {} is {found}, not a regular file: premarket reads {} {what} only from a regular \
         file (a FIFO or a device could block the run or never end)",
        path.display(),
        article(what)
    )]
    NotRegular {
        what: &'static str,
        path: PathBuf,
        found: &'static str,
    },
    #[error(
        "{what} {} is {}, larger than the {} premarket reads of {} {what}",
        path.display(),
        size.map_or_else(|| format!("more than {}", Size(*cap)), |s| Size(s).to_string()),
        Size(*cap),
        article(what)
    )]
    TooLarge {
        what: &'static str,
        path: PathBuf,
        /// The size the file declares; `None` when it grew past the cap while being read.
        size: Option<u64>,
        cap: u64,
    },
    #[error("{what} {} is not UTF-8 text", path.display())]
    NotText { what: &'static str, path: PathBuf },
    #[error(
        "{} is a symbolic link: premarket does not write through a link it did not make; \
         remove it or name the real path",
        path.display()
    )]
    Link { path: PathBuf },
    #[error("{} is {found}, not a directory premarket can write into", path.display())]
    NotDirectory { path: PathBuf, found: &'static str },
    #[error(
        "{} belongs to another user (uid {owner}): premarket keeps its files only in a directory of its own",
        path.display()
    )]
    NotOwned { path: PathBuf, owner: u32 },
    #[error("cannot read {what} {}: {source}", path.display())]
    Read {
        what: &'static str,
        path: PathBuf,
        source: io::Error,
    },
    #[error("cannot write {}: {source}", path.display())]
    Write { path: PathBuf, source: io::Error },
}

/// "a" or "an" before a kind's name.
fn article(what: &str) -> &'static str {
    match what.chars().next() {
        Some('a' | 'e' | 'i' | 'o' | 'u') => "an",
        _ => "a",
    }
}

impl FileError {
    /// The file is not there (callers that read a missing file as empty ask this).
    pub fn is_missing(&self) -> bool {
        matches!(self, FileError::Missing { .. })
    }

    /// The error as an `io::Error` of the same meaning, for readers that speak `io`.
    pub fn into_io(self) -> io::Error {
        let kind = match &self {
            FileError::Missing { .. } => io::ErrorKind::NotFound,
            FileError::TooLarge { .. } => io::ErrorKind::FileTooLarge,
            FileError::NotText { .. } => io::ErrorKind::InvalidData,
            FileError::Read { source, .. } | FileError::Write { source, .. } => source.kind(),
            _ => io::ErrorKind::InvalidInput,
        };
        io::Error::new(kind, self)
    }
}

/// A regular file opened for reading, no larger than its kind's cap. Reading it stops with an
/// error at the cap, should the file grow (or be a file whose size says nothing).
#[derive(Debug)]
pub struct Opened {
    file: File,
    size: u64,
    left: u64,
    kind: Kind,
    path: PathBuf,
}

impl Opened {
    /// The size the file had when it was opened.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// The file itself, for a reader that is bounded by what it reads (a capture is read as a
    /// stream of records, whatever its size).
    pub fn into_file(self) -> File {
        self.file
    }
}

impl Read for Opened {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One byte past the cap is read to tell "exactly the cap" from "more".
        let room = self.left.saturating_add(1).min(buf.len() as u64) as usize;
        let n = self.file.read(&mut buf[..room])?;
        if n as u64 > self.left {
            return Err(FileError::TooLarge {
                what: self.kind.what,
                path: self.path.clone(),
                size: None,
                cap: self.kind.cap,
            }
            .into_io());
        }
        self.left -= n as u64;
        Ok(n)
    }
}

/// Opens `path` for reading as a `kind`: a regular file within the cap, or an error naming
/// the file and the cap. Never blocks: a FIFO is refused, not waited on.
pub fn open(path: &Path, kind: Kind) -> Result<Opened, FileError> {
    let read_error = |source: io::Error| match source.kind() {
        io::ErrorKind::NotFound => FileError::Missing {
            what: kind.what,
            path: path.to_path_buf(),
        },
        _ => FileError::Read {
            what: kind.what,
            path: path.to_path_buf(),
            source,
        },
    };
    // Refuse what is not a file before opening it (opening a device can do things)...
    check(path, kind, &std::fs::metadata(path).map_err(read_error)?)?;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY)
        .open(path)
        .map_err(read_error)?;
    // ... and again on what was opened, in case the path changed in between.
    let metadata = file.metadata().map_err(read_error)?;
    check(path, kind, &metadata)?;
    Ok(Opened {
        file,
        size: metadata.len(),
        left: kind.cap,
        kind,
        path: path.to_path_buf(),
    })
}

/// A regular file within the cap, else the error saying which rule it broke.
fn check(path: &Path, kind: Kind, metadata: &Metadata) -> Result<(), FileError> {
    if !metadata.is_file() {
        return Err(FileError::NotRegular {
            what: kind.what,
            path: path.to_path_buf(),
            found: describe(metadata),
        });
    }
    if metadata.len() > kind.cap {
        return Err(FileError::TooLarge {
            what: kind.what,
            path: path.to_path_buf(),
            size: Some(metadata.len()),
            cap: kind.cap,
        });
    }
    Ok(())
}

/// What a file that is not a regular file is, for messages.
pub(crate) fn describe(metadata: &Metadata) -> &'static str {
    let t = metadata.file_type();
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else if t.is_symlink() {
        "a symbolic link"
    } else {
        "a regular file"
    }
}

/// The whole of `path`, read as a `kind`.
pub fn read(path: &Path, kind: Kind) -> Result<Vec<u8>, FileError> {
    let mut opened = open(path, kind)?;
    let mut bytes = Vec::with_capacity(opened.size.min(kind.cap) as usize);
    opened
        .read_to_end(&mut bytes)
        .map_err(|e| unwrap(e, kind, path))?;
    Ok(bytes)
}

/// The whole of `path` as UTF-8 text, read as a `kind`.
pub fn read_text(path: &Path, kind: Kind) -> Result<String, FileError> {
    String::from_utf8(read(path, kind)?).map_err(|_| FileError::NotText {
        what: kind.what,
        path: path.to_path_buf(),
    })
}

/// The [`FileError`] inside an `io::Error` that [`Opened`] returned, or a read error.
fn unwrap(e: io::Error, kind: Kind, path: &Path) -> FileError {
    let read_error = |source| FileError::Read {
        what: kind.what,
        path: path.to_path_buf(),
        source,
    };
    if !e.get_ref().is_some_and(|inner| inner.is::<FileError>()) {
        return read_error(e);
    }
    match e.into_inner().map(|inner| inner.downcast::<FileError>()) {
        Some(Ok(inner)) => *inner,
        _ => read_error(io::Error::other("the read failed")),
    }
}

#[cfg(test)]
mod tests;
