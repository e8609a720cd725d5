//! Keeps the session's secrets out of everything premarket prints or stores. A device that
//! echoes a password (a misconfigured line, a hostile emulator) must not leak it into a report
//! or a capture, so every output and error from a session passes through [`Redactor::clean`].
//!
//! A device may echo a secret broken over two lines (the terminal wrapped it, or the device
//! printed it across a line break), so a secret matches with a line break, and the indentation
//! after it, between any two of its characters. The line breaks are kept, so the output keeps
//! its line structure.

use regex::Regex;
use secrecy::{ExposeSecret, SecretString};

use super::session::Target;
use premarket_core::CollectError;

/// Shortest secret that is redacted; shorter values would blank ordinary text.
const MIN_LEN: usize = 4;
/// What stands for a secret.
const MASK: &str = "********";

#[derive(Clone, Default)]
pub struct Redactor {
    /// One pattern per secret: its characters, a line break allowed between any two.
    patterns: Vec<Regex>,
}

impl Redactor {
    /// Learns every secret of `target`.
    pub fn for_target(target: &Target) -> Redactor {
        let mut redactor = Redactor::default();
        let enable = target.enable_secret.as_ref().map(|s| &s.value);
        for secret in [&target.password, &target.key_passphrase]
            .into_iter()
            .flatten()
            .chain(enable)
        {
            redactor.add(secret);
        }
        redactor
    }

    pub fn add(&mut self, secret: &SecretString) {
        let value = secret.expose_secret();
        if value.chars().count() < MIN_LEN {
            return;
        }
        let pattern = value
            .chars()
            .map(|c| regex::escape(c.encode_utf8(&mut [0; 4])))
            .collect::<Vec<_>>()
            .join(r"(?:\r?\n[ \t]*)?");
        // The pattern is the escaped secret: it always compiles, but never panic on it.
        if let Ok(regex) = Regex::new(&pattern) {
            self.patterns.push(regex);
        }
    }

    /// `text` with every secret replaced by `********` (line breaks inside it kept).
    pub fn clean(&self, text: String) -> String {
        self.patterns.iter().fold(text, |text, pattern| {
            if !pattern.is_match(&text) {
                return text;
            }
            pattern
                .replace_all(&text, |found: &regex::Captures<'_>| {
                    let breaks = found[0].matches('\n').count();
                    format!("{MASK}{}", "\n".repeat(breaks))
                })
                .into_owned()
        })
    }

    /// An error whose text held a secret becomes the same text with it masked.
    pub fn clean_error(&self, e: CollectError) -> CollectError {
        let text = e.to_string();
        let cleaned = self.clean(text.clone());
        if cleaned == text {
            e
        } else {
            CollectError::Other(cleaned)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn redactor(secrets: &[&str]) -> Redactor {
        let mut r = Redactor::default();
        for s in secrets {
            r.add(&SecretString::from(*s));
        }
        r
    }

    #[test]
    fn replaces_every_secret_whole_or_split_over_lines() {
        let r = redactor(&["hunter22", "abc", "a.b*c(d"]);
        let cases = [
            (
                "pw hunter22 and hunter22, abc",
                "pw ******** and ********, abc",
            ),
            ("echo: hunt\r\ner22 done", "echo: ********\n done"),
            ("echo: hunter2\n    2\nnext", "echo: ********\n\nnext"),
            ("x a.b*c(d y", "x ******** y"),
            ("x a.b*c(\nd y", "x ********\n y"),
            ("hunter 22 stays", "hunter 22 stays"),
            ("hunter2\n\n2 stays", "hunter2\n\n2 stays"),
            ("axbxcxd stays", "axbxcxd stays"),
        ];
        for (text, want) in cases {
            assert_eq!(r.clean(text.to_string()), want, "{text:?}");
        }
    }
}
