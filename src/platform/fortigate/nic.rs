//! `diagnose hardware deviceinfo nic <port>` (and `get hardware nic <port>`, which prints the
//! same): one physical port's link and its cumulative counters, for `fortigate.ports.errors`.
//!
//! Two layouts (samples `handoff/fortios/*nic*`, `trading/fgt-*nic*`):
//! - **NP** (ports on a FortiASIC network processor): `Description :FortiASIC NP6XLITE
//!   Adapter`, `========== Link Status ==========` with `Admin :up`, `Speed :100` (Mbps),
//!   `Duplex :Full`, `link_status :Up`, then `============ Counters ===========` with `Rx Pkts`,
//!   `Host Rx dropped`, `Host Tx dropped`, `FragTxDrop`, on NP6 also `sw_*`. No error counter.
//! - **Linux** (kernel drivers: FortiGate-VM, ports off the NP): `Name: port1`, `Driver:`,
//!   `State: up`, `Link: up`, `Speed: 10000full`, `Rx packets`, `Rx dropped`, `Rx errors` with
//!   its parts (`Rx Crc err`, `Rx Missed packets`, ...), `Tx ...`, `Collisions`.
//!
//! Keys are padded to a column on a device and collapsed in documentation copies, so a line is
//! split at its first `:`. Every counter whose name says error, drop, overrun, overflow or
//! missed is kept (they differ by layout, driver and release); the check judges their growth.
//! The NP7 and NP7Lite layouts are not published: whatever they print is read the same way, and
//! a port that prints no link state or no such counter is an error for the check, not an OK.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::kv::counter;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

/// Which of the two layouts the port printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NicLayout {
    /// A network processor's port (`Description :FortiASIC ... Adapter`).
    Np,
    /// A kernel driver's port (`Driver: e1000`, `Rx errors:`).
    Linux,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Nic {
    pub layout: NicLayout,
    /// `Description` (NP) or `Driver` (Linux), as printed.
    pub driver: Option<String>,
    /// `link_status` (NP) or `Link` (Linux); `None` when not printed.
    pub link_up: Option<bool>,
    /// `Admin` (NP) or `State` (Linux).
    pub admin_up: Option<bool>,
    /// `Speed :10000` (NP, Mbps) or `Speed: 10000full` (Linux); `None` when not printed or
    /// not a speed (a link that is down may print `Unknown`).
    pub speed_mbps: Option<u64>,
    /// `Full`/`Half` (NP `Duplex`) or the Linux speed's suffix, lower case.
    pub duplex: Option<String>,
    /// Packets received and sent (`Rx Pkts`/`Rx packets`), to tell a restart of the counters.
    pub rx_packets: Option<u64>,
    pub tx_packets: Option<u64>,
    /// Every error and drop counter, by its name as printed (`Rx errors`, `Host Tx dropped`).
    pub counters: BTreeMap<String, u64>,
}

/// `diagnose hardware deviceinfo nic <port>`: one physical port's link and counters.
pub struct DiagNic(pub String);

impl Query for DiagNic {
    const KIND: &'static str = "fortigate.diagnose-hardware-deviceinfo-nic";
    /// Counters are cumulative: the next run judges what grew since this one.
    const ARCHIVED: bool = true;
    type Fact = Nic;
    fn command(&self) -> Command {
        Command::new(format!("{} {}", Self::TEXT, self.0))
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Nic, ParseError> {
        parse(raw.text()?)
    }
}

impl DiagNic {
    pub const TEXT: &'static str = "diagnose hardware deviceinfo nic";
    /// `get hardware nic <port>` prints the same report: `premarket parse` and declarative
    /// checks read it with this query's parser (the checks send [`DiagNic::TEXT`]).
    pub const GET_TEXT: &'static str = "get hardware nic";
}

/// Whether a counter's name says it counts errors or drops.
pub fn is_error_or_drop(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    ["err", "drop", "overrun", "overflow", "missed"]
        .iter()
        .any(|w| name.contains(w))
}

pub fn parse(raw: &str) -> Result<Nic, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let text = joined(&lines);
    if lines
        .iter()
        .any(|l| l.trim().starts_with("The following NICs are available"))
    {
        return Err(ParseError::new(
            "a list of NIC names, not one port's details (name the port)",
            &text,
        ));
    }
    let mut nic = Nic {
        layout: NicLayout::Linux,
        driver: None,
        link_up: None,
        admin_up: None,
        speed_mbps: None,
        duplex: None,
        rx_packets: None,
        tx_packets: None,
        counters: BTreeMap::new(),
    };
    let mut np = false;
    let mut known = 0;
    for (i, line) in lines.iter().enumerate() {
        let at = |e: Unreadable| ParseError::at_line(e.0, &text, i);
        let line = line.trim();
        if line.starts_with("===") {
            np |= line.contains("Link Status") || line.contains("Counters");
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let (key, value) = (key.trim(), value.trim());
        match key {
            "Description" | "Driver Name" if value.contains("FortiASIC") => {
                np = true;
                if key == "Description" {
                    put(&mut nic.driver, value.to_string(), key).map_err(at)?;
                }
            }
            "Driver" => put(&mut nic.driver, value.to_string(), key).map_err(at)?,
            "link_status" | "Link" => {
                put(&mut nic.link_up, up(value).map_err(at)?, key).map_err(at)?
            }
            "Admin" | "State" => put(&mut nic.admin_up, up(value).map_err(at)?, key).map_err(at)?,
            "Speed" => {
                let (speed, duplex) = speed(value);
                if let Some(speed) = speed {
                    put(&mut nic.speed_mbps, speed, key).map_err(at)?;
                }
                if let Some(duplex) = duplex {
                    put(&mut nic.duplex, duplex, key).map_err(at)?;
                }
            }
            "Duplex" => put(&mut nic.duplex, value.to_ascii_lowercase(), key).map_err(at)?,
            "Rx Pkts" | "Rx packets" => {
                put(&mut nic.rx_packets, count(value).map_err(at)?, key).map_err(at)?
            }
            "Tx Pkts" | "Tx packets" => {
                put(&mut nic.tx_packets, count(value).map_err(at)?, key).map_err(at)?
            }
            _ if is_error_or_drop(key) => {
                let n = count(value).map_err(at)?;
                match nic.counters.get(key) {
                    Some(old) if *old != n => {
                        return Err(at(Unreadable(format!(
                            "{} printed twice with different values",
                            quote(key)
                        ))));
                    }
                    _ => {
                        nic.counters.insert(key.to_string(), n);
                    }
                }
                // A counter alone does not tell a NIC report (below).
                continue;
            }
            _ => continue,
        }
        known += 1;
    }
    // Error and drop counters alone do not make a NIC report: other outputs print words such
    // as `table drops` (EOS LLDP) or `operRxInterval` (EOS BFD JSON). A port's report has its
    // link, speed, driver or packet counts, or the NP layout's section rules.
    if known == 0 && !np {
        return Err(ParseError::new(
            "no link state, speed, driver or packet count: not the details of one NIC",
            &text,
        ));
    }
    if np {
        nic.layout = NicLayout::Np;
    }
    Ok(nic)
}

/// Sets a field printed once (or twice alike).
fn put<T: PartialEq + std::fmt::Debug>(
    slot: &mut Option<T>,
    value: T,
    key: &str,
) -> Result<(), Unreadable> {
    set_once(slot, value).map_err(|e| Unreadable(format!("{key} {e}")))
}

/// Why a line of the NIC report does not read, in words for its [`ParseError`].
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct Unreadable(String);

/// `up`/`Up`/`down`/`Down`.
fn up(value: &str) -> Result<bool, Unreadable> {
    match value.to_ascii_lowercase().as_str() {
        "up" => Ok(true),
        "down" => Ok(false),
        _ => Err(Unreadable(format!(
            "link state {} is not up or down",
            quote(value)
        ))),
    }
}

fn count(value: &str) -> Result<u64, Unreadable> {
    counter(value).map_err(|e| Unreadable(e.to_string()))
}

/// `10000` (NP, Mbps), `10000full` / `1000half` (Linux), `10G`; anything else (`Unknown!
/// (65535)` on a link that is down) is no speed.
fn speed(value: &str) -> (Option<u64>, Option<String>) {
    let digits: String = value.chars().take_while(char::is_ascii_digit).collect();
    let rest = value[digits.len()..].trim();
    let Ok(n) = digits.parse::<u64>() else {
        return (None, None);
    };
    match rest.to_ascii_lowercase().as_str() {
        "" => (Some(n), None),
        "g" => (Some(n * 1000), None),
        "m" => (Some(n), None),
        d @ ("full" | "half") => (Some(n), Some(d.to_string())),
        _ => (None, None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINUX: &str = "fw1 # diagnose hardware deviceinfo nic x1\nName:            x1\nDriver:          ixgbe\nState:           up\nLink:            up\nMtu:             1500\nSpeed:           10000full\nAuto:            disabled\nRX Ring:                 1024\nRx packets:              48758040\nRx dropped:              3\nRx errors:               3\n  Rx Crc err:            0\n  Rx Missed packets:     0\nTx packets:              27153432\nTx dropped:              0\nTx errors:               0\nCollisions:              0\nfw1 # ";

    const NP: &str = "Description     :FortiASIC NP6XLITE Adapter\nDriver Name     :FortiASIC NP6XLITE Driver\nBoard           :40F\nlif id          :7\nCurrent_HWaddr   12:34:56:78:90:ab\n========== Link Status ==========\nAdmin           :up\nnetdev status   :N/A\nspeed_setting   :1000\nSpeed           :1000\nDuplex          :Full\nlink_status     :Up\n============ Counters ===========\nRx Pkts         :645878\nTx Pkts         :1025883\nHost Rx Pkts    :1395584\nHost Tx dropped :0\nFragTxDrop      :0\nMember Ports    :\n                [00]: a\n";

    #[test]
    fn both_layouts() {
        let l = parse(LINUX).unwrap();
        assert_eq!(l.layout, NicLayout::Linux);
        assert_eq!((l.link_up, l.admin_up), (Some(true), Some(true)));
        assert_eq!(
            (l.speed_mbps, l.duplex.as_deref()),
            (Some(10_000), Some("full"))
        );
        assert_eq!(l.counters["Rx errors"], 3);
        assert_eq!(l.counters["Rx Crc err"], 0);
        assert!(!l.counters.contains_key("Collisions") && !l.counters.contains_key("Mtu"));
        assert_eq!(l.rx_packets, Some(48_758_040));
        let n = parse(NP).unwrap();
        assert_eq!(n.layout, NicLayout::Np);
        assert_eq!((n.link_up, n.speed_mbps), (Some(true), Some(1000)));
        assert_eq!(n.duplex.as_deref(), Some("full"));
        assert_eq!(
            n.counters.keys().collect::<Vec<_>>(),
            ["FragTxDrop", "Host Tx dropped"]
        );
        // A documentation copy collapses the padding: the same facts.
        let collapsed = NP.replace("     :", " :").replace("  :", " :");
        assert_eq!(parse(&collapsed).unwrap(), n);
        let down = LINUX
            .replace("Link:            up", "Link:            down")
            .replace("10000full", "Unknown! (65535)");
        let d = parse(&down).unwrap();
        assert_eq!((d.link_up, d.speed_mbps), (Some(false), None));
    }

    #[test]
    fn damage_is_an_error() {
        for bad in [
            LINUX.replace("Rx errors:               3", "Rx errors:               -3"),
            LINUX.replace("Link:            up", "Link:            maybe"),
            LINUX.replace(
                "Tx errors:               0",
                "Tx errors:               0\nTx errors: 5",
            ),
            "The following NICs are available:\n        port1\n        port2\n".to_string(),
            "command parse error before 'x9'\nCommand fail. Return code -61\n".to_string(),
            "nothing that looks like a NIC\n".to_string(),
            // Another command's counters: EOS LLDP's table and BFD JSON's `operRxInterval`.
            "Number of table inserts  : 6\nNumber of table drops    : 0\n".to_string(),
            "{\n  \"operRxInterval\": 300000,\n  \"status\": \"up\"\n}\n".to_string(),
            String::new(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
