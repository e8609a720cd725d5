//! Device text made safe to show: control characters are written out (`\x1b`, `\r`) instead
//! of reaching a terminal, a mail reader or a JSON consumer that would obey them. A device (or
//! someone who can set its banner or a description) could otherwise rewrite report lines on
//! the operator's screen with ESC sequences, carriage returns or backspaces.
//!
//! Line feeds and tabs are kept (evidence is multi-line); a CR that ends a line (CRLF output)
//! is dropped, any other CR is shown.

/// `text` with every control character but LF and TAB escaped, C1 controls and DEL included.
pub fn control(text: &str) -> String {
    if !text.chars().any(needs_escape) {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\r' if chars.peek() == Some(&'\n') => {}
            '\r' => out.push_str("\\r"),
            c if needs_escape(c) => {
                let n = u32::from(c);
                if n <= 0xff {
                    out.push_str(&format!("\\x{n:02x}"));
                } else {
                    out.push_str(&format!("\\u{{{n:04x}}}"));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// `text` as one line of a listing: [`control`], with line feeds and tabs shown too (`\n`,
/// `\t`), so a value read back from the archive (a run id, a check name, a start time) can
/// neither obey the terminal nor start a line of its own.
pub fn line(text: &str) -> String {
    control(text).replace('\n', "\\n").replace('\t', "\\t")
}

fn needs_escape(c: char) -> bool {
    (c.is_control() && c != '\n' && c != '\t')
        // Bidirectional overrides can reorder what a reader sees as well.
        || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// The most of one value (a result's summary, actual, evidence; a changed fact) the report
/// keeps: a device can print a 60 MB string, and every channel copies what the report holds.
pub const VALUE_MAX: usize = 64 << 10;

/// `text` cut to [`VALUE_MAX`] bytes (at a character boundary), the cut said at the end:
/// `... [cut: 8388608 more bytes; the whole output is in the run's archive]`.
pub fn capped(mut text: String) -> String {
    if text.len() <= VALUE_MAX {
        return text;
    }
    let mut at = VALUE_MAX;
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    let more = text.len() - at;
    text.truncate(at);
    text.shrink_to_fit();
    text.push_str(&format!(
        "... [cut: {more} more bytes; the whole output is in the run's archive]"
    ));
    text
}

/// HTML-escapes device text and configuration words.
pub fn html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// Device text as Markdown reads it literally (Teams cards render Markdown in every text):
/// each ASCII punctuation mark that can open markup is backslash-escaped, CommonMark's escape,
/// so `[Click](https://evil.example)` shows as typed instead of as a link. `]` and `(` are both
/// escaped: a renderer that ignored backslashes still never sees `](`.
pub fn markdown(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    // At the start of a line (spaces aside) `-`, `+`, `=` and `1.` open lists and headings.
    let mut line_start = true;
    let mut leading_digits = false;
    for c in text.chars() {
        let opens = matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '(' | ')' | '<' | '>' | '!' | '~' | '|' | '#'
        ) || (line_start && matches!(c, '-' | '+' | '='))
            || (leading_digits && matches!(c, '.' | ')'));
        if opens {
            out.push('\\');
        }
        out.push(c);
        leading_digits = c.is_ascii_digit() && (line_start || leading_digits);
        line_start = c == '\n' || (line_start && c == ' ');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{control, markdown};

    #[test]
    fn control_characters_are_shown_not_obeyed() {
        let cases = [
            ("plain\ttext\nline", "plain\ttext\nline"),
            ("crlf\r\nline\r\n", "crlf\nline\n"),
            ("\u{1b}[2J\u{1b}]0;owned\u{7}", "\\x1b[2J\\x1b]0;owned\\x07"),
            ("over\rwrite", "over\\rwrite"),
            ("back\u{8}\u{8}", "back\\x08\\x08"),
            ("c1 \u{9b}31m del \u{7f}", "c1 \\x9b31m del \\x7f"),
            ("bidi \u{202e}txt", "bidi \\u{202e}txt"),
            ("ünïcode ok", "ünïcode ok"),
        ];
        for (raw, shown) in cases {
            assert_eq!(control(raw), shown, "{raw:?}");
        }
    }

    #[test]
    fn markdown_shows_as_typed() {
        let cases = [
            (
                "[Click](https://evil.example/x)",
                r"\[Click\]\(https://evil.example/x\)",
            ),
            ("**b** _i_ `c` ~s~", r"\*\*b\*\* \_i\_ \`c\` \~s\~"),
            (
                "<https://evil.example> ![x](y)",
                r"\<https://evil.example\> \!\[x\]\(y\)",
            ),
            ("- item\n  + more\n# head", "\\- item\n  \\+ more\n\\# head"),
            ("a-b 4.31.6M", "a-b 4.31.6M"),
            ("1. one\n22) two", "1\\. one\n22\\) two"),
            (r"back\slash", r"back\\slash"),
        ];
        for (raw, shown) in cases {
            assert_eq!(markdown(raw), shown, "{raw:?}");
        }
    }

    #[test]
    fn a_value_is_kept_up_to_its_cap_and_the_cut_is_said() {
        use super::{VALUE_MAX, capped};
        assert_eq!(capped("short".into()), "short");
        let long = format!("{}é{}", "x".repeat(VALUE_MAX - 1), "y".repeat(100));
        let kept = capped(long.clone());
        assert!(
            kept.starts_with(&"x".repeat(VALUE_MAX - 1)),
            "cut at a character boundary"
        );
        assert!(
            kept.ends_with("... [cut: 102 more bytes; the whole output is in the run's archive]"),
            "{}",
            &kept[VALUE_MAX - 10..]
        );
    }

    #[test]
    fn a_line_stays_one_line() {
        assert_eq!(
            super::line("r1\n  2099  OK\t\u{1b}[1m"),
            "r1\\n  2099  OK\\t\\x1b[1m"
        );
        assert_eq!(super::line("plain"), "plain");
    }
}
