//! The metrics file as monitoring reads it: the demo (with the probe) writes it, Prometheus's
//! own linter accepts it (`promtool check metrics`), and a real node_exporter's textfile
//! collector serves every series of the contract. Both are Debian packages (`prometheus`,
//! `prometheus-node-exporter`); without them the tests say so and pass, unless
//! `PREMARKET_REQUIRE_PROMETHEUS` is set (CI sets it).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

/// Whether `tool` runs here; panics when it must (CI) and does not.
fn have(tool: &str) -> bool {
    let found = Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok();
    if !found && std::env::var_os("PREMARKET_REQUIRE_PROMETHEUS").is_some() {
        panic!("{tool} is required (PREMARKET_REQUIRE_PROMETHEUS) but does not run");
    }
    if !found {
        eprintln!(
            "skipped: {tool} is not installed (apt-get install prometheus prometheus-node-exporter)"
        );
    }
    found
}

/// Runs the demo with the probe's new-source-port capture and returns the metrics file.
fn demo_metrics(dir: &Path) -> PathBuf {
    let file = dir.join("textfile").join("premarket.prom");
    let out = Command::new(bin())
        .args(["demo", "--scenario", "new-source-port", "--home"])
        .arg(dir.join("home"))
        .arg("--metrics-file")
        .arg(&file)
        .output()
        .expect("demo runs");
    assert_eq!(
        out.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    file
}

#[test]
fn promtool_accepts_the_metrics_file() {
    if !have("promtool") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = demo_metrics(dir.path());
    let text = std::fs::read_to_string(&file).unwrap();
    let mut child = Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "promtool: {}{}\n{text}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

struct Exporter(Child);

impl Drop for Exporter {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn get(port: u16) -> Option<String> {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream.set_read_timeout(Some(Duration::from_secs(5))).ok()?;
    stream
        .write_all(b"GET /metrics HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n")
        .ok()?;
    let mut body = String::new();
    stream.read_to_string(&mut body).ok()?;
    Some(body)
}

#[test]
fn node_exporter_serves_the_contract_series() {
    if !have("prometheus-node-exporter") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let file = demo_metrics(dir.path());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let _exporter = Exporter(
        Command::new("prometheus-node-exporter")
            .arg("--collector.disable-defaults")
            .arg("--collector.textfile")
            .arg(format!(
                "--collector.textfile.directory={}",
                file.parent().unwrap().display()
            ))
            .arg(format!("--web.listen-address=127.0.0.1:{port}"))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("node_exporter starts"),
    );
    let start = Instant::now();
    let body = loop {
        match get(port) {
            Some(body) if body.contains("premarket_") => break body,
            _ if start.elapsed() > Duration::from_secs(20) => panic!("node_exporter never served"),
            _ => std::thread::sleep(Duration::from_millis(200)),
        }
    };
    for series in [
        "premarket_check_result{check=\"fortigate.flows.single-session\",device=\"fw1\",result=\"fail\",site=\"lab\"} 1",
        "premarket_check_result{check=\"eos.lanz.persisted\",device=\"sw1\",result=\"ok\",site=\"lab\"} 1",
        "premarket_checks{result=\"fail\",site=\"lab\"} 4",
        "premarket_run_timestamp_seconds{site=\"lab\"} ",
        "premarket_run_duration_seconds{site=\"lab\"} ",
        "premarket_probe_latency_seconds{device=\"probe1\",site=\"lab\",quantile=\"0.5\"} 2.1569e-05",
        "premarket_probe_latency_seconds_count{device=\"probe1\",site=\"lab\"} 2000",
        "premarket_probe_latency_seconds_sum{device=\"probe1\",site=\"lab\"} 0.04",
        "node_textfile_scrape_error 0",
    ] {
        assert!(body.contains(series), "missing {series}\n{body}");
    }
}
