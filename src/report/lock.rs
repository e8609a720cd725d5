//! One full run at a time per archive. A full run holds an exclusive lock on
//! `<archive>/.run.lock` (an OS file lock, released when the process ends, even by a crash);
//! a second full run waits up to `archive.lock_wait_s` and then gives up with exit 3, naming
//! the run that holds it. Reruns of selected checks take no lock: they only add their own
//! run directory, which is atomic anyway. The lock file is opened without following a link
//! (`O_NOFOLLOW`): a link planted at `.run.lock` is refused, and nothing is written through it.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use premarket_files::{self as file, FileError, Kind};

const LOCK_FILE: &str = ".run.lock";
const POLL: Duration = Duration::from_millis(100);

#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "another full run is in progress ({holder}; lock {path}); waited {waited} s. \
         Wait for its report, or rerun single checks alongside it with `premarket check ID`"
    )]
    Busy {
        path: PathBuf,
        holder: String,
        waited: u64,
    },
    #[error("cannot use the run lock {path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A link or something other than a file at the lock's path.
    #[error("cannot use the run lock: {0}")]
    File(FileError),
}

/// Held for the whole of a full run; dropping it releases the lock.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Takes the lock in `archive_dir`, waiting up to `wait`. `holder` describes this run for
    /// whoever waits next (e.g. `pid 4242, full run started 08:15:00`).
    pub fn acquire(archive_dir: &Path, wait: Duration, holder: &str) -> Result<RunLock, LockError> {
        let path = archive_dir.join(LOCK_FILE);
        let io = |source| LockError::Io {
            path: path.clone(),
            source,
        };
        std::fs::create_dir_all(archive_dir).map_err(io)?;
        // Never through a link: the holder's line is written into the lock file.
        let mut file = file::open_lock(&path).map_err(LockError::File)?;
        let start = Instant::now();
        loop {
            match file.try_lock() {
                Ok(()) => break,
                Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(POLL)
                }
                Err(std::fs::TryLockError::WouldBlock) => {
                    let mut holder = String::new();
                    let _ = (&mut file).take(Kind::NOTE.cap).read_to_string(&mut holder);
                    let holder = if holder.trim().is_empty() {
                        "holder unknown".to_string()
                    } else {
                        holder.trim().to_string()
                    };
                    return Err(LockError::Busy {
                        path,
                        holder,
                        waited: start.elapsed().as_secs(),
                    });
                }
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
        }
        file.set_len(0).map_err(io)?;
        file.rewind().map_err(io)?;
        file.write_all(holder.as_bytes()).map_err(io)?;
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_holder_waits_then_gives_up_naming_the_first() {
        let dir = tempfile::tempdir().unwrap();
        let first = RunLock::acquire(
            dir.path(),
            Duration::ZERO,
            "pid 1, full run started 08:15:00",
        )
        .unwrap();
        let err = RunLock::acquire(dir.path(), Duration::from_millis(250), "pid 2").unwrap_err();
        assert!(
            err.to_string().contains("pid 1, full run started 08:15:00"),
            "{err}"
        );
        drop(first);
        RunLock::acquire(dir.path(), Duration::ZERO, "pid 2").unwrap();
    }
}
