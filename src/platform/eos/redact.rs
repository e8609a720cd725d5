//! Secrets in EOS output: the rest of a line after `secret`, `key`, `password` and their kin
//! (`username admin secret sha512 $6$...`, `tacacs-server key 7 ...`, `snmp-server community
//! ...`). Hashes and type-7 strings are as good as passwords to an attacker, so they go too.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Words after which the rest of an EOS line is secret.
const SECRET_WORDS: &[&str] = &[
    "secret",
    "key",
    "password",
    "community",
    "authentication-key",
    "message-digest-key",
    "sshkey",
    "ssh-key",
    "passphrase",
    "shared-secret",
];

/// Every secret word holds one of these (case aside): a line without one keeps its secrets to
/// none, and most outputs have no such line at all.
static HINT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new("(?i)key|secret|password|community|passphrase").expect("a fixed pattern compiles")
});

/// `text` with every secret value replaced by `<redacted>`; line structure is kept. Only the
/// lines that hold a secret word's letters are read word by word (every output comes here).
pub fn redact(text: &str) -> Cow<'_, str> {
    let mut out = String::new();
    // `text[..copied]` is in `out`; lines starting before `decided` have been read.
    let mut copied = 0;
    let mut decided = 0;
    for hint in HINT.find_iter(text) {
        if hint.start() < decided {
            continue;
        }
        let start = text[..hint.start()].rfind('\n').map_or(0, |i| i + 1);
        let end = text[hint.end()..]
            .find('\n')
            .map_or(text.len(), |i| hint.end() + i);
        decided = end;
        let line = &text[start..end];
        if let Some(cut) = secret_at(line) {
            if copied == 0 {
                out.reserve(text.len());
            }
            out.push_str(&text[copied..start]);
            out.push_str(line[..cut].trim_end());
            out.push_str(" <redacted>");
            if line.ends_with('\r') {
                out.push('\r');
            }
            copied = end;
        }
    }
    if copied == 0 {
        // Nothing was a secret (start 0 with a secret sets `copied` past it).
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// Where the secret of `line` begins: after the first secret word followed by a value. Words
/// are compared without allocating (every line of every output comes through here).
fn secret_at(line: &str) -> Option<usize> {
    let mut end = 0;
    for word in line.split_inclusive(char::is_whitespace) {
        end += word.len();
        let bare = word.trim_end().trim_start_matches(['+', '-']);
        // A normalised configuration's mask (`secret <secret set, 27 chars>`) holds no secret.
        if SECRET_WORDS.iter().any(|w| w.eq_ignore_ascii_case(bare))
            && !line[end..].trim().is_empty()
            && !crate::config_lines::is_mask(&line[end..])
        {
            return Some(end);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The rule line by line, as written before the whole-text search: the reference.
    fn each_line(text: &str) -> String {
        let mut out = String::new();
        for (i, line) in text.split('\n').enumerate() {
            if i > 0 {
                out.push('\n');
            }
            match secret_at(line) {
                Some(end) => {
                    out.push_str(line[..end].trim_end());
                    out.push_str(" <redacted>");
                    if line.ends_with('\r') {
                        out.push('\r');
                    }
                }
                None => out.push_str(line),
            }
        }
        out
    }

    #[test]
    fn the_whole_text_search_redacts_as_each_line_would() {
        let lines = [
            "username admin secret sha512 $6$abc",
            "   tacacs-server host 10.0.0.1 KEY 7 0207165218120E\r",
            "snmp-server community s3cret ro",
            "interface Ethernet1",
            "   description keyboard-password-room",
            "no snmp-server community",
            "ip ssh key-exchange x",
            "",
            "\r",
            "router bgp 65000 neighbor 10.1.1.1 password 7 ABC key 7 DEF",
            "\u{212a}ey 7 kelvin",
            "snmp-server community <secret set, 9 chars>",
        ];
        // Every pair and triple of lines, with and without a final line break.
        for a in lines {
            for b in lines {
                for c in ["", "\n", "\nsecret x", "\r\n"] {
                    let text = format!("{a}\n{b}{c}");
                    assert_eq!(redact(&text), each_line(&text), "{text:?}");
                }
            }
            assert_eq!(redact(a), each_line(a), "{a:?}");
        }
    }

    #[test]
    fn a_normalised_mask_stays() {
        let masked = "username admin privilege 15 role network-admin secret <secret set, 27 chars>";
        assert_eq!(redact(masked), masked);
        assert_eq!(
            redact("snmp-server community <secret set, 9 chars> s3cret"),
            "snmp-server community <redacted>"
        );
    }

    #[test]
    fn secret_values_go_and_the_rest_stays() {
        let cases = [
            (
                "username admin privilege 15 role network-admin secret sha512 $6$abc",
                "username admin privilege 15 role network-admin secret <redacted>",
            ),
            (
                "   tacacs-server host 10.0.0.1 key 7 0207165218120E",
                "   tacacs-server host 10.0.0.1 key <redacted>",
            ),
            (
                "+snmp-server community s3cret ro",
                "+snmp-server community <redacted>",
            ),
            (
                "enable password sha512 $6$xyz",
                "enable password <redacted>",
            ),
            (
                "   neighbor 10.1.1.1 password 7 ABCDEF",
                "   neighbor 10.1.1.1 password <redacted>",
            ),
            ("queue-monitor length", "queue-monitor length"),
            ("interface Ethernet1\r", "interface Ethernet1\r"),
            ("no snmp-server community", "no snmp-server community"),
        ];
        for (line, want) in cases {
            assert_eq!(redact(line), want, "{line}");
        }
        assert_eq!(
            redact("a\nenable secret 5 $1$x\nb"),
            "a\nenable secret <redacted>\nb"
        );
    }
}
