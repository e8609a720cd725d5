//! The run archive: every run leaves `<archive>/<run id>/report.json`, the raw outputs it
//! judged (`raw/<device>/<file>.zst`, compressed, in the offline layout, so a run can be judged
//! again with `--offline <archive>/<run id>/raw`; see `raw`) and the facts the next run
//! compares with (`facts/<device>.json`: counters whose growth is judged). The history,
//! `--last-failed`, the email's "what changed" and growth checks read from here. Runs are kept
//! for `retention_days` and, when `max_size_mb` is set, only as many (newest first) as fit.
//!
//! Beside the runs, `references/` holds what each comparison judges against (the `references` module):
//! kept apart from the runs so that retention never takes a reference with them.
//!
//! A run is written into a hidden temporary directory (a random name, so nobody can plant a
//! link there first), each device as soon as it is judged when the run stages ([`Staged`]),
//! and renamed into place, so a reader (or a concurrent run) sees a whole run or none; its
//! `sequence` file gives its place in the order runs were written, which every
//! reader follows instead of the clock (`runs`); what a killed run or a full disk left behind is
//! removed by the next run. Outputs in memory are redacted before they get here, spooled ones as
//! they are copied in. An output that was empty (`show running-config diffs` with nothing
//! unsaved) is kept with an `.empty` marker, and a missing one as `<file>.error`, so an offline
//! replay judges exactly what the run did.
//!
//! [`ArchiveChannel`] is the archive as one of the run's channels: when it cannot write, the
//! run goes on, and the report says the run is not archived.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

mod beside;
mod raw;
mod references;
mod runs;
mod stage;

pub use references::{
    Advance, BoxFactsReference, DeviceReferences, Kept, LogLine, REFERENCES, References,
};
pub use runs::PreviousFacts;
pub use stage::{Keep, Staged};

use super::redact::Redactor;
use super::{DeviceOutputs, Report, json};
use premarket_core::Megabytes;
use premarket_files::os;
use premarket_files::{self as file, FileError};

/// The directory holding undelivered email.
pub const OUTBOX: &str = "outbox";
const REPORT: &str = "report.json";
const FACTS: &str = "facts";
/// Where a run's charts are kept.
pub const CHARTS: &str = "charts";
/// Where a run's configuration diffs are kept (`diffs/<device>.diff`).
pub const DIFFS: &str = "diffs";
pub(super) const TMP_PREFIX: &str = ".tmp-";
/// Beside an output that was empty when collected (the offline collector reads it as such).
pub const EMPTY_MARK: &str = ".empty";
/// In a run's directory whose archive lacks devices: which, and a file each lacks.
pub const INCOMPLETE: &str = "INCOMPLETE";

#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    #[error("cannot write the run archive at {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("cannot read the run archive at {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}")]
    File(#[from] FileError),
}

impl ArchiveError {
    /// Whether the archive's disk (or the user's quota on it) is full.
    pub fn is_full(&self) -> bool {
        let source = match self {
            ArchiveError::Write { source, .. } | ArchiveError::Read { source, .. } => source,
            ArchiveError::File(_) => return false,
        };
        matches!(
            source.kind(),
            std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded
        )
    }
}

/// The archive directory of a site.
#[derive(Clone, Debug)]
pub struct Archive {
    root: PathBuf,
}

impl Archive {
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Archive { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn outbox(&self) -> PathBuf {
        self.root.join(OUTBOX)
    }

    /// Writes the run atomically; returns its directory. Should the run id be taken (two runs
    /// in the same millisecond), a suffix makes it unique and `report.run_id` follows.
    pub fn write(&self, report: &mut Report) -> Result<PathBuf, ArchiveError> {
        self.write_redacted(report, &Redactor::default())
    }

    /// [`Archive::write`], redacting spooled outputs with `redactor` as they are copied in.
    pub fn write_redacted(
        &self,
        report: &mut Report,
        redactor: &Redactor,
    ) -> Result<PathBuf, ArchiveError> {
        self.write_staged(report, redactor, None)
    }

    /// [`Archive::write_redacted`] into the directory `staged` was writing devices into as
    /// they were judged (see [`Staged`]); only the devices it did not take are written here.
    pub fn write_staged(
        &self,
        report: &mut Report,
        redactor: &Redactor,
        staged: Option<&Staged>,
    ) -> Result<PathBuf, ArchiveError> {
        let werr = |path: &Path| {
            let path = path.to_path_buf();
            move |source| ArchiveError::Write { path, source }
        };
        fs::create_dir_all(&self.root).map_err(werr(&self.root))?;
        self.clean_leftovers();
        let (temp, written) = match staged {
            Some(staged) => staged.finish()?,
            None => (self.temp_dir(&report.run_id)?, Default::default()),
        };
        let tmp = temp.path().to_path_buf();
        let rest: Vec<&DeviceOutputs> = report
            .raw
            .iter()
            .filter(|d| !written.contains_key(&d.device))
            .collect();
        raw::write_all(&tmp.join("raw"), &rest, redactor)?;
        let moved_before = staged.and_then(Staged::references_failed);
        for device in &rest {
            write_facts(&tmp, device)?;
        }
        beside::write_charts(&tmp, &report.charts)?;
        beside::write_diffs(&tmp, &report.diffs)?;
        // The devices written as they were judged are checked for still being there: the
        // archive directory may have been deleted or cleaned under the run meanwhile, and a
        // run is never announced as archived without saying what it lacks.
        let lost = stage::vanished(&tmp, &written);
        if !lost.is_empty() {
            self.mark_incomplete(&tmp, report, &lost)?;
        }
        // One flush for all raw outputs instead of one fsync per file (a 200-device site writes
        // over a thousand), before report.json and the rename make the run visible.
        os::sync_file_system(&tmp);
        // The run's place in the archive's order: the next number, held until the run is in
        // place (see `runs`).
        let numbering = self.numbering();
        runs::write_sequence(&tmp, numbering.next)?;
        let base_id = report.run_id.clone();
        for attempt in 0..100u32 {
            if attempt > 0 {
                report.run_id = format!("{base_id}-{attempt}");
            }
            write_synced(&tmp.join(REPORT), json::render(report).as_bytes())?;
            let target = self.root.join(&report.run_id);
            if fs::symlink_metadata(&target).is_ok() {
                continue;
            }
            match fs::rename(&tmp, &target) {
                Ok(()) => {
                    // Renamed away: nothing is left for the guard to remove.
                    let _ = temp.keep();
                    file::sync_dir(&self.root);
                    let rest: Vec<&DeviceOutputs> = report
                        .raw
                        .iter()
                        .filter(|d| !written.contains_key(&d.device))
                        .collect();
                    let moved = self.advance_references(&rest);
                    if let Some((devices, why)) = moved_before.or(moved) {
                        report.problems.push(format!(
                            "the references of {} could not be updated ({why}): the next runs \
                             judge them against the readings before this run",
                            devices.join(", ")
                        ));
                    }
                    return Ok(target);
                }
                Err(e)
                    if e.kind() == std::io::ErrorKind::DirectoryNotEmpty
                        || e.kind() == std::io::ErrorKind::AlreadyExists =>
                {
                    continue;
                }
                Err(e) => {
                    return Err(ArchiveError::Write {
                        path: target,
                        source: e,
                    });
                }
            }
        }
        Err(ArchiveError::Write {
            path: self.root.join(&base_id),
            source: std::io::Error::other("no free run id after 100 tries"),
        })
    }

    /// Moves the references of `devices` (those written at the end, not staged); the devices
    /// that could not be, and the first reason.
    fn advance_references(&self, devices: &[&DeviceOutputs]) -> Option<(Vec<String>, String)> {
        let store = self.reference_store();
        let at = now();
        let mut failed = Vec::new();
        let mut first = None;
        for device in devices {
            if let Err(e) = store.advance(device, &at) {
                failed.push(device.device.clone());
                first.get_or_insert(e.to_string());
            }
        }
        // The devices' files were not flushed one by one (see `references`).
        if devices.iter().any(|d| !d.advance.is_empty()) {
            os::sync_file_system(store.dir());
        }
        first.map(|why| (failed, why))
    }

    /// Says in `report` (its problems, `not_archived`) and in a marker file beside it which
    /// devices the run's archive lacks.
    fn mark_incomplete(
        &self,
        tmp: &Path,
        report: &mut Report,
        lost: &[(String, PathBuf)],
    ) -> Result<(), ArchiveError> {
        report.not_archived = lost.iter().map(|(device, _)| device.clone()).collect();
        let names: Vec<String> = lost
            .iter()
            .map(|(d, _)| format!("{d} not archived"))
            .collect();
        report.problems.push(format!(
            "this run's archive is incomplete: {} (its files vanished from {} while the run was being written; the report judged them all the same)",
            names.join(", "),
            self.root.display()
        ));
        let mut marker = String::from(
            "This run's archive is incomplete: these devices were judged, but their files vanished\nfrom the archive while the run was being written (the report judged them all the same).\n",
        );
        for (device, file) in lost {
            marker.push_str(&format!("{device}: {} is missing\n", file.display()));
        }
        write_synced(&tmp.join(INCOMPLETE), marker.as_bytes())
    }

    /// A fresh directory for a run being written, with a name nobody could guess and plant a
    /// link at; removed when dropped, kept once it is renamed into place. The pid at the end
    /// tells the leftover cleaning whether its writer is still alive.
    fn temp_dir(&self, label: &str) -> Result<tempfile::TempDir, ArchiveError> {
        Ok(file::temp_dir(
            &self.root,
            &format!("{TMP_PREFIX}{label}-"),
            &format!("-{}", std::process::id()),
        )?)
    }

    /// Removes temporary directories and files that a run killed mid-write (or stopped by a
    /// full disk) left: those whose writer process is gone, or older than a day, but never
    /// this process's own (after the clock stepped forward a day, the run's own staged
    /// directory and spools look that old).
    pub fn clean_leftovers(&self) {
        let Ok(entries) = fs::read_dir(&self.root) else {
            return;
        };
        let now = SystemTime::now();
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            if !name.starts_with(TMP_PREFIX) {
                continue;
            }
            let writer = writer_of(&name);
            if writer == Some(std::process::id() as i32) {
                continue;
            }
            let writer_gone = writer.is_some_and(|pid| !os::process_exists(pid));
            let old = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| now.duration_since(m).ok())
                .is_some_and(|age| age > Duration::from_secs(86_400));
            if writer_gone || old {
                let path = entry.path();
                let removed = if path.is_dir() {
                    fs::remove_dir_all(&path)
                } else {
                    fs::remove_file(&path)
                };
                if let Err(e) = removed {
                    tracing::warn!("cannot remove the leftover {}: {e}", path.display());
                }
            }
        }
    }

    /// The archive directory's entries; `None` when there is no archive yet.
    fn root_entries(&self) -> Result<Option<fs::ReadDir>, ArchiveError> {
        match fs::read_dir(&self.root) {
            Ok(entries) => Ok(Some(entries)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(source) => Err(ArchiveError::Read {
                path: self.root.clone(),
                source,
            }),
        }
    }

    /// Deletes runs older than `days` (by the time they were written) and temporary
    /// directories left by crashed runs. Call only while holding the run lock. Returns what
    /// was deleted.
    pub fn prune(&self, days: u32) -> Result<Vec<PathBuf>, ArchiveError> {
        let Some(entries) = self.root_entries()? else {
            return Ok(Vec::new());
        };
        let now = SystemTime::now();
        let keep = Duration::from_secs(u64::from(days) * 86_400);
        let mut removed = Vec::new();
        for entry in entries.filter_map(Result::ok) {
            let name = entry.file_name().to_string_lossy().into_owned();
            let is_tmp = name.starts_with(TMP_PREFIX);
            if name == OUTBOX
                || name == REFERENCES
                || (name.starts_with('.') && !is_tmp)
                || (is_tmp && writer_of(&name) == Some(std::process::id() as i32))
                || !entry.file_type().is_ok_and(|t| t.is_dir())
            {
                continue;
            }
            let age = entry
                .metadata()
                .and_then(|m| m.modified())
                .ok()
                .and_then(|m| now.duration_since(m).ok());
            let limit = if is_tmp {
                Duration::from_secs(86_400)
            } else {
                keep
            };
            if age.is_some_and(|a| a > limit) {
                let path = entry.path();
                fs::remove_dir_all(&path).map_err(|source| ArchiveError::Write {
                    path: path.clone(),
                    source,
                })?;
                removed.push(path);
            }
        }
        Ok(removed)
    }
}

impl Archive {
    /// Deletes the oldest runs until the archive's runs take no more than `max` of disk
    /// (`size_of`; the newest run always stays: the next run compares with it). Call only
    /// while holding the run lock. Returns what was deleted.
    pub fn prune_to_size(&self, max: Megabytes) -> Result<Vec<PathBuf>, ArchiveError> {
        // In the order they were written, not by their clock: oldest first.
        let runs: Vec<PathBuf> = self.runs()?.into_iter().map(|r| r.dir).collect();
        let sizes: Vec<u64> = runs.iter().map(|dir| size_of(dir)).collect();
        let mut total: u64 = sizes.iter().sum();
        let mut removed = Vec::new();
        let newest = runs.len().saturating_sub(1);
        for (dir, size) in runs.iter().zip(&sizes).take(newest) {
            if total <= max.bytes() {
                break;
            }
            fs::remove_dir_all(dir).map_err(|source| ArchiveError::Write {
                path: dir.clone(),
                source,
            })?;
            total -= size;
            removed.push(dir.clone());
        }
        Ok(removed)
    }
}

/// The process that writes a temporary entry: the pid its name ends with (`-<pid>`).
fn writer_of(name: &str) -> Option<i32> {
    name.rsplit('-').next()?.parse().ok()
}

/// The disk space `dir` takes, as `du` counts it: the blocks of every file and directory under
/// it, and never less than their length (a file system that keeps small files inside its
/// metadata reports none). Not the files' lengths alone: a run is thousands of small
/// compressed outputs, each taking a whole block, so a 1000-device run's 8.6 MB of outputs
/// take 84 MB of disk. Best effort: what cannot be read counts nothing.
fn size_of(dir: &Path) -> u64 {
    let own = fs::symlink_metadata(dir).map_or(0, |m| on_disk(&m));
    let Ok(entries) = fs::read_dir(dir) else {
        return own;
    };
    own + entries
        .filter_map(Result::ok)
        .map(|e| match e.file_type() {
            Ok(t) if t.is_dir() => size_of(&e.path()),
            Ok(_) => e.metadata().map_or(0, |m| on_disk(&m)),
            Err(_) => 0,
        })
        .sum::<u64>()
}

fn on_disk(metadata: &fs::Metadata) -> u64 {
    use std::os::unix::fs::MetadataExt;
    // st_blocks counts 512-byte units whatever the file system's block size.
    (metadata.blocks() * 512).max(metadata.len())
}

/// The archive as a channel of the run.
pub struct ArchiveChannel {
    pub archive: Archive,
    pub retention_days: u32,
    /// The size the archive's runs are kept within (oldest first out), when set.
    pub max_size: Option<Megabytes>,
    /// Redacts spooled outputs as they are copied in.
    pub redactor: Redactor,
    /// The run's directory that devices were written into as they were judged, if any.
    pub staged: Option<std::sync::Arc<Staged>>,
}

impl super::channel::Channel for ArchiveChannel {
    fn name(&self) -> &'static str {
        "archive"
    }

    fn deliver<'a>(
        &'a self,
        report: &'a mut Report,
        ctx: &'a super::channel::Context,
    ) -> super::channel::BoxFuture<'a, super::channel::Delivered> {
        Box::pin(async move {
            let mut done = super::channel::Delivered::default();
            let staged = self.staged.as_deref();
            match self.archive.write_staged(report, &self.redactor, staged) {
                Ok(path) if !report.not_archived.is_empty() => done.problem(format!(
                    "archived in {}, incomplete: {} not archived (their files vanished from the archive while the run was being written)",
                    path.display(),
                    report.not_archived.join(", ")
                )),
                Ok(path) => done.note(format!("archived in {}", path.display())),
                Err(e) => {
                    let full = if e.is_full() {
                        "the archive's disk is full: "
                    } else {
                        ""
                    };
                    let problem = format!("{full}{e}: this run is not archived");
                    report.problems.push(problem.clone());
                    done.problem(problem);
                }
            }
            if ctx.prune {
                match self.archive.prune(self.retention_days) {
                    Ok(removed) if !removed.is_empty() => done.note(format!(
                        "removed {} run(s) older than {} days from the archive",
                        removed.len(),
                        self.retention_days
                    )),
                    Ok(_) => {}
                    Err(e) => done.note(format!("archive retention: {e}")),
                }
                match self
                    .max_size
                    .map(|max| (max, self.archive.prune_to_size(max)))
                {
                    Some((max, Ok(removed))) if !removed.is_empty() => done.note(format!(
                        "removed the {} oldest run(s) from the archive to keep it within {max}",
                        removed.len()
                    )),
                    Some((_, Err(e))) => done.note(format!("archive retention: {e}")),
                    _ => {}
                }
            }
            done
        })
    }
}

/// A fact as `facts/<device>.json` keeps it (the run id is the directory's name).
#[derive(serde::Serialize, serde::Deserialize)]
struct Stored {
    key: premarket_parse::QueryKey,
    #[serde(default)]
    collected_at: Option<chrono::DateTime<chrono::Utc>>,
    fact: premarket_parse::FactJson,
    /// A secret of the device was masked in it ([`premarket_parse::Recorded::masked`]).
    #[serde(default)]
    masked: bool,
}

/// [`Stored`] as it is written, borrowing the run's records.
#[derive(serde::Serialize)]
struct StoredRef<'a> {
    key: &'a premarket_parse::QueryKey,
    collected_at: Option<chrono::DateTime<chrono::Utc>>,
    fact: &'a premarket_parse::FactJson,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    masked: bool,
}

/// Writes `facts/<device>.json` under the run's directory `tmp`, when the device has facts.
fn write_facts(tmp: &Path, device: &DeviceOutputs) -> Result<(), ArchiveError> {
    if device.facts.is_empty() {
        return Ok(());
    }
    let werr = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ArchiveError::Write { path, source }
    };
    let dir = tmp.join(FACTS);
    fs::create_dir_all(&dir).map_err(werr(&dir))?;
    let path = dir.join(format!("{}.json", file_safe(&device.device)));
    // Borrowed, not cloned: a fleet's facts are hundreds of MB of JSON values.
    let facts: Vec<StoredRef> = device
        .facts
        .iter()
        .map(|r| StoredRef {
            key: &r.key,
            collected_at: r.collected_at,
            fact: &r.fact,
            masked: r.masked,
        })
        .collect();
    let text = serde_json::to_vec_pretty(&facts).map_err(|e| ArchiveError::Write {
        path: path.clone(),
        source: std::io::Error::other(e),
    })?;
    fs::write(&path, text).map_err(werr(&path))
}

/// Writes `bytes` to `path`, a new file in the run's own hidden directory, and flushes it to
/// disk before the rename makes the run visible.
fn write_synced(path: &Path, bytes: &[u8]) -> Result<(), ArchiveError> {
    use std::io::Write;
    let werr = |source| ArchiveError::Write {
        path: path.to_path_buf(),
        source,
    };
    let mut file = fs::File::create(path).map_err(werr)?;
    file.write_all(bytes).map_err(werr)?;
    file.sync_all().map_err(werr)
}

/// Now, as the reference store dates what it keeps (RFC 3339, UTC).
fn now() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

/// A device name as one path component (also the attachment name).
pub fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() || safe.starts_with('.') {
        format!("_{safe}")
    } else {
        safe
    }
}

#[cfg(test)]
mod tests;
