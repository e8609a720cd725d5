//! The syntax of the site's environment file, as systemd reads an `EnvironmentFile=`
//! (systemd.exec(5), `load_env_file` in systemd's `env-file.c`), so that one file serves the
//! unit, cron and a pasted rerun alike: `NAME=VALUE` lines, `#` and `;` comment lines, no
//! shell expansion (`Tr4d3$Desk#1` is those twelve characters; `set -a; . secrets.env` would
//! read `Tr4d3` and a comment), single quotes taken literally, double quotes with `\"`, `\\`,
//! `` \` `` and `\$` escapes, a backslash at the end of a line continuing it, and trailing
//! spaces of an unquoted value dropped.
//!
//! Stricter than systemd where systemd would drop a line in silence: a line without `=`, a
//! name that is not `[A-Za-z_][A-Za-z0-9_]*` and a quote left open are errors naming the line,
//! never its text (the text is a secret, or a secret with a typo).

/// One `NAME=VALUE` of the file.
pub(crate) struct Assignment {
    pub name: String,
    pub value: String,
}

/// Why the file does not read; the line is 1-based, the text is never kept.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum SyntaxError {
    #[error("line {0} is not NAME=VALUE")]
    NoEquals(usize),
    #[error("line {0}: the name before `=` is not a variable name ([A-Za-z_][A-Za-z0-9_]*)")]
    BadName(usize),
    #[error("line {0}: a quote opened there is never closed")]
    Unterminated(usize),
}

impl SyntaxError {
    pub fn line(&self) -> usize {
        match *self {
            SyntaxError::NoEquals(l) | SyntaxError::BadName(l) | SyntaxError::Unterminated(l) => l,
        }
    }
}

/// Where the reader is, as in systemd's state machine.
#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    PreKey,
    Key,
    PreValue,
    Value,
    ValueEscape,
    SingleQuote,
    DoubleQuote,
    DoubleQuoteEscape,
    Comment,
}

/// What a backslash in double quotes escapes; any other character keeps its backslash.
const DOUBLE_QUOTE_ESCAPES: &str = "\"\\`$";

/// The assignments of `text`, in order (a later one of the same name wins when looked up).
pub(crate) fn parse(text: &str) -> Result<Vec<Assignment>, SyntaxError> {
    let mut out = Vec::new();
    let mut state = State::PreKey;
    let (mut key, mut value) = (String::new(), String::new());
    // Where trailing spaces of an unquoted value start, if they are trailing.
    let mut trailing: Option<usize> = None;
    let (mut line, mut started) = (1, 1);
    let mut push = |key: &mut String, value: &mut String, at: usize| {
        let name = std::mem::take(key).trim_end().to_string();
        let valid = name.starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
        if !valid {
            return Err(SyntaxError::BadName(at));
        }
        out.push(Assignment {
            name,
            value: std::mem::take(value),
        });
        Ok(())
    };
    for c in text.chars() {
        // A CR ends a line as systemd reads it; only LF counts one.
        let newline = c == '\n' || c == '\r';
        match state {
            State::PreKey => match c {
                '#' | ';' => state = State::Comment,
                c if c.is_whitespace() => {}
                c => {
                    started = line;
                    key.push(c);
                    state = State::Key;
                }
            },
            State::Key => match c {
                '=' => {
                    trailing = None;
                    state = State::PreValue;
                }
                _ if newline => return Err(SyntaxError::NoEquals(started)),
                c => key.push(c),
            },
            State::PreValue => match c {
                _ if newline => {
                    push(&mut key, &mut value, started)?;
                    state = State::PreKey;
                }
                '\'' => state = State::SingleQuote,
                '"' => state = State::DoubleQuote,
                '\\' => state = State::ValueEscape,
                c if c.is_whitespace() => {}
                c => {
                    value.push(c);
                    state = State::Value;
                }
            },
            State::Value => match c {
                _ if newline => {
                    if let Some(at) = trailing.take() {
                        value.truncate(at);
                    }
                    push(&mut key, &mut value, started)?;
                    state = State::PreKey;
                }
                '\\' => {
                    trailing = None;
                    state = State::ValueEscape;
                }
                c => {
                    if !c.is_whitespace() {
                        trailing = None;
                    } else if trailing.is_none() {
                        trailing = Some(value.len());
                    }
                    value.push(c);
                }
            },
            State::ValueEscape => {
                // A backslash before the line's end continues the value on the next line.
                if !newline {
                    value.push(c);
                }
                state = State::Value;
            }
            State::SingleQuote => match c {
                '\'' => state = State::PreValue,
                c => value.push(c),
            },
            State::DoubleQuote => match c {
                '"' => state = State::PreValue,
                '\\' => state = State::DoubleQuoteEscape,
                c => value.push(c),
            },
            State::DoubleQuoteEscape => {
                if DOUBLE_QUOTE_ESCAPES.contains(c) {
                    value.push(c);
                } else if !newline {
                    value.push('\\');
                    value.push(c);
                }
                state = State::DoubleQuote;
            }
            State::Comment => {
                if newline {
                    state = State::PreKey;
                }
            }
        }
        if c == '\n' {
            line += 1;
        }
    }
    match state {
        State::PreKey | State::Comment => {}
        State::Key => return Err(SyntaxError::NoEquals(started)),
        State::SingleQuote | State::DoubleQuote | State::DoubleQuoteEscape => {
            return Err(SyntaxError::Unterminated(started));
        }
        State::PreValue | State::Value | State::ValueEscape => {
            if let Some(at) = trailing.filter(|_| state == State::Value) {
                value.truncate(at);
            }
            push(&mut key, &mut value, started)?;
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(text: &str) -> Vec<(String, String)> {
        parse(text)
            .unwrap_or_else(|e| panic!("{text:?}: {e}"))
            .into_iter()
            .map(|a| (a.name, a.value))
            .collect()
    }

    #[test]
    fn values_are_read_as_systemd_reads_them() {
        let cases: &[(&str, &str)] = &[
            // No shell expansion and no comment after a value: the password as typed.
            ("P=Tr4d3$Desk#1", "Tr4d3$Desk#1"),
            ("P=Tr4d3$Desk#1\n", "Tr4d3$Desk#1"),
            ("P='Tr4d3$Desk#1'", "Tr4d3$Desk#1"),
            ("P=\"Tr4d3$Desk#1\"", "Tr4d3$Desk#1"),
            ("P=\"Tr4d3\\$Desk#1\"", "Tr4d3$Desk#1"),
            ("P=$HOME/x ${USER}", "$HOME/x ${USER}"),
            ("P=a;b", "a;b"),
            // Spaces: around `=` and at the end of an unquoted value dropped, inside kept.
            ("P = pass word  ", "pass word"),
            ("P='  spaced  '", "  spaced  "),
            ("P=\"  spaced  \"", "  spaced  "),
            ("P=trailing\\ ", "trailing "),
            // Quotes: single literal, double with the four escapes, others keep the backslash.
            ("P='it''s'", "its"),
            ("P='a\\nb'", "a\\nb"),
            ("P=\"say \\\"hi\\\"\"", "say \"hi\""),
            ("P=\"back\\\\slash \\`tick\\`\"", "back\\slash `tick`"),
            ("P=\"keep \\n\"", "keep \\n"),
            ("P=\"a\" 'b'", "ab"),
            ("P=don't", "don't"),
            ("P=mid\"quote\"", "mid\"quote\""),
            // An unquoted backslash escapes the next character; at the end it continues the line.
            ("P=a\\$b", "a$b"),
            ("P=first\\\nsecond", "firstsecond"),
            ("P=\"two\nlines\"", "two\nlines"),
            // Empty.
            ("P=", ""),
            ("P=''", ""),
            ("P=x\r\n", "x"),
        ];
        for (text, want) in cases {
            assert_eq!(
                read(text),
                vec![("P".to_string(), want.to_string())],
                "{text:?}"
            );
        }
    }

    #[test]
    fn comments_and_blank_lines_are_skipped() {
        let text =
            "# the site's secrets\n\n; fw1\n  # indented\nFW1=a-Passw0rd\n\tSW1 = b-Passw0rd\n";
        assert_eq!(
            read(text),
            vec![
                ("FW1".to_string(), "a-Passw0rd".to_string()),
                ("SW1".to_string(), "b-Passw0rd".to_string()),
            ]
        );
    }

    #[test]
    fn a_malformed_line_is_named_by_its_number_only() {
        for (text, want) in [
            ("A=1\nTr4d3$Desk#1\nB=2\n", SyntaxError::NoEquals(2)),
            ("A=1\n\nB Tr4d3$Desk#1", SyntaxError::NoEquals(3)),
            ("export A=1\n", SyntaxError::BadName(1)),
            ("1A=x\n", SyntaxError::BadName(1)),
            ("A-B=x\n", SyntaxError::BadName(1)),
            ("A=1\nB='Tr4d3$Desk#1\nC=3\n", SyntaxError::Unterminated(2)),
            ("A=\"open", SyntaxError::Unterminated(1)),
        ] {
            let error = parse(text).err().unwrap_or_else(|| panic!("{text:?} read"));
            assert_eq!(error, want, "{text:?}");
            assert!(!error.to_string().contains("Tr4d3"), "{error}");
        }
    }
}
