//! The last line of defence before anything is written down (evidence, archive, email, logs):
//! each platform's secret rules, PEM private keys, and the literal values of every secret the
//! configuration refers to, should a device echo one back. The literal values are matched by
//! the one [`Redactor`] of the SSH layer (line breaks, control characters and packet
//! boundaries inside a secret do not hide it); this module adds what only the report knows:
//! the whole configuration's secrets and the platform's rules for device text.

use std::borrow::Cow;

use secrecy::ExposeSecret;

use premarket_config::Config;
use premarket_core::Platform;
pub use premarket_ssh::redact::{MASK, Redactor, Stream};

/// Resolves every secret reference in `config` (unresolvable ones are skipped: they cannot
/// leak what premarket never read).
pub fn from_config(config: &Config) -> Redactor {
    let env = &config.site.environment;
    let resolved: Vec<_> = config
        .secret_references()
        .into_iter()
        .filter_map(|r| r.secret.resolve(env).ok())
        .collect();
    let mut redactor = Redactor::default();
    redactor.add_all(resolved.iter().map(|s| s.expose_secret()));
    // A webhook's URL, its path and query alone (the token), a routing key.
    for target in config.site.notify.iter().filter_map(|e| e.target().ok()) {
        redactor.add_all(target.secrets());
    }
    redactor
}

/// `text` from a device of `platform`, safe to write down: the platform's secret lines, PEM
/// keys and the known secrets.
pub fn device_text(redactor: &Redactor, platform: Platform, text: &str) -> String {
    device_text_kept(redactor, platform, text).into_owned()
}

/// [`device_text`], borrowed when nothing in `text` was a secret (most outputs).
pub fn device_text_kept<'t>(
    redactor: &Redactor,
    platform: Platform,
    text: &'t str,
) -> Cow<'t, str> {
    match rules(platform, text) {
        Cow::Borrowed(text) => redactor.literals_kept(text),
        Cow::Owned(text) => Cow::Owned(redactor.literals(&text)),
    }
}

/// The platform's rules and PEM keys only (line by line: a piece of a stream that ends at a
/// line break can go through them alone); borrowed when they changed nothing.
pub fn rules(platform: Platform, text: &str) -> Cow<'_, str> {
    match premarket_platform::redact(platform, text) {
        Cow::Borrowed(text) => pem_keys(text),
        Cow::Owned(text) => Cow::Owned(pem_keys(&text).into_owned()),
    }
}

/// Log directives added to whatever `-v` or `RUST_LOG` asks: logs that would write a secret in
/// pieces no redactor can join. ureq-proto logs each HTTP request as a hex dump at trace level,
/// 16 bytes a line: a webhook URL's path (its token) and a PagerDuty routing key in the body
/// would be cut across lines and mixed with hex.
pub const QUIET: &[&str] = &["ureq_proto::util=off"];

/// Added only when the filter reaches trace: ureq-proto no further than debug. A directive
/// sets a level, it does not cap one, so at the default level this would raise ureq-proto's
/// debug lines onto stderr (which cron mails).
pub const QUIET_AT_TRACE: &[&str] = &["ureq_proto=debug"];

/// Where log lines go (stderr), every secret read so far masked in each: premarket logs no
/// device text itself, but a library may (russh logs what a device sends in an unknown request
/// at debug level), and `RUST_LOG` can turn any level on. The tracing formatter writes one
/// event per writer, so each line is masked whole.
#[derive(Clone, Copy, Debug, Default)]
pub struct LogWriter;

/// One log event on its way out.
pub struct LogLine(Vec<u8>);

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LogLine;

    fn make_writer(&'a self) -> LogLine {
        LogLine(Vec::new())
    }
}

impl std::io::Write for LogLine {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Drop for LogLine {
    fn drop(&mut self) {
        let line = premarket_config::mask_secrets_read_so_far(&String::from_utf8_lossy(&self.0));
        // A closed stderr loses the line; a log line is never worth a panic.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), line.as_bytes());
    }
}

/// Replaces the body of every `-----BEGIN ... PRIVATE KEY-----` block.
fn pem_keys(text: &str) -> Cow<'_, str> {
    // Most outputs hold no key: no need to take them apart line by line.
    if !text.contains("PRIVATE KEY-----") {
        return Cow::Borrowed(text);
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut inside = false;
    for line in text.split('\n') {
        let is_begin = line.contains("-----BEGIN") && line.contains("PRIVATE KEY-----");
        let is_end = line.contains("-----END") && line.contains("PRIVATE KEY-----");
        if is_begin {
            inside = !is_end;
            kept.push("-----BEGIN PRIVATE KEY----- <redacted>");
        } else if inside && is_end {
            inside = false;
            kept.push("-----END PRIVATE KEY-----");
        } else if !inside {
            kept.push(line);
        }
    }
    Cow::Owned(kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_platform_rules_and_pem_blocks() {
        let mut r = Redactor::default();
        r.add("hunter2-canary");
        let raw = "banner hunter2-\r\n  canary\nusername a secret 0 plain\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nabc";
        let out = device_text(&r, Platform::Eos, raw);
        assert!(
            !out.contains("hunter2-") && !out.contains("canary"),
            "{out}"
        );
        assert!(out.starts_with(&format!("banner {MASK}\n")), "{out}");
        assert!(!out.contains("plain"), "{out}");
        assert!(!out.contains("MIIEow"), "{out}");
        assert!(out.ends_with("abc"), "{out}");
    }

    /// What held nothing secret is the text itself (the report keeps the output it shares);
    /// what did is a masked copy, whichever rule found it.
    #[test]
    fn text_without_a_secret_is_kept_borrowed() {
        let mut r = Redactor::default();
        r.add("hunter2-canary");
        let rows = [
            (Platform::Eos, "Ethernet1 is up\nmtu 9214\n", false),
            (
                Platform::Fortigate,
                "config system interface\n    edit \"port1\"\n",
                false,
            ),
            (Platform::Eos, "description hunter2-canary\n", true),
            (Platform::Eos, "username a secret 0 plain\n", true),
            (
                Platform::Fortigate,
                "    set password ENC SGVsbG8gd29ybGQhIQ==\n",
                true,
            ),
            (
                Platform::Eos,
                "-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----",
                true,
            ),
        ];
        for (platform, text, secret) in rows {
            let out = device_text_kept(&r, platform, text);
            assert_eq!(
                matches!(out, Cow::Owned(_)),
                secret,
                "{platform:?} {text:?} -> {out:?}"
            );
            assert_eq!(out == text, !secret, "{text:?} -> {out:?}");
            assert_eq!(out, device_text(&r, platform, text));
        }
    }
}
