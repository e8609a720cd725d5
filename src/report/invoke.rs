//! How to call premarket again for the run that printed a report, so that every command the
//! report prints works when on-call pastes it, from any directory.
//!
//! A run made with `--dir /etc/premarket/site` (or `PREMARKET_DIR`) reruns a check with the
//! same `--dir`; an offline run with the same `--offline DIR`; the demo, whose site exists only
//! while it runs, with `premarket demo --check ID` (its history and `accept` with `--demo`).
//! Commands are written as words (`premarket check ID --device sw1`) by whoever knows what to
//! rerun, and [`Invocation::complete`] adds what the run needs; a path with a space or a quote
//! is quoted for the shell.

use std::path::{Path, PathBuf};

/// Where the run came from, as far as a command to rerun it must say.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Invocation {
    /// The configuration directory the printed commands name (absolute), unless the run's
    /// environment names it (`PREMARKET_DIR`) or the run has none of its own (the demo).
    pub dir: Option<PathBuf>,
    pub mode: Mode,
}

/// What kind of run printed the report.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Mode {
    /// A run against the site's devices.
    #[default]
    Site,
    /// A run over saved outputs in this directory (absolute).
    Offline(PathBuf),
    /// `premarket demo`, with the home it was given (`--home`), if any.
    Demo { home: Option<PathBuf> },
}

impl Invocation {
    /// The command that reruns `check` on `device`.
    pub fn check(&self, check: &str, device: &str) -> String {
        self.complete(&format!("premarket check {check} --device {device}"))
    }

    /// `command` (`premarket check ID --device sw1`, `premarket run --device fw1`) as this run
    /// must be told it; anything that is not a premarket command is returned as it is.
    pub fn complete(&self, command: &str) -> String {
        let words: Vec<&str> = command.split_whitespace().collect();
        let [premarket, sub, rest @ ..] = words.as_slice() else {
            return command.to_string();
        };
        if *premarket != "premarket" {
            return command.to_string();
        }
        let mut out: Vec<String> = vec![premarket.to_string()];
        let has = |flag: &str| {
            rest.iter()
                .any(|w| *w == flag || w.starts_with(&format!("{flag}=")))
        };
        match &self.mode {
            Mode::Demo { home } => {
                match *sub {
                    "check" => out.extend(["demo".to_string(), "--check".to_string()]),
                    "run" => out.push("demo".to_string()),
                    "history" => out.extend(["history".to_string(), "--demo".to_string()]),
                    "accept" => out.extend(["accept".to_string(), "--demo".to_string()]),
                    // The demo's site lives only while it runs: nothing else can be completed.
                    _ => return command.to_string(),
                }
                out.extend(rest.iter().map(|w| w.to_string()));
                if let Some(home) = home.as_deref().filter(|_| !has("--home")) {
                    out.extend(["--home".to_string(), shell_word(home)]);
                }
            }
            Mode::Site | Mode::Offline(_) => {
                out.push(sub.to_string());
                out.extend(rest.iter().map(|w| w.to_string()));
                if let Mode::Offline(dir) = &self.mode
                    && matches!(*sub, "check" | "run")
                    && !has("--offline")
                {
                    out.extend(["--offline".to_string(), shell_word(dir)]);
                }
                if let Some(dir) = self.dir.as_deref().filter(|_| !has("--dir")) {
                    out.extend(["--dir".to_string(), shell_word(dir)]);
                }
            }
        }
        out.join(" ")
    }

    /// Whether `command` reruns exactly `check` on `device` (so a remedy that names it can
    /// point at the block's rerun line instead of repeating it).
    pub fn is_rerun_of(command: &str, check: &str, device: &str) -> bool {
        let words: Vec<&str> = command.split_whitespace().collect();
        match words.as_slice() {
            ["premarket", "check", id] => *id == check,
            ["premarket", "check", id, "--device", d] => *id == check && *d == device,
            _ => false,
        }
    }

    /// Whether `command` reruns the whole of `device` (a device that could not be inspected).
    pub fn is_device_rerun(command: &str, device: &str) -> bool {
        let words: Vec<&str> = command.split_whitespace().collect();
        matches!(words.as_slice(), ["premarket", "run", "--device", d] if *d == device)
    }
}

/// A path as one shell word: as it is when it holds only safe characters, else single-quoted.
pub fn shell_word(path: &Path) -> String {
    let text = path.to_string_lossy();
    let safe = !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+:,@%=~".contains(c));
    if safe {
        text.into_owned()
    } else {
        format!("'{}'", text.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_completed_for_the_run_that_prints_them() {
        let site = Invocation::default();
        let dir = Invocation {
            dir: Some("/etc/premarket/site".into()),
            mode: Mode::Site,
        };
        let offline = Invocation {
            dir: Some("/srv/my site".into()),
            mode: Mode::Offline("/tmp/saved".into()),
        };
        let demo = Invocation {
            dir: None,
            mode: Mode::Demo { home: None },
        };
        let demo_home = Invocation {
            dir: None,
            mode: Mode::Demo {
                home: Some("/tmp/demo home".into()),
            },
        };
        let check = "premarket check eos.lanz.persisted --device sw1";
        let cases = [
            (&site, check, check.to_string()),
            (&dir, check, format!("{check} --dir /etc/premarket/site")),
            (
                &offline,
                check,
                format!("{check} --offline /tmp/saved --dir '/srv/my site'"),
            ),
            (
                &offline,
                "premarket plan --device sw1",
                "premarket plan --device sw1 --dir '/srv/my site'".to_string(),
            ),
            (
                &demo,
                check,
                "premarket demo --check eos.lanz.persisted --device sw1".to_string(),
            ),
            (
                &demo_home,
                "premarket run --device fw1",
                "premarket demo --device fw1 --home '/tmp/demo home'".to_string(),
            ),
            (
                &demo,
                "premarket history",
                "premarket history --demo".to_string(),
            ),
            (
                &demo_home,
                "premarket accept --device sw1 --check a.b.c --reason WHY",
                "premarket accept --demo --device sw1 --check a.b.c --reason WHY --home '/tmp/demo home'"
                    .to_string(),
            ),
            (
                &dir,
                "premarket accept --device sw1 --reason WHY",
                "premarket accept --device sw1 --reason WHY --dir /etc/premarket/site".to_string(),
            ),
            (&dir, "show version", "show version".to_string()),
            (&dir, "premarket", "premarket".to_string()),
        ];
        for (invocation, command, want) in cases {
            assert_eq!(invocation.complete(command), want, "{invocation:?}");
        }
        assert_eq!(
            dir.check("fortigate.ha.state", "fw1"),
            "premarket check fortigate.ha.state --device fw1 --dir /etc/premarket/site"
        );
        assert_eq!(shell_word(Path::new("it's")), r"'it'\''s'");
    }

    #[test]
    fn a_remedy_s_own_rerun_is_recognised() {
        let own = Invocation::is_rerun_of;
        assert!(own("premarket check a.b.c", "a.b.c", "sw1"));
        assert!(own("premarket check a.b.c --device sw1", "a.b.c", "sw1"));
        assert!(!own("premarket check a.b.c --device sw2", "a.b.c", "sw1"));
        assert!(!own("premarket check a.b.d", "a.b.c", "sw1"));
        assert!(Invocation::is_device_rerun(
            "premarket run --device fw1",
            "fw1"
        ));
        assert!(!Invocation::is_device_rerun("premarket run", "fw1"));
    }
}
