//! The demo's reference stores, one per scenario set. The demo runs every scenario in one
//! archive (so `demo --check` after a scenario reads as its rerun, and `history --demo` shows
//! every run), but a comparison judges against its store of references (`archive/references`,
//! what the newest run that judged it OK read): shared, a scenario that moved a reference (the
//! counters of `rebooted` went down, so they were judged OK and kept) would be the reference of
//! every later scenario and of the next healthy lab, which would then FAIL.
//!
//! So each scenario set (with its fleet) has a store of its own: the archive's store is the one
//! of the set that ran last (where `accept --demo` writes, as it accepts the latest reading);
//! the others wait in the home's `scenario-references/<set>/`. A set's store is made, the first
//! time it runs, as a copy of the healthy lab's: each scenario is judged against the healthy
//! morning, and its reruns against the same store as its run. Without a healthy store yet, a
//! set's store holds only its own first readings: it is dropped, not kept, when another set
//! runs, so that the set is judged against the healthy morning once there is one.
//!
//! A home from before the stores were per set has no `scenario-references/`: its archive's
//! store (or what migrating its runs finds) is taken by the set that runs first.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::files::{self as file, FileError, Kind};
use crate::lab::{Fault, Fleet, Scenario};
use crate::report::archive::REFERENCES;

/// In the demo's home: the stores of the sets not run last.
pub const STASH: &str = "scenario-references";
/// In a store: the set it belongs to, and whether it was made without a healthy store.
const MARK: &str = ".demo-scenarios";
const UNSEEDED: &str = "unseeded";
/// In `STASH`: held while the stores are switched and the run writes the archive's.
const LOCK: &str = ".lock";
/// What a store being copied is called until it is whole.
const TMP_PREFIX: &str = ".tmp-";

/// The archive's store made the one of a scenario set; the lock is held until [`InUse::finish`].
pub struct InUse {
    _lock: File,
    store: PathBuf,
    mark: Mark,
}

impl InUse {
    /// After the run: a store the run made (migrating an older home's runs, or its first
    /// readings) is marked as the set's.
    pub fn finish(self) -> Result<(), FileError> {
        if self.store.is_dir() && read_mark(&self.store).is_none() {
            write_mark(&self.store, &self.mark)?;
        }
        Ok(())
    }
}

/// Which set a store belongs to.
#[derive(Clone, Debug, PartialEq)]
struct Mark {
    set: String,
    /// Made without a healthy store to copy: dropped when another set runs.
    unseeded: bool,
}

/// Makes `home`'s archive judge with the store of `scenarios` on `fleet`, putting the store of
/// the set that ran last away (see the module's doc).
pub fn switch(home: &Path, fleet: Fleet, scenarios: &[Scenario]) -> Result<InUse, FileError> {
    let stash = home.join(STASH);
    let older_home = !stash.exists();
    file::ensure_private_dir(&stash)?;
    let lock = file::open_lock(&stash.join(LOCK))?;
    lock.lock().map_err(|source| write_error(&stash, source))?;
    remove_leftovers(&stash);
    let archive = home.join("archive");
    let store = archive.join(REFERENCES);
    let set = set_name(fleet, scenarios);
    let healthy = set_name(fleet, &[]);
    let in_use = |mark: Mark| InUse {
        _lock: lock,
        store: store.clone(),
        mark,
    };
    let seeded = Mark {
        set: set.clone(),
        unseeded: false,
    };
    if store.is_dir() {
        match read_mark(&store) {
            // An older home's one store: the set that runs first takes it.
            None => {
                write_mark(&store, &seeded)?;
                return Ok(in_use(seeded));
            }
            Some(mark) if mark.set == set => return Ok(in_use(mark)),
            Some(mark) if mark.unseeded => remove(&store)?,
            Some(mark) => put(&store, &stash.join(dir_name(&mark.set)))?,
        }
    }
    let kept = stash.join(dir_name(&set));
    if kept.is_dir() {
        put(&kept, &store)?;
        return Ok(in_use(seeded));
    }
    let base = stash.join(dir_name(&healthy));
    if set != healthy && base.is_dir() {
        file::ensure_dir(&archive)?;
        copy_store(&base, &stash, &store, &seeded)?;
        return Ok(in_use(seeded));
    }
    let mark = Mark {
        unseeded: set != healthy,
        set,
    };
    // An older home with no store: the run migrates what its runs hold ([`InUse::finish`]
    // marks it). Otherwise the set starts from its own first readings, never another set's.
    if !older_home {
        file::ensure_dir(&store)?;
        write_mark(&store, &mark)?;
    }
    Ok(in_use(mark))
}

/// A set's name: the fleet, then its scenarios sorted (`healthy` is no scenario), `+` between.
fn set_name(fleet: Fleet, scenarios: &[Scenario]) -> String {
    let mut names: Vec<String> = scenarios
        .iter()
        .filter(|s| s.fault != Fault::Healthy)
        .map(Scenario::to_string)
        .collect();
    names.sort();
    names.dedup();
    std::iter::once(fleet.name().to_string())
        .chain(names)
        .collect::<Vec<_>>()
        .join("+")
}

/// A set's directory name: its name, with what a file name should not hold replaced (a device
/// after `@` is the user's text), and a long one cut and told apart by its hash.
fn dir_name(set: &str) -> String {
    let safe: String = set
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '-' | '+' | '@' | '_' => c,
            _ => '_',
        })
        .collect();
    if safe.len() <= 120 && safe == set {
        return safe;
    }
    use std::hash::{Hash, Hasher};
    let mut hasher = std::collections::hash_map::DefaultHasher::new();
    set.hash(&mut hasher);
    let cut: String = safe.chars().take(100).collect();
    format!("{cut}_{:016x}", hasher.finish())
}

fn read_mark(store: &Path) -> Option<Mark> {
    let text = file::read_text(&store.join(MARK), Kind::REFERENCES).ok()?;
    let mut lines = text.lines();
    let set = lines.next()?.trim().to_string();
    Some(Mark {
        unseeded: lines.next().map(str::trim) == Some(UNSEEDED),
        set,
    })
}

fn write_mark(store: &Path, mark: &Mark) -> Result<(), FileError> {
    let mut text = format!("{}\n", mark.set);
    if mark.unseeded {
        text.push_str(UNSEEDED);
        text.push('\n');
    }
    file::write_atomic(&store.join(MARK), text.as_bytes())
}

/// `base`'s files copied into a new store at `store`, marked `mark`: whole or not at all.
fn copy_store(base: &Path, stash: &Path, store: &Path, mark: &Mark) -> Result<(), FileError> {
    let temp = file::temp_dir(stash, TMP_PREFIX, "")?;
    let entries = std::fs::read_dir(base).map_err(|source| FileError::Read {
        what: Kind::REFERENCES.what,
        path: base.to_path_buf(),
        source,
    })?;
    for entry in entries.filter_map(Result::ok) {
        let name = entry.file_name();
        // The lock and the mark are the store's own, not its references.
        if name.to_string_lossy().starts_with('.') {
            continue;
        }
        let bytes = file::read(&entry.path(), Kind::REFERENCES)?;
        file::write_atomic_unsynced(&temp.path().join(&name), &bytes)?;
    }
    write_mark(temp.path(), mark)?;
    put(&temp.keep(), store)
}

/// Moves the store at `from` to `to` (a rename: the two are in the demo's home).
fn put(from: &Path, to: &Path) -> Result<(), FileError> {
    if to.exists() {
        remove(to)?;
    }
    std::fs::rename(from, to).map_err(|source| write_error(to, source))?;
    if let Some(parent) = to.parent() {
        file::sync_dir(parent);
    }
    Ok(())
}

fn remove(dir: &Path) -> Result<(), FileError> {
    std::fs::remove_dir_all(dir).map_err(|source| write_error(dir, source))
}

/// What a copy cut short (the demo killed) left in the stash.
fn remove_leftovers(stash: &Path) {
    let Ok(entries) = std::fs::read_dir(stash) else {
        return;
    };
    for entry in entries.filter_map(Result::ok) {
        if entry.file_name().to_string_lossy().starts_with(TMP_PREFIX) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn write_error(path: &Path, source: std::io::Error) -> FileError {
    FileError::Write {
        path: path.to_path_buf(),
        source,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scenarios(names: &[&str]) -> Vec<Scenario> {
        Scenario::parse_all(&names.iter().map(|s| s.to_string()).collect::<Vec<_>>()).unwrap()
    }

    /// One demo run of `names` in `home`: the reading of `device` it judges against, then the
    /// one it leaves (`None`: it moved nothing).
    fn run(home: &Path, names: &[&str], leaves: Option<&str>) -> Option<String> {
        let in_use = switch(home, Fleet::Standard, &scenarios(names)).unwrap();
        let store = home.join("archive").join(REFERENCES);
        let seen = std::fs::read_to_string(store.join("sw1.json")).ok();
        if let Some(reading) = leaves {
            std::fs::create_dir_all(&store).unwrap();
            std::fs::write(store.join("sw1.json"), reading).unwrap();
        }
        in_use.finish().unwrap();
        seen
    }

    #[test]
    fn a_set_is_named_by_fleet_and_sorted_scenarios_healthy_being_none() {
        let name = |n: &[&str]| set_name(Fleet::Standard, &scenarios(n));
        assert_eq!(name(&[]), "standard");
        assert_eq!(name(&["healthy"]), "standard");
        assert_eq!(
            name(&["rebooted", "crc-errors@sw2", "rebooted"]),
            "standard+crc-errors@sw2+rebooted"
        );
        assert_eq!(set_name(Fleet::Mixed, &[]), "mixed");
        assert_eq!(
            dir_name("standard+hang@../x"),
            dir_name("standard+hang@../x")
        );
        assert!(!dir_name("standard+hang@../x").contains('/'));
        assert!(dir_name(&"x".repeat(400)).len() < 130);
    }

    #[test]
    fn each_scenario_starts_from_the_healthy_store_and_keeps_its_own() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        assert_eq!(run(home, &[], Some("healthy")), None);
        // The scenario judges against the healthy reading, and moves its own copy.
        let seen = run(home, &["rebooted"], Some("rebooted"));
        assert_eq!(seen.as_deref(), Some("healthy"));
        // Its rerun judges against the same store.
        assert_eq!(run(home, &["rebooted"], None).as_deref(), Some("rebooted"));
        // The healthy lab and another scenario never see it.
        assert_eq!(run(home, &[], None).as_deref(), Some("healthy"));
        let seen = run(home, &["config-changed"], None);
        assert_eq!(seen.as_deref(), Some("healthy"));
        assert_eq!(run(home, &["rebooted"], None).as_deref(), Some("rebooted"));
        let stash: Vec<String> = std::fs::read_dir(home.join(STASH))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(
            !stash.iter().any(|n| n.starts_with(TMP_PREFIX)),
            "{stash:?}"
        );
    }

    #[test]
    fn a_scenario_run_before_any_healthy_one_is_dropped_once_another_set_runs() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        run(
            home,
            &["config-changed"],
            Some("changed, its own first reading"),
        );
        assert_eq!(
            run(home, &[], Some("healthy")),
            None,
            "nothing of another set"
        );
        let seen = run(home, &["config-changed"], None);
        assert_eq!(seen.as_deref(), Some("healthy"));
    }

    #[test]
    fn an_older_home_s_store_is_taken_by_the_set_that_runs_first() {
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        let store = home.join("archive").join(REFERENCES);
        std::fs::create_dir_all(&store).unwrap();
        std::fs::write(store.join("sw1.json"), "older").unwrap();
        assert_eq!(run(home, &[], None).as_deref(), Some("older"));
        assert_eq!(run(home, &["rebooted"], None).as_deref(), Some("older"));

        // An older home without a store: the run migrates its runs, and the store it makes is
        // the set's.
        let home = tempfile::tempdir().unwrap();
        let home = home.path();
        let in_use = switch(home, Fleet::Standard, &[]).unwrap();
        assert!(!home.join("archive/references").exists(), "left to migrate");
        drop(in_use);
        assert_eq!(run(home, &[], Some("migrated")), None);
        assert_eq!(run(home, &["rebooted"], None).as_deref(), Some("migrated"));
    }
}
