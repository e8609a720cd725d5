//! Shared helpers for whole-flow tests: a copy of the example site in a temp dir that a test
//! may change, and an offline output directory built from fixtures.

#![allow(dead_code)]

pub mod sshd;
pub mod tmpfs;

use std::path::{Path, PathBuf};

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn fixture(rel: &str) -> PathBuf {
    repo().join("tests/fixtures").join(rel)
}

/// A temporary copy of the example site (`baselines/`, `checks/`).
pub struct Site {
    pub dir: tempfile::TempDir,
}

impl Site {
    pub fn example() -> Site {
        let dir = tempfile::tempdir().expect("tempdir");
        for sub in ["baselines", "checks"] {
            copy_dir(&repo().join(sub), &dir.path().join(sub));
        }
        Site { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn write(&self, rel: &str, text: &str) {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    pub fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(rel)).expect("read")
    }

    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.dir.path().join(rel)).expect("remove");
    }
}

/// `premarket --dir DIR run --offline SAVED --format json --no-email` with no `PREMARKET_`
/// variable of the caller's: the exit code, the report and stderr.
pub fn offline_report(dir: &Path, saved: &Path) -> (i32, serde_json::Value, String) {
    let mut command = assert_cmd::Command::cargo_bin("premarket").expect("binary");
    for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("PREMARKET_")) {
        command.env_remove(name);
    }
    let out = command
        .arg("--dir")
        .arg(dir)
        .args(["run", "--offline"])
        .arg(saved)
        .args(["--format", "json", "--no-email"])
        .output()
        .expect("run");
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    let report = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("a JSON report ({e}):\n{stdout}\n{stderr}"));
    (out.status.code().unwrap_or(-1), report, stderr)
}

pub fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read_dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("type").is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).expect("copy");
        }
    }
}

/// Runs a table of demo scenarios, each judged against the run before it, as `parts`
/// sequences at once (row `i` in sequence `i % parts`, so the slow rows spread), each in a home
/// of its own. Every sequence but the first starts with `first` (the table's healthy row,
/// asserted like any row), so each scenario still follows a run, as in one long sequence. A
/// demo run spends most of its time waiting on the lab's devices (a feed check's second
/// sample, a slow device's late answers): run one after another, the two longest tables took
/// two minutes each of the CI's test time.
pub fn scenarios_in_parts<R: Sync>(
    rows: &[R],
    parts: usize,
    first: &R,
    run: impl Fn(&Path, &R) + Sync,
) {
    let parts = parts.max(1);
    std::thread::scope(|scope| {
        for part in 0..parts {
            let run = &run;
            scope.spawn(move || {
                let home = tempfile::tempdir().expect("tempdir");
                let lead = (part > 0).then_some(first);
                let own = rows.iter().skip(part).step_by(parts);
                for row in lead.into_iter().chain(own) {
                    run(home.path(), row);
                }
            });
        }
    });
}
