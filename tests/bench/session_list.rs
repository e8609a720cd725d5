//! Benchmark of the streaming `diagnose sys session list` parser (not a timed test).
//!
//! `cargo bench --bench session_list [-- SESSIONS [FILE]]` generates FILE (default
//! `target/bench/session-list-<SESSIONS>.txt`, 1,000,000 sessions, about 1 GB) unless it exists,
//! then in the same run times `grep -c 'session info'` on it, the parser over it on one core, and
//! the bounded summary the pipeline keeps as the fact (`ListSessions`: counts, tallies, a
//! 64 k-bit source-port map and a dozen example sessions), and reads the process's peak
//! resident memory. Targets: at least 500 MB/s, under 64 MB.

mod generate;
mod usage;

use std::fs::File;
use std::io::{BufReader, BufWriter, Write};
use std::path::PathBuf;
use std::time::Instant;

use premarket::platform::fortigate::SessionReader;
use premarket::platform::fortigate::session_summary::summarize;
use usage::{cpu_seconds, peak_rss_kb};

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let count: u64 = args
        .first()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let path = args.get(1).map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("target/bench/session-list-{count}.txt"))
    });
    if !path.is_file() {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).expect("create the bench folder");
        }
        let start = Instant::now();
        let mut out =
            BufWriter::with_capacity(1 << 20, File::create(&path).expect("create the bench file"));
        let written = generate::sessions(&mut out, count).expect("write sessions");
        out.flush().expect("flush");
        eprintln!(
            "generated {} ({} sessions, {} bytes) in {:.1?}",
            path.display(),
            written.sessions,
            written.bytes,
            start.elapsed()
        );
    }
    let bytes = std::fs::metadata(&path).expect("bench file").len();
    let mb = bytes as f64 / 1e6;

    let grep_cpu_start = cpu_seconds(libc::RUSAGE_CHILDREN);
    let start = Instant::now();
    let grep = std::process::Command::new("grep")
        .args(["-c", "session info"])
        .arg(&path)
        .output()
        .expect("run grep");
    let grep_time = start.elapsed();
    let grep_cpu = cpu_seconds(libc::RUSAGE_CHILDREN) - grep_cpu_start;
    let grep_count: u64 = String::from_utf8_lossy(&grep.stdout)
        .trim()
        .parse()
        .unwrap_or(0);

    let rss_before = peak_rss_kb().unwrap_or(0);
    let cpu_start = cpu_seconds(libc::RUSAGE_SELF);
    let start = Instant::now();
    let file = File::open(&path).expect("open");
    let mut reader = SessionReader::new(BufReader::with_capacity(1 << 20, file));
    let (mut sessions, mut offloaded, mut with_reason, mut errors) = (0u64, 0u64, 0u64, 0u64);
    for session in reader.by_ref() {
        match session {
            Ok(s) => {
                sessions += 1;
                offloaded += u64::from(s.offloaded());
                with_reason += u64::from(!s.no_ofld_reason.is_empty());
            }
            Err(_) => errors += 1,
        }
    }
    let parse_time = start.elapsed();
    let parse_cpu = cpu_seconds(libc::RUSAGE_SELF) - cpu_start;
    let rss_peak = peak_rss_kb().unwrap_or(0);

    // The fact the pipeline keeps: the same stream folded into a bounded summary.
    let cpu_start = cpu_seconds(libc::RUSAGE_SELF);
    let start = Instant::now();
    let file = File::open(&path).expect("open");
    let summary = summarize(BufReader::with_capacity(1 << 20, file));
    let summary_time = start.elapsed();
    let summary_cpu = cpu_seconds(libc::RUSAGE_SELF) - cpu_start;
    let summary_peak = peak_rss_kb().unwrap_or(0);

    let rate = mb / parse_cpu;
    println!(
        "file: {} ({bytes} bytes, {count} sessions generated)",
        path.display()
    );
    println!(
        "grep -c 'session info': {grep_count} in {grep_cpu:.3} s CPU = {:.0} MB/s ({:.3} s wall = {:.0} MB/s)",
        mb / grep_cpu,
        grep_time.as_secs_f64(),
        mb / grep_time.as_secs_f64()
    );
    println!(
        "premarket SessionReader: {sessions} sessions ({offloaded} offloaded, {with_reason} with no_ofld_reason, total line {:?}, {errors} errors) in {parse_cpu:.3} s CPU = {rate:.0} MB/s on one core ({:.3} s wall = {:.0} MB/s)",
        reader.total(),
        parse_time.as_secs_f64(),
        mb / parse_time.as_secs_f64()
    );
    println!(
        "peak RSS: {:.1} MB (before parsing {:.1} MB)",
        rss_peak as f64 / 1024.0,
        rss_before as f64 / 1024.0
    );
    let summary_sessions = match &summary {
        Ok(s) => {
            println!(
                "premarket summary (the ListSessions fact): {} sessions, {} offloaded, {} source ports, {} policies, reasons {}, JSON {} bytes, in {summary_cpu:.3} s CPU = {:.0} MB/s ({:.3} s wall); peak RSS after it {:.1} MB",
                s.sessions,
                s.offloaded,
                s.distinct_source_ports,
                s.policies.0.len(),
                s.no_ofld_reasons.describe(),
                serde_json::to_string(s).map_or(0, |j| j.len()),
                mb / summary_cpu,
                summary_time.as_secs_f64(),
                summary_peak as f64 / 1024.0
            );
            s.sessions
        }
        Err(e) => {
            println!("premarket summary: ERROR {e}");
            0
        }
    };
    let ok = sessions == grep_count
        && reader.total() == Some(sessions)
        && errors == 0
        && summary_sessions == sessions;
    println!(
        "targets: >= 500 MB/s {}, < 64 MB {}, counts agree with grep {}",
        if rate >= 500.0 { "met" } else { "NOT met" },
        if rss_peak.max(summary_peak) < 64 * 1024 {
            "met"
        } else {
            "NOT met"
        },
        if ok { "yes" } else { "NO" }
    );
    if !ok {
        std::process::exit(1);
    }
}
