//! EOS text conventions: prompts (`sw1>`, `sw1#`, `sw1(s1)#`, `sw1(config)#`) and `% ` errors.
//! Every EOS parser, text or JSON, starts here so an echoed command or an error line never
//! reaches a grammar.

use std::sync::LazyLock;

use regex::Regex;

use premarket_parse::{ParseError, text};

/// A prompt at the start of a line, optionally followed by an echoed command.
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9][A-Za-z0-9_.\-@/:]{0,62}(\(s\d\))?(\(config[^)]*\))?[>#].*$")
        .expect("static regex")
});

/// Whether `line` is a prompt, with or without an echoed command after it.
pub fn is_prompt(line: &str) -> bool {
    PROMPT.is_match(line.trim_end())
}

/// The output lines without a leading echoed command/prompt and a trailing bare prompt, CRLF
/// and trailing spaces removed. Leading and trailing blank lines go too.
pub fn body(raw: &str) -> Vec<&str> {
    let skip = |l: &&str| l.trim().is_empty() || is_prompt(l);
    let lines: Vec<&str> = text::lines(raw).collect();
    let start = lines
        .iter()
        .position(|l| !skip(l) && !is_echo(l))
        .unwrap_or(lines.len());
    let end = lines
        .iter()
        .rposition(|l| !skip(l))
        .map_or(start, |i| i + 1);
    lines[start..end.max(start)].to_vec()
}

/// An echoed command without its prompt: EOS repeats the echo when the session falls behind
/// (`sw1#` / `show version | json` / `sw1#show version | json`, netmiko's notes), so a bare
/// `show ...` line may come before the output. Only ever skipped at the start.
pub fn is_echo(line: &str) -> bool {
    line.trim_start().starts_with("show ")
}

/// EOS reports errors as lines starting with `% ` (e.g. `% Invalid input (privileged mode
/// required)`); such output is never a valid answer.
pub fn device_error(lines: &[&str], raw: &str) -> Result<(), ParseError> {
    match lines.iter().position(|l| l.trim_start().starts_with("% ")) {
        Some(i) => Err(ParseError::at_line(
            format!(
                "the switch answered with an error: {}",
                text::quote(lines[i])
            ),
            &lines.join("\n"),
            i,
        )),
        None if raw.contains("privileged mode required") => Err(ParseError::new(
            "the switch requires privileged mode (enable)",
            raw,
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts() {
        for p in [
            "sw1>",
            "sw1#",
            "sw1# show version",
            "loc1-core01(s1)#",
            "sw1(config-if-Et1)#",
            "ceos-01>show version",
            "DC1_LEAF1# show running-config  diffs ",
        ] {
            assert!(is_prompt(p), "{p}");
        }
        for p in [
            "! device: sw1",
            "Arista vEOS",
            "   queue-monitor length",
            "end",
            "Serial number: X#",
        ] {
            assert!(!is_prompt(p), "{p}");
        }
    }

    #[test]
    fn body_strips_echo_and_trailing_prompt() {
        assert_eq!(body("sw1#show x\r\nA  \r\nB\r\nsw1#"), vec!["A", "B"]);
        assert!(body("sw1#show running-config diffs\nsw1#").is_empty());
        assert_eq!(
            body("sw1#\nshow ntp status\nsw1#show ntp status\nunsynchronised\nsw1#"),
            vec!["unsynchronised"]
        );
    }
}
