//! The switch's trading ports as a baseline lists them, shared by the checks that judge ports
//! (errors, congestion, optics, and the declarative `eos.ports.errors-absent`, whose `keys:`
//! reads the same list): `trading_ports: [Ethernet1, Ethernet4]`, and the speed they must run
//! at: `trading_port_speed: 10G`, or per port `{ Ethernet1: 10G, Ethernet4: 25G }`.

use crate::Invalid;
pub use crate::port_speed::{PortSpeeds, Speed};

/// `trading_ports`: the port names, as EOS spells them (`Ethernet1`).
pub type TradingPorts = Vec<String>;

/// What a trading port is, from its EOS name (EOS names interfaces systematically): a
/// port-channel has counters but no optic and no error details of its own; a dot1q
/// subinterface (`Ethernet7.100`) has neither, its physical port has both.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PortKind<'a> {
    Physical,
    Subinterface { parent: &'a str },
    PortChannel,
}

impl PortKind<'_> {
    pub fn of(name: &str) -> PortKind<'_> {
        let parent = name.split_once('.').map(|(p, _)| p);
        if parent.unwrap_or(name).starts_with("Port-Channel") {
            return PortKind::PortChannel;
        }
        match parent {
            Some(parent) => PortKind::Subinterface { parent },
            None => PortKind::Physical,
        }
    }
}

/// For a check's `validate`.
pub fn require(ports: &TradingPorts) -> Result<(), Invalid> {
    if ports.is_empty() {
        Err("`expect.trading_ports` lists no port".into())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn port_kinds_from_names() {
        assert_eq!(PortKind::of("Ethernet7"), PortKind::Physical);
        assert_eq!(PortKind::of("Ethernet49/1"), PortKind::Physical);
        assert_eq!(
            PortKind::of("Ethernet7.100"),
            PortKind::Subinterface {
                parent: "Ethernet7"
            }
        );
        assert_eq!(PortKind::of("Port-Channel10"), PortKind::PortChannel);
        assert_eq!(PortKind::of("Port-Channel10.20"), PortKind::PortChannel);
    }
}
