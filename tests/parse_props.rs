//! Device output is hostile input: no parser may panic, whatever the text, and what a parser
//! accepts must be a fact that reads back from its JSON. Every parser, old and new (the table in
//! `parse_support`), gets arbitrary bytes, its fixtures cut and spliced at arbitrary points,
//! impossible numbers in place of real ones, deep nesting, another command's output, terminal
//! escapes and inputs large enough that a quadratic step would show.

use crate::parse_support;

use std::time::{Duration, Instant};

use parse_support::{PARSERS, Parser, same_format};
use proptest::prelude::*;

/// Parses and checks what every accepted output must satisfy; a panic fails the test.
fn parse(p: &Parser, raw: &str) -> bool {
    match (p.parse)(raw) {
        Ok(parsed) => {
            assert!(
                parsed.round_trips,
                "{}: an accepted fact does not read back from {}",
                p.command, parsed.json
            );
            true
        }
        Err(e) => {
            for text in [&e.reason, &e.excerpt] {
                assert!(
                    !text.chars().any(|c| c.is_control() && c != '\n'),
                    "{}: control characters in {text:?}",
                    p.command
                );
            }
            false
        }
    }
}

/// The sample fixture plus the text forms some `| json` commands also read.
fn inputs(p: &Parser) -> Vec<String> {
    let mut out = vec![p.sample_text()];
    let extra = match p.command {
        "show version | json" => Some("eos/show-version/text-old-padded-crlf.txt"),
        "show queue-monitor length status | json" => {
            Some("eos/show-queue-monitor-length-status/text-enabled.txt")
        }
        "show reload cause | json" => Some("eos/show-reload-cause/text-power-loss.txt"),
        _ => None,
    };
    out.extend(extra.map(parse_support::read));
    out
}

/// Replacement numbers no device prints: past `u64`, negative, not finite, absurdly precise.
fn hostile_number() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("18446744073709551616".to_string()),
        Just("99999999999999999999999999999999999999".to_string()),
        Just("-1".to_string()),
        Just("-9223372036854775809".to_string()),
        Just("1e400".to_string()),
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("0.0000000000000000000000001".to_string()),
        "[0-9]{1,40}",
        "-[0-9]{1,25}\\.[0-9]{1,25}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn arbitrary_text_never_panics(raw in "\\PC*", bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let lossy = String::from_utf8_lossy(&bytes);
        for p in PARSERS {
            parse(p, &raw);
            parse(p, &lossy);
        }
    }

    #[test]
    fn spliced_fixtures_never_panic(cut in 0usize..8192, splice in "[ -~\\r\\n{}\\[\\]\"%:@+-]{0,80}", index in 0usize..256) {
        for p in PARSERS {
            for text in inputs(p) {
                let mut at = cut.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                parse(p, &text[..at]);
                let (head, tail) = text.split_at(at);
                parse(p, &format!("{head}{splice}{tail}"));
                let mut lines: Vec<&str> = text.lines().collect();
                if !lines.is_empty() {
                    let i = index % lines.len();
                    lines.insert(i, &splice);
                    parse(p, &lines.join("\r\n"));
                    lines.remove(i);
                    lines.remove(i % lines.len().max(1));
                    parse(p, &lines.join("\n"));
                }
            }
        }
    }

    #[test]
    fn impossible_numbers_never_pass_as_facts(pick in 0usize..512, number in hostile_number()) {
        for p in PARSERS {
            for text in inputs(p) {
                let runs: Vec<(usize, usize)> = digit_runs(&text);
                if runs.is_empty() {
                    continue;
                }
                let (start, end) = runs[pick % runs.len()];
                let edited = format!("{}{number}{}", &text[..start], &text[end..]);
                parse(p, &edited);
            }
        }
    }
}

/// Byte ranges of the runs of ASCII digits in `text`.
fn digit_runs(text: &str) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, b) in text.bytes().enumerate() {
        match (b.is_ascii_digit(), start) {
            (true, None) => start = Some(i),
            (false, Some(s)) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    if let Some(s) = start {
        out.push((s, text.len()));
    }
    out
}

#[test]
fn deep_nesting_is_an_error_for_every_parser() {
    // Far deeper than any recursive reader survives on a test thread's 2 MiB stack
    // (`hostile_parse.rs` goes to 100,000 for the parsers that nest).
    let n = 30_000;
    let deep = [
        format!("{}{}", "{\"a\":".repeat(n), "}".repeat(n)),
        format!("{{\"interfaces\": {}{}}}", "[".repeat(n), "]".repeat(n)),
        format!("{}{}", "config a\n".repeat(n), "end\n".repeat(n)),
        format!(
            "config t\n{}{}end\n",
            "edit x\nconfig u\n".repeat(n / 2),
            "end\nnext\n".repeat(n / 2)
        ),
        "(".repeat(n),
    ];
    for p in PARSERS {
        for raw in &deep {
            assert!(
                !parse(p, raw),
                "{}: accepted {} nested levels",
                p.command,
                n
            );
        }
    }
}

#[test]
fn another_commands_output_is_an_error_for_every_parser() {
    let mut accepted = Vec::new();
    for p in PARSERS {
        for other in PARSERS {
            if p.command == other.command || same_format(p.command, other.command) {
                continue;
            }
            for (name, raw) in other.fixtures() {
                // An empty querier table and an empty group table print the same document.
                let empty_igmp =
                    raw.contains("\"vlans\": {}") && p.command.contains("igmp snooping");
                if !empty_igmp && (p.parse)(&raw).is_ok() {
                    accepted.push(format!("{} accepted {}/{name}", p.command, other.dir));
                }
            }
        }
    }
    assert!(accepted.is_empty(), "{}", accepted.join("\n"));
}

#[test]
fn terminal_escapes_never_reach_an_excerpt() {
    let hostile = "\u{1b}[2J\u{1b}[H\u{7}OK: all checks passed\r\u{9b}31m\u{8}\u{8}\u{202e}\n";
    for p in PARSERS {
        let sample = p.sample_text();
        for raw in [
            hostile.to_string(),
            format!("{hostile}{sample}"),
            sample.replacen('\n', &format!("\n{hostile}"), 3),
        ] {
            parse(p, &raw);
        }
        assert!(
            !parse(p, hostile),
            "{}: accepted terminal escapes as output",
            p.command
        );
    }
}

/// About 1 MB built from each fixture (its lines repeated) must parse or fail in well under the
/// time a quadratic step would take on a debug build. The bound separates linear from quadratic
/// on a loaded machine (the slowest parser takes about 0.8 s here); speed itself is measured by
/// the benchmarks.
#[test]
fn large_inputs_take_linear_time() {
    let limit = Duration::from_secs(15);
    let mut slowest = Duration::ZERO;
    for p in PARSERS {
        let sample = p.sample_text();
        let lines: Vec<&str> = sample.lines().collect();
        let body = lines[1..lines.len().saturating_sub(1)].join("\n");
        let times = (1_000_000 / body.len().max(1)).max(1);
        let big = format!("{}\n", body).repeat(times);
        for raw in [big.clone(), format!("{}{big}", lines[0])] {
            let start = Instant::now();
            let _ = (p.parse)(&raw);
            let took = start.elapsed();
            slowest = slowest.max(took);
            assert!(
                took < limit,
                "{}: {took:?} for {} bytes",
                p.command,
                raw.len()
            );
        }
    }
    eprintln!("slowest parse of about 1 MB: {slowest:?}");
}
