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
use premarket_parse::{FactJson, Recorded};
pub use premarket_ssh::redact::{MASK, Redactor, Stream};
use serde_json::Value;

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

/// A fact as the archive keeps it: every string, key or value in which a secret is found has it
/// masked, and the record is marked [`Recorded::masked`] (not what the device said: a later run
/// does not compare with it). A device's outputs are judged as read, so its facts hold a
/// secret it printed (a password that is also an interface name); most hold none and are
/// returned as they are.
pub fn record(redactor: &Redactor, mut record: Recorded) -> Recorded {
    // The secrets are matched as written and as escaped in JSON ([`Redactor::add_all`]).
    if matches!(redactor.literals_kept(record.fact.text()), Cow::Borrowed(_)) {
        return record;
    }
    let value = serde_json::from_str::<Value>(record.fact.text())
        .map(|value| masked_value(redactor, value))
        .unwrap_or_else(|_| Value::String(MASK.into()));
    let mut fact = FactJson::of(&value);
    // A secret across the JSON's own syntax (`1,2` over `[1,2]`) is in no one value.
    if matches!(redactor.literals_kept(fact.text()), Cow::Owned(_)) {
        fact = FactJson::of(&MASK);
    }
    record.fact = fact;
    record.masked = true;
    record
}

fn masked_value(redactor: &Redactor, value: Value) -> Value {
    match value {
        Value::String(text) => Value::String(redactor.literals(&text)),
        Value::Array(items) => Value::Array(
            items
                .into_iter()
                .map(|v| masked_value(redactor, v))
                .collect(),
        ),
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(k, v)| (redactor.literals(&k), masked_value(redactor, v)))
                .collect(),
        ),
        // A number or a boolean that is a secret becomes the mask, as a string.
        scalar => match redactor.literals_kept(&scalar.to_string()) {
            Cow::Borrowed(_) => scalar,
            Cow::Owned(masked) => Value::String(masked),
        },
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

    /// A fact that holds a secret the device printed is archived masked and marked, whatever
    /// part of the JSON holds it (a key, a string, a number, an escaped quote); one that holds
    /// none is kept as it is.
    #[test]
    fn facts_are_archived_masked_and_marked() {
        let mut r = Redactor::default();
        r.add_all(["Ethernet2", "4711", "pa\"ss"]);
        let record = |json: serde_json::Value| Recorded {
            key: premarket_parse::QueryKey {
                command: premarket_core::Command::new("show interfaces | json"),
                kind: "eos.interfaces".into(),
            },
            run_id: String::new(),
            collected_at: None,
            fact: json.into(),
            masked: false,
        };
        let clean = record(serde_json::json!({"Ethernet1": {"inErrors": 3}}));
        assert_eq!(super::record(&r, clean.clone()), clean);
        let rows = [
            (
                serde_json::json!({"Ethernet2": {"inErrors": 3}}),
                r#"{"********":{"inErrors":3}}"#,
            ),
            (
                serde_json::json!({"ports": ["Ethernet1", "Ethernet2"]}),
                r#"{"ports":["Ethernet1","********"]}"#,
            ),
            (serde_json::json!({"pin": 4711}), r#"{"pin":"********"}"#),
            (
                serde_json::json!({"banner": "say pa\"ss"}),
                r#"{"banner":"say ********"}"#,
            ),
        ];
        for (json, kept) in rows {
            let archived = super::record(&r, record(json.clone()));
            assert!(archived.masked, "{json}");
            assert_eq!(archived.fact.text(), kept, "{json}");
        }
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
