//! What a switch should look like (`expect:` in an EOS device file).

use serde::Deserialize;

use crate::config::VersionPin;

#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// `eos.version.pinned`: `{ exact: 4.31.6M }` or `{ allowed: [..] }`.
    #[serde(default)]
    pub version: Option<VersionPin>,
    /// `eos.lanz.running` / `eos.lanz.persisted`: whether LANZ (queue-monitor length) is on.
    #[serde(default)]
    pub lanz: Option<bool>,
}
