//! The archive's disk cannot stop an inspection. A switch over real SSH whose running and
//! startup configurations are larger than what premarket holds in memory (so they are spooled
//! to disk), with the archive on a small tmpfs that is full: every check is judged as with
//! room to spare, the spool falls back (the system's temporary directory, then memory), and the
//! report says the archive is full. Before, "No space left on device" ended the session and
//! every check after the large output was ERROR.
//!
//! Needs root for the tmpfs (CI); skipped with a message otherwise, unless
//! PREMARKET_REQUIRE_TMPFS=1.

use crate::common::tmpfs::Tmpfs;
use crate::ssh_cli::{premarket_env, site, statuses, switch};
use crate::ssh_common::device::Device;

use std::path::Path;

/// A configuration of about 3 MB (spooled: over the 1 MiB kept in memory) that the checks
/// read as the small one: the same lines, then interface descriptions.
fn large_config(head: &str) -> String {
    let mut text = head.trim_end_matches("end").to_string();
    for i in 0..40_000 {
        text.push_str(&format!(
            "interface Ethernet{i}\n   description feed handler port {i:06} of the trading floor\n!\n"
        ));
    }
    text.push_str("end");
    text
}

fn write_site(dir: &Path, port: u16, known_hosts: &str, archive: &Path) {
    site(dir, port, known_hosts);
    let yaml = dir.join("baselines/site.yaml");
    let mut text = std::fs::read_to_string(&yaml).unwrap();
    text.push_str(&format!("archive:\n  dir: {}\n", archive.display()));
    std::fs::write(&yaml, text).unwrap();
}

#[tokio::test(flavor = "multi_thread")]
async fn a_full_archive_disk_leaves_every_check_judged_and_is_said() {
    let Some(archive) = Tmpfs::mount(1024) else {
        return;
    };
    let Some(temporary) = Tmpfs::mount(1024) else {
        return;
    };
    archive.fill();
    temporary.fill();
    let mut script = switch();
    for command in ["show running-config", "show startup-config"] {
        let small = script.answers[command].clone();
        script = script.answer(command, &large_config(&small));
    }
    let dev = Device::start(script).await;
    let room = tempfile::tempdir().unwrap();
    let full = tempfile::tempdir().unwrap();
    write_site(
        room.path(),
        dev.port,
        &dev.known_hosts_line(),
        &room.path().join("archive"),
    );
    write_site(
        full.path(),
        dev.port,
        &dev.known_hosts_line(),
        archive.path(),
    );

    // (site, TMPDIR, where the spool went when the archive had no room)
    let tmp = temporary.path().to_str().unwrap().to_string();
    let roomy_tmp = std::env::temp_dir().to_str().unwrap().to_string();
    let cases = [
        (room.path(), roomy_tmp.clone(), None),
        (
            full.path(),
            roomy_tmp,
            Some("the system's temporary directory"),
        ),
        (full.path(), tmp, Some("memory")),
    ];
    let mut judged = None;
    for (dir, tmpdir, fallback) in cases {
        let dir = dir.to_path_buf();
        let (code, stdout, stderr) = tokio::task::spawn_blocking(move || {
            premarket_env(&dir, &["run", "--format", "json"], &[("TMPDIR", &tmpdir)])
        })
        .await
        .unwrap();
        let got = statuses(&stdout);
        assert!(
            got.iter().all(|(_, status)| status != "ERROR"),
            "{fallback:?}: {got:?}\n{stderr}"
        );
        match &judged {
            None => judged = Some(got),
            Some(first) => assert_eq!(&got, first, "{fallback:?}: judged alike"),
        }
        match fallback {
            None => assert_eq!(code, 0, "{stderr}"),
            Some(place) => {
                assert_eq!(code, 2, "the archive is a problem: {stderr}");
                assert!(
                    stderr.contains("the archive's disk is full") && stderr.contains(place),
                    "{place}: {stderr}"
                );
                let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
                let problems = report["problems"].to_string();
                assert!(problems.contains("disk is full"), "{problems}");
            }
        }
    }
}
