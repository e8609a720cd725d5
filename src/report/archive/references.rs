//! The reference store: what each check that compares with an earlier reading judges against,
//! per device, in `<archive>/references/<device>.json`.
//!
//! The reference of a check on a device is the reading (the check's archived query records) of
//! the newest run, full or rerun, that judged it OK there, or a reading accepted since
//! (`premarket accept`). A FAIL, an ERROR, a SKIP or a run that did not judge the check never
//! moves it, so a rerun re-examines a FAIL against the same reference as the run that found it:
//! a change stands until it is reverted or accepted. The records live in the store itself, not
//! as pointers into runs, so that retention never takes a reference with the runs it came
//! from; a reading that several checks judge against is kept once.
//!
//! The store also holds each device's box facts reference ("Changed since the previous run"):
//! the box facts of the full runs so far (each full run's read over the last: a fact a run did
//! not read keeps its value) and what the latest full run compared with, which reruns compare
//! with.
//!
//! A device's file is replaced atomically (a temporary file renamed over it) under the store's
//! lock, read and changed in one go, so a rerun and a full run updating the same device never
//! lose each other's update. An archive written before the store existed is migrated on first
//! use ([`migrate`]). Acceptances are also appended to `accepted.jsonl`, the store's log.

use std::collections::BTreeMap;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{Archive, ArchiveError, file_safe};
use crate::changed::BoxFacts;
use crate::{DeviceOutputs, escape};
use premarket_core::Accepted;
use premarket_files::{self as file, Kind};
use premarket_parse::{FactJson, Previous, QueryKey, Recorded, Reference};

mod migrate;

/// The store's directory in the archive.
pub const REFERENCES: &str = "references";
/// Held while a device's file is read and replaced.
const LOCK: &str = ".lock";
/// One line per acceptance, appended.
const ACCEPTED_LOG: &str = "accepted.jsonl";

/// What a device's run moves in its references: each check that compares and was judged OK,
/// with the keys of the queries it read (their records are the device's facts), and, in a full
/// run, its box facts. Filled by the inspection, written with the device's facts.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Advance {
    pub checks: Vec<(String, Vec<QueryKey>)>,
    pub box_facts: Option<Recorded>,
}

impl Advance {
    pub fn is_empty(&self) -> bool {
        self.checks.is_empty() && self.box_facts.is_none()
    }
}

/// One check's reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Kept {
    /// The run whose reading it is.
    pub run_id: String,
    /// When it became the reference (RFC 3339).
    pub at: String,
    /// Who accepted it; `None` when a run judged it OK.
    pub accepted: Option<Accepted>,
    pub records: Vec<Recorded>,
}

/// A device's references, as its file holds them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DeviceReferences {
    pub checks: BTreeMap<String, Kept>,
    /// Checks whose newest judgement kept was a FAIL with no OK reading to stand as their
    /// reference (found when an older archive was migrated): why. ERROR until accepted.
    pub unaccepted: BTreeMap<String, String>,
    /// The box facts reference, once a full run set one.
    pub box_facts: Option<BoxFactsReference>,
}

/// The box facts of the full runs so far, and what the latest full run compared with.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BoxFactsReference {
    pub current: Option<Recorded>,
    pub compared: Option<Recorded>,
}

impl DeviceReferences {
    /// What `check` judges against on this device.
    pub fn reference(&self, check: &str) -> Reference {
        if let Some(kept) = self.checks.get(check) {
            return Reference::Reading {
                previous: Previous::from_newest_first(kept.records.iter().cloned()),
                accepted: kept.accepted.clone(),
            };
        }
        match self.unaccepted.get(check) {
            Some(why) => Reference::Missing(why.clone()),
            None => Reference::First,
        }
    }
}

/// The store of an archive ([`Archive::references`]).
#[derive(Clone, Debug)]
pub struct References {
    dir: PathBuf,
    /// What an older archive migrated to, should the store not have been written.
    migrated: Option<Arc<BTreeMap<String, DeviceReferences>>>,
}

impl Archive {
    /// The reference store; an archive written before it existed is migrated first (see
    /// `migrate`). A store that cannot be written is still read: the migrated references
    /// serve this run, and the next one tries again.
    pub fn references(&self) -> References {
        let mut store = self.reference_store();
        if !store.dir.exists() {
            migrate::run(self, &mut store);
        }
        store
    }

    /// The reference store as it is, never migrated here: for a run writing what it judged (its
    /// own report must not be read as an older premarket's) and for readers that change nothing.
    pub fn reference_store(&self) -> References {
        References {
            dir: self.root.join(REFERENCES),
            migrated: None,
        }
    }
}

impl References {
    /// A device's references. An unreadable file is an error (never "no reference": every
    /// check would read as a first reading, OK).
    pub fn of(&self, device: &str) -> Result<DeviceReferences, ArchiveError> {
        let path = self.path(device);
        match file::read(&path, Kind::REFERENCES) {
            Ok(bytes) => from_file(&path, &bytes),
            Err(e) if e.is_missing() => Ok(self
                .migrated
                .as_ref()
                .filter(|_| !self.dir.exists())
                .and_then(|m| m.get(device).cloned())
                .unwrap_or_default()),
            Err(e) => Err(e.into()),
        }
    }

    /// Moves the references of `device`'s checks judged OK to this run's reading and, for a
    /// full run, its box facts (see [`Advance`]).
    pub fn advance(&self, device: &DeviceOutputs, at: &str) -> Result<(), ArchiveError> {
        let advance = &device.advance;
        if advance.is_empty() {
            return Ok(());
        }
        self.update(&device.device, Flush::WithTheRun, |kept| {
            for (check, keys) in &advance.checks {
                let records: Vec<Recorded> = device
                    .facts
                    .iter()
                    .filter(|r| keys.contains(&r.key))
                    .cloned()
                    .collect();
                // Nothing of it kept (its facts did not parse): the old reference stays.
                let Some(run_id) = records.first().map(|r| r.run_id.clone()) else {
                    continue;
                };
                kept.unaccepted.remove(check);
                let entry = Kept {
                    run_id,
                    at: at.to_string(),
                    accepted: None,
                    records,
                };
                kept.checks.insert(check.clone(), entry);
            }
            if let Some(now) = &advance.box_facts {
                let old = kept.box_facts.take().unwrap_or_default();
                kept.box_facts = Some(BoxFactsReference {
                    current: Some(read_over(old.current.as_ref(), now)),
                    compared: old.current,
                });
            }
        })
    }

    /// Makes `readings` (each check's latest records) the references of those checks on
    /// `device`, accepted as `accepted` says, and logs it.
    pub fn accept(
        &self,
        device: &str,
        readings: &[(String, Vec<Recorded>)],
        accepted: &Accepted,
    ) -> Result<(), ArchiveError> {
        self.update(device, Flush::Now, |kept| {
            for (check, records) in readings {
                let run_id = newest_run(records);
                kept.unaccepted.remove(check);
                kept.checks.insert(
                    check.clone(),
                    Kept {
                        run_id,
                        at: accepted.at.clone(),
                        accepted: Some(accepted.clone()),
                        records: records.clone(),
                    },
                );
            }
        })?;
        let line = LogLine {
            device: device.to_string(),
            checks: readings.iter().map(|(c, _)| c.clone()).collect(),
            runs: readings.iter().map(|(_, r)| newest_run(r)).collect(),
            accepted: accepted.clone(),
        };
        let text = serde_json::to_string(&line).map_err(|e| ArchiveError::Write {
            path: self.dir.join(ACCEPTED_LOG),
            source: std::io::Error::other(e),
        })?;
        Ok(file::append_line(&self.dir.join(ACCEPTED_LOG), &text)?)
    }

    /// Every acceptance logged, oldest first, its strings escaped; lines that do not read are
    /// skipped.
    pub fn accepted_log(&self) -> Vec<LogLine> {
        let text = match file::read_text(&self.dir.join(ACCEPTED_LOG), Kind::REFERENCES) {
            Ok(text) => text,
            Err(e) => {
                if !e.is_missing() {
                    tracing::warn!("cannot read the log of acceptances: {e}");
                }
                return Vec::new();
            }
        };
        text.lines()
            .filter_map(|l| serde_json::from_str::<LogLine>(l).ok())
            .map(LogLine::escaped)
            .collect()
    }

    /// Reads, changes and replaces `device`'s file under the store's lock.
    fn update(
        &self,
        device: &str,
        flush: Flush,
        change: impl FnOnce(&mut DeviceReferences),
    ) -> Result<(), ArchiveError> {
        file::ensure_dir(&self.dir)?;
        let _lock = self.lock()?;
        let mut kept = self.of(device)?;
        change(&mut kept);
        self.write(device, &kept, flush)
    }

    /// Writes `device`'s file (the caller holds the lock, or owns the directory).
    fn write(
        &self,
        device: &str,
        kept: &DeviceReferences,
        flush: Flush,
    ) -> Result<(), ArchiveError> {
        let path = self.path(device);
        let bytes = to_file(device, kept).map_err(|e| ArchiveError::Write {
            path: path.clone(),
            source: std::io::Error::other(e),
        })?;
        match flush {
            Flush::Now => file::write_atomic(&path, &bytes)?,
            Flush::WithTheRun => file::write_atomic_unsynced(&path, &bytes)?,
        }
        Ok(())
    }

    fn lock(&self) -> Result<File, ArchiveError> {
        let path = self.dir.join(LOCK);
        let lock = file::open_lock(&path)?;
        lock.lock()
            .map_err(|source| ArchiveError::Write { path, source })?;
        Ok(lock)
    }

    fn path(&self, device: &str) -> PathBuf {
        self.dir.join(format!("{}.json", file_safe(device)))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

/// When a device's file reaches the disk. A run writes one per device it judged (3-4 ms each to
/// flush on this machine's ext4: seconds at a thousand devices, under the store's lock), and
/// flushes the file system once when it is archived; `accept` writes one and flushes it.
#[derive(Clone, Copy)]
enum Flush {
    Now,
    WithTheRun,
}

/// The run of the newest of `records` (by collection time).
fn newest_run(records: &[Recorded]) -> String {
    records
        .iter()
        .max_by_key(|r| r.collected_at)
        .map(|r| r.run_id.clone())
        .unwrap_or_default()
}

/// `now`'s box facts read over `before`'s: a fact this run did not read keeps its value.
fn read_over(before: Option<&Recorded>, now: &Recorded) -> Recorded {
    let mut facts: BoxFacts = before.and_then(|b| b.fact.read().ok()).unwrap_or_default();
    facts.extend(now.fact.read::<BoxFacts>().unwrap_or_default());
    Recorded {
        fact: FactJson::of(&facts),
        ..now.clone()
    }
}

/// One acceptance, as `accepted.jsonl` keeps it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogLine {
    pub device: String,
    pub checks: Vec<String>,
    /// The run of each check's accepted reading.
    #[serde(default)]
    pub runs: Vec<String>,
    #[serde(flatten)]
    pub accepted: Accepted,
}

impl LogLine {
    fn escaped(self) -> LogLine {
        let e = |s: &str| escape::control(s);
        LogLine {
            device: e(&self.device),
            checks: self.checks.iter().map(|c| e(c)).collect(),
            runs: self.runs.iter().map(|r| e(r)).collect(),
            accepted: escaped(self.accepted),
        }
    }
}

/// `accepted` with its strings' control characters escaped: it is read back from the archive
/// and printed.
fn escaped(accepted: Accepted) -> Accepted {
    let e = |s: &str| escape::control(s);
    Accepted {
        by: e(&accepted.by),
        at: e(&accepted.at),
        reason: e(&accepted.reason),
        ticket: accepted.ticket.as_deref().map(e),
    }
}

/// A device's file: each reading once, in `records`, and each reference by index.
#[derive(Serialize, Deserialize)]
struct StoreFile {
    device: String,
    #[serde(default)]
    checks: BTreeMap<String, EntryFile>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    unaccepted: BTreeMap<String, String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    box_facts: Option<BoxFile>,
    #[serde(default)]
    records: Vec<Recorded>,
}

#[derive(Serialize, Deserialize)]
struct EntryFile {
    run_id: String,
    at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    accepted: Option<Accepted>,
    records: Vec<usize>,
}

#[derive(Serialize, Deserialize)]
struct BoxFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    current: Option<usize>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compared: Option<usize>,
}

fn to_file(device: &str, kept: &DeviceReferences) -> Result<Vec<u8>, serde_json::Error> {
    let mut records: Vec<Recorded> = Vec::new();
    let mut index = |r: &Recorded| match records.iter().position(|x| x == r) {
        Some(i) => i,
        None => {
            records.push(r.clone());
            records.len() - 1
        }
    };
    let checks = kept
        .checks
        .iter()
        .map(|(check, k)| {
            let entry = EntryFile {
                run_id: k.run_id.clone(),
                at: k.at.clone(),
                accepted: k.accepted.clone(),
                records: k.records.iter().map(&mut index).collect(),
            };
            (check.clone(), entry)
        })
        .collect();
    let box_facts = kept.box_facts.as_ref().map(|b| BoxFile {
        current: b.current.as_ref().map(&mut index),
        compared: b.compared.as_ref().map(&mut index),
    });
    serde_json::to_vec(&StoreFile {
        device: device.to_string(),
        checks,
        unaccepted: kept.unaccepted.clone(),
        box_facts,
        records,
    })
}

/// A device's file read back. An index past the records is a damaged file: an error.
fn from_file(path: &Path, bytes: &[u8]) -> Result<DeviceReferences, ArchiveError> {
    let damaged = |why: String| ArchiveError::Read {
        path: path.to_path_buf(),
        source: std::io::Error::other(why),
    };
    let file: StoreFile = serde_json::from_slice(bytes).map_err(|e| damaged(e.to_string()))?;
    let record = |i: usize| {
        file.records
            .get(i)
            .cloned()
            .ok_or_else(|| damaged(format!("record {i} of {} is missing", file.records.len())))
    };
    let mut checks = BTreeMap::new();
    for (check, entry) in &file.checks {
        let records = entry
            .records
            .iter()
            .map(|i| record(*i))
            .collect::<Result<_, _>>()?;
        let kept = Kept {
            run_id: escape::control(&entry.run_id),
            at: escape::control(&entry.at),
            accepted: entry.accepted.clone().map(escaped),
            records,
        };
        checks.insert(check.clone(), kept);
    }
    let box_facts = match &file.box_facts {
        None => None,
        Some(b) => Some(BoxFactsReference {
            current: b.current.map(record).transpose()?,
            compared: b.compared.map(record).transpose()?,
        }),
    };
    let unaccepted = file
        .unaccepted
        .iter()
        .map(|(c, why)| (c.clone(), escape::control(why)))
        .collect();
    Ok(DeviceReferences {
        checks,
        unaccepted,
        box_facts,
    })
}

#[cfg(test)]
mod tests;
