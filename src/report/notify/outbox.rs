//! Notifications not delivered yet wait in `<archive>/outbox/notify/`, one JSON file each:
//! `<sequence>-<run id>-<endpoint>.json`, holding the endpoint's name, the body exactly as it
//! will be posted (PagerDuty's routing key left out: it is added only to post), and why it has
//! not gone out. Each endpoint's messages go out in the order they were kept, oldest first, and
//! a message is deleted only once its endpoint took it, so a trigger is never overtaken by its
//! resolve. A run keeps its own messages here *before* it posts them: a run killed while
//! posting leaves them for the next one.
//!
//! What the notifications remember between runs (the latest status they announced and the
//! PagerDuty incidents still open) is `<archive>/.notify-state.json`.
//!
//! An endpoint that stays down does not grow the outbox without end: each endpoint keeps at
//! most [`KEPT_PER_ENDPOINT`] messages, and the oldest beyond that are dropped (and said) when a
//! run keeps its own. Two mornings of a down chat room are worth reposting; a fortnight of
//! stale verdicts is not, and PagerDuty's incidents are resolved from the state file whatever
//! was dropped.
//!
//! Two runs never post the same message twice: delivering holds `outbox/notify/.lock`; a run
//! that finds it held waits for it within its time to deliver.

use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

use super::notice::State;
use crate::archive::ArchiveError;
use premarket_config::{NotifyKind, NotifyOn};
use premarket_files::{self as file, FileError, Kind, write_atomic};

/// The folder of the outbox that holds notifications.
pub const DIR: &str = "notify";
/// The state file, at the archive's root (hidden: not a run).
pub const STATE: &str = ".notify-state.json";
const LOCK: &str = ".lock";
/// The most messages one endpoint keeps waiting (one per run while it is down).
pub const KEPT_PER_ENDPOINT: usize = 10;

/// One message waiting for its endpoint.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Pending {
    pub endpoint: String,
    pub kind: NotifyKind,
    pub event: NotifyOn,
    pub run_id: String,
    /// As posted, but for PagerDuty's `routing_key`.
    pub body: Value,
    #[serde(default)]
    pub attempts: u32,
    /// The last attempt's error.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// `<archive>/outbox/notify`.
#[derive(Clone, Debug)]
pub struct Outbox {
    dir: PathBuf,
}

impl Outbox {
    /// The notify folder of the archive's outbox (`<archive>/outbox`).
    pub fn in_outbox(outbox: &Path) -> Outbox {
        Outbox {
            dir: outbox.join(DIR),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Holds the outbox for this process, waiting for another run that holds it until
    /// `until`. `None` when it could not be had (the reason is returned).
    pub async fn lock(&self, until: Instant) -> Result<fs::File, OutboxError> {
        file::ensure_dir(&self.dir)?;
        // Opened without following a link (`File::create` would truncate whatever one names).
        let lock = file::open_lock(&self.dir.join(LOCK))?;
        loop {
            if lock.try_lock().is_ok() {
                return Ok(lock);
            }
            if Instant::now() >= until {
                return Err(OutboxError::Busy);
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Keeps `message` after every message already kept; returns its file.
    pub fn keep(&self, message: &Pending) -> Result<PathBuf, ArchiveError> {
        file::ensure_dir(&self.dir)?;
        let next = self
            .pending()
            .iter()
            .filter_map(|p| sequence(p))
            .max()
            .unwrap_or(0)
            + 1;
        let path = self.dir.join(format!(
            "{next:06}-{}-{}.json",
            file_safe(&message.run_id),
            message.endpoint
        ));
        self.update(&path, message)?;
        Ok(path)
    }

    /// Rewrites a kept message (its attempts and why it is still here).
    pub fn update(&self, path: &Path, message: &Pending) -> Result<(), ArchiveError> {
        let json = serde_json::to_vec_pretty(message).unwrap_or_default();
        write_atomic(path, &json)?;
        Ok(())
    }

    /// Every kept message's file, oldest first.
    pub fn pending(&self) -> Vec<PathBuf> {
        let mut list: Vec<PathBuf> = fs::read_dir(&self.dir)
            .map(|entries| {
                entries
                    .filter_map(Result::ok)
                    .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
                    .map(|e| e.path())
                    .filter(|p| sequence(p).is_some())
                    .collect()
            })
            .unwrap_or_default();
        list.sort();
        list
    }

    /// Drops each endpoint's oldest messages beyond `max`; returns, per endpoint that lost
    /// some, the runs whose messages went. Read from the file names alone
    /// (`<seq>-<run id>-<endpoint>.json`).
    pub fn cap(&self, max: usize) -> Vec<(String, Vec<String>)> {
        let mut by_endpoint: std::collections::BTreeMap<String, Vec<(PathBuf, String)>> =
            Default::default();
        for path in self.pending() {
            let Some(name) = path.file_stem().and_then(|n| n.to_str()) else {
                continue;
            };
            let mut parts = name.splitn(3, '-');
            let (Some(_), Some(run), Some(endpoint)) = (parts.next(), parts.next(), parts.next())
            else {
                continue;
            };
            let (run, endpoint) = (run.to_string(), endpoint.to_string());
            by_endpoint.entry(endpoint).or_default().push((path, run));
        }
        let mut dropped = Vec::new();
        for (endpoint, kept) in by_endpoint {
            let over = kept.len().saturating_sub(max);
            if over == 0 {
                continue;
            }
            let runs = kept[..over]
                .iter()
                .map(|(path, run)| {
                    Outbox::remove(path);
                    run.clone()
                })
                .collect();
            dropped.push((endpoint, runs));
        }
        dropped
    }

    /// Reads a kept message; what is wrong with it, in words.
    pub fn load(path: &Path) -> Result<Pending, OutboxError> {
        let text = file::read_text(path, Kind::MESSAGE)?;
        serde_json::from_str(&text).map_err(|source| OutboxError::NotMessage {
            path: path.to_path_buf(),
            source,
        })
    }

    pub fn remove(path: &Path) {
        let _ = fs::remove_file(path);
    }
}

/// Why the outbox cannot be held, or a kept message read.
#[derive(Debug, thiserror::Error)]
pub enum OutboxError {
    #[error("{0}")]
    File(#[from] FileError),
    /// Another run held the lock past the time this run had to deliver.
    #[error("another run is delivering notifications")]
    Busy,
    #[error("{}: {source}", path.display())]
    NotMessage {
        path: PathBuf,
        source: serde_json::Error,
    },
}

/// The number a kept message's name starts with.
fn sequence(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    if !name.ends_with(".json") {
        return None;
    }
    name.split('-').next()?.parse().ok()
}

/// A run id as part of a file name (it comes from the clock, but is read back from files).
fn file_safe(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// The state the notifications left; a missing file is a first run. An unreadable one is
/// said (the next recovered message may then not be sent) and read as a first run.
pub fn read_state(archive: &Path) -> (State, Option<String>) {
    let path = archive.join(STATE);
    match file::read_text(&path, Kind::NOTE) {
        Ok(text) => match serde_json::from_str(&text) {
            Ok(state) => (state, None),
            Err(e) => (
                State::default(),
                Some(format!(
                    "{} does not read ({e}); taken as a first run",
                    path.display()
                )),
            ),
        },
        Err(e) if e.is_missing() => (State::default(), None),
        Err(e) => (State::default(), Some(format!("{e}; taken as a first run"))),
    }
}

pub fn write_state(archive: &Path, state: &State) -> Result<(), ArchiveError> {
    file::ensure_dir(archive)?;
    let json = serde_json::to_vec_pretty(state).unwrap_or_default();
    write_atomic(&archive.join(STATE), &json)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(endpoint: &str, run: &str) -> Pending {
        Pending {
            endpoint: endpoint.into(),
            kind: NotifyKind::Slack,
            event: NotifyOn::Fail,
            run_id: run.into(),
            body: serde_json::json!({ "text": run }),
            attempts: 0,
            reason: None,
        }
    }

    #[test]
    fn messages_come_back_in_the_order_they_were_kept() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::in_outbox(dir.path());
        // Later runs with earlier-sorting ids and names: the sequence decides.
        for (endpoint, run) in [
            ("teams", "20261202T0900"),
            ("slack", "20261201T0800"),
            ("a", "0"),
        ] {
            outbox.keep(&message(endpoint, run)).unwrap();
        }
        let kept: Vec<String> = outbox
            .pending()
            .iter()
            .map(|p| Outbox::load(p).unwrap().run_id)
            .collect();
        assert_eq!(kept, ["20261202T0900", "20261201T0800", "0"]);
        // Not a message: the lock, a stray file.
        std::fs::write(outbox.dir().join("notes.txt"), "x").unwrap();
        assert_eq!(outbox.pending().len(), 3);
    }

    #[test]
    fn each_endpoint_keeps_at_most_its_cap_oldest_out_first() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::in_outbox(dir.path());
        for run in ["r1", "r2", "r3", "r4"] {
            outbox.keep(&message("slack", run)).unwrap();
            outbox.keep(&message("team-room", run)).unwrap();
        }
        outbox.keep(&message("pager", "r4")).unwrap();
        let dropped = outbox.cap(2);
        assert_eq!(
            dropped,
            [
                (
                    "slack".to_string(),
                    vec!["r1".to_string(), "r2".to_string()]
                ),
                (
                    "team-room".to_string(),
                    vec!["r1".to_string(), "r2".to_string()]
                ),
            ]
        );
        let kept: Vec<(String, String)> = outbox
            .pending()
            .iter()
            .map(|p| Outbox::load(p).unwrap())
            .map(|m| (m.endpoint, m.run_id))
            .collect();
        assert_eq!(kept.len(), 5);
        assert!(
            !kept.iter().any(|(_, run)| run == "r1" || run == "r2"),
            "{kept:?}"
        );
    }

    #[test]
    fn a_missing_state_is_a_first_run_and_a_broken_one_is_said() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_state(dir.path()), (State::default(), None));
        std::fs::write(dir.path().join(STATE), "{not json").unwrap();
        let (state, said) = read_state(dir.path());
        assert_eq!(state, State::default());
        assert!(said.is_some_and(|s| s.contains("first run")));
    }
}
