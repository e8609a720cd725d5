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

/// Why a line (or a key) of an output does not read: said in the parser's error at it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct BadLine(pub String);

/// A time EOS tables print as how long ago or for how long (`03:27:45` under a day, then
/// `79d05h`, `1d04h`, `5w2d`): seconds.
pub fn elapsed(text: &str) -> Option<u64> {
    let parts: Vec<&str> = text.split(':').collect();
    if let [h, m, s] = parts.as_slice() {
        let n = |t: &str| t.parse::<u64>().ok();
        return n(h)?
            .checked_mul(3600)?
            .checked_add(n(m)?.checked_mul(60)?)?
            .checked_add(n(s)?);
    }
    let mut total = 0u64;
    let mut digits = String::new();
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
            continue;
        }
        let unit = match c {
            'w' => 7 * 86_400,
            'd' => 86_400,
            'h' => 3600,
            'm' => 60,
            's' => 1,
            _ => return None,
        };
        total = total.checked_add(digits.parse::<u64>().ok()?.checked_mul(unit)?)?;
        digits.clear();
    }
    digits
        .is_empty()
        .then_some(total)
        .filter(|_| !text.is_empty())
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
    fn elapsed_times() {
        assert_eq!(elapsed("03:27:45"), Some(3 * 3600 + 27 * 60 + 45));
        assert_eq!(elapsed("79d05h"), Some(79 * 86_400 + 5 * 3600));
        assert_eq!(elapsed("5w2d"), Some(37 * 86_400));
        for bad in [
            "",
            "79x05h",
            "1d04",
            "a:b:c",
            "12",
            "18446744073709551615w",
            "d",
        ] {
            assert_eq!(elapsed(bad), None, "{bad}");
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
