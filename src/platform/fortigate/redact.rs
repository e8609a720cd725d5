//! Secrets in FortiOS output: `ENC` blobs (`set password ENC SH2...`, re-encrypted on every
//! `show`, so they are both secret and noise) and plain values of password-like settings.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

static ENC: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r#"\bENC\s+("[^"]*"|\S+)"#).expect("static regex"));

/// `set <password-like name> <value>` where the value is not already an ENC blob.
static SET_SECRET: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r#"(?i)^(\s*[+-]?\s*set\s+[\w-]*(?:passw(?:or)?d|psksecret|secret|private-key|passphrase|auth-pwd|token|-key)[\w-]*\s+)(?:ENC\s+)?\S.*$"#)
        .expect("static regex")
});

/// The names [`SET_SECRET`] looks for, ASCII case-insensitive (`psksecret` holds `secret`,
/// `private-key` holds `-key`). ASCII text without any of them (a session list of a gigabyte
/// has none) needs no per-line pass; for ASCII, ASCII case folding is all of Unicode's.
static SECRET_NAME: LazyLock<regex::bytes::Regex> = LazyLock::new(|| {
    regex::bytes::Regex::new(r"(?i-u)passw(?:or)?d|secret|-key|passphrase|auth-pwd|token")
        .expect("static regex")
});

/// `text` with every secret value replaced by `<redacted>`; line structure is kept.
pub fn redact(text: &str) -> Cow<'_, str> {
    // A normalised configuration's mask (`ENC <secret set, 60 chars>`) holds no secret: the
    // value runs to the end of its line there, past what the pattern captured.
    let text = ENC.replace_all(text, |c: &regex::Captures<'_>| {
        let start = c.get(1).map_or(0, |m| m.start());
        let value = text[start..].split(['\n', '\r']).next().unwrap_or_default();
        if crate::config_lines::is_mask(value) {
            c[0].to_string()
        } else {
            "ENC <redacted>".to_string()
        }
    });
    if text.is_ascii() && !SECRET_NAME.is_match(text.as_bytes()) {
        return text;
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let cr = line.ends_with('\r');
        let body = line.trim_end_matches('\r');
        match SET_SECRET.captures(body) {
            Some(c)
                if !body.trim_end().ends_with("ENC <redacted>") && !masked(&body[c[1].len()..]) =>
            {
                out.push_str(&c[1]);
                out.push_str("<redacted>");
            }
            _ => out.push_str(body),
        }
        if cr {
            out.push('\r');
        }
    }
    Cow::Owned(out)
}

/// A value that is a normalised configuration's mask, after an optional `ENC`.
fn masked(value: &str) -> bool {
    let value = value.trim();
    crate::config_lines::is_mask(value.strip_prefix("ENC ").unwrap_or(value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_normalised_mask_stays_anything_after_it_goes() {
        let masked = "        set password ENC <secret set, 60 chars>";
        assert_eq!(redact(masked), masked);
        let key = "        set private-key \"<private key set, 44 chars>\"";
        assert_eq!(redact(key), key);
        assert_eq!(
            redact("set password ENC <secret set, 6 chars> hunter2"),
            "set password <redacted>"
        );
    }

    #[test]
    fn enc_blobs_and_plain_secrets_go() {
        let cases = [
            (
                "    set password ENC SH2nlSm9QL9tapcHPXIqAXvX7vBJuuqu22hpa0JxM=",
                "    set password ENC <redacted>",
            ),
            (
                "        set psksecret ENC 1u0kYk+Q2Jk2==",
                "        set psksecret ENC <redacted>",
            ),
            ("set passwd \"plain\"", "set passwd <redacted>"),
            (
                "    set private-key \"-----BEGIN",
                "    set private-key <redacted>",
            ),
            (
                "    set hostname \"FGT-TEST\"",
                "    set hostname \"FGT-TEST\"",
            ),
            ("set keepalive 10", "set keepalive 10"),
            (
                "    set auth-pwd ENC \"abc def\"",
                "    set auth-pwd ENC <redacted>",
            ),
        ];
        for (line, want) in cases {
            assert_eq!(redact(line), want, "{line}");
        }
    }

    /// The shortcut for text without a secret name must not skip a line the full pass catches:
    /// other cases, a name inside a longer one, a line among a session list's, non-ASCII text.
    #[test]
    fn the_shortcut_never_skips_a_secret_line() {
        let list = "session info: proto=17 proto_state=00 duration=1 expire=179\nnpu_state=0x4000c00 ofld-O\n";
        let cases = [
            ("    SET PASSWORD plain", "    SET PASSWORD <redacted>"),
            ("set admin-Passwd x1", "set admin-Passwd <redacted>"),
            ("set ssh-Private-Key abc", "set ssh-Private-Key <redacted>"),
            ("set api-TOKEN t0k", "set api-TOKEN <redacted>"),
            ("set passphrase é-secret", "set passphrase <redacted>"),
            // Unicode folds `ſ` to `s`: non-ASCII text always takes the full pass.
            ("set \u{17f}ecret x", "set \u{17f}ecret <redacted>"),
        ];
        for (line, want) in cases {
            let text = format!("{list}{line}\n{list}");
            assert_eq!(redact(&text), format!("{list}{want}\n{list}"), "{line}");
        }
        assert_eq!(
            redact(list),
            list,
            "nothing to redact: the text is unchanged"
        );
    }
}
