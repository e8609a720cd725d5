//! Reading the archive back: its runs in the order they were written, their reports, and the
//! facts the next run compares with.
//!
//! The order is the archive's, not the clock's. Each run directory holds `sequence`, one
//! number: one more than the highest in the archive when the run was written, taken under a
//! lock on the archive directory so that two writers never share one. A run written while the
//! clock was ahead (a `2099...` run id) is therefore not "the newest" for ever after. Runs
//! written by premarket versions before the number have none: they come before every numbered
//! run, in run id order (their start time), except those whose run id is later than any clock
//! on Earth reads now, which come first of all: where they belong cannot be known, and they
//! must not stand as the newest.
//!
//! What the archive holds is input, like a device's output: every file is read through
//! [`premarket_files`] (a regular file within its kind's cap), and every string of a report
//! read back has its control characters escaped before anything prints it.

use std::collections::HashSet;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use chrono::{NaiveDateTime, Utc};
use serde_json::Value;

use super::{Archive, ArchiveError, FACTS, OUTBOX, REFERENCES, REPORT, Stored, file_safe};
use crate::{Report, escape};
use premarket_files::{self as file, Kind};
use premarket_parse::{Previous, QueryKey, Recorded};

/// The file in a run directory that holds the run's place in the archive's order.
const SEQUENCE: &str = "sequence";
/// Longer than any clock's lead over UTC (UTC+14): a run id later than now by more than this
/// was dated in the future wherever it ran.
const EARTH_AHEAD: chrono::Duration = chrono::Duration::hours(14);
/// How long a writer waits for another to finish numbering its run (milliseconds, usually).
const NUMBERING_WAIT: Duration = Duration::from_secs(10);

/// One run of the archive, as its directory shows it.
#[derive(Clone, Debug)]
pub(super) struct Run {
    pub dir: PathBuf,
    pub id: String,
    /// `None` for a run written before runs were numbered.
    pub sequence: Option<u64>,
}

impl Run {
    /// Where it sorts: unnumbered runs first (those dated in the future before the rest), by
    /// run id; then numbered runs by number.
    fn order(&self, now: NaiveDateTime) -> (bool, u64, bool, &str) {
        let plausible = self.sequence.is_some() || !dated_after(&self.id, now + EARTH_AHEAD);
        (
            self.sequence.is_some(),
            self.sequence.unwrap_or(0),
            plausible,
            &self.id,
        )
    }
}

/// The archive's runs, newest first, as one run's devices read their previous facts: listing
/// the archive (a directory and a `sequence` file per run) once for the fleet instead of once per
/// device, and reading back only as far as each device needs.
pub struct PreviousFacts {
    runs: Vec<Run>,
}

impl PreviousFacts {
    /// What earlier runs recorded for `device`, as [`Archive::previous`] says. Runs are read
    /// newest first and reading stops once every key of `wanted` has a record: older runs
    /// cannot change those (a record of another key found on the way is still the newest
    /// one). With `wanted` empty, or a key no run kept, every run is read. Without the stop,
    /// each device read `facts/<device>.json` of every run the archive keeps, at every run.
    pub fn of(&self, device: &str, wanted: &[QueryKey]) -> Previous {
        let file = format!("{}.json", file_safe(device));
        let mut records: Vec<Recorded> = Vec::new();
        let mut missing: HashSet<&QueryKey> = wanted.iter().collect();
        for run in &self.runs {
            let path = run.dir.join(FACTS).join(&file);
            let stored: Vec<Stored> = match file::read(&path, Kind::FACTS) {
                Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_default(),
                Err(e) if e.is_missing() => Vec::new(),
                Err(e) => {
                    tracing::warn!("skipped the archived facts: {e}");
                    Vec::new()
                }
            };
            for s in stored {
                missing.remove(&s.key);
                records.push(Recorded {
                    key: s.key,
                    run_id: run.id.clone(),
                    collected_at: s.collected_at,
                    fact: s.fact,
                    masked: s.masked,
                });
            }
            if !wanted.is_empty() && missing.is_empty() {
                break;
            }
        }
        Previous::from_newest_first(records)
    }
}

/// Whether a run id (`20261130T081500.123`, maybe with `-N`) names a time after `limit`.
/// An id that is not a time says nothing.
fn dated_after(id: &str, limit: NaiveDateTime) -> bool {
    id.get(..15)
        .and_then(|t| NaiveDateTime::parse_from_str(t, "%Y%m%dT%H%M%S").ok())
        .is_some_and(|t| t > limit)
}

impl Archive {
    /// The archive's runs, oldest first (see the module's note on order); none when there is
    /// no archive yet.
    pub(super) fn runs(&self) -> Result<Vec<Run>, ArchiveError> {
        let entries = match fs::read_dir(&self.root) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(source) => {
                return Err(ArchiveError::Read {
                    path: self.root.clone(),
                    source,
                });
            }
        };
        let mut runs: Vec<Run> = entries
            .filter_map(Result::ok)
            // A link is not a run: the archive is written by renames, never links.
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .filter_map(|e| {
                let id = e.file_name().to_string_lossy().into_owned();
                (!id.starts_with('.') && id != OUTBOX && id != REFERENCES).then(|| Run {
                    sequence: read_sequence(&e.path()),
                    dir: e.path(),
                    id,
                })
            })
            .collect();
        let now = Utc::now().naive_utc();
        runs.sort_by(|a, b| a.order(now).cmp(&b.order(now)));
        Ok(runs)
    }

    /// Every archived report, oldest first (in the order they were written), its strings
    /// escaped. Unreadable runs are reported in the second list (path and reason, escaped) and
    /// otherwise skipped, so one damaged run does not hide the rest.
    pub fn reports(&self) -> Result<(Vec<Report>, Vec<String>), ArchiveError> {
        let mut reports = Vec::new();
        let mut problems = Vec::new();
        for run in self.runs()? {
            match read_report(&run.dir.join(REPORT), Whole) {
                Ok(report) => reports.push(report),
                Err(Unreadable(problem)) => problems.push(problem),
            }
        }
        Ok((reports, problems))
    }

    /// The archived reports as a run's history reads them ([`Archive::reports`]' order and
    /// problems): the newest full run and every rerun after it whole (a rerun's standing state
    /// is their results), every older run in `outline` (each result's check, device and
    /// status, and the run's own fields), which is all that "what changed", `--last-failed`
    /// and the trend read of them. Read whole, a month of a thousand-device site's reports
    /// (10 MB of JSON each) cost more than the inspection.
    pub fn history(&self) -> Result<(Vec<Report>, Vec<String>), ArchiveError> {
        let mut full_run_read = false;
        self.read_back(|previous| {
            full_run_read |= previous.is_some_and(|r| !r.partial);
            if full_run_read { Outline } else { Whole }
        })
    }

    /// Every archived report in `outline` ([`Archive::reports`]' order and problems).
    pub fn history_outline(&self) -> Result<(Vec<Report>, Vec<String>), ArchiveError> {
        self.read_back(|_| Outline)
    }

    /// [`Archive::history_outline`] read only as far back as `reach` asks: runs are read newest
    /// first, in outline while `reach` (given each one) says more are needed, and from then on
    /// their own fields alone (run, time, status: what the trend reads), so that a month of a
    /// large site's runs is not held result by result.
    pub fn history_reaching(
        &self,
        mut reach: impl FnMut(&Report) -> bool,
    ) -> Result<(Vec<Report>, Vec<String>), ArchiveError> {
        let mut reaching = true;
        self.read_back(|previous| {
            if let Some(previous) = previous {
                reaching = reaching && reach(previous);
            }
            if reaching { Outline } else { Heading }
        })
    }

    /// The archived reports read newest first, each as `how` says given the report read just
    /// before it (`None` for the newest, or after a run that did not read); returned oldest
    /// first, as [`Archive::reports`] returns them.
    fn read_back(
        &self,
        mut how: impl FnMut(Option<&Report>) -> Reading,
    ) -> Result<(Vec<Report>, Vec<String>), ArchiveError> {
        let mut reports: Vec<Report> = Vec::new();
        let mut problems = Vec::new();
        let mut previous_read = false;
        for run in self.runs()?.into_iter().rev() {
            let reading = how(reports.last().filter(|_| previous_read));
            match read_report(&run.dir.join(REPORT), reading) {
                Ok(report) => {
                    reports.push(report);
                    previous_read = true;
                }
                Err(Unreadable(problem)) => {
                    problems.push(problem);
                    previous_read = false;
                }
            }
        }
        reports.reverse();
        problems.reverse();
        Ok((reports, problems))
    }

    /// What earlier runs recorded for `device`: for each query, its fact in the newest run that
    /// kept one. Unreadable records are skipped (they only make a growth check say "first
    /// run"); one that is not a file premarket reads is said in the log. Every run is read: a
    /// run of many devices lists the archive once with [`Archive::previous_facts`].
    pub fn previous(&self, device: &str) -> Previous {
        self.previous_facts().of(device, &[])
    }

    /// The archive's runs listed once, for reading the previous facts of many devices.
    pub fn previous_facts(&self) -> PreviousFacts {
        let mut runs = self.runs().unwrap_or_default();
        runs.reverse();
        PreviousFacts { runs }
    }

    /// The archive's run ids, oldest first (as `premarket history` lists them).
    pub fn run_ids(&self) -> Result<Vec<String>, ArchiveError> {
        Ok(self.runs()?.into_iter().map(|r| r.id).collect())
    }

    /// The devices run `run_id` kept facts of (their file-safe names), sorted.
    pub fn fact_devices(&self, run_id: &str) -> Vec<String> {
        let Ok(entries) = fs::read_dir(self.root.join(run_id).join(FACTS)) else {
            return Vec::new();
        };
        let mut names: Vec<String> = entries
            .filter_map(Result::ok)
            .filter_map(|e| {
                let name = e.file_name().to_string_lossy().into_owned();
                name.strip_suffix(".json").map(str::to_string)
            })
            .collect();
        names.sort();
        names
    }

    /// The facts run `run_id` kept for `device`: none when it kept none (a missing file);
    /// an unreadable file is an error.
    pub fn run_facts(&self, run_id: &str, device: &str) -> Result<Vec<Recorded>, ArchiveError> {
        let path = self
            .root
            .join(run_id)
            .join(FACTS)
            .join(format!("{}.json", file_safe(device)));
        let stored: Vec<Stored> = match file::read(&path, Kind::FACTS) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| ArchiveError::Read {
                path: path.clone(),
                source: std::io::Error::other(e),
            })?,
            Err(e) if e.is_missing() => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        Ok(stored
            .into_iter()
            .map(|s| Recorded {
                key: s.key,
                run_id: run_id.to_string(),
                collected_at: s.collected_at,
                fact: s.fact,
                masked: s.masked,
            })
            .collect())
    }

    /// Holds the archive's numbering while a run takes its number and is renamed into place,
    /// so that numbers follow the order runs appear in. Waits briefly for another writer; a
    /// writer that never lets go (a stopped process) is not waited for: the run is numbered
    /// anyway, and the run id orders a tie.
    pub(super) fn numbering(&self) -> Numbering {
        let lock = File::open(&self.root).ok().filter(|dir| {
            let start = Instant::now();
            loop {
                match dir.try_lock() {
                    Ok(()) => return true,
                    Err(std::fs::TryLockError::WouldBlock) if start.elapsed() < NUMBERING_WAIT => {
                        std::thread::sleep(Duration::from_millis(20));
                    }
                    Err(_) => {
                        tracing::warn!(
                            "could not lock {} to number the run; numbering it anyway",
                            self.root.display()
                        );
                        return false;
                    }
                }
            }
        });
        let next = self
            .runs()
            .unwrap_or_default()
            .iter()
            .filter_map(|r| r.sequence)
            .max()
            .map_or(1, |n| n + 1);
        Numbering { _lock: lock, next }
    }
}

/// The next run's number, held until the run is in place ([`Archive::numbering`]).
pub(super) struct Numbering {
    _lock: Option<File>,
    pub next: u64,
}

/// Writes the run's number into its (still hidden) directory.
pub(super) fn write_sequence(dir: &Path, sequence: u64) -> Result<(), ArchiveError> {
    let path = dir.join(SEQUENCE);
    fs::write(&path, format!("{sequence}\n")).map_err(|source| ArchiveError::Write { path, source })
}

/// The number in a run's `sequence` file; `None` when there is none (or it is not a number).
fn read_sequence(dir: &Path) -> Option<u64> {
    file::read_text(&dir.join(SEQUENCE), Kind::NOTE)
        .ok()
        .and_then(|text| text.trim().parse().ok())
}

/// How much of an archived report to read.
#[derive(Clone, Copy)]
enum Reading {
    Whole,
    Outline,
    /// The run's own fields, no results.
    Heading,
}
use Reading::{Heading, Outline, Whole};

/// Why an archived report could not be read (its path and the reason, escaped): one line of
/// the history's problems.
struct Unreadable(String);

/// The report at `path`, its strings escaped.
fn read_report(path: &Path, how: Reading) -> Result<Report, Unreadable> {
    let text = file::read_text(path, Kind::REPORT)
        .map_err(|e| Unreadable(escape::line(&e.to_string())))?;
    let report = match how {
        Whole => serde_json::from_str::<Value>(&text)
            .map(|mut value| {
                escape_strings(&mut value);
                value
            })
            .and_then(serde_json::from_value::<Report>),
        Outline => serde_json::from_str::<outline::Outline>(&text).map(outline::Outline::report),
        Heading => serde_json::from_str::<outline::Heading>(&text).map(outline::Heading::report),
    };
    report.map_err(|e| Unreadable(escape::line(&format!("{}: {e}", path.display()))))
}

/// Escapes the control characters of every string (and key) in `value`: a report read back
/// from the archive is printed by `history` and quoted by later runs, and the archive is as
/// open to tampering as a device's output.
fn escape_strings(value: &mut Value) {
    match value {
        Value::String(s) => *s = escape::control(s),
        Value::Array(items) => items.iter_mut().for_each(escape_strings),
        Value::Object(map) => {
            let entries = std::mem::take(map);
            for (key, mut item) in entries {
                escape_strings(&mut item);
                map.insert(escape::control(&key), item);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

mod outline;
#[cfg(test)]
mod tests;
