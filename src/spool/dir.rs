//! Where a run's spools go: a private directory created on first use (under the archive, so
//! that a spool can be moved into a run, or the system's temporary directory), named so that
//! the archive's leftover cleaning finds one a killed run left behind, and removed with
//! everything in it when the last handle goes.

use std::fmt;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::disk::SpoolError;

/// Name of a spool directory: `.tmp-` + this + random + `-<pid>`, so that the archive's
/// leftover cleaning removes one a killed run left behind.
const DIR_PREFIX: &str = ".tmp-spool-";

/// Where a run's spools go: created on first use, removed with everything in it when the last
/// handle (the run's, or a spool's) goes.
#[derive(Clone, Default)]
pub struct SpoolDir {
    inner: Arc<DirState>,
}

#[derive(Default)]
struct DirState {
    /// Create the directory here (the archive, so that a spool can be moved into a run); the
    /// system's temporary directory when absent or not writable.
    parent: Option<PathBuf>,
    dir: OnceLock<Result<Arc<tempfile::TempDir>, String>>,
    next: AtomicU64,
}

impl fmt::Debug for SpoolDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner.dir.get() {
            Some(Ok(dir)) => write!(f, "SpoolDir({})", dir.path().display()),
            _ => write!(f, "SpoolDir(not created)"),
        }
    }
}

impl SpoolDir {
    /// Spools in the system's temporary directory.
    pub fn temporary() -> SpoolDir {
        SpoolDir::default()
    }

    /// Spools in a hidden directory under `parent` (falling back to the system's temporary
    /// directory when `parent` cannot take one).
    pub fn under(parent: impl Into<PathBuf>) -> SpoolDir {
        SpoolDir {
            inner: Arc::new(DirState {
                parent: Some(parent.into()),
                ..DirState::default()
            }),
        }
    }

    /// The directory, once a spool was written.
    pub fn path(&self) -> Option<PathBuf> {
        match self.inner.dir.get() {
            Some(Ok(dir)) => Some(dir.path().to_path_buf()),
            _ => None,
        }
    }

    fn dir(&self) -> Result<Arc<tempfile::TempDir>, SpoolError> {
        let made = self.inner.dir.get_or_init(|| {
            let suffix = format!("-{}", std::process::id());
            let builder = || {
                let mut b = tempfile::Builder::new();
                b.prefix(DIR_PREFIX).suffix(&suffix).rand_bytes(8);
                b
            };
            let in_parent = self.inner.parent.as_ref().and_then(|p| {
                fs::create_dir_all(p).ok()?;
                builder().tempdir_in(p).ok()
            });
            match in_parent {
                Some(dir) => Ok(Arc::new(dir)),
                None => builder()
                    .tempdir()
                    .map(Arc::new)
                    .map_err(|e| format!("cannot create a spool directory: {e}")),
            }
        });
        made.clone().map_err(SpoolError::Io)
    }

    /// A new file for one output.
    pub(crate) fn create(&self) -> Result<(PathBuf, Arc<tempfile::TempDir>, File), SpoolError> {
        let dir = self.dir()?;
        let n = self.inner.next.fetch_add(1, Ordering::Relaxed);
        let path = dir.path().join(format!("{n}.zst"));
        let file = create_private(&path).map_err(|e| SpoolError::Io(e.to_string()))?;
        Ok((path, dir, file))
    }
}

/// A file only its owner reads: it holds device output.
fn create_private(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}
