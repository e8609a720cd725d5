//! FortiOS output hygiene shared by every FortiGate parser: saved outputs start with an echoed
//! `HOST # command` line (`HOST (root) # ` in a VDOM, `HOST $ ` on old boxes, `# ` in documents),
//! may end in a bare prompt, and may carry `--More--` pager remnants (the prompt, then `\r` and
//! spaces or backspaces that erased it). Cleaning them here makes paged and unpaged output give
//! identical facts, whatever grammar the command has.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

use premarket_parse::{ParseError, text};

/// The pager prompt FortiOS prints when its console output is paged.
pub const PAGER: &str = "--More--";

/// A prompt, optionally followed by an echoed command: `FGT201G # get system status`,
/// `FGT201G (root) # ...`, `FGT30D $ ...`, `# diagnose sys session list`.
static PROMPT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(?:[A-Za-z0-9][A-Za-z0-9._~-]{0,62}(?: \([A-Za-z0-9._ -]{1,40}\))? ?)?[#$](?: .*)?$",
    )
    .expect("static regex")
});

/// Error lines FortiOS prints instead of output; such output is never a valid answer.
const DEVICE_ERRORS: [&str; 6] = [
    "Unknown action",
    "Command fail",
    "command parse error",
    "entry not found in datasource",
    "node_check_object fail",
    "Permission denied",
];

/// Whether `line` (cleaned) is a prompt, with or without an echoed command.
pub fn is_prompt(line: &str) -> bool {
    PROMPT.is_match(line.trim())
}

/// `line` without pager remnants, terminal control bytes and trailing white space.
pub fn clean(line: &str) -> Cow<'_, str> {
    let dirty = line.contains(PAGER) || line.bytes().any(|b| matches!(b, b'\r' | 0x08 | 0x1b));
    if !dirty {
        return Cow::Borrowed(line.trim_end());
    }
    let line = line.replace(PAGER, "");
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' | '\u{8}' => {}
            // ANSI sequences (ESC [ params final) some terminals add when erasing the pager line.
            '\u{1b}' => {
                if chars.peek() == Some(&'[') {
                    chars.next();
                    for c in chars.by_ref() {
                        if c.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
            }
            c => out.push(c),
        }
    }
    Cow::Owned(out.trim_end().to_string())
}

/// The meaningful lines of `raw`: cleaned, without prompt/echo lines and blank lines. Leading
/// indentation is kept (web copies lose it, so no grammar may depend on it).
pub fn body(raw: &str) -> Vec<Cow<'_, str>> {
    text::lines(raw)
        .map(clean)
        .filter(|l| !l.trim().is_empty() && !is_prompt(l))
        .collect()
}

/// A [`ParseError`] when the firewall answered with an error line instead of output.
pub fn device_error(lines: &[Cow<'_, str>]) -> Result<(), ParseError> {
    match lines
        .iter()
        .position(|l| DEVICE_ERRORS.iter().any(|e| l.contains(e)))
    {
        Some(i) => Err(ParseError::at_line(
            format!("the firewall answered with an error: {}", lines[i].trim()),
            &joined(lines),
            i,
        )),
        None => Ok(()),
    }
}

/// The lines joined back into one text, for excerpts.
pub fn joined(lines: &[Cow<'_, str>]) -> String {
    lines
        .iter()
        .map(|l| l.as_ref())
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts() {
        for p in [
            "FGT201G # get system status",
            "FGT201G (root) # diagnose sys session list",
            "FGT30D $ get x ",
            "# get system ha status",
            "FGT201G #",
            "FortiGate_Transparent (multicast-policy) # show",
        ] {
            assert!(is_prompt(p), "{p}");
        }
        for p in [
            "#config-version=FG201G-7.06",
            "Version: FortiGate-201G v7.6.7",
            "session info: proto=17",
            "    set action accept",
            "Primary     : FortiGate-1800F , FG1, HA cluster index = 1",
        ] {
            assert!(!is_prompt(p), "{p}");
        }
    }

    #[test]
    fn pager_remnants_vanish() {
        assert_eq!(
            clean("--More-- \r         \rsession info: proto=17").trim_start(),
            "session info: proto=17"
        );
        assert_eq!(
            clean("--More--\u{8}\u{8}\u{8}   \u{8}\u{8}\u{8}npu_state=0x1").trim_start(),
            "npu_state=0x1"
        );
        assert_eq!(
            clean("\u{1b}[K--More-- \r\u{1b}[Kset x 1 \r").trim_start(),
            "set x 1"
        );
        assert_eq!(clean("plain  "), "plain");
        let paged = "FGT # get system status\r\nVersion: X\r\n--More-- \r          \rHostname: fw1\r\nFGT # ";
        let body: Vec<String> = body(paged)
            .into_iter()
            .map(|l| l.trim().to_string())
            .collect();
        assert_eq!(body, vec!["Version: X", "Hostname: fw1"]);
    }

    #[test]
    fn device_errors_are_errors() {
        let lines = body("FGT # diagnose sys sesion list\nUnknown action 0\nFGT # ");
        assert!(
            device_error(&lines)
                .unwrap_err()
                .reason
                .contains("Unknown action")
        );
        assert!(device_error(&body("Version: x")).is_ok());
    }
}
