//! Configuration read-backs read as a plain FortiOS configuration tree ([`ConfigTree`]), for
//! outputs no check types yet. Policies and services have typed facts (`policy.rs`,
//! `service.rs`). `show` prints only what differs from the defaults, so a missing key means
//! "the default".

use super::config_tree::{self, ConfigTree};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

/// `show system virtual-wire-pair`.
pub struct ShowVirtualWirePair;

impl ShowVirtualWirePair {
    pub const TEXT: &'static str = "show system virtual-wire-pair";
}

impl Query for ShowVirtualWirePair {
    const KIND: &'static str = "fortigate.show-system-virtual-wire-pair";
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}

/// `show system interface`: every interface's non-default settings, and so its place in the
/// topology: a VLAN's parent and id (`set interface "md-lag"`, `set vlanid 310`; FortiOS 7.x
/// often prints no `set type vlan`), an aggregate's or a redundant interface's members (`set
/// type aggregate`, `set member "port1" "port2"`), a hardware switch (`set type hard-switch`,
/// members in `show system virtual-switch`) and `set sflow-sampler enable` where it is set.
pub struct ShowSystemInterface;

impl ShowSystemInterface {
    pub const TEXT: &'static str = "show system interface";
}

impl Query for ShowSystemInterface {
    const KIND: &'static str = "fortigate.show-system-interface";
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}

/// `show system virtual-switch`: the member ports of each hardware switch (`edit "lan"`,
/// `set physical-switch "sw0"`, `config port`, `edit "internal1"` ...), on the models that
/// have a switch chip (desktop E/F-series and some mid-range boxes). A member port prints only
/// `name/status/type` in `get system interface`: its settings live on the switch.
pub struct ShowVirtualSwitch;

impl ShowVirtualSwitch {
    pub const TEXT: &'static str = "show system virtual-switch";
}

impl Query for ShowVirtualSwitch {
    const KIND: &'static str = "fortigate.show-system-virtual-switch";
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::model::HARDWARE_SWITCH);
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}
