//! Text helpers every parser shares: device output is hostile input, so lines are normalised
//! (CRLF, trailing spaces, stray backspaces) before any grammar looks at them, and whatever of it
//! is shown back (error excerpts, reasons) is short and has its control characters escaped: a
//! device must not be able to move the operator's cursor or rewrite report lines.

use std::fmt::Write as _;

/// Lines of `raw` with `\r` and trailing white space removed.
pub fn lines(raw: &str) -> impl Iterator<Item = &str> {
    raw.split('\n')
        .map(|l| l.trim_end_matches(['\r', ' ', '\t']))
}

/// `raw` with CRLF turned into LF and trailing spaces removed from every line.
pub fn normalize(raw: &str) -> String {
    let mut out = String::with_capacity(raw.len());
    for line in lines(raw) {
        out.push_str(line);
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    if out.trim().is_empty() {
        out.clear();
    }
    out
}

/// The first `max` non-empty lines of `raw`, for an error's evidence (clipped and escaped).
pub fn excerpt(raw: &str, max: usize) -> String {
    let mut lines: Vec<&str> = lines(raw)
        .filter(|l| !l.trim().is_empty())
        .take(max + 1)
        .collect();
    let more = lines.len() > max;
    lines.truncate(max);
    let mut out = lines
        .iter()
        .map(|l| clip(l, 160))
        .collect::<Vec<_>>()
        .join("\n");
    if more {
        out.push_str("\n...");
    }
    out
}

/// Lines `line - radius ..= line + radius` of `raw` (clipped and escaped).
pub fn excerpt_around(raw: &str, line: usize, radius: usize) -> String {
    let start = line.saturating_sub(radius);
    lines(raw)
        .skip(start)
        .take(2 * radius + 1)
        .map(|l| clip(l, 160))
        .collect::<Vec<_>>()
        .join("\n")
}

/// At most `max` characters of `line` (on a character boundary), control characters escaped.
pub fn clip(line: &str, max: usize) -> String {
    let cut = match line.char_indices().nth(max) {
        Some((i, _)) => &line[..i],
        None => line,
    };
    let mut out = escape_control(cut);
    if cut.len() < line.len() {
        out.push_str("...");
    }
    out
}

/// Device text quoted inside a message: one line of at most 80 characters, escaped.
pub fn quote(text: &str) -> String {
    clip(text.trim(), 80)
}

/// `text` with every control character written as an escape: C0 and DEL as `\x1b`, C1 and the
/// bidirectional overrides (which reorder what a terminal shows) as `\u{9b}`. Everything else,
/// including non-ASCII text, is kept.
pub fn escape_control(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if !needs_escape(c) {
            out.push(c);
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// Stores `value` in `slot` the first time; a repeat must agree. A record that prints one key
/// twice with two values cannot be judged (which one is true?), so the caller turns the `Err`
/// (both values, quoted) into a parse error. Identical repeats are fine.
pub fn set_once<T: PartialEq + std::fmt::Debug>(
    slot: &mut Option<T>,
    value: T,
) -> Result<(), String> {
    match slot {
        Some(old) if *old != value => Err(format!(
            "printed twice with different values ({} and {})",
            quote(&format!("{old:?}")),
            quote(&format!("{value:?}"))
        )),
        Some(_) => Ok(()),
        None => {
            *slot = Some(value);
            Ok(())
        }
    }
}

/// A duration written out in words, as uptimes are: `4 days,  8 hours,  5 minutes` (FortiOS,
/// one or two spaces), `3 weeks, 6 days, 19 hours and 45 minutes` (EOS), with or without
/// seconds. Each number must be followed by a unit; the total must fit in `u64` seconds.
pub fn duration_in_words(text: &str) -> Result<u64, DurationError> {
    let words: Vec<&str> = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty() && *w != "and")
        .collect();
    let unreadable = || DurationError::Unreadable(text.to_string());
    if words.is_empty() || !words.len().is_multiple_of(2) {
        return Err(unreadable());
    }
    let mut total: u64 = 0;
    for pair in words.chunks(2) {
        let [n, unit] = pair else {
            return Err(unreadable());
        };
        let n: u64 = n
            .parse()
            .map_err(|_| DurationError::Number(n.to_string()))?;
        let factor: u64 = match unit.trim_end_matches('s') {
            "week" => 604_800,
            "day" => 86_400,
            "hour" => 3_600,
            "minute" | "min" => 60,
            "second" | "sec" => 1,
            _ => return Err(DurationError::Unit(unit.to_string())),
        };
        total = n
            .checked_mul(factor)
            .and_then(|s| total.checked_add(s))
            .ok_or_else(|| DurationError::TooLong(text.to_string()))?;
    }
    Ok(total)
}

/// Why a duration in words does not read; each holds the text it is about, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum DurationError {
    #[error("unreadable duration {}", quote(.0))]
    Unreadable(String),
    #[error("unreadable number {} in a duration", quote(.0))]
    Number(String),
    #[error("unknown unit {} in a duration", quote(.0))]
    Unit(String),
    #[error("a duration too long to be real: {}", quote(.0))]
    TooLong(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn normalize_drops_cr_and_trailing_space() {
        assert_eq!(normalize("a  \r\nb\r\n\r\n"), "a\nb\n");
        assert_eq!(normalize(" \r\n"), "");
    }

    #[test]
    fn excerpt_marks_truncation() {
        assert_eq!(excerpt("1\n2\n3\n", 2), "1\n2\n...");
        assert_eq!(excerpt("1\n\n2\n", 2), "1\n2");
    }

    #[test]
    fn clip_respects_char_boundaries() {
        assert_eq!(clip("巡檢巡檢", 2), "巡檢...");
    }

    #[test]
    fn control_characters_never_survive() {
        let cases = [
            ("plain é text", "plain é text"),
            ("\u{1b}[2J\u{1b}[Hfake OK", "\\x1b[2J\\x1b[Hfake OK"),
            ("bell\u{7}\u{8}del\u{7f}", "bell\\x07\\x08del\\x7f"),
            ("a\rb\tc", "a\\x0db\\x09c"),
            ("c1\u{9b}31m", "c1\\u{9b}31m"),
            ("rtl\u{202e}kO", "rtl\\u{202e}kO"),
        ];
        for (raw, escaped) in cases {
            assert_eq!(escape_control(raw), escaped, "{raw:?}");
        }
        let e = excerpt("ok\n\u{1b}]0;title\u{7}line\n", 8);
        assert!(!e.chars().any(|c| c.is_control() && c != '\n'), "{e:?}");
        assert!(quote(&"x".repeat(500)).len() < 90);
    }

    #[test]
    fn durations_in_words() {
        let ok = [
            (
                "4 days,  8 hours,  5 minutes",
                4 * 86_400 + 8 * 3_600 + 5 * 60,
            ),
            ("106 days,  0 hours,  8 minutes", 106 * 86_400 + 8 * 60),
            ("0 days, 0 hours, 1 minutes, 5 seconds", 65),
            (
                "3 weeks, 6 days, 19 hours and 45 minutes",
                3 * 604_800 + 6 * 86_400 + 19 * 3_600 + 45 * 60,
            ),
            ("1 hour and 1 minute", 3_660),
        ];
        for (text, seconds) in ok {
            assert_eq!(duration_in_words(text), Ok(seconds), "{text}");
        }
        for bad in [
            "",
            "4 days, 8",
            "four days",
            "4 fortnights",
            "-1 days",
            "18446744073709551615 days",
            "1.5 days",
        ] {
            assert!(duration_in_words(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn set_once_accepts_repeats_and_refuses_disagreement() {
        let mut slot = None;
        assert!(set_once(&mut slot, 3).is_ok());
        assert!(set_once(&mut slot, 3).is_ok());
        assert!(set_once(&mut slot, 4).unwrap_err().contains("3 and 4"));
        assert_eq!(slot, Some(3));
    }
}
