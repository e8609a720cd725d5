//! What each fuzz target does with one input, shared by the coverage-guided targets
//! (`tests/fuzz/fuzz_targets/*.rs`, run by cargo-fuzz) and by the regression test
//! (`tests/fuzz_regressions.rs`, run by plain `cargo test`), so a crash the fuzzer found is
//! replayed through exactly the code that found it.
//!
//! Each function goes through the entry point production uses (`platform::parse_json`, the
//! [`Screen`] the SSH shell reads with, `Config::load_partial` + `Plan::new` as `validate` calls
//! them) and panics only when an invariant breaks: a panic inside premarket is the finding, a
//! panic here is a broken property.

use std::hint::black_box;
use std::path::Path;

use premarket_config::Config;
use premarket_core::Platform;
use premarket_parse::{Query, Raw};
use premarket_plan::{Plan, Selection};
use premarket_platform as platform;
use premarket_platform::fortigate::GetPerformanceStatus;
use premarket_ssh::screen::{Reply, Screen};

/// A parser input: the command on the first line, then the output that command printed.
/// A first line that names no command of the platform's `QUERIES` picks a parser by the
/// input's first byte, so the fuzzer reaches every listed parser from any input (a parser
/// added to `QUERIES` is fuzzed with no change here), while regression files stay readable
/// and keep their parser when the listing is reordered.
pub fn parser(platform: Platform, data: &[u8]) {
    let queries = platform::queries(platform);
    let text = String::from_utf8_lossy(data);
    let (first, rest) = text.split_once('\n').unwrap_or((&text, ""));
    let named = platform::query_for(platform, first).copied();
    let (spec, output) = match named {
        Some(spec) => (spec, rest),
        None => {
            let pick = data.first().map_or(0, |&b| usize::from(b)) % queries.len();
            (queries[pick], &*text)
        }
    };
    // The function `premarket parse` and the YAML checks call (`platform::parse_json`).
    match (spec.parse_json)(&mut Raw::new(output)) {
        // The report shows both; formatting them must not fail either.
        Ok(fact) => {
            shares_are_possible(&fact, spec.kind);
            black_box(fact.to_string())
        }
        Err(e) => black_box(format!("{e}: {}", e.excerpt)),
    };
    // Everything archived passes the platform's redaction first.
    black_box(platform::redact(platform, output));
}

/// Impossible values are errors, never facts (issue 9, section 3): in the one fact that holds
/// shares today (`get system performance status`), every CPU share and the memory share is a
/// number in 0..=100 (a NaN would show as `null` here). Other facts are left alone: a
/// configuration tree may hold any key a hostile device prints.
fn shares_are_possible(fact: &serde_json::Value, kind: &str) {
    if kind != <GetPerformanceStatus as Query>::KIND {
        return;
    }
    let share = |v: &serde_json::Value| v.as_f64().is_some_and(|p| (0.0..=100.0).contains(&p));
    let cpus = fact.get("cpu").into_iter().chain(
        fact.get("per_cpu")
            .and_then(|v| v.as_array())
            .into_iter()
            .flatten(),
    );
    for cpu in cpus.filter(|c| !c.is_null()) {
        for key in ["user", "system", "nice", "idle", "iowait", "irq", "softirq"] {
            let value = cpu.get(key).unwrap_or(&serde_json::Value::Null);
            let optional = !["user", "system", "nice", "idle"].contains(&key);
            assert!(
                share(value) || (optional && value.is_null()),
                "{kind} gave CPU {key} = {value}, not a share of 0..=100"
            );
        }
    }
    if let Some(memory) = fact.get("memory_used_percent").filter(|m| !m.is_null()) {
        assert!(
            share(memory),
            "{kind} gave memory_used_percent = {memory}, not a share of 0..=100"
        );
    }
}

pub fn fortios(data: &[u8]) {
    parser(Platform::Fortigate, data);
}

pub fn eos(data: &[u8]) {
    parser(Platform::Eos, data);
}

/// The pager text both platforms print.
const PAGER: &str = "--More--";

/// Screen input: the first byte sets the size of the SSH packets the rest is split into.
/// Properties: no panic, and the text, pager prompts and prompt line do not depend on the
/// packet size (byte by byte, in packets, whole).
pub fn screen(data: &[u8]) {
    let Some((&size, bytes)) = data.split_first() else {
        return;
    };
    let whole = read(bytes, bytes.len().max(1));
    let packets = read(bytes, usize::from(size) + 1);
    let bytewise = read(bytes, 1);
    assert_eq!(whole, packets, "packets of {} bytes", usize::from(size) + 1);
    assert_eq!(whole, bytewise, "byte by byte");
    // The shell splits what it read into echo, output and prompt.
    let (text, _, _) = &whole;
    for sent in [None, Some("show version"), text.lines().next()] {
        let reply = Reply::split(text, sent, &|line: &str| line.ends_with('#'));
        assert!(
            reply.output.len() + reply.prompt.len() <= text.len(),
            "a reply longer than its text"
        );
    }
}

/// Feeds `bytes` in packets of `size`; returns the text, the pager prompts and the last line.
fn read(bytes: &[u8], size: usize) -> (String, usize, Option<String>) {
    let mut screen = Screen::new(PAGER);
    let pages = bytes.chunks(size).map(|c| screen.feed(c)).sum();
    let last = screen.last_line();
    (screen.take(), pages, last)
}

/// The example configuration (the repository's own `baselines/` and `checks/`): a valid
/// starting point that the fuzzer changes one file of.
const FILES: &[(&str, &[u8])] = &[
    (
        "baselines/site.yaml",
        include_bytes!("../../baselines/site.yaml"),
    ),
    (
        "baselines/fw1.yaml",
        include_bytes!("../../baselines/fw1.yaml"),
    ),
    (
        "baselines/sw1.yaml",
        include_bytes!("../../baselines/sw1.yaml"),
    ),
    (
        "checks/fortigate.yaml",
        include_bytes!("../../checks/fortigate.yaml"),
    ),
    ("checks/eos.yaml", include_bytes!("../../checks/eos.yaml")),
    (
        "checks/probe.yaml",
        include_bytes!("../../checks/probe.yaml"),
    ),
    (
        "baselines/probe1.yaml",
        include_bytes!("../../baselines/probe1.yaml"),
    ),
    (
        "baselines/known_hosts",
        include_bytes!("../../baselines/known_hosts"),
    ),
];

/// How many of [`FILES`] a configuration input may replace (all but known_hosts).
pub const CONFIG_FILES: usize = 7;

/// Configuration input: the first byte picks which file of the example configuration the rest
/// replaces; the directory is then loaded and planned as `premarket validate` does.
pub fn config(data: &[u8]) {
    black_box(config_outcome(data));
}

/// What [`config`] ends with: every error found, or what was planned; `None` when the input is
/// empty or the temporary directory cannot be written.
pub fn config_outcome(data: &[u8]) -> Option<String> {
    let (&pick, content) = data.split_first()?;
    // In memory where the machine has it: thousands of inputs a minute, no disk writes.
    let shm = Path::new("/dev/shm");
    let dir = match shm.is_dir() {
        true => tempfile::tempdir_in(shm),
        false => tempfile::tempdir(),
    };
    // A full disk is the machine's problem, not a finding.
    let dir = dir.ok()?;
    let replaced = usize::from(pick) % CONFIG_FILES;
    for (i, (path, seed)) in FILES.iter().enumerate() {
        let body = if i == replaced { content } else { seed };
        write(dir.path(), path, body).ok()?;
    }
    Some(validate(dir.path()))
}

fn write(dir: &Path, path: &str, body: &[u8]) -> std::io::Result<()> {
    let path = dir.join(path);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    std::fs::write(path, body)
}

/// `premarket validate` without the printing: load, plan, and format every error found.
fn validate(dir: &Path) -> String {
    let (config, errors) = match Config::load_partial(dir) {
        Ok(loaded) => loaded,
        Err(errors) => return errors.to_string(),
    };
    let mut out: Vec<String> = errors.iter().map(ToString::to_string).collect();
    match Plan::new(&config, &Selection::default()) {
        Ok(plan) => out.push(format!("{} device(s) planned", plan.devices.len())),
        Err(e) => out.push(e.to_string()),
    }
    out.join("\n")
}

/// What a target does with one input.
pub type Target = fn(&[u8]);

/// The targets by name, as the regression test and the fuzz crate name them.
pub const TARGETS: &[(&str, Target)] = &[
    ("fortios_parsers", fortios),
    ("eos_parsers", eos),
    ("screen", screen),
    ("config_loader", config),
];
