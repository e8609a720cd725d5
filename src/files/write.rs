//! Writing files without following a link someone else planted.
//!
//! A file is replaced through [`AtomicFile`] (or [`write_atomic`]): a temporary file with a
//! random name, created exclusively (`O_CREAT|O_EXCL`, which never follows a link) in the
//! target's own directory, written, flushed to disk, then renamed over the target. A reader sees
//! the old file or the new one, never half of one, and a link planted at a guessable temporary
//! name cannot redirect the write. A link at the target itself is refused, not replaced: the
//! caller named that path, and writing elsewhere would surprise them as much as overwriting it.
//!
//! A lock file is opened with `O_NOFOLLOW` ([`open_lock`]) and must be a regular file; a
//! directory premarket fills (the outbox, a capture's device folder, the demo's home) must be a
//! directory and not a link ([`ensure_dir`], [`ensure_private_dir`]).

use std::fs::{self, File, Permissions};
use std::io::{self, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};

use super::{FileError, describe};

/// A file being written in place of `path`; nothing changes at `path` until [`commit`].
///
/// [`commit`]: AtomicFile::commit
pub struct AtomicFile {
    temp: tempfile::NamedTempFile,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts replacing `path`. Refuses when `path` is a symbolic link.
    pub fn create(path: &Path) -> Result<AtomicFile, FileError> {
        refuse_link(path)?;
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".tmp-{name}-");
        // What File::create would give (0666 less the umask): node_exporter reads the metrics
        // file as another user.
        let temp = tempfile::Builder::new()
            .prefix(&prefix)
            .permissions(Permissions::from_mode(0o666))
            .tempfile_in(directory_of(path))
            .map_err(|source| FileError::Write {
                path: path.to_path_buf(),
                source,
            })?;
        Ok(AtomicFile {
            temp,
            path: path.to_path_buf(),
        })
    }

    /// Flushes the new contents to disk and renames them over the target.
    pub fn commit(self) -> Result<(), FileError> {
        self.finish(true)
    }

    /// Renames the new contents over the target without waiting for the disk: readers still see
    /// the old file or the new one, never half of one. For files written by the hundred in a
    /// run that flushes the file system once at its end ([`crate::os::sync_file_system`]).
    pub fn commit_unsynced(self) -> Result<(), FileError> {
        self.finish(false)
    }

    fn finish(mut self, sync: bool) -> Result<(), FileError> {
        let write_error = |source| FileError::Write {
            path: self.path.clone(),
            source,
        };
        self.temp.flush().map_err(write_error)?;
        if sync {
            self.temp.as_file().sync_all().map_err(write_error)?;
        }
        // A link planted while the file was written is refused too (the rename would only
        // replace it, but the caller named that path for a reason).
        refuse_link(&self.path)?;
        let path = self.path.clone();
        self.temp.persist(&path).map_err(|e| FileError::Write {
            path: path.clone(),
            source: e.error,
        })?;
        if sync {
            sync_dir(directory_of(&path));
        }
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.temp.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.temp.flush()
    }
}

/// Replaces `path` with `bytes` atomically ([`AtomicFile`]).
pub fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    written(path, bytes)?.commit()
}

/// [`write_atomic`] without waiting for the disk ([`AtomicFile::commit_unsynced`]).
pub fn write_atomic_unsynced(path: &Path, bytes: &[u8]) -> Result<(), FileError> {
    written(path, bytes)?.commit_unsynced()
}

/// `bytes` written in place of `path`, not committed yet.
fn written(path: &Path, bytes: &[u8]) -> Result<AtomicFile, FileError> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes).map_err(|source| FileError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    Ok(file)
}

/// Appends `line` and a newline to the log `path` (created when missing) in one write, so
/// that two writers never interleave within a line. A link at `path` is refused, and so is
/// anything but a regular file.
pub fn append_line(path: &Path, line: &str) -> Result<(), FileError> {
    let mut file = open_regular(
        path,
        fs::OpenOptions::new().append(true).create(true),
        "log",
    )?;
    let write_error = |source| FileError::Write {
        path: path.to_path_buf(),
        source,
    };
    file.write_all(format!("{line}\n").as_bytes())
        .map_err(write_error)?;
    file.sync_all().map_err(write_error)
}

/// Opens (creating it if needed) the lock file `path` for reading and writing. A link at
/// `path` is refused (`O_NOFOLLOW`), and so is anything but a regular file.
pub fn open_lock(path: &Path) -> Result<File, FileError> {
    let mut options = fs::OpenOptions::new();
    options.read(true).write(true).create(true).truncate(false);
    open_regular(path, &mut options, "lock file")
}

/// Opens `path` as `options` say, never through a link (`O_NOFOLLOW`) and never blocking on a
/// FIFO; anything but a regular file is refused, named as `what`.
fn open_regular(
    path: &Path,
    options: &mut fs::OpenOptions,
    what: &'static str,
) -> Result<File, FileError> {
    let file = options
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK | libc::O_NOCTTY | libc::O_CLOEXEC)
        .open(path)
        .map_err(|source| match source.raw_os_error() {
            Some(libc::ELOOP) => FileError::Link {
                path: path.to_path_buf(),
            },
            _ => FileError::Write {
                path: path.to_path_buf(),
                source,
            },
        })?;
    let metadata = file.metadata().map_err(|source| FileError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    if !metadata.is_file() {
        return Err(FileError::NotRegular {
            what,
            path: path.to_path_buf(),
            found: describe(&metadata),
        });
    }
    Ok(file)
}

/// Makes sure `path` is a directory premarket may write into: created when missing (with its
/// parents), refused when it is a link or not a directory.
pub fn ensure_dir(path: &Path) -> Result<(), FileError> {
    make_dir(path, 0o777)?;
    is_real_dir(path).map(|_| ())
}

/// Like [`ensure_dir`], for a directory that holds only this user's files (the demo's home):
/// created readable by its owner only, and refused when another user owns it.
pub fn ensure_private_dir(path: &Path) -> Result<(), FileError> {
    make_dir(path, 0o700)?;
    let metadata = is_real_dir(path)?;
    let me = crate::os::uid();
    if metadata.uid() != me {
        return Err(FileError::NotOwned {
            path: path.to_path_buf(),
            owner: metadata.uid(),
        });
    }
    Ok(())
}

/// Creates `path` (mode `mode` less the umask) and its parents; one that exists is left as is.
fn make_dir(path: &Path, mode: u32) -> Result<(), FileError> {
    let write_error = |source| FileError::Write {
        path: path.to_path_buf(),
        source,
    };
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        fs::create_dir_all(parent).map_err(write_error)?;
    }
    match fs::DirBuilder::new().mode(mode).create(path) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(write_error(e)),
    }
}

/// The metadata of `path` itself, when it is a directory and not a link to one.
fn is_real_dir(path: &Path) -> Result<fs::Metadata, FileError> {
    let metadata = fs::symlink_metadata(path).map_err(|source| FileError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    if metadata.file_type().is_symlink() {
        return Err(FileError::Link {
            path: path.to_path_buf(),
        });
    }
    if !metadata.is_dir() {
        return Err(FileError::NotDirectory {
            path: path.to_path_buf(),
            found: describe(&metadata),
        });
    }
    Ok(metadata)
}

/// A new directory in `dir` with a random name between `prefix` and `suffix`, created
/// exclusively; removed when dropped unless kept (`TempDir::keep`).
pub fn temp_dir(dir: &Path, prefix: &str, suffix: &str) -> Result<tempfile::TempDir, FileError> {
    tempfile::Builder::new()
        .prefix(prefix)
        .suffix(suffix)
        .tempdir_in(dir)
        .map_err(|source| FileError::Write {
            path: dir.join(format!("{prefix}*{suffix}")),
            source,
        })
}

/// Refuses a symbolic link at `path`; anything else (or nothing) is fine.
fn refuse_link(path: &Path) -> Result<(), FileError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => Err(FileError::Link {
            path: path.to_path_buf(),
        }),
        _ => Ok(()),
    }
}

/// The directory a file named `path` is in (`.` for a bare name).
fn directory_of(path: &Path) -> &Path {
    match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    }
}

/// Makes a rename in `dir` durable (best effort: some file systems refuse to sync a directory).
pub fn sync_dir(dir: &Path) {
    if let Ok(d) = File::open(dir) {
        let _ = d.sync_all();
    }
}
