#![doc = include_str!("README.md")]

pub mod config_lines;
pub mod eos;
pub mod fortigate;
pub mod spec;

pub use premarket_ssh::profile::NotReadOnly;
pub use spec::PlatformSpec;

#[cfg(test)]
mod profile_tests;

use std::borrow::Cow;

use premarket_core::Platform;
use premarket_parse::{ParseError, QuerySpec, Raw};

/// Every query `platform` knows.
pub fn queries(platform: Platform) -> &'static [QuerySpec] {
    spec(platform).queries
}

/// A model per family of `platform`, as its identity command names it, for the table of what
/// runs on which family (this crate's README, `premarket explain`) (`premarket list --models`): (family, model name).
/// Empty for a platform whose commands do not depend on the model.
pub fn model_examples(platform: Platform) -> &'static [(&'static str, &'static str)] {
    spec(platform).model_examples
}

/// The query of `platform` that reads `command` (as `premarket parse` is given it).
pub fn query_for(platform: Platform, command: &str) -> Option<&'static QuerySpec> {
    (spec(platform).query_for)(command)
}

/// Parses `raw` as the output of `command` with `platform`'s parser and returns the fact as
/// JSON: what `premarket parse` prints.
pub fn parse_json(
    platform: Platform,
    command: &str,
    raw: &str,
) -> Result<serde_json::Value, ParseError> {
    let query = query_for(platform, command).ok_or_else(|| ParseError::unsupported(command))?;
    (query.parse_json)(&mut Raw::new(raw))
}

/// `raw` with `platform`'s secrets (passwords, keys, `ENC` blobs) replaced by `<redacted>`, for
/// everything premarket writes down: evidence, archive, email.
/// Borrowed when nothing in it is a secret (most outputs).
pub fn redact(platform: Platform, raw: &str) -> Cow<'_, str> {
    (spec(platform).redact)(raw)
}

/// Why a device of `platform` prints `secret` (a number, an interface name, a word of its
/// outputs), when it does: `premarket validate` warns of such a secret, which every report
/// would show masked and which makes the archive's records of its outputs useless to compare
/// with.
pub fn printed(platform: Platform, secret: &str) -> Option<&'static str> {
    let secret = secret.trim();
    let number = !secret.is_empty()
        && secret.starts_with(|c: char| c.is_ascii_digit())
        && secret
            .chars()
            .all(|c| c.is_ascii_digit() || ".:/,-".contains(c));
    if number {
        return Some("a number (counters, addresses, versions)");
    }
    (spec(platform).printed)(secret)
}

/// A platform's [`PlatformSpec::printed`]: `secret` is one of its interface names or of the
/// words its outputs print (ASCII case aside).
fn printed_as(interface: &regex::Regex, words: &[&str], secret: &str) -> Option<&'static str> {
    if interface.is_match(secret) {
        return Some("an interface name");
    }
    words
        .iter()
        .any(|w| w.eq_ignore_ascii_case(secret))
        .then_some("a word of its outputs")
}

/// The one place that turns a platform into what premarket knows of it.
pub fn spec(platform: Platform) -> &'static PlatformSpec {
    match platform {
        Platform::Eos => &eos::spec::SPEC,
        Platform::Fortigate => &fortigate::spec::SPEC,
        Platform::Probe => &PROBE,
    }
}

/// The probe is configured, not sent commands: it has facts of its own and nothing to redact.
static PROBE: PlatformSpec = PlatformSpec {
    platform: Platform::Probe,
    queries: premarket_probe::facts::QUERIES,
    query_for: |command| {
        premarket_probe::facts::QUERIES
            .iter()
            .find(|q| q.shape.matches(command))
    },
    model_examples: &[],
    releases: ("", None),
    profile: None,
    allowlist: |_| {
        Err("the probe is not sent commands: declarative checks are for eos and fortigate".into())
    },
    redact: |raw| Cow::Borrowed(raw),
    printed: |_| None,
    text_lines: |raw| {
        Ok(premarket_parse::text::lines(raw)
            .map(str::to_string)
            .collect())
    },
    fortios_text: false,
};

#[cfg(test)]
mod tests {
    use super::*;

    /// Interface names, numbers and output words each platform prints; secrets it does not.
    #[test]
    fn secrets_a_device_prints() {
        let interface = Some("an interface name");
        let number = Some("a number (counters, addresses, versions)");
        let word = Some("a word of its outputs");
        let rows = [
            (Platform::Eos, "Ethernet2", interface),
            (Platform::Eos, "Et49/1", interface),
            (Platform::Eos, "port-channel10", interface),
            (Platform::Eos, "Vlan100", interface),
            (Platform::Eos, "4711", number),
            (Platform::Eos, "10.0.0.1", number),
            (Platform::Eos, "Connected", word),
            (Platform::Eos, "x7!Ethernet2-k", None),
            (Platform::Eos, "Ethernet", None),
            (Platform::Fortigate, "port1", interface),
            (Platform::Fortigate, "npu0_vlink1", interface),
            (Platform::Fortigate, "x1", interface),
            (Platform::Fortigate, "root", word),
            (Platform::Fortigate, "2024", number),
            (Platform::Fortigate, "port1-but-longer", None),
        ];
        for (platform, secret, kind) in rows {
            assert_eq!(printed(platform, secret), kind, "{platform:?} {secret}");
        }
    }
}
