//! `show system session-ttl` (per VDOM): the session lifetimes that differ from the defaults,
//! read through the shared configuration tree.
//!
//! ```text
//! config system session-ttl
//!     set default never
//!     config port
//!         edit 1
//!             set protocol 17
//!             set timeout 7200
//!             set start-port 5000
//!             set end-port 5000
//!         next
//!     end
//! end
//! ```
//! `show` prints only non-default values ("The default value (3600) is not visible when it is
//! left unchanged", KB 194732); a port entry's `timeout` defaults to 300 (KB 191228). `never`
//! is accepted wherever a lifetime is (FortiOS 6.4 "No session timeout", 743069).

use serde::{Deserialize, Serialize};

use super::config_tree::{self, ConfigNode};
use super::ttl::{NotATtl, Ttl};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

/// `default` when not printed.
pub const DEFAULT_TTL_S: u64 = 3600;
/// A port entry's `timeout` when not printed.
pub const DEFAULT_PORT_TIMEOUT_S: u64 = 300;
/// Longest lifetime FortiOS accepts (`2764800`, 32 days).
pub const MAX_TTL_S: u64 = 2_764_800;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTtl {
    /// The table's `default` (3600 when not printed).
    pub default: Ttl,
    /// Whether `set default` was printed.
    pub default_set: bool,
    /// `config port` entries in printed order.
    pub ports: Vec<SessionTtlPort>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionTtlPort {
    /// The entry's id (`edit 1`).
    pub id: String,
    /// IP protocol number; 0 (also when not printed) means every protocol.
    pub protocol: u8,
    /// Port range; `None` when not printed (FortiOS's default).
    pub start_port: Option<u16>,
    pub end_port: Option<u16>,
    /// Seconds or `never` (300 when not printed).
    pub timeout: Ttl,
    /// 7.4 and later: `both`, `outgoing` or `incoming`, when printed.
    pub refresh_direction: Option<String>,
}

/// `show system session-ttl` (per VDOM).
pub struct ShowSessionTtl;

impl Query for ShowSessionTtl {
    const KIND: &'static str = "fortigate.show-system-session-ttl";
    type Fact = SessionTtl;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SessionTtl, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowSessionTtl {
    pub const TEXT: &'static str = "show system session-ttl";
}

pub fn parse(raw: &str) -> Result<SessionTtl, ParseError> {
    let node = config_tree::single_table(raw, "system session-ttl")?;
    let error = |e: String| ParseError::new(e, raw);
    let default = match node.get("default") {
        Some(v) => lifetime(&v, 1).map_err(|e| error(format!("`set default` {e}")))?,
        None => Ttl::Seconds(DEFAULT_TTL_S),
    };
    let mut ports = Vec::new();
    if let Some(table) = node.children.get("port") {
        for (id, entry) in &table.children {
            ports.push(
                port(id, entry).map_err(|e| error(format!("port entry {}: {e}", quote(id))))?,
            );
        }
    }
    Ok(SessionTtl {
        default,
        default_set: node.settings.contains_key("default"),
        ports,
    })
}

fn port(id: &str, entry: &ConfigNode) -> Result<SessionTtlPort, EntryError> {
    let number = |key: &str, max: u64| -> Result<Option<u64>, EntryError> {
        entry
            .get(key)
            .map(|v| {
                v.parse::<u64>()
                    .ok()
                    .filter(|n| *n <= max)
                    .ok_or_else(|| EntryError::OutOfRange {
                        key: key.to_string(),
                        value: v.to_string(),
                    })
            })
            .transpose()
    };
    let protocol = number("protocol", 255)?.unwrap_or(0) as u8;
    let start_port = number("start-port", 65_535)?.map(|p| p as u16);
    let end_port = number("end-port", 65_535)?.map(|p| p as u16);
    if let (Some(start), Some(end)) = (start_port, end_port)
        && start > end
    {
        return Err(EntryError::Ports { start, end });
    }
    let timeout = match entry.get("timeout") {
        Some(v) => lifetime(&v, 1).map_err(EntryError::Timeout)?,
        None => Ttl::Seconds(DEFAULT_PORT_TIMEOUT_S),
    };
    Ok(SessionTtlPort {
        id: id.to_string(),
        protocol,
        start_port,
        end_port,
        timeout,
        refresh_direction: entry.get("refresh-direction"),
    })
}

/// `never` or seconds from `min` to [`MAX_TTL_S`].
fn lifetime(value: &str, min: u64) -> Result<Ttl, LifetimeError> {
    match Ttl::parse(value)? {
        Ttl::Seconds(s) if !(min..=MAX_TTL_S).contains(&s) => {
            Err(LifetimeError::Outside { seconds: s, min })
        }
        ttl => Ok(ttl),
    }
}

/// A lifetime that is not one FortiOS accepts.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum LifetimeError {
    #[error(transparent)]
    NotATtl(#[from] NotATtl),
    #[error("{seconds} is outside {min}-{MAX_TTL_S} seconds")]
    Outside { seconds: u64, min: u64 },
}

/// Why an entry of the port table does not read.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum EntryError {
    #[error("`set {key} {}` is out of range", quote(.value))]
    OutOfRange { key: String, value: String },
    #[error("start-port {start} is above end-port {end}")]
    Ports { start: u16, end: u16 },
    #[error("`set timeout` {0}")]
    Timeout(LifetimeError),
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEVER: &str = "fw1 # show system session-ttl\nconfig system session-ttl\n    set default never\n    config port\n        edit 1\n            set protocol 17\n            set timeout 7200\n            set start-port 5000\n            set end-port 5000\n        next\n        edit 2\n            set protocol 6\n            set timeout never\n        next\n    end\nend\nfw1 # ";

    #[test]
    fn defaults_ports_and_never() {
        let t = parse(NEVER).unwrap();
        assert_eq!((t.default, t.default_set), (Ttl::Never, true));
        assert_eq!(t.ports.len(), 2);
        let udp = &t.ports[0];
        assert_eq!(
            (udp.protocol, udp.start_port, udp.end_port, udp.timeout),
            (17, Some(5000), Some(5000), Ttl::Seconds(7200))
        );
        assert_eq!(t.ports[1].timeout, Ttl::Never);
        let json = serde_json::to_value(&t).unwrap();
        assert_eq!(json["default"], "never");
        assert_eq!(serde_json::from_value::<SessionTtl>(json).unwrap(), t);
        let empty = parse("config system session-ttl\nend\n").unwrap();
        assert_eq!(
            (empty.default, empty.default_set),
            (Ttl::Seconds(3600), false)
        );
        assert!(empty.ports.is_empty());
        let port = parse("config system session-ttl\n    config port\n        edit 1\n            set start-port 80\n        next\n    end\nend\n").unwrap();
        assert_eq!(
            (port.ports[0].protocol, port.ports[0].timeout),
            (0, Ttl::Seconds(300))
        );
    }

    #[test]
    fn impossible_values_are_errors() {
        for (from, to) in [
            ("set default never", "set default forever"),
            ("set default never", "set default 0"),
            ("set timeout 7200", "set timeout 99999999"),
            ("set protocol 17", "set protocol 256"),
            ("set start-port 5000", "set start-port 6000"),
            ("set end-port 5000", "set end-port 70000"),
            (
                "set timeout 7200",
                "set timeout 7200\n            set timeout 60",
            ),
        ] {
            assert!(NEVER.contains(from), "{from}");
            assert!(parse(&NEVER.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse("config system npu\nend\n").is_err());
        assert!(parse("config system session-ttl\n    set default 600\n").is_err());
    }
}
