//! Bounded memory, end to end: an output that never ends (real SSH) is cut at the site's cap or
//! the command timeout while premarket's memory stays bounded and the other device is judged;
//! the archive keeps raw outputs compressed and a run replays from them; saved outputs are read
//! compressed or plain, and capped like live ones.

#[path = "common/ssh.rs"]
mod ssh_common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use premarket::lab::{Lab, topology};
use ssh_common::device::{Device, Script};
use ssh_common::*;

fn premarket() -> Command {
    Command::new(env!("CARGO_BIN_EXE_premarket"))
}

/// The largest resident set of any child this process waited for, in bytes (`ru_maxrss`).
fn children_peak_rss() -> u64 {
    // SAFETY: getrusage only writes into the struct passed.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    assert_eq!(
        unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) },
        0
    );
    usage.ru_maxrss as u64 * 1024
}

/// This process's peak resident set (`VmHWM`), in bytes.
fn own_peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace()
        .nth(1)
        .unwrap()
        .parse::<u64>()
        .unwrap()
        * 1024
}

const MB: u64 = 1 << 20;

/// The session filter lines `premarket plan` shows for fw1.
fn filter_lines(site: &Path) -> Vec<String> {
    let out = premarket()
        .args([
            "--dir",
            &site.display().to_string(),
            "plan",
            "--device",
            "fw1",
        ])
        .output()
        .unwrap();
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.split('#').next().unwrap_or_default().trim().to_string())
        .filter(|l| l.starts_with("diagnose sys session filter"))
        .collect()
}

/// Points the lab site's `fw1` at `device` (port, known host) and sets `ssh.max_output_mb`.
fn repoint_fw1(site: &Path, device: &Device, max_output_mb: u64) {
    let baseline = site.join("baselines/fw1.yaml");
    let text = std::fs::read_to_string(&baseline).unwrap();
    let text = regex::Regex::new(r"(?m)^  port: \d+$")
        .unwrap()
        .replace(&text, format!("  port: {}", device.port).as_str())
        .into_owned();
    std::fs::write(&baseline, text).unwrap();
    let known = site.join("baselines/known_hosts");
    let mut hosts = std::fs::read_to_string(&known).unwrap();
    hosts.push_str(&device.known_hosts_line());
    hosts.push('\n');
    std::fs::write(&known, hosts).unwrap();
    let site_file = site.join("baselines/site.yaml");
    let text = std::fs::read_to_string(&site_file).unwrap();
    let text = text.replacen(
        "ssh:\n",
        &format!("ssh:\n  max_output_mb: {max_output_mb}\n"),
        1,
    );
    std::fs::write(&site_file, text).unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_output_is_cut_at_the_cap_and_the_switch_is_still_judged() {
    let lab = Lab::start(&[], 2).await.expect("lab");
    let mut script = Script::fortigate("fw1", topology::FORTIGATE_PASSWORD);
    script.endless_on = Some("diagnose sys session list".into());
    // The session filter lines the plan sends before the list are accepted silently.
    for line in filter_lines(&lab.site_dir) {
        script = script.answer(&line, "");
    }
    let endless = Device::start(script).await;
    repoint_fw1(&lab.site_dir, &endless, 16);

    let site = lab.site_dir.clone();
    let started = Instant::now();
    let out = tokio::task::spawn_blocking(move || {
        premarket()
            .args(["--dir", &site.display().to_string()])
            .args(["run", "--no-email", "--format", "json"])
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let took = started.elapsed();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));

    // Cut at the cap (16 MB), long before the command timeout (60 s).
    assert!(took < Duration::from_secs(45), "took {took:?}");
    let peak = children_peak_rss();
    assert!(peak < 256 * MB, "premarket peaked at {} MB", peak / MB);
    let results = report["results"].as_array().expect("results");
    let of = |device: &'static str| results.iter().filter(move |r| r["device"] == device);
    let cut = of("fw1")
        .filter(|r| r["status"] == "ERROR")
        .filter(|r| r.to_string().contains("output exceeded 16 MB"))
        .count();
    let down = report["devices_not_inspected"].to_string();
    assert!(
        cut > 0 || down.contains("output exceeded 16 MB") || down.contains("more than 16 MB"),
        "fw1 is ERROR for its output: {report:#}"
    );
    assert!(of("sw1").count() > 3, "{report:#}");
    // As usual: every check OK but MLAG's, which the lab notes' switch has not (SKIP, said).
    assert!(
        of("sw1")
            .all(|r| r["status"] == "OK"
                || (r["status"] == "SKIP" && r["check"] == "eos.mlag.healthy")),
        "the switch is judged as usual: {report:#}"
    );
    // Nothing spooled is left behind.
    let leftovers: Vec<PathBuf> = std::fs::read_dir(lab.site_dir.join("archive"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.file_name().unwrap().to_string_lossy().starts_with(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_output_under_the_cap_ends_at_the_command_timeout_in_bounded_memory() {
    let mut script = Script::fortigate("fw1", CANARY);
    script.endless_on = Some("diagnose sys session list".into());
    let dev = Device::start(script).await;
    let dir = tempfile::tempdir().unwrap();
    let device = device(
        "fw1",
        premarket::Platform::Fortigate,
        connection(dev.port, Some(secret_file(dir.path(), "pw", CANARY))),
    );
    let kh = known_hosts(dir.path(), &dev.known_hosts_line());
    let settings = settings(Some(kh), Duration::from_secs(3));
    let started = Instant::now();
    let results = collect(
        &device,
        &commands(&["get system status", "diagnose sys session list"]),
        &settings,
    )
    .await;
    let took = started.elapsed();
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(results[0].1.is_ok(), "{:?}", results[0].1);
    let e = results[1].1.as_ref().unwrap_err().to_string();
    assert!(e.contains("timed out after 3 s"), "{e}");
    let peak = own_peak_rss();
    assert!(peak < 256 * MB, "peaked at {} MB", peak / MB);
}

/// The example site in a temporary directory with its archive inside.
fn example_site() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let repo = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    for sub in ["baselines", "checks"] {
        copy_dir(&repo.join(sub), &dir.path().join(sub));
    }
    dir
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// `run --offline DIR` with the JSON report; (exit code, check -> status, report).
fn offline(
    site: &Path,
    dir: &Path,
    extra: &[&str],
) -> (i32, Vec<(String, String)>, serde_json::Value) {
    let out = premarket()
        .args(["--dir", &site.display().to_string()])
        .args([
            "run",
            "--offline",
            &dir.display().to_string(),
            "--format",
            "json",
        ])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("{e}: {stdout}\n{}", String::from_utf8_lossy(&out.stderr)));
    let mut statuses: Vec<(String, String)> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                format!(
                    "{} {}",
                    r["check"].as_str().unwrap(),
                    r["device"].as_str().unwrap()
                ),
                r["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    statuses.sort();
    (out.status.code().unwrap_or(-1), statuses, report)
}

fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        if entry.file_type().unwrap().is_dir() {
            out.extend(files_under(&entry.path()));
        } else {
            out.push(entry.path());
        }
    }
    out
}

#[test]
fn an_archived_run_replays_from_its_compressed_raw_outputs() {
    let site = example_site();
    let fixtures =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/site/lanz-incident");
    let (code, first, _) = offline(site.path(), &fixtures, &["--archive"]);
    assert!(
        first.iter().any(|(_, s)| s == "FAIL"),
        "the incident fails: {first:?}"
    );

    let archive = site.path().join("archive");
    let run = std::fs::read_dir(&archive)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.join("report.json").is_file())
        .expect("an archived run");
    let raw = files_under(&run.join("raw"));
    assert!(!raw.is_empty());
    for path in &raw {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.ends_with(".zst") || name.ends_with(".empty") || name.ends_with(".error"),
            "{name} is not compressed"
        );
    }
    // `zstdcat` reads them (the zstd format, whatever reads it).
    let version = run.join("raw/sw1/show-version-json.txt.zst");
    let text = zstd::decode_all(std::fs::File::open(&version).unwrap()).unwrap();
    assert_eq!(
        text,
        // The scenario is based on the healthy day, which holds this output.
        std::fs::read(fixtures.join("../healthy/sw1/show-version-json.txt")).unwrap()
    );
    if Path::new("/usr/bin/zstdcat").exists() {
        let out = Command::new("/usr/bin/zstdcat")
            .arg(&version)
            .output()
            .unwrap();
        assert_eq!(out.stdout, text);
    }

    let (again, replayed, _) = offline(site.path(), &run.join("raw"), &[]);
    assert_eq!(
        (again, &replayed),
        (code, &first),
        "the replay judges what the run judged"
    );
}

#[test]
fn saved_outputs_are_read_compressed_and_capped_like_live_ones() {
    let site = example_site();
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/site/healthy");
    let (_, plain, _) = offline(site.path(), &fixtures, &[]);

    // Every other file compressed with the zstd tool's format: the same judgement.
    let mixed = tempfile::tempdir().unwrap();
    copy_dir(&fixtures, mixed.path());
    for (i, path) in files_under(mixed.path()).into_iter().enumerate() {
        if i % 2 == 0 {
            let bytes = std::fs::read(&path).unwrap();
            let zst = PathBuf::from(format!("{}.zst", path.display()));
            std::fs::write(&zst, zstd::bulk::compress(&bytes, 19).unwrap()).unwrap();
            std::fs::remove_file(&path).unwrap();
        }
    }
    let (_, compressed, _) = offline(site.path(), mixed.path(), &[]);
    assert_eq!(compressed, plain);

    // A saved output over ssh.max_output_mb is ERROR, as a live one would be.
    let site_file = site.path().join("baselines/site.yaml");
    let text = std::fs::read_to_string(&site_file).unwrap();
    std::fs::write(
        &site_file,
        text.replacen("ssh:\n", "ssh:\n  max_output_mb: 1\n", 1),
    )
    .unwrap();
    let status = mixed.path().join("fw1/get-system-status.txt");
    let zst = PathBuf::from(format!("{}.zst", status.display()));
    let _ = std::fs::remove_file(&zst);
    let mut big = std::fs::read_to_string(fixtures.join("fw1/get-system-status.txt")).unwrap();
    big.push_str(&"# padding\n".repeat(200_000));
    std::fs::write(&status, big).unwrap();
    let (_, capped, report) = offline(site.path(), mixed.path(), &[]);
    assert_ne!(capped, plain);
    assert!(
        report.to_string().contains("output exceeded 1 MB"),
        "{report:#}"
    );
}

#[test]
fn parse_reads_a_compressed_file() {
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/site/healthy");
    let text = std::fs::read(fixtures.join("fw1/get-system-status.txt")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    let zst = dir.path().join("status.txt.zst");
    std::fs::write(&zst, zstd::encode_all(&text[..], 3).unwrap()).unwrap();
    let parse = |path: &Path| {
        let out = premarket()
            .args(["parse", "fortigate", "get system status"])
            .arg(path)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let json = parse(&zst);
    assert!(json.contains("7.6.7"), "{json}");
    assert_eq!(json, parse(&fixtures.join("fw1/get-system-status.txt")));
}
