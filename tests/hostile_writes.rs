//! Files premarket writes never follow a link it did not make: a link planted at the temporary
//! name of the metrics file or the email file, at `archive/.run.lock`, at the outbox's lock or
//! as the outbox, at a capture's file or device folder, or as the demo's home never has
//! anything written through it. The planted link's target ("the victim") keeps its bytes.

use crate::ssh_common;

use crate::email_support;

use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use email_support::{Site, bin, scenario, text};

const KEEP: &str = "the victim's own bytes\n";
/// A run of the test site takes about a second; a FIFO read blocks for ever.
const TIME_LIMIT: Duration = Duration::from_secs(60);

/// A file that a planted link points at.
fn victim(dir: &Path, name: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, KEEP).unwrap();
    path
}

fn assert_untouched(victim: &Path) {
    assert_eq!(
        std::fs::read_to_string(victim).unwrap(),
        KEEP,
        "{} was written through a planted link",
        victim.display()
    );
}

fn finished(out: std::io::Result<Output>) -> Output {
    let out = out.expect("run premarket");
    assert!(
        out.status.code().is_some(),
        "premarket did not finish within {TIME_LIMIT:?}: {:?}\n{}\n{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    out
}

fn offline_run(site: &Site, args: &[&str]) -> Output {
    let healthy = scenario("healthy");
    let mut all = vec!["run", "--offline", healthy.to_str().unwrap()];
    all.extend_from_slice(args);
    finished(site.cmd(&all).timeout(TIME_LIMIT).output())
}

/// The process ids the next processes are likely to get (the kernel hands them out in order).
fn next_pids(n: u32) -> Vec<u32> {
    let last: u32 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let max: u32 = std::fs::read_to_string("/proc/sys/kernel/pid_max")
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    (1..=n).map(|i| (last + i) % max).collect()
}

#[test]
fn metrics_and_email_files_are_written_past_planted_temporary_links() {
    let site = Site::new("");
    let out_dir = site.path().join("out");
    std::fs::create_dir_all(&out_dir).unwrap();
    let metrics_victim = victim(site.path(), "victim-metrics");
    let email_victim = victim(site.path(), "victim-email");
    // Links at the names a writer that uses `.tmp-<name>-<pid>` would pick, for the pids
    // premarket is about to get.
    for pid in next_pids(400) {
        for (name, target) in [
            ("metrics.prom", &metrics_victim),
            ("last.eml", &email_victim),
        ] {
            let _ = symlink(target, out_dir.join(format!(".tmp-{name}-{pid}")));
        }
    }
    let metrics = out_dir.join("metrics.prom");
    let email = out_dir.join("last.eml");
    let out = offline_run(
        &site,
        &[
            "--metrics-file",
            metrics.to_str().unwrap(),
            "--email-to-file",
            email.to_str().unwrap(),
        ],
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_untouched(&metrics_victim);
    assert_untouched(&email_victim);
    for (path, content) in [(&metrics, "premarket_checks"), (&email, "Subject:")] {
        let kind = std::fs::symlink_metadata(path).unwrap().file_type();
        assert!(kind.is_file(), "{} is a regular file", path.display());
        assert!(std::fs::read_to_string(path).unwrap().contains(content));
    }

    // A link at the file itself is refused, not replaced and not followed.
    let target_victim = victim(site.path(), "victim-target");
    std::fs::remove_file(&metrics).unwrap();
    symlink(&target_victim, &metrics).unwrap();
    let out = offline_run(&site, &["--metrics-file", metrics.to_str().unwrap()]);
    assert_untouched(&target_victim);
    assert!(
        text(&out.stderr).contains("is a symbolic link: premarket does not write through a link"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_run_lock_refuses_a_planted_link() {
    let site = Site::new("archive:\n  dir: archive\n");
    std::fs::create_dir_all(site.archive()).unwrap();
    let lock_victim = victim(site.path(), "victim-lock");
    symlink(&lock_victim, site.archive().join(".run.lock")).unwrap();
    let out = offline_run(&site, &["--archive", "--no-email"]);
    assert_untouched(&lock_victim);
    let said = format!("{}{}", text(&out.stdout), text(&out.stderr));
    assert!(
        said.contains(".run.lock is a symbolic link"),
        "the run says why it has no lock: {said}"
    );
    // The run goes on to its report and archive; the problem makes it exit 2.
    assert_eq!(out.status.code(), Some(2), "{said}");
    assert!(said.contains("archived in"), "{said}");
}

/// site.yaml's `email:` (and `archive:`) for a relay on `port`.
fn email_yaml(port: u16) -> String {
    format!(
        "email:\n  host: 127.0.0.1\n  port: {port}\n  tls: none\n  from: \"premarket <premarket@lab.test>\"\n  \
         to: [\"oncall@lab.test\"]\n  timeout_s: 5\n  retry_for_s: 0\narchive:\n  dir: archive\n"
    )
}

/// A relay that is down: nothing listens on the port.
fn relay_down() -> String {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    email_yaml(port)
}

/// A relay on loopback (mailin-embedded, plain SMTP) that accepts every message; the thread
/// ends with the test process.
fn relay_up() -> String {
    #[derive(Clone)]
    struct Accept;
    impl mailin_embedded::Handler for Accept {}
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let mut server = mailin_embedded::Server::new(Accept);
    server.with_name("localhost").with_tcp_listener(listener);
    std::thread::spawn(move || {
        let _ = server.serve();
    });
    email_yaml(port)
}

/// An outbox holding one pending message, its `.eml` a FIFO when `fifo`.
fn pending(site: &Site, fifo: bool) -> PathBuf {
    let outbox = site.archive().join("outbox");
    std::fs::create_dir_all(&outbox).unwrap();
    std::fs::write(
        outbox.join("20261130T081500.000.json"),
        r#"{"subject":"s","from":"premarket@lab.test","to":["oncall@lab.test"],"reason":"r","attempts":1}"#,
    )
    .unwrap();
    let eml = outbox.join("20261130T081500.000.eml");
    if fifo {
        let made = std::process::Command::new("mkfifo").arg(&eml).status();
        assert!(made.unwrap().success());
    } else {
        std::fs::write(&eml, "Subject: s\r\n\r\nkept\r\n").unwrap();
    }
    outbox
}

#[test]
fn the_outbox_never_writes_through_a_link_nor_waits_on_a_fifo() {
    // A pending message that is a FIFO: the run sends its own and does not wait on it.
    let site = Site::new(&relay_up());
    pending(&site, true);
    let out = offline_run(&site, &["--archive", "--email"]);
    let said = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{said}");
    assert!(
        said.contains("20261130T081500.000.eml is a FIFO, not a regular file"),
        "{said}"
    );

    // A link at the outbox's lock: never opened through, so its target keeps its bytes.
    let site = Site::new(&relay_up());
    let outbox = pending(&site, false);
    let lock_victim = victim(site.path(), "victim-outbox-lock");
    symlink(&lock_victim, outbox.join(".lock")).unwrap();
    let out = offline_run(&site, &["--archive", "--email"]);
    assert_untouched(&lock_victim);
    let said = text(&out.stderr);
    assert!(said.contains(".lock is a symbolic link"), "{said}");

    // The outbox itself a link: the undelivered message is not kept through it.
    let site = Site::new(&relay_down());
    std::fs::create_dir_all(site.archive()).unwrap();
    let elsewhere = site.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, site.archive().join("outbox")).unwrap();
    let out = offline_run(&site, &["--archive", "--email"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out.stderr));
    assert_eq!(
        std::fs::read_dir(&elsewhere).unwrap().count(),
        0,
        "nothing was kept through the link"
    );
    assert!(
        text(&out.stderr).contains("outbox is a symbolic link"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn the_demo_home_must_be_a_directory_of_its_own() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    // This user's id: the owner of what the test just made.
    let uid = std::os::unix::fs::MetadataExt::uid(&std::fs::metadata(dir.path()).unwrap());
    // With neither XDG_STATE_HOME nor HOME, the home is premarket-demo-<uid> in the temp
    // directory, where another user may have planted a link first.
    let planted = dir.path().join(format!("premarket-demo-{uid}"));
    symlink(&elsewhere, &planted).unwrap();
    let demo = |env_home: Option<&Path>| {
        let mut cmd = assert_cmd::Command::new(bin());
        cmd.arg("demo")
            .env("TMPDIR", dir.path())
            .env("HOME", "")
            .env_remove("XDG_STATE_HOME")
            .timeout(TIME_LIMIT);
        if let Some(home) = env_home {
            cmd.arg("--home").arg(home);
        }
        finished(cmd.output())
    };
    let out = demo(None);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
    assert!(
        text(&out.stderr).contains("is a symbolic link"),
        "{}",
        text(&out.stderr)
    );
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);

    // A home another user made is refused too (only root can make one for the test).
    if uid == 0 {
        let theirs = dir.path().join("theirs");
        std::fs::create_dir(&theirs).unwrap();
        std::os::unix::fs::chown(&theirs, Some(65534), Some(65534)).unwrap();
        let out = demo(Some(&theirs));
        assert_eq!(out.status.code(), Some(3), "{}", text(&out.stderr));
        assert!(
            text(&out.stderr).contains("belongs to another user (uid 65534)"),
            "{}",
            text(&out.stderr)
        );
        assert_eq!(std::fs::read_dir(&theirs).unwrap().count(), 0);
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn capture_never_writes_through_a_planted_link() {
    use ssh_common::device::{Device, Script};
    let script = Script::eos("sw1", ssh_common::CANARY)
        .answer("show version | json", r#"{"version": "4.31.6M"}"#)
        .answer("show queue-monitor length status | json", "{}")
        .answer("show startup-config", "hostname sw1")
        .answer("show running-config diffs", "");
    let device = Device::start(script).await;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    let baselines = root.join("baselines");
    std::fs::create_dir_all(root.join("checks")).unwrap();
    std::fs::create_dir_all(&baselines).unwrap();
    std::fs::copy(
        email_support::repo().join("tests/fixtures/email/site/checks/eos.yaml"),
        root.join("checks/eos.yaml"),
    )
    .unwrap();
    std::fs::write(root.join("pw"), ssh_common::CANARY).unwrap();
    std::fs::write(
        baselines.join("known_hosts"),
        device.known_hosts_line() + "\n",
    )
    .unwrap();
    std::fs::write(
        baselines.join("site.yaml"),
        "site: test\ntimezone: Asia/Taipei\ndevices:\n  - name: sw1\n    baseline: sw1.yaml\n\
         ssh:\n  known_hosts: known_hosts\n  connect_timeout_s: 5\n  command_timeout_s: 5\n",
    )
    .unwrap();
    std::fs::write(
        baselines.join("sw1.yaml"),
        format!(
            "platform: eos\nssh:\n  host: 127.0.0.1\n  port: {}\n  user: premarket\n  \
             password: {{ file: {} }}\nexpect:\n  version: {{ allowed: [4.31.6M] }}\n  lanz: true\n",
            device.port,
            root.join("pw").display()
        ),
    )
    .unwrap();
    let capture = |out: PathBuf| {
        let root = root.clone();
        tokio::task::spawn_blocking(move || {
            finished(
                assert_cmd::Command::new(bin())
                    .arg("--dir")
                    .arg(&root)
                    .args(["capture", "--device", "sw1", "--out"])
                    .arg(&out)
                    .timeout(TIME_LIMIT)
                    .output(),
            )
        })
    };
    // A link at one of the files.
    let out = root.join("capture");
    std::fs::create_dir_all(out.join("sw1")).unwrap();
    let file_victim = victim(&root, "victim-capture");
    symlink(&file_victim, out.join("sw1/show-version-json.txt")).unwrap();
    let done = capture(out.clone()).await.unwrap();
    assert_untouched(&file_victim);
    assert!(
        text(&done.stderr).contains("show-version-json.txt is a symbolic link"),
        "{}",
        text(&done.stderr)
    );
    assert_ne!(done.status.code(), Some(0));

    // The device's folder a link.
    let out = root.join("capture2");
    let elsewhere = root.join("elsewhere");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    symlink(&elsewhere, out.join("sw1")).unwrap();
    let done = capture(out.clone()).await.unwrap();
    assert_eq!(std::fs::read_dir(&elsewhere).unwrap().count(), 0);
    assert!(
        text(&done.stderr).contains("sw1 is a symbolic link"),
        "{}",
        text(&done.stderr)
    );
}
