//! Every file premarket reads is bounded and of the right kind: a FIFO, `/dev/zero` or a huge
//! sparse file put where premarket reads a configuration file, known_hosts, a saved output, an
//! archived report or facts file, or a capture is refused at once with a message naming the
//! file (and the cap), and the run goes on to its report.
//!
//! Each case runs the binary with 1 GiB of address space (`ulimit -v`: a reader that takes
//! `/dev/zero` whole aborts instead of eating the machine's memory) and its own time limit (a
//! reader that blocks on a FIFO fails the test instead of hanging it).

use crate::ssh_common;

use crate::email_support;

use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use email_support::{Site, outputs, scenario, text};

/// Enough for any run of the test site (a demo run needs under 500 MB of address space).
const ADDRESS_SPACE_KIB: u64 = 1 << 20;
/// A run of the test site takes about a second; a FIFO read blocks for ever.
const TIME_LIMIT: Duration = Duration::from_secs(40);
/// A sparse file this large takes no disk, and 1.5 GB of memory to read whole.
const SPARSE: u64 = 1_500_000_000;

/// What is planted in place of a file premarket reads.
#[derive(Clone, Copy, Debug)]
enum Hazard {
    Fifo,
    DevZero,
    Sparse,
}

const HAZARDS: [Hazard; 3] = [Hazard::Fifo, Hazard::DevZero, Hazard::Sparse];

impl Hazard {
    fn plant(self, path: &Path) {
        let _ = std::fs::remove_file(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        match self {
            Hazard::Fifo => {
                let made = std::process::Command::new("mkfifo").arg(path).status();
                assert!(made.unwrap().success(), "mkfifo {}", path.display());
            }
            Hazard::DevZero => std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
            Hazard::Sparse => std::fs::File::create(path)
                .and_then(|f| f.set_len(SPARSE))
                .unwrap(),
        }
    }

    /// What the refusal says about the file.
    fn refusal(self) -> &'static str {
        match self {
            Hazard::Fifo => "is a FIFO, not a regular file",
            Hazard::DevZero => "is a character device, not a regular file",
            Hazard::Sparse => "is 1.3 GiB, larger than the",
        }
    }
}

/// `premarket --dir DIR ARGS` with bounded memory and time; panics when it did not finish.
fn premarket(dir: &Path, args: &[&str]) -> Output {
    let out = email_support::limited(ADDRESS_SPACE_KIB, TIME_LIMIT)
        .arg("--dir")
        .arg(dir)
        .args(args)
        .output()
        .expect("run premarket");
    assert!(
        out.status.code().is_some(),
        "premarket {args:?} did not finish by itself within {TIME_LIMIT:?} (blocked, or killed \
         at the memory limit): {:?}\nstdout: {}\nstderr: {}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

fn both(out: &Output) -> String {
    format!("{}{}", text(&out.stdout), text(&out.stderr))
}

#[test]
fn configuration_files_that_are_not_regular_or_too_large_are_refused_at_once() {
    for rel in [
        "baselines/site.yaml",
        "baselines/sw1.yaml",
        "checks/eos.yaml",
    ] {
        for hazard in HAZARDS {
            let site = Site::new("");
            let path = site.path().join(rel);
            hazard.plant(&path);
            let out = premarket(site.path(), &["validate"]);
            let said = both(&out);
            assert_eq!(out.status.code(), Some(3), "{rel} {hazard:?}: {said}");
            assert!(
                said.contains(&path.display().to_string()) && said.contains(hazard.refusal()),
                "{rel} {hazard:?}: the message names the file and why: {said}"
            );
            if let Hazard::Sparse = hazard {
                assert!(
                    said.contains("16 MiB premarket reads of a configuration file"),
                    "{said}"
                );
            }
        }
    }
}

#[test]
fn saved_outputs_that_are_not_regular_files_are_errors_not_hangs() {
    let site = Site::new("ssh:\n  max_output_mb: 64\n");
    let dir = outputs("healthy", site.path());
    let planted = [
        ("show-version-json.txt", Hazard::Fifo),
        ("show-startup-config.txt", Hazard::DevZero),
        ("show-queue-monitor-length-status-json.txt", Hazard::Sparse),
    ];
    for (file, hazard) in planted {
        hazard.plant(&dir.join("sw1").join(file));
    }
    let out = premarket(
        site.path(),
        &[
            "run",
            "--offline",
            dir.to_str().unwrap(),
            "--format",
            "json",
            "--no-email",
        ],
    );
    let said = both(&out);
    assert_eq!(out.status.code(), Some(2), "{said}");
    for (file, hazard) in &planted[..2] {
        assert!(
            said.contains(&format!("{file} {}", hazard.refusal())),
            "{file}: {said}"
        );
    }
    // Too large is what it was live: past `ssh.max_output_mb`, naming the file and its size.
    assert!(
        said.contains(
            "show-queue-monitor-length-status-json.txt: output exceeded 64 MB (ssh.max_output_mb): \
             the file holds 1.3 GiB"
        ),
        "{said}"
    );
}

#[test]
fn archived_reports_and_facts_that_are_not_regular_or_too_large_are_skipped() {
    let site = Site::new("archive:\n  dir: archive\n");
    let run = |name: &str| {
        let dir = scenario(name);
        premarket(
            site.path(),
            &[
                "run",
                "--offline",
                dir.to_str().unwrap(),
                "--archive",
                "--no-email",
            ],
        )
    };
    for _ in 0..2 {
        assert_eq!(run("healthy").status.code(), Some(0));
    }
    let mut runs: Vec<PathBuf> = std::fs::read_dir(site.archive())
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir() && p.join("report.json").exists())
        .collect();
    runs.sort();
    assert_eq!(runs.len(), 2, "{runs:?}");
    for hazard in HAZARDS {
        let report = runs[0].join("report.json");
        hazard.plant(&report);
        let out = premarket(site.path(), &["history"]);
        let said = both(&out);
        assert_eq!(out.status.code(), Some(0), "{hazard:?}: {said}");
        assert!(
            said.contains(&report.display().to_string()) && said.contains(hazard.refusal()),
            "{hazard:?}: {said}"
        );
        assert!(said.contains("Runs, newest first (1 of 1)"), "{said}");
        if let Hazard::Sparse = hazard {
            assert!(
                said.contains("64 MiB premarket reads of an archived report"),
                "{said}"
            );
        }
    }
    // The facts the next run compares with: every file of the newest run that holds some.
    let facts: Vec<PathBuf> = std::fs::read_dir(runs[1].join("facts"))
        .map(|d| d.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default();
    assert!(!facts.is_empty(), "the test run keeps facts for sw1");
    for hazard in HAZARDS {
        for file in &facts {
            hazard.plant(file);
        }
        let out = run("healthy");
        assert_eq!(out.status.code(), Some(0), "{hazard:?}: {}", both(&out));
    }
}

#[test]
fn a_capture_that_is_not_a_regular_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    for hazard in [Hazard::Fifo, Hazard::DevZero] {
        let path = dir.path().join("probe.pcap");
        hazard.plant(&path);
        let out = premarket(dir.path(), &["probe", "analyze", path.to_str().unwrap()]);
        let said = both(&out);
        assert_eq!(out.status.code(), Some(3), "{hazard:?}: {said}");
        assert!(
            said.contains(&format!("{} {}", path.display(), hazard.refusal())),
            "{hazard:?}: {said}"
        );
    }
}

/// A site of one switch at `port` (the scripted device) whose known_hosts is `known_hosts`.
fn ssh_site(dir: &Path, port: u16) {
    let baselines = dir.join("baselines");
    std::fs::create_dir_all(&baselines).unwrap();
    std::fs::create_dir_all(dir.join("checks")).unwrap();
    std::fs::copy(
        email_support::repo().join("tests/fixtures/email/site/checks/eos.yaml"),
        dir.join("checks/eos.yaml"),
    )
    .unwrap();
    std::fs::write(dir.join("pw"), ssh_common::CANARY).unwrap();
    std::fs::write(
        baselines.join("site.yaml"),
        "site: test\ntimezone: Asia/Taipei\ndevices:\n  - name: sw1\n    baseline: sw1.yaml\n\
         ssh:\n  known_hosts: known_hosts\n  connect_timeout_s: 5\n  command_timeout_s: 5\n",
    )
    .unwrap();
    std::fs::write(
        baselines.join("sw1.yaml"),
        format!(
            "platform: eos\nssh:\n  host: 127.0.0.1\n  port: {port}\n  user: premarket\n  \
             password: {{ file: {} }}\nexpect:\n  version: {{ allowed: [4.31.6M] }}\n  lanz: true\n",
            dir.join("pw").display()
        ),
    )
    .unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_known_hosts_that_is_not_a_regular_file_or_too_large_fails_the_device_not_the_run() {
    let device = ssh_common::device::Device::start(ssh_common::device::Script::eos(
        "sw1",
        ssh_common::CANARY,
    ))
    .await;
    for hazard in HAZARDS {
        let dir = tempfile::tempdir().unwrap();
        ssh_site(dir.path(), device.port);
        let known_hosts = dir.path().join("baselines/known_hosts");
        hazard.plant(&known_hosts);
        let root = dir.path().to_path_buf();
        let out = tokio::task::spawn_blocking(move || {
            premarket(&root, &["run", "--no-email", "--format", "json"])
        })
        .await
        .unwrap();
        let said = both(&out);
        assert_eq!(out.status.code(), Some(2), "{hazard:?}: {said}");
        assert!(
            said.contains(&known_hosts.display().to_string()) && said.contains(hazard.refusal()),
            "{hazard:?}: {said}"
        );
        assert!(!said.contains(ssh_common::CANARY), "{said}");
    }
}
