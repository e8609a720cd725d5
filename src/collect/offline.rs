//! Saved outputs: `DIR/<device>/<file>` where `<file>` is [`Command::file_name`], or
//! `<file>.zst` compressed (the archive keeps its raw outputs so). `premarket capture` writes the
//! same layout, so a capture can be replayed and judged later. The archive writes it too, with
//! `<file>.empty` beside an output that was empty when collected and `<file>.error` for one that
//! was not collected, so a replay of an archived run judges exactly what the run judged.
//!
//! A saved output is opened where it lies: a small one is read whole, a large one stays on disk
//! and its parser streams it. The per-command cap (`ssh.max_output_mb`) applies as it does live.
//! As live, the saved identity output (`show version`) is read first and tells the model: a
//! command the model lacks is not read, and a saved "no such command" answer is judged the way
//! the SSH driver judges it.
//!
//! A directory may be based on another: a one-line file `based-on` names it (relative to the
//! directory), and an output the directory lacks is read there (`.empty` and `.error` markers
//! too), so a scenario holds only the outputs that differ from the healthy day's. A chain is
//! followed up to [`MAX_BASES`] deep; a loop or a missing base makes every read an error that
//! names the `based-on` file.

use std::path::{Path, PathBuf};

use super::{BoxFuture, Collector};
use premarket_core::{CollectError, Command, Megabytes, Output, Outputs};
use premarket_files::{self as file, Kind};
use premarket_plan::DevicePlan;
use premarket_spool::{self as spool, SavedError};
use premarket_ssh::session::MAX_OUTPUT;

pub struct Offline {
    pub dir: PathBuf,
    cap: Megabytes,
    /// `dir`, then the directories it is based on, nearest first; or why the chain is broken.
    chain: Result<Vec<PathBuf>, String>,
}

/// The file that names the directory an offline directory is based on.
pub const BASED_ON: &str = "based-on";

/// How deep a chain of `based-on` files is followed (a scenario based on another scenario
/// based on the healthy day is two).
pub const MAX_BASES: usize = 4;

/// `dir` and the directories its `based-on` chain names, nearest first.
pub fn chain(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut chain = vec![dir.to_path_buf()];
    loop {
        let last = chain.last().map(PathBuf::as_path).unwrap_or(dir);
        let marker = last.join(BASED_ON);
        let line = match file::read_text(&marker, Kind::NOTE) {
            Ok(text) => text.lines().next().unwrap_or_default().trim().to_string(),
            Err(e) if e.is_missing() => return Ok(chain),
            Err(e) => return Err(e.to_string()),
        };
        if line.is_empty() {
            return Err(format!(
                "{}: empty; it names one directory",
                marker.display()
            ));
        }
        // The real path: `..` after a symbolic link means what the kernel says it means.
        let base = last
            .join(&line)
            .canonicalize()
            .unwrap_or_else(|_| last.join(&line));
        if !base.is_dir() {
            return Err(format!(
                "{}: the base `{line}` is not a directory ({})",
                marker.display(),
                base.display()
            ));
        }
        let same = |a: &Path| match (a.canonicalize(), base.canonicalize()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        };
        if chain.iter().any(|c| same(c)) {
            return Err(format!(
                "{}: `{line}` leads back to a directory already in the chain",
                marker.display()
            ));
        }
        if chain.len() > MAX_BASES {
            return Err(format!(
                "{}: more than {MAX_BASES} bases deep",
                marker.display()
            ));
        }
        chain.push(base);
    }
}

pub use premarket_spool::COMPRESSED;

impl Offline {
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        let dir = dir.into();
        Offline {
            chain: chain(&dir),
            dir,
            cap: MAX_OUTPUT,
        }
    }

    /// The directory of the chain that holds `name` for `device` (plain, `.zst`, `.empty` or
    /// `.error`); `dir` itself when none does, so a missing file is named where it was expected.
    pub fn folder_of(&self, device: &str, name: &str) -> Result<PathBuf, CollectError> {
        let chain = self
            .chain
            .as_ref()
            .map_err(|e| CollectError::Other(e.clone()))?;
        let holds = |folder: &Path| {
            ["", COMPRESSED, ".empty", ".error"]
                .iter()
                .any(|suffix| folder.join(format!("{name}{suffix}")).exists())
        };
        Ok(chain
            .iter()
            .map(|d| d.join(device))
            .find(|folder| holds(folder))
            .unwrap_or_else(|| self.dir.join(device)))
    }

    /// Outputs larger than `cap` are an error, as they are live.
    pub fn capped(mut self, cap: Megabytes) -> Self {
        self.cap = cap;
        self
    }

    fn read(&self, device: &str, command: &Command) -> Result<Output, CollectError> {
        let name = command.file_name();
        let folder = self.folder_of(device, &name)?;
        let beside = |suffix: &str| folder.join(format!("{name}{suffix}"));
        let plain = folder.join(&name);
        let path = if !plain.exists() && beside(COMPRESSED).exists() {
            beside(COMPRESSED)
        } else {
            plain
        };
        match read(&path, self.cap) {
            Ok(output) if output.is_blank() => {
                if beside(".empty").exists() {
                    return Ok(output);
                }
                Err(CollectError::FileEmpty {
                    path: path.display().to_string(),
                })
            }
            Ok(output) => Ok(output),
            Err(Unread::Missing) => match file::read_text(&beside(".error"), Kind::NOTE) {
                Ok(error) => Err(CollectError::Other(format!(
                    "not collected in the archived run: {}",
                    error.trim()
                ))),
                Err(_) => Err(CollectError::FileMissing {
                    path: path.display().to_string(),
                }),
            },
            Err(Unread::Error(e)) => Err(e),
        }
    }
}

enum Unread {
    Missing,
    Error(CollectError),
}

/// A saved output, plain or `.zst`.
fn read(path: &Path, cap: Megabytes) -> Result<Output, Unread> {
    spool::read_saved(path, cap).map_err(|e| match e {
        SavedError::File(e) if e.is_missing() => Unread::Missing,
        // A FIFO, a device: the message names the file and why it is not read.
        SavedError::File(e) => Unread::Error(CollectError::Other(e.to_string())),
        SavedError::Io(e) => Unread::Error(CollectError::FileUnreadable {
            path: path.display().to_string(),
            reason: e.to_string(),
        }),
        exceeded @ SavedError::Exceeded { .. } => Unread::Error(CollectError::FileUnreadable {
            path: path.display().to_string(),
            reason: exceeded.to_string(),
        }),
    })
}

impl Offline {
    /// A saved output, or the device's own "no such command" answer saved in it, as the SSH
    /// driver would have judged it live.
    fn answer(&self, plan: &DevicePlan, command: &Command) -> Result<Output, CollectError> {
        let output = self.read(&plan.device.name, command)?;
        let refused = super::ssh::profile(plan.device.platform)
            .and_then(|p| p.error_in(output.head()))
            .filter(|(e, _)| e.unsupported)
            .map(|(e, said)| format!("`{}`: {said} ({})", command.text, e.advice));
        match refused {
            Some(message) => Err(CollectError::Unsupported(message)),
            None => Ok(output),
        }
    }
}

impl Collector for Offline {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        let reader = Offline {
            dir: self.dir.clone(),
            cap: self.cap,
            chain: self.chain.clone(),
        };
        let owned = plan.clone();
        Box::pin(async move {
            // Reading files blocks: off the async threads, as every file read is.
            let read = tokio::task::spawn_blocking(move || reader.read_all(&owned));
            match read.await {
                Ok(outputs) => outputs,
                Err(e) => Outputs::all_failed(
                    &plan.commands,
                    CollectError::Other(format!("reading the saved outputs failed: {e}")),
                ),
            }
        })
    }
}

impl Offline {
    /// Every planned output of one device: the saved identity output first, since the model
    /// says which other files to read.
    fn read_all(&self, plan: &DevicePlan) -> Outputs {
        let mut read: Vec<Option<Result<Output, CollectError>>> = vec![None; plan.commands.len()];
        for i in plan.identity_commands() {
            read[i] = Some(self.answer(plan, &plan.commands[i]));
        }
        let model = plan.model_from(|i| read[i].as_ref()?.as_ref().ok());
        let results = plan
            .commands
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let result =
                    read[i]
                        .take()
                        .unwrap_or_else(|| match plan.withhold(i, model.as_ref()) {
                            Some(why) => Err(CollectError::NotApplicable(why)),
                            None => self.answer(plan, c),
                        });
                (c.clone(), result)
            })
            .collect();
        Outputs { results }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(path: &Path, text: &str) {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn an_output_the_scenario_lacks_is_read_from_its_base() {
        let root = tempfile::tempdir().unwrap();
        let (healthy, scenario) = (root.path().join("healthy"), root.path().join("scenario"));
        write(&healthy.join("fw1/a.txt"), "healthy a");
        write(&healthy.join("fw1/b.txt"), "healthy b");
        write(&healthy.join("fw1/c.txt.error"), "timed out");
        write(&scenario.join("fw1/b.txt"), "scenario b");
        write(&scenario.join(BASED_ON), "../healthy\n");
        let offline = Offline::new(&scenario);
        assert_eq!(
            offline.folder_of("fw1", "a.txt").unwrap(),
            healthy.join("fw1")
        );
        assert_eq!(
            offline.folder_of("fw1", "b.txt").unwrap(),
            scenario.join("fw1")
        );
        assert_eq!(
            offline.folder_of("fw1", "c.txt").unwrap(),
            healthy.join("fw1")
        );
        // Found nowhere: named where it was expected, in the scenario itself.
        assert_eq!(
            offline.folder_of("fw1", "d.txt").unwrap(),
            scenario.join("fw1")
        );
        // Without `based-on` the directory stands alone.
        assert_eq!(
            Offline::new(&healthy).folder_of("fw1", "b.txt").unwrap(),
            healthy.join("fw1")
        );
    }

    #[test]
    fn a_loop_a_missing_base_or_an_empty_marker_is_an_error_naming_the_marker() {
        let root = tempfile::tempdir().unwrap();
        let (a, b) = (root.path().join("a"), root.path().join("b"));
        write(&a.join(BASED_ON), "../b");
        write(&b.join(BASED_ON), "../a");
        let err = chain(&a).unwrap_err();
        assert!(
            err.contains("based-on") && err.contains("already in the chain"),
            "{err}"
        );
        assert!(Offline::new(&a).folder_of("fw1", "x.txt").is_err());

        write(&b.join(BASED_ON), "../nowhere");
        let err = chain(&a).unwrap_err();
        assert!(
            err.contains("not a directory") && err.contains("nowhere"),
            "{err}"
        );

        write(&b.join(BASED_ON), "\n");
        assert!(chain(&a).unwrap_err().contains("empty"));

        // A chain deeper than the limit.
        for i in 0..=MAX_BASES + 1 {
            write(
                &root.path().join(format!("d{i}/{BASED_ON}")),
                &format!("../d{}", i + 1),
            );
        }
        std::fs::create_dir_all(root.path().join(format!("d{}", MAX_BASES + 2))).unwrap();
        assert!(chain(&root.path().join("d0")).unwrap_err().contains("deep"));
    }
}
