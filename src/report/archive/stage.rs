//! A run's archive written as its devices are judged, not all at the end: each device's raw
//! outputs and facts go into the run's hidden directory as soon as the device is done, and a
//! device the report needs nothing more of lets go of them. At a thousand devices that is most
//! of the fleet's outputs no longer held until the last session ends, and the writing done
//! while other sessions wait.
//!
//! What the report still reads stays in memory: the raw outputs of a device with a FAIL or an
//! ERROR (the email attaches them), of the probes and of the devices the trend draws
//! ([`Keep`]). The run becomes visible exactly as before: [`Archive::write_staged`]
//! writes the rest, `report.json` last, and renames the directory into place; until then it is
//! a `.tmp-` directory that this run removes when it ends without archiving and the next run
//! removes if this one was killed. A device's references move as it is written (its checks
//! judged OK: [`super::references`]), while its facts are still in memory.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::raw::RawWriter;
use super::{Archive, ArchiveError, References, write_facts};
use crate::DeviceOutputs;
use crate::redact::Redactor;

/// Devices whose outputs the report reads after the run, whatever their verdicts: the probes
/// (the cross-check with the firewall may still fail one) and the devices the trend draws.
pub type Keep = HashSet<String>;

/// The devices staged, each with the files it left in the run's directory and their lengths.
pub(super) type Written = HashMap<String, Vec<(PathBuf, u64)>>;

/// The files `device` left under the run's directory `dir` (its raw outputs and facts),
/// relative to it, with their lengths.
fn files_of(dir: &Path, device: &str) -> Vec<(PathBuf, u64)> {
    let name = super::file_safe(device);
    let raw = Path::new("raw").join(&name);
    let mut files: Vec<(PathBuf, u64)> = std::fs::read_dir(dir.join(&raw))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| Some((raw.join(e.file_name()), e.metadata().ok()?.len())))
        .collect();
    let facts = Path::new(super::FACTS).join(format!("{name}.json"));
    if let Ok(meta) = std::fs::metadata(dir.join(&facts)) {
        files.push((facts, meta.len()));
    }
    files
}

/// The staged devices some of whose files are no longer in the run's directory `dir` (the
/// archive directory deleted or cleaned under the running run), each with one file it lacks.
pub(super) fn vanished(dir: &Path, written: &Written) -> Vec<(String, PathBuf)> {
    let mut lost: Vec<(String, PathBuf)> = written
        .iter()
        .filter_map(|(device, files)| {
            let gone = files.iter().find(|(file, len)| {
                std::fs::symlink_metadata(dir.join(file)).map_or(true, |m| m.len() != *len)
            });
            // A device that left no file at all cannot be told apart from one whose directory
            // went: its raw directory must still be there.
            let dir_gone =
                files.is_empty() && !dir.join("raw").join(super::file_safe(device)).is_dir();
            match gone {
                Some((file, _)) => Some((device.clone(), file.clone())),
                None if dir_gone => Some((device.clone(), Path::new("raw").join(device))),
                None => None,
            }
        })
        .collect();
    lost.sort();
    lost
}

/// The run's archive directory while devices are being written into it.
pub struct Staged {
    state: Mutex<State>,
    redactor: Redactor,
    keep: Keep,
    references: References,
    /// Compression contexts of finished writes, for the next ones (one per thread at most).
    compressors: Mutex<Vec<zstd::bulk::Compressor<'static>>>,
}

struct State {
    /// `None` once [`Staged::finish`] took it.
    dir: Option<tempfile::TempDir>,
    /// The devices written, each with the files it left (relative to the run's directory)
    /// and their lengths: what the last step checks is still there.
    written: HashMap<String, Vec<(PathBuf, u64)>>,
    /// The first failure: the run is then not archived (the report says why), and every
    /// device keeps its outputs.
    failed: Option<ArchiveError>,
    /// The devices whose references could not be moved, and the first reason.
    references_failed: Vec<String>,
    references_error: Option<ArchiveError>,
}

impl Archive {
    /// A run's directory to write devices into as they are judged.
    pub fn stage(&self, redactor: Redactor, keep: Keep) -> Result<Staged, ArchiveError> {
        std::fs::create_dir_all(self.root()).map_err(|source| ArchiveError::Write {
            path: self.root().to_path_buf(),
            source,
        })?;
        let dir = self.temp_dir("staged")?;
        Ok(Staged {
            state: Mutex::new(State {
                dir: Some(dir),
                written: HashMap::new(),
                failed: None,
                references_failed: Vec::new(),
                references_error: None,
            }),
            redactor,
            keep,
            references: self.reference_store(),
            compressors: Mutex::new(Vec::new()),
        })
    }
}

impl Staged {
    /// Writes `device`'s raw outputs and facts, then, unless it is `failing` (a FAIL or an
    /// ERROR) or is one the report keeps, lets go of them. Blocking: file writes and compression.
    pub fn device(&self, device: &mut DeviceOutputs, failing: bool) {
        let Some(dir) = self.dir() else {
            return;
        };
        let reused = self.compressors().pop();
        let written = reused
            .map_or_else(RawWriter::compressor, Ok)
            .map_err(|source| ArchiveError::Write {
                path: dir.join("raw"),
                source,
            })
            .and_then(|compressor| {
                let mut writer = RawWriter::with(compressor, &self.redactor);
                let written = writer.under(&dir.join("raw"), device);
                self.compressors().push(writer.into_compressor());
                written
            })
            .and_then(|()| write_facts(&dir, device));
        let moved = match &written {
            Ok(()) => self.references.advance(device, &super::now()),
            Err(_) => Ok(()),
        };
        let files = written
            .as_ref()
            .ok()
            .map(|()| files_of(&dir, &device.device));
        let mut state = self.lock();
        if let Err(e) = moved {
            state.references_failed.push(device.device.clone());
            state.references_error.get_or_insert(e);
        }
        match written {
            Ok(()) => {
                state
                    .written
                    .insert(device.device.clone(), files.unwrap_or_default());
                device.advance = Default::default();
                if !failing && !self.keep.contains(&device.device) {
                    device.outputs = Vec::new();
                    device.facts = Vec::new();
                }
            }
            Err(e) => {
                state.failed.get_or_insert(e);
            }
        }
    }

    /// The directory, while the run is still writing into it and nothing failed.
    fn dir(&self) -> Option<std::path::PathBuf> {
        let state = self.lock();
        match (&state.dir, &state.failed) {
            (Some(dir), None) => Some(dir.path().to_path_buf()),
            _ => None,
        }
    }

    /// The directory and the devices in it (with the files each left), for the archive's
    /// last step; the first failure instead, if there was one (the directory is then removed).
    pub(super) fn finish(&self) -> Result<(tempfile::TempDir, Written), ArchiveError> {
        let mut state = self.lock();
        if let Some(e) = state.failed.take() {
            state.dir = None;
            return Err(e);
        }
        let dir = state.dir.take().ok_or_else(|| ArchiveError::Write {
            path: Path::new(".").to_path_buf(),
            source: std::io::Error::other("the staged run was already written"),
        })?;
        Ok((dir, std::mem::take(&mut state.written)))
    }

    /// The devices whose references could not be moved, and why (the report says so).
    pub(super) fn references_failed(&self) -> Option<(Vec<String>, String)> {
        let mut state = self.lock();
        let error = state.references_error.take()?;
        Some((
            std::mem::take(&mut state.references_failed),
            error.to_string(),
        ))
    }

    fn compressors(&self) -> std::sync::MutexGuard<'_, Vec<zstd::bulk::Compressor<'static>>> {
        self.compressors.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        // A panic while holding it cannot leave the state half-changed: each change is one
        // assignment.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }
}
