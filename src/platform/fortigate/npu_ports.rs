//! The network processor and the ports it serves: the words the port-list parsers
//! (`npu_port_list`, `npu_port_list_np6`) and the model table (`model`) share.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NpuPortList {
    /// Front-panel interfaces the NP serves, keyed by interface name.
    pub ports: BTreeMap<String, NpuPort>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
pub struct NpuPort {
    /// The NP (or NPs) serving the port, as printed (`NP#0-3`, `NP#0`).
    pub np_group: String,
    pub max_speed_mbps: Option<u64>,
    pub default_speed_mbps: Option<u64>,
    /// The NP6 tables' `Cross-chip offloading` column: whether sessions between this port and a
    /// port of another NP chip are offloaded (`None` where the table has no such column).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cross_chip: Option<bool>,
}

/// Which network processor the firewall has, as a baseline names it (`np: np7lite`): the
/// diagnose commands differ (`diagnose npu np7lite ...` on the 200G/201G, `np7` on NP7 boxes).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize, schemars::JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Np {
    #[default]
    Np7,
    Np7lite,
    Np6,
    Np6lite,
    Np6xlite,
}

impl Np {
    pub const ALL: [Np; 5] = [Np::Np7, Np::Np7lite, Np::Np6, Np::Np6lite, Np::Np6xlite];

    /// `np7` / `np7lite` / `np6` ..., the word the diagnose commands take.
    pub fn word(self) -> &'static str {
        match self {
            Np::Np7 => "np7",
            Np::Np7lite => "np7lite",
            Np::Np6 => "np6",
            Np::Np6lite => "np6lite",
            Np::Np6xlite => "np6xlite",
        }
    }

    /// `NP7Lite`, as Fortinet writes it.
    pub fn label(self) -> &'static str {
        match self {
            Np::Np7 => "NP7",
            Np::Np7lite => "NP7Lite",
            Np::Np6 => "NP6",
            Np::Np6lite => "NP6Lite",
            Np::Np6xlite => "NP6XLite",
        }
    }
}
