//! `diagnose sys ntp status`: whether the clock that stamps logs is synchronised, and to what.
//!
//! ```text
//! synchronized: yes, ntpsync: enabled, server-mode: enabled
//!
//! ipv4 server(ntp1.fortiguard.com) 208.91.115.123 -- reachable(0xff) S:3 T:54 selected
//!     server-version=4, stratum=1
//!     reference time is e12361d4.4f8b22a5 -- UTC Wed Sep 11 12:06:44 2019
//!     clock offset is -0.000652 sec, root delay is 0.000000 sec
//!     root dispersion is 0.010284 sec, peer dispersion is 8 msec
//! ```
//! An unreachable server prints `unreachable(0x0)` and `no data`. PDF copies wrap `selected`
//! onto its own line; it still belongs to the server above. The offset is in seconds.

use std::net::IpAddr;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::kv::pairs;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct NtpStatus {
    /// `synchronized: yes`.
    pub synchronized: bool,
    /// `ntpsync: enabled` (the box uses NTP at all).
    pub ntpsync: bool,
    /// `server-mode: enabled` (the box serves time), when printed.
    pub server_mode: Option<bool>,
    pub servers: Vec<NtpServer>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NtpServer {
    /// As configured (`ntp1.fortiguard.com`, or the address).
    pub name: String,
    /// The address it resolved to.
    pub address: IpAddr,
    pub reachable: bool,
    /// The reach register as printed (`0xff`: the last eight polls answered).
    pub reach: String,
    /// The server the clock follows.
    pub selected: bool,
    pub stratum: Option<u8>,
    /// `clock offset is -0.000652 sec`.
    pub offset_s: Option<f64>,
}

static SERVER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^ipv[46] server\(([^)]*)\)\s+(\S+)\s+--\s+(reachable|unreachable)\((0x[0-9a-fA-F]+)\)(.*)$")
        .expect("static regex")
});
static OFFSET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^clock offset is (-?\d+(?:\.\d+)?) sec").expect("static regex"));

/// `diagnose sys ntp status`.
pub struct DiagNtpStatus;

impl Query for DiagNtpStatus {
    const KIND: &'static str = "fortigate.diagnose-sys-ntp-status";
    type Fact = NtpStatus;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<NtpStatus, ParseError> {
        parse(raw.text()?)
    }
}

impl DiagNtpStatus {
    pub const TEXT: &'static str = "diagnose sys ntp status";
}

pub fn parse(raw: &str) -> Result<NtpStatus, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut status = NtpStatus::default();
    let mut header = None;
    for (i, line) in lines.iter().enumerate() {
        let at = |e: String| ParseError::at_line(e, &joined(&lines), i);
        let line = line.trim();
        if line.starts_with("synchronized:") {
            set_once(&mut header, header_line(line).map_err(at)?)
                .map_err(|e| at(format!("the status line {e}")))?;
            continue;
        }
        if let Some(c) = SERVER.captures(line) {
            let address = c[2]
                .parse::<IpAddr>()
                .map_err(|_| at(format!("{} is not an address", quote(&c[2]))))?;
            let flags = c[5].split_whitespace();
            status.servers.push(NtpServer {
                name: c[1].to_string(),
                address,
                reachable: &c[3] == "reachable",
                reach: c[4].to_string(),
                selected: flags.into_iter().any(|w| w == "selected"),
                stratum: None,
                offset_s: None,
            });
            continue;
        }
        let Some(server) = status.servers.last_mut() else {
            return Err(at(format!(
                "unexpected line before any server: {}",
                quote(line)
            )));
        };
        if line == "selected" {
            server.selected = true;
        } else if let Some(c) = OFFSET.captures(line) {
            // FortiOS prints microseconds; nanoseconds are kept, and the rounding makes the
            // fact's JSON read back to the same number.
            let offset: f64 = c[1]
                .parse::<f64>()
                .ok()
                .filter(|o| o.abs() < 1e9)
                .map(|o| (o * 1e9).round() / 1e9)
                .ok_or_else(|| at(format!("unreadable offset {}", quote(&c[1]))))?;
            set_once(&mut server.offset_s, offset).map_err(|e| at(format!("clock offset {e}")))?;
        } else if line.starts_with("server-version=") {
            for (key, value) in pairs(line) {
                if key == "stratum" {
                    let stratum = value
                        .parse::<u8>()
                        .ok()
                        .filter(|s| *s <= 16)
                        .ok_or_else(|| at(format!("stratum {} is not 0-16", quote(value))))?;
                    set_once(&mut server.stratum, stratum)
                        .map_err(|e| at(format!("stratum {e}")))?;
                }
            }
        } else if !(line == "no data"
            || line.starts_with("reference time is")
            || line.starts_with("root dispersion is"))
        {
            return Err(at(format!(
                "unexpected line in a server block: {}",
                quote(line)
            )));
        }
    }
    let Some((synchronized, ntpsync, server_mode)) = header else {
        return Err(ParseError::new(
            "no `synchronized:` line: not diagnose sys ntp status output",
            raw,
        ));
    };
    (status.synchronized, status.ntpsync, status.server_mode) =
        (synchronized, ntpsync, server_mode);
    Ok(status)
}

/// `synchronized: yes, ntpsync: enabled, server-mode: enabled`
fn header_line(line: &str) -> Result<(bool, bool, Option<bool>), String> {
    let (mut synchronized, mut ntpsync, mut server_mode) = (None, None, None);
    for part in line.split(',') {
        let Some((key, value)) = part.split_once(':') else {
            return Err(format!("unreadable status line {}", quote(line)));
        };
        let value = value.trim();
        let flag = |yes: &str, no: &str| match value {
            v if v == yes => Ok(true),
            v if v == no => Ok(false),
            _ => Err(format!("`{}:` is {}", key.trim(), quote(value))),
        };
        match key.trim() {
            "synchronized" => set_once(&mut synchronized, flag("yes", "no")?)?,
            "ntpsync" => set_once(&mut ntpsync, flag("enabled", "disabled")?)?,
            "server-mode" => set_once(&mut server_mode, flag("enabled", "disabled")?)?,
            _ => {}
        }
    }
    match (synchronized, ntpsync) {
        (Some(s), Some(n)) => Ok((s, n, server_mode)),
        _ => Err(format!(
            "status line without synchronized/ntpsync: {}",
            quote(line)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SYNCED: &str = "fw1 # diagnose sys ntp status\nsynchronized: yes, ntpsync: enabled, server-mode: disabled\n\nipv4 server(10.0.0.1) 10.0.0.1 -- reachable(0xff) S:3 T:54 selected\n        server-version=4, stratum=2\n        reference time is e12361d4.4f8b22a5 -- UTC Wed Sep 11 12:06:44 2019\n        clock offset is -0.000652 sec, root delay is 0.000000 sec\n        root dispersion is 0.010284 sec, peer dispersion is 8 msec\n\nipv4 server(ntp2.example.net) 10.0.0.2 -- unreachable(0x0) S:7 T:8\n        no data\nfw1 # ";

    #[test]
    fn servers_and_selection() {
        let s = parse(SYNCED).unwrap();
        assert!(s.synchronized && s.ntpsync);
        assert_eq!(s.server_mode, Some(false));
        assert_eq!(s.servers.len(), 2);
        let a = &s.servers[0];
        assert_eq!(
            (a.selected, a.reachable, a.stratum, a.offset_s),
            (true, true, Some(2), Some(-0.000652))
        );
        let b = &s.servers[1];
        assert_eq!(
            (b.name.as_str(), b.selected, b.reachable, b.offset_s),
            ("ntp2.example.net", false, false, None)
        );
        let wrapped = SYNCED.replace("T:54 selected", "T:54\nselected");
        assert_eq!(parse(&wrapped).unwrap(), s);
        let unsynced = parse("synchronized: no, ntpsync: enabled, server-mode: enabled\nipv4 server(10.0.0.1) 10.0.0.1 -- unreachable(0x0) S:7 T:8\n        no data\n").unwrap();
        assert!(!unsynced.synchronized && !unsynced.servers[0].selected);
    }

    #[test]
    fn damage_is_an_error() {
        for (from, to) in [
            ("synchronized: yes", "synchronized: maybe"),
            ("stratum=2", "stratum=99"),
            ("-0.000652 sec", "NaN sec"),
            ("10.0.0.1 -- reachable", "10.0.0.999 -- reachable"),
            ("        no data", "        something else"),
            (
                "stratum=2\n",
                "stratum=2\n        server-version=4, stratum=3\n",
            ),
            (
                "synchronized: yes, ntpsync: enabled, server-mode: disabled\n",
                "synchronized: yes, ntpsync: enabled, server-mode: disabled\nsynchronized: no, ntpsync: enabled\n",
            ),
        ] {
            assert!(SYNCED.contains(from), "{from}");
            assert!(parse(&SYNCED.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse("ipv4 server(x) 1.1.1.1 -- reachable(0x1) S:1 T:1\n").is_err());
        assert!(parse("Unknown action 0\n").is_err());
        assert!(parse("").is_err());
    }
}
