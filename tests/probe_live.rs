//! The probe end to end on real frames: network namespaces, veth pairs, and the Rust
//! switch + firewall emulator in the middle (`premarket probe emulate`).
//!
//! ```text
//!   netns prb                        netns emu
//!   p0 (probe sender)  ── veth ──    e0  ┐ emulator: copy A tagged 10 at once,
//!   p1 (probe capture) ── veth ──    e1  ┘ copy B tagged 20 after 50 us / 2 ms
//! ```
//! The slow path is 2 ms and the slow threshold 1 ms: on a shared VM the emulator itself is
//! sometimes held up by a few hundred microseconds, which a 500 us slow path could not be told
//! apart from (the default rule allows 0.1 % slow packets in an offloaded steady state).
//!
//! Needs root (CI runs as root and sets PREMARKET_REQUIRE_NETNS=1, which turns a skip into a
//! failure). Bounded: about a second per mode, at most a few thousand frames, link layer only,
//! addresses only inside these namespaces.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use premarket::probe::offline;
use premarket::probe::pair::Sides;

static SERIAL: Mutex<()> = Mutex::new(());

fn required() -> bool {
    std::env::var("PREMARKET_REQUIRE_NETNS").is_ok_and(|v| v == "1")
}

fn skip(reason: &str) -> bool {
    assert!(!required(), "PREMARKET_REQUIRE_NETNS=1 but {reason}");
    eprintln!("skipped: {reason} (set PREMARKET_REQUIRE_NETNS=1 to make this a failure)");
    true
}

fn ip(args: &[&str]) -> Result<(), String> {
    let out = Command::new("ip")
        .args(args)
        .output()
        .map_err(|e| format!("ip: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "ip {}: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

/// Two namespaces joined by two veth pairs; removed on drop.
struct Lab {
    prb: String,
    emu: String,
    dir: tempfile::TempDir,
}

impl Lab {
    fn new(tag: &str) -> Result<Lab, String> {
        let id = format!("{}-{tag}", std::process::id());
        let lab = Lab {
            prb: format!("pmprb-{id}"),
            emu: format!("pmemu-{id}"),
            dir: tempfile::tempdir().map_err(|e| e.to_string())?,
        };
        ip(&["netns", "add", &lab.prb])?;
        ip(&["netns", "add", &lab.emu])?;
        ip(&[
            "link", "add", "p0", "netns", &lab.prb, "type", "veth", "peer", "name", "e0", "netns",
            &lab.emu,
        ])?;
        ip(&[
            "link", "add", "p1", "netns", &lab.prb, "type", "veth", "peer", "name", "e1", "netns",
            &lab.emu,
        ])?;
        for (ns, link) in [
            (&lab.prb, "p0"),
            (&lab.prb, "p1"),
            (&lab.emu, "e0"),
            (&lab.emu, "e1"),
        ] {
            // No IPv6 autoconfiguration chatter on the links; the probe ignores it anyway.
            let _ = Command::new("ip")
                .args([
                    "netns",
                    "exec",
                    ns,
                    "sysctl",
                    "-qw",
                    &format!("net.ipv6.conf.{link}.disable_ipv6=1"),
                ])
                .status();
            ip(&["-n", ns, "link", "set", link, "up"])?;
        }
        Ok(lab)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    fn emulator(&self, extra: &[&str], count: usize) -> Child {
        let ready = self.path("ready");
        let _ = std::fs::remove_file(&ready);
        let mut cmd = Command::new("ip");
        cmd.args([
            "netns",
            "exec",
            &self.emu,
            env!("CARGO_BIN_EXE_premarket"),
            "probe",
            "emulate",
            "--in",
            "e0",
            "--out",
            "e1",
        ])
        .args([
            "--fast-us",
            "50",
            "--slow-us",
            "2000",
            "--idle-ms",
            "200",
            "--duration-s",
            "20",
        ])
        .arg("--count")
        .arg(count.to_string())
        .arg("--truth")
        .arg(self.path("truth.csv"))
        .arg("--ready")
        .arg(&ready)
        .args(extra)
        .stdout(Stdio::null());
        let child = cmd.spawn().expect("start the emulator");
        let start = Instant::now();
        while !ready.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the emulator did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
        child
    }

    fn probe(&self, extra: &[&str]) -> (Option<i32>, serde_json::Value) {
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                &self.prb,
                env!("CARGO_BIN_EXE_premarket"),
                "probe",
                "run",
                "--tx",
                "p0",
                "--rx",
                "p1",
            ])
            .args([
                "--interval",
                "1ms",
                "--threshold-ns",
                "1000000",
                "--idle-timer-s",
                "0.2",
                "--format",
                "json",
            ])
            .arg("--out")
            .arg(self.path("capture.pcap"))
            .args(extra)
            .output()
            .expect("run the probe");
        let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "probe output: {e}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), json)
    }
}

impl Drop for Lab {
    fn drop(&mut self) {
        let _ = ip(&["netns", "del", &self.prb]);
        let _ = ip(&["netns", "del", &self.emu]);
    }
}

fn wait(mut child: Child) {
    let start = Instant::now();
    loop {
        if child.try_wait().expect("emulator status").is_some() {
            return;
        }
        if start.elapsed() > Duration::from_secs(25) {
            let _ = child.kill();
            panic!("the emulator did not finish");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn lab(tag: &str) -> Option<Lab> {
    // SAFETY: geteuid has no preconditions.
    if unsafe { libc::geteuid() } != 0 {
        skip("not root: network namespaces need root");
        return None;
    }
    match Lab::new(tag) {
        Ok(lab) => Some(lab),
        Err(e) => {
            skip(&format!("cannot build the namespaces: {e}"));
            None
        }
    }
}

/// Whether the emulator kept its own schedule, by its TX stamps: the fast path (50 us) at most
/// twice as slow at the median, and no more packets past the 1 ms threshold than it was asked
/// to delay (`intended_slow`: a session's first two packets, again after an idle expiry). An
/// idle 2-core VM sometimes wakes the emulator late for a whole run (a 140-160 us median was
/// seen, 2026-12-02); the probe then measures faithfully what was sent, and the verdict of that
/// run says so rather than what the test asked for.
fn emulator_kept_schedule(truth: &Path, intended_slow: usize) -> bool {
    let Ok(text) = std::fs::read_to_string(truth) else {
        return false;
    };
    let mut deltas: Vec<i64> = text
        .lines()
        .skip(1)
        .filter_map(|line| {
            let f: Vec<i64> = line.split(',').filter_map(|x| x.parse().ok()).collect();
            Some(f.get(3)? - f.get(2)?)
        })
        .collect();
    if deltas.is_empty() {
        return false;
    }
    let slow = deltas.iter().filter(|d| **d > 1_000_000).count();
    deltas.sort_unstable();
    let median = deltas[deltas.len() / 2];
    slow <= intended_slow && median <= 100_000
}

/// |probe difference - emulator TX-stamp difference| per request, sorted.
fn errors_against_truth(capture: &Path, truth: &Path) -> Vec<i64> {
    let (pairing, _, _, _) =
        offline::pair_files(&[capture.to_path_buf()], Sides::default()).unwrap();
    let probe: HashMap<u64, i64> = pairing
        .pairs
        .iter()
        .map(|p| (p.seq.unwrap(), p.delta().0))
        .collect();
    let text = std::fs::read_to_string(truth).unwrap();
    let mut errors = Vec::new();
    for line in text.lines().skip(1) {
        let f: Vec<i64> = line.split(',').map(|x| x.parse().unwrap()).collect();
        let (seq, before, after) = (f[0] as u64, f[2], f[3]);
        let got = probe
            .get(&seq)
            .unwrap_or_else(|| panic!("seq {seq} not paired by the probe"));
        errors.push((got - (after - before)).abs());
    }
    errors.sort_unstable();
    errors
}

/// The probe's precision against the emulator's own TX stamps, p99. Software stamps on a shared
/// VM wander by a few microseconds (2-3.5 us p99 seen on an idle 2-core CI machine); the bound is
/// what the verdicts need: well under the emulator's 50 us fast path, so no packet is moved across
/// the 1 ms slow threshold. A pairing or clock mistake is off by milliseconds and still fails.
const PRECISION_P99_NS: i64 = 10_000;

/// Runs one mode and checks the verdict, completeness and the probe's precision against the
/// emulator's own TX stamps. A shared VM sometimes holds the emulator itself up past its own
/// schedule (a fast-path packet sent a millisecond late, or a whole run woken late): then the
/// probe measured faithfully (precision within bound) what the emulator really did, and the mode
/// is measured again, up to five times. A wrong verdict from a run in which the emulator kept
/// its schedule, or an imprecise probe on every attempt, fails the test. When no attempt kept
/// the schedule, the verdict cannot be asked of the probe: the test says so and returns `None`
/// after checking precision and completeness (the verdicts themselves are covered on synthetic
/// captures by `probe_synthetic` and `probe_cli`).
fn run_mode(
    tag: &str,
    emulator: &[&str],
    probe: &[&str],
    count: usize,
    verdict: &str,
) -> Option<serde_json::Value> {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let lab = lab(tag)?;
    let mut last = String::new();
    // The packets the emulator is asked to delay past the threshold in this mode; the CPU-path
    // modes delay every packet, so lateness cannot spoil them.
    let intended_slow = match verdict {
        "offloaded" => Some(2),
        "idle_expiry" => Some(4),
        _ => None,
    };
    let mut precise_but_late = 0;
    for attempt in 1..=5 {
        let child = lab.emulator(emulator, count);
        let count_arg = count.to_string();
        let mut args = vec!["--count", &count_arg];
        args.extend_from_slice(probe);
        let (code, json) = lab.probe(&args);
        wait(child);
        assert_eq!(json["pairs"], count, "{tag}");
        assert_eq!(json["lost"], 0, "{tag}");
        assert_eq!(json["live"]["capture"]["kernel_drops"], 0, "{tag}");
        assert_eq!(
            json["timestamps"], "software",
            "{tag}: veth has no hardware stamps"
        );
        assert_eq!(json["indicative"], true);
        let errors = errors_against_truth(&lab.path("capture.pcap"), &lab.path("truth.csv"));
        assert_eq!(errors.len(), count, "{tag}: truth rows");
        let p99 = errors[(errors.len() * 99).div_ceil(100) - 1];
        eprintln!(
            "{tag} (attempt {attempt}): verdict {} (want {verdict}), exit {code:?}, median {} ns, error vs emulator p99 {p99} ns max {} ns",
            json["verdict"],
            json["median_ns"],
            errors[errors.len() - 1]
        );
        if p99 > PRECISION_P99_NS {
            last = format!("probe vs emulator TX stamps p99 error {p99} ns");
            continue;
        }
        let kept = intended_slow.is_none_or(|n| emulator_kept_schedule(&lab.path("truth.csv"), n));
        if !kept {
            precise_but_late += 1;
            last = format!(
                "the emulator missed its own schedule (verdict {}: {})",
                json["verdict"], json["reason"]
            );
            continue;
        }
        assert_eq!(
            json["verdict"], verdict,
            "{tag}: {} although the emulator kept its schedule",
            json["reason"]
        );
        return Some(json);
    }
    if precise_but_late == 5 {
        eprintln!(
            "{tag}: NOTE: in five attempts the VM never let the emulator keep its schedule; the probe followed it precisely each time, the verdict was not judged"
        );
        return None;
    }
    panic!("{tag}: five attempts, the last: {last}");
}

#[test]
fn offloaded_session_is_fast_after_its_first_two_packets() {
    let Some(json) = run_mode("ofld", &["--mode", "on"], &[], 1000, "offloaded") else {
        return;
    };
    let first: Vec<bool> = json["first_packets"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["slow"].as_bool().unwrap())
        .collect();
    assert_eq!(first, [true, true]);
    let median = json["steady"]["median_ns"].as_i64().unwrap();
    assert!(
        (30_000..=80_000).contains(&median),
        "steady median {median} ns, fast path 50 us"
    );
    assert!(json["live"]["send"]["lateness"]["n"].as_u64().unwrap() == 1000);
}

#[test]
fn policy_disabled_is_cpu_path() {
    let Some(json) = run_mode("cpu", &["--mode", "off"], &[], 1000, "cpu_path") else {
        return;
    };
    let median = json["steady"]["median_ns"].as_i64().unwrap();
    assert!(
        (1_950_000..=2_150_000).contains(&median),
        "steady median {median} ns, slow path 2 ms"
    );
}

#[test]
fn new_source_port_per_packet_is_a_new_session_each() {
    let Some(json) = run_mode(
        "port",
        &["--mode", "on"],
        &["--new-port-per-packet"],
        1000,
        "new_session_per_packet",
    ) else {
        return;
    };
    assert_eq!(json["sessions"], 1000);
}

#[test]
fn pause_longer_than_the_idle_timer_expires_the_session() {
    let Some(json) = run_mode(
        "idle",
        &["--mode", "on"],
        &["--pause-after", "500", "--pause", "300ms"],
        1000,
        "idle_expiry",
    ) else {
        return;
    };
    let pauses = json["pauses"].as_array().unwrap();
    assert_eq!(pauses.len(), 1);
    assert_eq!(pauses[0]["index"], 500);
    assert_eq!(pauses[0]["slow_after"], true);
}

#[test]
fn abba_rounds_show_the_offload_effect() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lab) = lab("abba") else { return };
    let mode = lab.path("mode");
    let mode_arg = mode.display().to_string();
    let switch = format!("echo {{mode}} > {mode_arg}; sleep 0.1");
    let (png, svg) = (lab.path("abba.png"), lab.path("abba.svg"));
    let (png_arg, svg_arg) = (png.display().to_string(), svg.display().to_string());
    let want = ["offloaded", "cpu_path", "cpu_path", "offloaded"];
    // As in run_mode: a round the VM held the emulator up in is measured again, at most twice.
    let mut attempt = 0;
    let (code, json) = loop {
        attempt += 1;
        std::fs::write(&mode, "on").unwrap();
        let child = lab.emulator(&["--mode-file", &mode_arg], 4 * 300);
        let (code, json) = lab.probe(&[
            "--count",
            "300",
            "--rounds",
            "on,off,off,on",
            "--between-rounds",
            &switch,
            "--chart",
            &png_arg,
            "--chart-svg",
            &svg_arg,
        ]);
        wait(child);
        let verdicts: Vec<&str> = json["rounds"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["analysis"]["verdict"].as_str().unwrap())
            .collect();
        eprintln!("abba (attempt {attempt}): verdicts {verdicts:?}");
        if verdicts == want {
            break (code, json);
        }
        // Only lateness may spoil a round: an "on" round read as inconclusive (some packets
        // past the threshold), never a round read as the other path.
        let late_only = verdicts
            .iter()
            .zip(want)
            .all(|(got, want)| *got == want || (want == "offloaded" && *got == "inconclusive"));
        assert!(late_only, "verdicts {verdicts:?}: {json:#}");
        if attempt == 5 {
            eprintln!(
                "abba: NOTE: an on round was late in five attempts; the effect is still judged"
            );
            break (code, json);
        }
    };
    // The rounds chart overlays the rounds: on in blue, off in orange.
    let png = std::fs::read(&png).unwrap();
    assert_eq!(&png[..4], b"\x89PNG");
    let svg = std::fs::read_to_string(&svg).unwrap();
    assert!(svg.contains("ABBA rounds") && svg.contains("#0072B2") && svg.contains("#E69F00"));
    if let Some(dir) = std::env::var_os("PREMARKET_CHART_DIR") {
        std::fs::write(Path::new(&dir).join("abba-live.png"), &png).unwrap();
    }
    let effect = json["abba"]["effect_ns"].as_f64().unwrap();
    assert!(
        (-2_100_000.0..=-1_850_000.0).contains(&effect),
        "effect {effect} ns (50 us vs 2 ms)"
    );
    eprintln!(
        "abba: exit {code:?}, effect {effect} ns, drift on {} off {}",
        json["abba"]["drift_on_ns"], json["abba"]["drift_off_ns"]
    );
}

#[test]
fn premarket_run_with_a_live_probe_source_reports_the_check() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lab) = lab("site") else { return };
    let site = lab.path("site");
    std::fs::create_dir_all(site.join("baselines")).unwrap();
    std::fs::create_dir_all(site.join("checks")).unwrap();
    std::fs::create_dir_all(site.join("saved")).unwrap();
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::fs::copy(
        repo.join("checks/probe.yaml"),
        site.join("checks/probe.yaml"),
    )
    .unwrap();
    std::fs::write(
        site.join("baselines/site.yaml"),
        "site: netns\ntimezone: UTC\ndevices:\n  - name: probe1\n    baseline: probe1.yaml\n",
    )
    .unwrap();
    std::fs::write(
        site.join("baselines/probe1.yaml"),
        "platform: probe\nsource:\n  live: { tx: p0, rx: p1, count: 300, interval_us: 1000, out: live.pcap }\n\
         expect:\n  before_vlan: 10\n  after_vlan: 20\n  threshold_ns: 1000000\n  median_max_ns: 100000\n  timestamps: software\n",
    )
    .unwrap();
    // As in run_mode: a run the VM did not let the emulator keep its schedule in is measured
    // again (at most five times); the check must be OK whenever the emulator kept it.
    let mut report = serde_json::Value::Null;
    let mut code = None;
    for attempt in 1..=5 {
        let child = lab.emulator(&["--mode", "on"], 300);
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                &lab.prb,
                env!("CARGO_BIN_EXE_premarket"),
                "--dir",
            ])
            .arg(&site)
            .args(["run", "--format", "json", "--offline"])
            .arg(site.join("saved"))
            .output()
            .unwrap();
        wait(child);
        code = out.status.code();
        report = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
        assert_eq!(report["results"][0]["check"], "probe.latency.offloaded");
        let ok = report["results"][0]["status"] == "OK";
        if ok || emulator_kept_schedule(&lab.path("truth.csv"), 2) {
            break;
        }
        eprintln!("site (attempt {attempt}): the emulator missed its own schedule");
        if attempt == 5 {
            eprintln!(
                "site: NOTE: in five attempts the VM never let the emulator keep its schedule; the check's verdict was not judged"
            );
            return;
        }
    }
    let result = &report["results"][0];
    assert_eq!(result["status"], "OK", "{report:#}");
    assert!(
        result["summary"]
            .as_str()
            .unwrap()
            .contains("indicative only")
    );
    assert!(site.join("baselines/live.pcap").exists());
    assert_eq!(code, Some(0));
}

/// `premarket lab serve` inside the probe's namespace (its loopback), so `probe run
/// --firewall fw1` reaches the emulated FortiGate over SSH; killed on drop.
struct FirewallLab {
    child: Child,
    site: PathBuf,
}

impl FirewallLab {
    fn start(lab: &Lab) -> FirewallLab {
        ip(&["-n", &lab.prb, "link", "set", "lo", "up"]).expect("loopback up");
        let site = lab.path("fwsite");
        let child = Command::new("ip")
            .args([
                "netns",
                "exec",
                &lab.prb,
                env!("CARGO_BIN_EXE_premarket"),
                "lab",
                "serve",
                "--site-dir",
            ])
            .arg(&site)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("start the device lab");
        let ready = site.join("baselines/site.yaml");
        let start = Instant::now();
        while !ready.exists() {
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "the device lab did not start"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        std::thread::sleep(Duration::from_millis(200));
        FirewallLab { child, site }
    }
}

impl Drop for FirewallLab {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The probe sends the lab's market-data flow and cross-checks it on the emulated FortiGate.
#[test]
fn firewall_cross_check_after_a_live_round() {
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let Some(lab) = lab("fw") else { return };
    let devices = FirewallLab::start(&lab);
    let probe = |extra: &[&str]| {
        let child = lab.emulator(&["--mode", "on"], 300);
        let out = Command::new("ip")
            .args([
                "netns",
                "exec",
                &lab.prb,
                env!("CARGO_BIN_EXE_premarket"),
                "--dir",
            ])
            .arg(&devices.site)
            .args(["probe", "run", "--tx", "p0", "--rx", "p1", "--count", "300"])
            .args(["--threshold-ns", "1000000", "--format", "json"])
            .args(["--src-ip", "10.10.1.10", "--dst-ip", "10.20.1.20"])
            .args(["--src-port", "40000", "--dst-port", "5000"])
            .args(["--firewall", "fw1"])
            .args(extra)
            .output()
            .expect("run the probe");
        wait(child);
        let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "probe output: {e}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
        (out.status.code(), json)
    };
    let (code, json) = probe(&[]);
    let fw = &json["firewall"];
    assert_eq!(fw["device"], "fw1", "{json:#}");
    let session = &fw["session"];
    assert!(
        session["npu_state"]
            .as_str()
            .is_some_and(|s| s.contains("ofld-O")),
        "{fw:#}"
    );
    assert_eq!(session["offloaded_original"], true);
    assert_eq!(session["slow_packets"], json["slow"]["total"]);
    assert_eq!(
        session["agrees"],
        session["cpu_packets"] == session["slow_packets"]
    );
    eprintln!("firewall cross-check: exit {code:?}, {fw}");
    // With --clear-session the lab drops the market-data session before the round and, seeing
    // no real traffic, never recreates it: the cross-check after the round says so.
    let (code, json) = probe(&["--clear-session"]);
    assert!(
        json["firewall"]["error"]
            .as_str()
            .is_some_and(|e| e.contains("no session for the probe flow")),
        "{json:#}"
    );
    assert_eq!(
        code,
        Some(2),
        "a cross-check that failed leaves the run inconclusive"
    );
}
