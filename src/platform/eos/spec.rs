//! What premarket knows of Arista EOS, as one [`PlatformSpec`].

use crate::spec::PlatformSpec;
use premarket_core::Platform;

pub static SPEC: PlatformSpec = PlatformSpec {
    platform: Platform::Eos,
    queries: super::QUERIES,
    query_for: super::query_for,
    model_examples: super::family::EXAMPLES,
    releases: ("4.31.6M", Some("4.22.4M")),
    profile: Some(&super::cli::PROFILE),
    allowlist: super::allowlist::check,
    redact: super::redact::redact,
    printed: super::printed::printed,
    text_lines: |raw| {
        let lines = super::text::body(raw);
        super::text::device_error(&lines, raw)?;
        Ok(lines.iter().map(|l| l.to_string()).collect())
    },
    fortios_text: false,
    ansible_network_os: &["arista.eos.eos", "eos"],
    starter: include_str!("starter.yaml"),
};
