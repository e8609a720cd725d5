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

#[cfg(test)]
mod tests {
    use super::control;

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
    fn a_line_stays_one_line() {
        assert_eq!(
            super::line("r1\n  2099  OK\t\u{1b}[1m"),
            "r1\\n  2099  OK\\t\\x1b[1m"
        );
        assert_eq!(super::line("plain"), "plain");
    }
}
