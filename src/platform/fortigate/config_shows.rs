//! The configuration read-backs premarket sends (`get system global`, `show firewall policy N`,
//! ...): each is one query whose output is a FortiOS configuration tree ([`ConfigTree`]).
//! `show` prints only what differs from the defaults, so a missing key means "the default".

use super::config_tree::{self, ConfigTree};
use crate::core::Command;
use crate::parse::{ParseError, Query, Raw};

/// `get system global`: global settings, among them the default `udp-idle-timer`.
pub struct GetSystemGlobal;

impl GetSystemGlobal {
    pub const TEXT: &'static str = "get system global";
}

impl Query for GetSystemGlobal {
    const KIND: &'static str = "fortigate.get-system-global";
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}

/// `show firewall policy <id>`.
pub struct ShowPolicy(pub u32);

impl ShowPolicy {
    pub const TEXT: &'static str = "show firewall policy";
}

impl Query for ShowPolicy {
    const KIND: &'static str = "fortigate.show-firewall-policy";
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        Command::new(format!("{} {}", Self::TEXT, self.0))
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}

/// `show firewall multicast-policy <id>`.
pub struct ShowMulticastPolicy(pub u32);

impl ShowMulticastPolicy {
    pub const TEXT: &'static str = "show firewall multicast-policy";
}

impl Query for ShowMulticastPolicy {
    const KIND: &'static str = "fortigate.show-firewall-multicast-policy";
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        Command::new(format!("{} {}", Self::TEXT, self.0))
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}

/// `show firewall service custom <name>` (quoted when the name has spaces).
pub struct ShowService(pub String);

impl ShowService {
    pub const TEXT: &'static str = "show firewall service custom";
}

impl Query for ShowService {
    const KIND: &'static str = "fortigate.show-firewall-service-custom";
    type Fact = ConfigTree;
    fn command(&self) -> Command {
        if self.0.contains(char::is_whitespace) {
            Command::new(format!("{} \"{}\"", Self::TEXT, self.0))
        } else {
            Command::new(format!("{} {}", Self::TEXT, self.0))
        }
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigTree, ParseError> {
        config_tree::parse(raw.text()?)
    }
}

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
