//! Benchmark of the configuration comparison (not a timed test): two configurations of
//! 200,000 lines (FortiOS-shaped: `config`/`edit`/`set`/`next`/`end`), diffed as the
//! `*.config.unchanged` checks diff them, in three cases: one line changed (the usual
//! overnight edit), 1 % of the lines changed throughout, and every line changed (the worst
//! case, bounded by the diff's deadline). Prints the wall time of each and the process's peak
//! resident memory before and after. Target: well under a second, memory bounded by the
//! inputs.
//!
//! `cargo bench -p premarket-check --bench config_diff [-- LINES]`

use std::time::Instant;

use premarket_check::line_diff as config_diff;

fn peak_rss_kb() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// A FortiOS-shaped configuration of about `lines` lines: address objects and policies.
fn config(lines: usize, salt: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(lines + 8);
    out.push("config firewall address".to_string());
    let mut i = 0;
    while out.len() + 6 < lines {
        out.push(format!("    edit \"host-{i}\""));
        out.push(format!("        set uuid 5e8a0c1e-7b2d-51ef-a3c4-{i:012}"));
        out.push(format!(
            "        set subnet 10.{}.{}.{} 255.255.255.255",
            i / 65536 % 256,
            i / 256 % 256,
            i % 256
        ));
        out.push(format!("        set comment \"{salt}{i}\""));
        out.push("    next".to_string());
        i += 1;
    }
    out.push("end".to_string());
    out
}

fn time(name: &str, old: &[String], new: &[String]) {
    let a: Vec<&str> = old.iter().map(String::as_str).collect();
    let b: Vec<&str> = new.iter().map(String::as_str).collect();
    let start = Instant::now();
    let diff = config_diff::diff(&a, &b, "previous", "this run");
    let took = start.elapsed();
    let (added, removed, bytes) = diff
        .as_ref()
        .map_or((0, 0, 0), |d| (d.added, d.removed, d.unified.len()));
    println!(
        "{name:<28} {:>8.1} ms   +{added} -{removed}   unified diff {bytes} bytes   peak RSS {} kB",
        took.as_secs_f64() * 1000.0,
        peak_rss_kb().unwrap_or(0)
    );
}

fn main() {
    let lines: usize = std::env::args()
        .skip(1)
        .find(|a| !a.starts_with("--"))
        .and_then(|a| a.parse().ok())
        .unwrap_or(200_000);
    let before = config(lines, "c");
    let input_bytes: usize = before.iter().map(String::len).sum();
    println!(
        "{} lines ({} bytes) per configuration; peak RSS with one built: {} kB",
        before.len(),
        input_bytes,
        peak_rss_kb().unwrap_or(0)
    );
    let mut one = before.clone();
    let mid = one.len() / 2;
    one[mid] = "        set comment \"changed overnight\"".to_string();
    println!(
        "peak RSS with both inputs: {} kB",
        peak_rss_kb().unwrap_or(0)
    );
    time("equal", &before, &before);
    time("one line changed", &before, &one);
    let mut percent = before.clone();
    for line in percent.iter_mut().step_by(100) {
        line.push_str(" #");
    }
    time("1 % of lines changed", &before, &percent);
    let other = config(lines, "x");
    time("every comment changed", &before, &other);
}
