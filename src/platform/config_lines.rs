//! A device's whole configuration as premarket compares it from one run to the next: its
//! lines, less what changes on every read, with every secret reduced to "a secret is set here".
//!
//! Each platform says which lines are volatile (EOS's `! Time:` header, FortiOS's
//! `#conf_file_ver=`) and how its secrets look (its redaction rules); this module does the rest
//! once for both. A secret line keeps everything before the secret and ends in
//! `<secret set, N chars>`: FortiOS re-encrypts every `ENC` blob on each `show`, with a fresh
//! salt but the same length for the same password, so a re-encryption reads the same here,
//! while a secret that appears, disappears or changes length (its plain length crossed a
//! cipher block) does not. A PEM block (a certificate, a private key) spanning many lines
//! becomes one line, `<certificate set, N chars>`. The secret itself is never kept: this fact
//! is archived for the next run and shown in diffs.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// The configuration, normalised: what the `*.config.unchanged` checks compare.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigLines {
    pub lines: Vec<String>,
}

/// How one platform's configuration is normalised.
pub struct Rules {
    /// A line that changes on every read (a header with the time or a file counter).
    pub volatile: fn(&str) -> bool,
    /// The platform's redaction of one line: the same line with its secret value replaced
    /// by [`REDACTED`].
    pub redact: fn(&str) -> String,
}

/// What the platforms' redaction puts where a secret was.
pub const REDACTED: &str = "<redacted>";

/// What this module puts where a secret was, as a whole value (quoted or not).
static MASK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"^"?<(?:secret|certificate|private key|PEM block) set, \d+ chars(?:, not closed)?>"?$"#,
    )
    .expect("static regex")
});

/// Whether `value` is nothing but this module's mask: the platforms' redaction leaves it, so
/// a normalised configuration shown in a finding still says "a secret of N chars is set".
/// It holds only a number, so a device printing it smuggles nothing.
pub fn is_mask(value: &str) -> bool {
    MASK.is_match(value.trim())
}

/// A PEM block ends within this many lines, or is taken to end there: an unclosed block (cut
/// output, hostile text) must not leak a key's lines, nor swallow the whole configuration.
const PEM_MAX_LINES: usize = 1000;

/// Normalises `lines` (a configuration's body: no echo, no prompt).
pub fn normalise<'a>(lines: impl IntoIterator<Item = &'a str>, rules: &Rules) -> ConfigLines {
    let lines: Vec<&str> = lines.into_iter().collect();
    let mut out = Vec::with_capacity(lines.len());
    let mut i = 0;
    while i < lines.len() {
        let line = lines[i].trim_end();
        i += 1;
        if (rules.volatile)(line) {
            continue;
        }
        if let Some((block, used)) = pem_block(line, &lines[i..]) {
            out.push(block);
            i += used;
            continue;
        }
        out.push(secret_masked(line, rules.redact));
    }
    ConfigLines { lines: out }
}

/// `line` opens a PEM block (`... "-----BEGIN CERTIFICATE-----`): the one line standing for
/// it and how many lines of `rest` it used (up to [`PEM_MAX_LINES`] when it is not closed).
fn pem_block(line: &str, rest: &[&str]) -> Option<(String, usize)> {
    let start = line.find("-----BEGIN ")?;
    let label = line[start + 11..].split("-----").next().unwrap_or_default();
    let what = if label.contains("PRIVATE KEY") {
        "private key"
    } else if label.contains("CERTIFICATE") {
        "certificate"
    } else {
        "PEM block"
    };
    let Some(end) = rest
        .iter()
        .take(PEM_MAX_LINES)
        .position(|l| l.contains("-----END "))
    else {
        let used = rest.len().min(PEM_MAX_LINES);
        let body: usize = rest[..used].iter().map(|l| l.trim().len()).sum();
        return Some((
            format!("{}<{what} set, {body} chars, not closed>", &line[..start]),
            used,
        ));
    };
    let body: usize = rest[..end].iter().map(|l| l.trim().len()).sum();
    // What follows the END marker on its line (FortiOS closes the quoted value there).
    let closing = rest[end]
        .rsplit("-----")
        .next()
        .unwrap_or_default()
        .trim_end();
    Some((
        format!("{}<{what} set, {body} chars>{closing}", &line[..start]),
        end + 1,
    ))
}

/// `line` with its secret value, if the platform's rules see one, as `<secret set, N chars>`.
fn secret_masked(line: &str, redact: fn(&str) -> String) -> String {
    let redacted = redact(line);
    if redacted == line {
        return redacted;
    }
    // The rules keep what comes before the secret and replace the rest: the secret is what
    // the original has after that prefix.
    match redacted.find(REDACTED) {
        Some(at) if line.starts_with(&redacted[..at]) => {
            let secret = line[at..].trim();
            format!("{}<secret set, {} chars>", &redacted[..at], secret.len())
        }
        // A rule that changed the line some other way: keep the redacted line, never the
        // original.
        _ => redacted,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rules() -> Rules {
        Rules {
            volatile: |l| l.starts_with("#stamp="),
            redact: |l| match l.find(" secret ") {
                Some(at) => format!("{} secret {REDACTED}", &l[..at]),
                None => l.to_string(),
            },
        }
    }

    #[test]
    fn volatile_lines_go_and_secrets_keep_only_their_length() {
        let text = [
            "#stamp=1",
            "user a secret xyz123",
            "set certificate \"-----BEGIN CERTIFICATE-----",
            "MIIB",
            "AAAA==",
            "-----END CERTIFICATE-----\"",
            "end",
        ];
        let got = normalise(text, &rules()).lines;
        assert_eq!(
            got,
            [
                "user a secret <secret set, 6 chars>",
                "set certificate \"<certificate set, 10 chars>\"",
                "end"
            ]
        );
    }

    #[test]
    fn masks_are_recognised_whole() {
        assert!(is_mask("<secret set, 27 chars>"));
        assert!(is_mask("\"<certificate set, 10 chars>\""));
        assert!(!is_mask("<secret set, 27 chars> hunter2"));
        assert!(!is_mask("hunter2"));
    }

    #[test]
    fn an_unclosed_pem_block_leaks_no_line() {
        let text = [
            "set private-key \"-----BEGIN PRIVATE KEY-----",
            "MIIB",
            "end",
        ];
        let got = normalise(text, &rules()).lines;
        assert_eq!(
            got,
            ["set private-key \"<private key set, 7 chars, not closed>"]
        );
    }
}
