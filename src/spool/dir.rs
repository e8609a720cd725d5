//! Where a run's spools go, in order of preference: a private directory under the archive (so
//! that a spool is next to where it is copied), the system's temporary directory, then memory.
//! Each directory is created on first use, named so that the archive's leftover cleaning finds
//! one a killed run left behind, and removed with everything in it when the last handle goes.
//!
//! The inspection never depends on the archive: when a place cannot take a spool (its disk is
//! full, it is read-only, gone), the spool being written moves to the next place with what it
//! held ([`super::sink`]), every later spool of the run starts there, and the move is kept as
//! a [`Fallback`] for the report to say.

use std::fmt;
use std::fs::{self, File};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::disk::SpoolError;

/// Name of a spool directory: `.tmp-` + this + random + `-<pid>`, so that the archive's
/// leftover cleaning removes one a killed run left behind.
const DIR_PREFIX: &str = ".tmp-spool-";

/// The places, by preference: under the parent, the system's temporary directory, memory.
pub(crate) const UNDER_PARENT: usize = 0;
pub(crate) const TEMPORARY: usize = 1;
pub(crate) const MEMORY: usize = 2;

/// A place that could not take a spool, and where spools went instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fallback {
    /// The directory that failed.
    pub left: PathBuf,
    /// Why, as the system said it.
    pub error: String,
    /// The disk was full (ENOSPC, or a quota).
    pub full: bool,
    /// Where spools go now; `None`: memory.
    pub to: Option<PathBuf>,
}

/// Where a run's spools go: created on first use, removed with everything in it when the last
/// handle (the run's, or a spool's) goes.
#[derive(Clone, Default)]
pub struct SpoolDir {
    inner: Arc<DirState>,
}

#[derive(Default)]
struct DirState {
    /// Spools go under here first (the archive, so that a spool can be moved into a run).
    parent: Option<PathBuf>,
    /// The directory of each place on disk, once made.
    dirs: [OnceLock<Result<Arc<tempfile::TempDir>, io::Error>>; 2],
    /// The first place still usable ([`UNDER_PARENT`], [`TEMPORARY`], [`MEMORY`]).
    level: AtomicUsize,
    next: AtomicU64,
    fallbacks: Mutex<Vec<Fallback>>,
}

impl fmt::Debug for SpoolDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.path() {
            Some(path) => write!(f, "SpoolDir({})", path.display()),
            None => write!(f, "SpoolDir(not created)"),
        }
    }
}

/// Where a new spool starts: a file in a place's directory, or memory.
pub(crate) enum Start {
    File {
        path: PathBuf,
        dir: Arc<tempfile::TempDir>,
        file: File,
        level: usize,
    },
    Memory,
}

impl SpoolDir {
    /// Spools in the system's temporary directory (then memory).
    pub fn temporary() -> SpoolDir {
        SpoolDir {
            inner: Arc::new(DirState {
                level: AtomicUsize::new(TEMPORARY),
                ..DirState::default()
            }),
        }
    }

    /// Spools in a hidden directory under `parent` (then the system's temporary directory,
    /// then memory, as each place fails).
    pub fn under(parent: impl Into<PathBuf>) -> SpoolDir {
        SpoolDir {
            inner: Arc::new(DirState {
                parent: Some(parent.into()),
                ..DirState::default()
            }),
        }
    }

    /// The directory spools go to now, once one was written there.
    pub fn path(&self) -> Option<PathBuf> {
        let level = self.inner.level.load(Ordering::Relaxed);
        match self.inner.dirs.get(level)?.get() {
            Some(Ok(dir)) => Some(dir.path().to_path_buf()),
            _ => None,
        }
    }

    /// Every place that failed this run, in order, with where spools went instead.
    pub fn fallbacks(&self) -> Vec<Fallback> {
        self.fallbacks_lock().clone()
    }

    fn fallbacks_lock(&self) -> std::sync::MutexGuard<'_, Vec<Fallback>> {
        // Each change is one push: a panic elsewhere cannot leave the list half-changed.
        self.inner
            .fallbacks
            .lock()
            .unwrap_or_else(|p| p.into_inner())
    }

    /// The directory of the place `level`, made on first use.
    fn dir(&self, level: usize) -> Result<Arc<tempfile::TempDir>, io::Error> {
        let made = self.inner.dirs[level].get_or_init(|| {
            let suffix = format!("-{}", std::process::id());
            let mut builder = tempfile::Builder::new();
            builder.prefix(DIR_PREFIX).suffix(&suffix).rand_bytes(8);
            match (level, &self.inner.parent) {
                (UNDER_PARENT, Some(parent)) => {
                    fs::create_dir_all(parent)?;
                    builder.tempdir_in(parent).map(Arc::new)
                }
                (UNDER_PARENT, None) => Err(io::Error::other("no directory to spool under")),
                _ => builder.tempdir().map(Arc::new),
            }
        });
        match made {
            Ok(dir) => Ok(dir.clone()),
            Err(e) => Err(io::Error::new(e.kind(), e.to_string())),
        }
    }

    /// Where a new spool starts: the first place that can make a file for it.
    pub(crate) fn start(&self) -> Result<Start, SpoolError> {
        loop {
            let level = self.inner.level.load(Ordering::Relaxed);
            if level >= MEMORY {
                return Ok(Start::Memory);
            }
            let made = self.dir(level).and_then(|dir| {
                let n = self.inner.next.fetch_add(1, Ordering::Relaxed);
                let path = dir.path().join(format!("{n}.zst"));
                let file = create_private(&path)?;
                Ok(Start::File {
                    path,
                    dir,
                    file,
                    level,
                })
            });
            match made {
                Ok(start) => return Ok(start),
                Err(e) => self.failed(level, &e),
            }
        }
    }

    /// The place `level` could not take a spool: later spools start at the next one, and the
    /// move is kept (once per place) for the report.
    pub(crate) fn failed(&self, level: usize, error: &io::Error) {
        let before = self.inner.level.fetch_max(level + 1, Ordering::Relaxed);
        if before > level {
            return;
        }
        let left = match (level, &self.inner.parent) {
            (UNDER_PARENT, Some(parent)) => parent.clone(),
            _ => std::env::temp_dir(),
        };
        let to = (level + 1 < MEMORY).then(std::env::temp_dir);
        self.fallbacks_lock().push(Fallback {
            left,
            error: error.to_string(),
            full: is_full(error),
            to,
        });
    }
}

/// Whether `error` says the disk (or the user's quota on it) is full.
fn is_full(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::StorageFull | io::ErrorKind::QuotaExceeded
    )
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
