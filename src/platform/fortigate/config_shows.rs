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
