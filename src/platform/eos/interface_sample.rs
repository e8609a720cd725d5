//! `show interfaces <port> | json`: one port's counters, read twice a few seconds apart in one
//! session by `eos.multicast.flowing` (the second read is a second sample: the plan sends it
//! last, at least the gap after the first). Same document and reader as `show interfaces |
//! json`, restricted to one port; `inMulticastPkts` and `counterRefreshTime` tell whether a
//! feed's packets are arriving now.

use super::interfaces::{Interfaces, parse};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

/// One port's `show interfaces`: the first sample, or the second `gap_s` seconds after it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShowInterfacePort {
    pub port: String,
    /// `Some(gap)`: the second sample, sent at least `gap` seconds after the first.
    pub second_after_s: Option<u32>,
}

impl ShowInterfacePort {
    pub const TEXT: &'static str = "show interfaces";

    pub fn first(port: &str) -> Self {
        ShowInterfacePort {
            port: port.to_string(),
            second_after_s: None,
        }
    }

    pub fn second(port: &str, gap_s: u32) -> Self {
        ShowInterfacePort {
            port: port.to_string(),
            second_after_s: Some(gap_s),
        }
    }
}

impl Query for ShowInterfacePort {
    const KIND: &'static str = "eos.show-interfaces-port";
    type Fact = Interfaces;
    fn command(&self) -> Command {
        let command = Command::new(format!("{} {} | json", Self::TEXT, self.port));
        match self.second_after_s {
            Some(gap) => command.resampled(gap),
            None => command,
        }
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Interfaces, ParseError> {
        parse(raw.text()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn two_samples_are_two_commands_of_one_line() {
        let first = ShowInterfacePort::first("Ethernet1").command();
        let second = ShowInterfacePort::second("Ethernet1", 10).command();
        assert_eq!(first.text, "show interfaces Ethernet1 | json");
        assert_eq!(second.text, first.text);
        assert_eq!(second.first_sample(), first);
        assert!(second.resample.is_some());
    }
}
