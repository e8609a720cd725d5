//! EOS text conventions: prompts (`sw1>`, `sw1#`, `sw1(s1)#`, `sw1(config)#`) and `% ` errors.

use std::sync::LazyLock;

use regex::Regex;

use crate::parse::{ParseError, text};

/// A prompt at the start of a line, optionally followed by an echoed command.
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^[A-Za-z0-9][A-Za-z0-9._\-@/:]{0,62}(\(s\d\))?(\(config[^)]*\))?[>#]( .*)?$")
        .expect("static regex")
});

/// Whether `line` is a prompt, with or without an echoed command after it.
pub fn is_prompt(line: &str) -> bool {
    PROMPT.is_match(line.trim_end())
}

/// The output lines without a leading echoed command/prompt and a trailing bare prompt, CRLF
/// and trailing spaces removed. Leading and trailing blank lines go too.
pub fn body(raw: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text::lines(raw).collect();
    while lines
        .first()
        .is_some_and(|l| l.trim().is_empty() || is_prompt(l))
    {
        lines.remove(0);
    }
    while lines
        .last()
        .is_some_and(|l| l.trim().is_empty() || is_prompt(l))
    {
        lines.pop();
    }
    lines
}

/// EOS reports errors as lines starting with `% ` (e.g. `% Invalid input (privileged mode
/// required)`); such output is never a valid answer.
pub fn device_error(lines: &[&str], raw: &str) -> Result<(), ParseError> {
    match lines.iter().position(|l| l.trim_start().starts_with("% ")) {
        Some(i) => Err(ParseError::at_line(
            format!("the switch answered with an error: {}", lines[i].trim()),
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

/// The JSON document inside `raw` (after an echoed prompt line, before a trailing prompt).
pub fn json(raw: &str) -> Option<&str> {
    let start = raw.find('{')?;
    let end = raw.rfind('}')?;
    (end > start
        && raw[..start]
            .lines()
            .all(|l| l.trim().is_empty() || is_prompt(l)))
    .then(|| &raw[start..=end])
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
    }
}
