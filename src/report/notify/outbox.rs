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
    fn a_missing_state_is_a_first_run_and_a_broken_one_is_said() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(read_state(dir.path()), (State::default(), None));
        std::fs::write(dir.path().join(STATE), "{not json").unwrap();
        let (state, said) = read_state(dir.path());
        assert_eq!(state, State::default());
        assert!(said.is_some_and(|s| s.contains("first run")));
    }
}
