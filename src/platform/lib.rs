//! What each kind of device knows: its commands (as queries), prompts and errors, its output
//! parsers and its secrets' shapes. One folder per platform; no FortiOS or EOS string lives
//! elsewhere.

pub mod config_lines;
pub mod eos;
pub mod fortigate;

#[cfg(test)]
mod profile_tests;

use premarket_core::Platform;
use premarket_parse::{ParseError, QuerySpec, Raw};

/// Every query `platform` knows.
pub fn queries(platform: Platform) -> &'static [QuerySpec] {
    match platform {
        Platform::Eos => eos::QUERIES,
        Platform::Fortigate => fortigate::QUERIES,
        Platform::Probe => premarket_probe::facts::QUERIES,
    }
}

/// A model per family of `platform`, as its identity command names it, for the README's
/// table of what runs on which family (`premarket list --models`): (family, model name).
/// Empty for a platform whose commands do not depend on the model.
pub fn model_examples(platform: Platform) -> &'static [(&'static str, &'static str)] {
    match platform {
        Platform::Eos => eos::family::EXAMPLES,
        Platform::Fortigate => fortigate::MODEL_EXAMPLES,
        Platform::Probe => &[],
    }
}

/// The query of `platform` that reads `command` (as `premarket parse` is given it).
pub fn query_for(platform: Platform, command: &str) -> Option<&'static QuerySpec> {
    match platform {
        Platform::Eos => eos::query_for(command),
        Platform::Fortigate => fortigate::query_for(command),
        Platform::Probe => premarket_probe::facts::QUERIES
            .iter()
            .find(|q| q.shape.matches(command)),
    }
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
pub fn redact(platform: Platform, raw: &str) -> String {
    match platform {
        Platform::Eos => eos::redact::redact(raw),
        Platform::Fortigate => fortigate::redact::redact(raw),
        Platform::Probe => raw.to_string(),
    }
}
