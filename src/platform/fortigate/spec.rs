//! What premarket knows of FortiOS, as one [`PlatformSpec`].

use crate::spec::PlatformSpec;
use premarket_core::Platform;

pub static SPEC: PlatformSpec = PlatformSpec {
    platform: Platform::Fortigate,
    queries: super::QUERIES,
    query_for: super::query_for,
    model_examples: super::MODEL_EXAMPLES,
    releases: ("", None),
    profile: Some(&super::cli::PROFILE),
    allowlist: super::allowlist::check,
    redact: super::redact::redact,
    printed: super::printed::printed,
    text_lines: |raw| {
        let lines = super::text::body(raw);
        super::text::device_error(&lines)?;
        Ok(lines.iter().map(|l| l.trim().to_string()).collect())
    },
    fortios_text: true,
    ansible_network_os: &["fortinet.fortios.fortios", "fortios"],
    starter: include_str!("starter.yaml"),
};
