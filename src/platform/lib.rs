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

/// A model per family of `platform`, as its identity command names it, for the README's
/// table of what runs on which family (`premarket list --models`): (family, model name).
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
    text_lines: |raw| {
        Ok(premarket_parse::text::lines(raw)
            .map(str::to_string)
            .collect())
    },
    fortios_text: false,
};
