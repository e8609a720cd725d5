//! `show system npu`: the NP settings that differ from the defaults (`show` prints only those),
//! read through the shared configuration tree.
//!
//! `max-session-timeout` is how often the NP refreshes an offloaded session's idle timer in the
//! kernel ("The default refresh time is 40 seconds. The range is 10 to 1000 seconds",
//! Hardware Acceleration guide, 490883): an offloaded session's `expire` can lag by that much.
//! Not printed means the default, 40.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_tree;
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// `max-session-timeout` when `show` does not print it.
pub const DEFAULT_MAX_SESSION_TIMEOUT_S: u64 = 40;
/// The documented range of `max-session-timeout`.
pub const MAX_SESSION_TIMEOUT_RANGE_S: std::ops::RangeInclusive<u64> = 10..=1000;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NpuSettings {
    /// Refresh interval of offloaded sessions, seconds (40 when not printed).
    pub max_session_timeout_s: u64,
    /// Whether `set max-session-timeout` was printed (a non-default value).
    pub max_session_timeout_set: bool,
    /// Every top-level `set` of `config system npu`, values joined by a space
    /// (`fastpath` -> `disable`): the non-default NP settings.
    pub settings: BTreeMap<String, String>,
    /// Names of the nested blocks printed (`port-npu-map`, `np-queues` ...).
    pub blocks: Vec<String>,
}

/// `show system npu` (global).
pub struct ShowSystemNpu;

impl Query for ShowSystemNpu {
    const KIND: &'static str = "fortigate.show-system-npu";
    type Fact = NpuSettings;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<NpuSettings, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowSystemNpu {
    pub const TEXT: &'static str = "show system npu";
}

pub fn parse(raw: &str) -> Result<NpuSettings, ParseError> {
    let node = config_tree::single_table(raw, "system npu")?;
    let settings: BTreeMap<String, String> = node
        .settings
        .iter()
        .map(|(k, v)| (k.clone(), v.join(" ")))
        .collect();
    let (max_session_timeout_s, max_session_timeout_set) = match settings.get("max-session-timeout")
    {
        None => (DEFAULT_MAX_SESSION_TIMEOUT_S, false),
        Some(v) => {
            let s = v
                .parse::<u64>()
                .ok()
                .filter(|s| MAX_SESSION_TIMEOUT_RANGE_S.contains(s))
                .ok_or_else(|| {
                    ParseError::new(
                        format!(
                            "`set max-session-timeout {}` is outside 10-1000 seconds",
                            quote(v)
                        ),
                        raw,
                    )
                })?;
            (s, true)
        }
    };
    Ok(NpuSettings {
        max_session_timeout_s,
        max_session_timeout_set,
        settings,
        blocks: node.children.keys().cloned().collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_and_printed_timeout() {
        let default = parse("fw1 # show system npu\nconfig system npu\nend\nfw1 # ").unwrap();
        assert_eq!(
            (
                default.max_session_timeout_s,
                default.max_session_timeout_set
            ),
            (40, false)
        );
        let set = parse("config system npu\n    set max-session-timeout 120\n    set fastpath disable\n    config port-npu-map\n    end\nend\n").unwrap();
        assert_eq!(
            (set.max_session_timeout_s, set.max_session_timeout_set),
            (120, true)
        );
        assert_eq!(set.settings["fastpath"], "disable");
        assert_eq!(set.blocks, vec!["port-npu-map"]);
        for bad in [
            "config system npu\n    set max-session-timeout 5\nend\n",
            "config system npu\n    set max-session-timeout 99999999999999999999999\nend\n",
            "config system npu\n    set max-session-timeout forty\nend\n",
            "config system npu\n    set max-session-timeout 40\n    set max-session-timeout 60\nend\n",
            "config system npu\n    set fastpath disable\n",
            "config firewall policy\nend\n",
            "config system npu\nend\nconfig firewall policy\nend\n",
            "Command fail. Return code -61\n",
            "",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
