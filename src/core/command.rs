//! A command to send to a device, and the one rule that names its saved output file.

use std::fmt;

use serde::{Deserialize, Serialize};

/// One read-only command. `context` holds commands that must be sent just before it, in order,
/// to set device state the command depends on (e.g. a FortiGate session filter). Two commands
/// with the same text but different contexts are different commands.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Command {
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub context: Vec<String>,
    pub text: String,
}

/// Longest file name we produce; longer slugs are cut and given a hash suffix.
const MAX_FILE_NAME: usize = 200;

impl Command {
    pub fn new(text: impl Into<String>) -> Self {
        Command {
            context: Vec::new(),
            text: text.into(),
        }
    }

    pub fn in_context(context: Vec<String>, text: impl Into<String>) -> Self {
        Command {
            context,
            text: text.into(),
        }
    }

    /// Every line sent for this command: the context, then the command itself.
    pub fn lines(&self) -> impl Iterator<Item = &str> {
        self.context
            .iter()
            .map(String::as_str)
            .chain(std::iter::once(self.text.as_str()))
    }

    /// The saved-output file name (offline layout `DIR/<device>/<file>`).
    ///
    /// Rule: join the context and the command with ` ; `, lower-case it, turn every run of
    /// characters other than `a-z` and `0-9` into one `-`, trim `-` at both ends, append
    /// `.txt`. Names longer than 200 characters keep their first 183 and end in `-` plus 16
    /// hex digits of an FNV-1a hash of the full slug.
    /// `show version | json` -> `show-version-json.txt`.
    pub fn file_name(&self) -> String {
        let joined = self.lines().collect::<Vec<_>>().join(" ; ");
        let mut slug = String::with_capacity(joined.len());
        for c in joined.chars().flat_map(char::to_lowercase) {
            if c.is_ascii_alphanumeric() {
                slug.push(c);
            } else if !slug.ends_with('-') {
                slug.push('-');
            }
        }
        let slug = slug.trim_matches('-');
        let stem = if slug.len() > MAX_FILE_NAME {
            format!(
                "{}-{:016x}",
                &slug[..MAX_FILE_NAME - 17],
                fnv1a(slug.as_bytes())
            )
        } else {
            slug.to_string()
        };
        format!("{stem}.txt")
    }
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

impl fmt::Display for Command {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for c in &self.context {
            write!(f, "{c} ; ")?;
        }
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_follow_the_rule() {
        let cases = [
            (Command::new("show version | json"), "show-version-json.txt"),
            (Command::new("get system status"), "get-system-status.txt"),
            (
                Command::new("  Show Running-Config  diffs "),
                "show-running-config-diffs.txt",
            ),
            (
                Command::in_context(
                    vec!["diagnose sys session filter dport 5000".into()],
                    "diagnose sys session list",
                ),
                "diagnose-sys-session-filter-dport-5000-diagnose-sys-session-list.txt",
            ),
        ];
        for (command, name) in cases {
            assert_eq!(command.file_name(), name);
        }
    }

    #[test]
    fn long_names_are_cut_with_a_hash() {
        let a = Command::new("x ".repeat(300));
        let b = Command::new("x ".repeat(301));
        assert_eq!(a.file_name().len(), MAX_FILE_NAME + 4);
        assert_ne!(a.file_name(), b.file_name());
    }
}
