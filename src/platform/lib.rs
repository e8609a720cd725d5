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

/// The platform an Ansible inventory's `ansible_network_os` names, if premarket inspects it.
pub fn from_ansible(network_os: &str) -> Option<Platform> {
    let os = network_os.trim().to_ascii_lowercase();
    [Platform::Eos, Platform::Fortigate]
        .into_iter()
        .find(|p| spec(*p).ansible_network_os.contains(&os.as_str()))
}

/// A device's starting baseline (`premarket init`, `premarket import`): the platform's
/// commented template with `values` put in (`("name", "sw7")` fills `{name}`; the template's
/// fields are [`STARTER_FIELDS`]). `None` for a platform not described so.
pub fn starter(platform: Platform, values: &[(&str, &str)]) -> Option<String> {
    let template = spec(platform).starter;
    if template.is_empty() {
        return None;
    }
    let mut text = template.to_string();
    for (key, value) in values {
        text = text.replace(&format!("{{{key}}}"), value);
    }
    Some(text)
}

/// What a starter template leaves to fill: the device's name, its role file's `extends:` line
/// (or nothing), where and who it logs in as, its secret references.
pub const STARTER_FIELDS: &[&str] = &["name", "extends", "host", "port", "user", "auth", "enable"];

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
        Platform::Site => &SITE,
    }
}

/// The site is no device: nothing is sent to it. Its checks read the devices' facts, and their
/// evidence quotes several platforms' outputs, so every platform's secrets are hidden in it.
static SITE: PlatformSpec = PlatformSpec {
    platform: Platform::Site,
    queries: &[],
    query_for: |_| None,
    model_examples: &[],
    releases: ("", None),
    profile: None,
    allowlist: |_| {
        Err("a site check reads its devices' facts and sends nothing itself: it is built-in".into())
    },
    redact: |raw| match (eos::spec::SPEC.redact)(raw) {
        Cow::Borrowed(raw) => (fortigate::spec::SPEC.redact)(raw),
        Cow::Owned(once) => Cow::Owned((fortigate::spec::SPEC.redact)(&once).into_owned()),
    },
    // Its evidence quotes both platforms' outputs: a word either prints.
    printed: |secret| {
        (eos::spec::SPEC.printed)(secret).or_else(|| (fortigate::spec::SPEC.printed)(secret))
    },
    text_lines: |raw| {
        Ok(premarket_parse::text::lines(raw)
            .map(str::to_string)
            .collect())
    },
    fortios_text: false,
    ansible_network_os: &[],
    starter: "",
};

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
    ansible_network_os: &[],
    starter: "",
};

#[cfg(test)]
mod starter_tests {
    use super::*;

    #[test]
    fn a_starter_leaves_nothing_unfilled_and_inspected_platforms_come_from_ansible() {
        for platform in [Platform::Eos, Platform::Fortigate] {
            let values: Vec<(&str, &str)> = STARTER_FIELDS.iter().map(|f| (*f, "X")).collect();
            let text = starter(platform, &values).expect("a starter");
            let left: Vec<&str> = text
                .split('{')
                .skip(1)
                .filter_map(|s| s.split_once('}').map(|(f, _)| f))
                .filter(|f| !f.is_empty() && f.chars().all(|c| c.is_ascii_alphabetic()))
                .collect();
            assert!(left.is_empty(), "{platform}: {left:?}");
            assert!(text.contains(&format!("platform: {platform}")), "{text}");
            assert_eq!(
                from_ansible(spec(platform).ansible_network_os[0]),
                Some(platform)
            );
        }
        assert_eq!(from_ansible(" Arista.EOS.eos "), Some(Platform::Eos));
        assert_eq!(from_ansible("cisco.ios.ios"), None);
        assert!(starter(Platform::Probe, &[]).is_none());
    }
}

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
