//! Undelivered mail waits in `<archive>/outbox/`: the message exactly as it would have been
//! sent (`<run id>.eml`) and its envelope and failure (`<run id>.json`). The next run that
//! sends mail sends these first, oldest first, and deletes each once delivered. Nothing is
//! lost; a message is removed only after the relay accepted it.
//!
//! Two processes never send the same message twice: flushing holds `outbox/.lock`
//! (non-blocking; a run that finds it held leaves the outbox to the holder).

use std::fs;
use std::path::{Path, PathBuf};

use lettre::Address;
use lettre::address::Envelope;
use serde::{Deserialize, Serialize};
use tokio::time::Instant;

use super::Composed;
use super::send::{SendError, Sender};
use crate::archive::ArchiveError;
use premarket_files::{self as file, Kind, write_atomic};

const LOCK: &str = ".lock";

/// The envelope and the story of a kept message.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Pending {
    pub subject: String,
    pub from: Option<String>,
    pub to: Vec<String>,
    /// Why it was not delivered (the last attempt's error).
    pub reason: String,
    pub attempts: u32,
}

/// Keeps `message` in `outbox`; returns the `.eml` path.
pub fn keep(
    outbox: &Path,
    run_id: &str,
    message: &Composed,
    reason: &str,
    attempts: u32,
) -> Result<PathBuf, ArchiveError> {
    // Kept mail holds the report: never written through a link planted as the outbox.
    file::ensure_dir(outbox)?;
    let pending = Pending {
        subject: message.subject.clone(),
        from: message.envelope.from().map(ToString::to_string),
        to: message
            .envelope
            .to()
            .iter()
            .map(ToString::to_string)
            .collect(),
        reason: reason.to_string(),
        attempts,
    };
    let json = serde_json::to_vec_pretty(&pending).unwrap_or_default();
    write_atomic(&outbox.join(format!("{run_id}.json")), &json)?;
    // The .eml last: its presence is what marks a message as pending.
    let eml = outbox.join(format!("{run_id}.eml"));
    write_atomic(&eml, &message.bytes)?;
    Ok(eml)
}

/// The pending `.eml` files, oldest run first.
pub fn pending(outbox: &Path) -> Vec<PathBuf> {
    let mut list: Vec<PathBuf> = fs::read_dir(outbox)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "eml"))
                .collect()
        })
        .unwrap_or_default();
    list.sort();
    list
}

/// What a flush did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Flushed {
    pub sent: Vec<PathBuf>,
    /// Still pending, with why.
    pub kept: Vec<(PathBuf, String)>,
}

/// Sends pending messages, one attempt each, oldest first; stops at the first failure that
/// is not about that message alone (the relay is down: the rest would fail the same way).
pub async fn flush(outbox: &Path, sender: &Sender, until: Instant) -> Flushed {
    let mut flushed = Flushed::default();
    let files = pending(outbox);
    if files.is_empty() {
        return flushed;
    }
    // Opened without following a link (`File::create` would truncate whatever one names).
    let lock = match file::open_lock(&outbox.join(LOCK)) {
        Ok(lock) => lock,
        Err(e) => {
            let why = format!("the outbox is not flushed: {e}");
            flushed.kept = files.into_iter().map(|f| (f, why.clone())).collect();
            return flushed;
        }
    };
    if lock.try_lock().is_err() {
        return flushed;
    }
    let mut relay_down: Option<String> = None;
    for eml in files {
        if let Some(why) = &relay_down {
            flushed.kept.push((eml, why.clone()));
            continue;
        }
        // Read off the async threads, like every file read.
        let path = eml.clone();
        let loaded = tokio::task::spawn_blocking(move || load(&path))
            .await
            .unwrap_or_else(|e| Err(format!("cannot read {}: {e}", eml.display())));
        let (envelope, bytes) = match loaded {
            Ok(x) => x,
            Err(why) => {
                flushed.kept.push((eml, why));
                continue;
            }
        };
        match sender.send_once(&envelope, &bytes, until).await {
            Ok(()) => {
                let _ = fs::remove_file(&eml);
                let _ = fs::remove_file(eml.with_extension("json"));
                flushed.sent.push(eml);
            }
            Err(e @ SendError::Permanent(_)) => flushed.kept.push((eml, e.to_string())),
            Err(e) => {
                relay_down = Some(e.to_string());
                flushed.kept.push((eml, e.to_string()));
            }
        }
    }
    flushed
}

fn load(eml: &Path) -> Result<(Envelope, Vec<u8>), String> {
    let json = eml.with_extension("json");
    let text = file::read_text(&json, Kind::NOTE).map_err(|e| e.to_string())?;
    let pending: Pending =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", json.display()))?;
    let from = match &pending.from {
        Some(f) => Some(
            f.parse::<Address>()
                .map_err(|e| format!("{}: from {f:?}: {e}", json.display()))?,
        ),
        None => None,
    };
    let to = pending
        .to
        .iter()
        .map(|t| {
            t.parse::<Address>()
                .map_err(|e| format!("{}: to {t:?}: {e}", json.display()))
        })
        .collect::<Result<Vec<_>, _>>()?;
    let envelope = Envelope::new(from, to).map_err(|e| format!("{}: {e}", json.display()))?;
    let bytes = file::read(eml, Kind::MESSAGE).map_err(|e| e.to_string())?;
    Ok((envelope, bytes))
}
