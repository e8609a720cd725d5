//! `get system status`: `Key: value` lines; the version line carries model, version and build
//! (`Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)`).

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::text::{body, device_error, joined};
use crate::core::Command;
use crate::parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct SystemStatus {
    /// `7.6.7`
    pub version: String,
    pub build: Option<u32>,
    /// `GA`, `GA.M`, `GA.F`, `Beta` ... as printed in the brackets.
    pub release: Option<String>,
    /// `FortiGate-201G`
    pub model: String,
    pub serial: Option<String>,
    pub hostname: Option<String>,
    /// `standalone`, `a-p`, `a-a` (the first word of `Current HA mode`), as printed.
    pub ha_mode: Option<String>,
    /// The rest of `Current HA mode` (`primary`, `secondary`), when printed.
    pub ha_role: Option<String>,
    /// `NAT` or `Transparent`.
    pub operation_mode: Option<String>,
    /// `Virtual domain configuration`: `disable`, `enable`, `multiple`.
    pub vdom_mode: Option<String>,
    pub current_vdom: Option<String>,
}

static VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+)\s+v(\d+\.\d+\.\d+)\s*,\s*build\s*(\d+)(?:\s*,\s*\d+)?(?:\s*\(([^)]*)\))?")
        .expect("static regex")
});

/// `get system status`: model, version, serial, VDOM mode.
pub struct GetSystemStatus;

impl Query for GetSystemStatus {
    const KIND: &'static str = "fortigate.get-system-status";
    type Fact = SystemStatus;
    fn command(&self) -> Command {
        Command::new(GetSystemStatus::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SystemStatus, ParseError> {
        parse(raw.text()?)
    }
}

impl GetSystemStatus {
    pub const TEXT: &'static str = "get system status";
}

pub fn parse(raw: &str) -> Result<SystemStatus, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut status = SystemStatus::default();
    for line in &lines {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let text = || (!value.is_empty()).then(|| value.to_string());
        match key.trim() {
            "Version" => {
                let Some(c) = VERSION.captures(value) else {
                    return Err(ParseError::new(
                        format!("unrecognised Version line: {value}"),
                        &joined(&lines),
                    ));
                };
                status.model = c[1].to_string();
                status.version = c[2].to_string();
                status.build = c[3].parse().ok();
                status.release = c.get(4).map(|m| m.as_str().to_string());
            }
            "Serial-Number" => status.serial = text(),
            "Hostname" => status.hostname = text(),
            "Operation Mode" => status.operation_mode = text(),
            "Virtual domain configuration" => status.vdom_mode = text(),
            "Current virtual domain" => status.current_vdom = text(),
            "Current HA mode" => {
                let mut parts = value.splitn(2, ',');
                status.ha_mode = parts
                    .next()
                    .map(|m| m.trim().to_lowercase())
                    .filter(|m| !m.is_empty());
                status.ha_role = parts
                    .next()
                    .map(|r| r.trim().to_string())
                    .filter(|r| !r.is_empty());
            }
            _ => {}
        }
    }
    if status.version.is_empty() {
        return Err(ParseError::new(
            "no `Version:` line in get system status output",
            raw,
        ));
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_line_forms() {
        let raw = "FGT201G # get system status\r\nVersion: FortiGate-201G v7.6.7,build3651,250606 (GA.M)\r\nSerial-Number: FG201GTK00000001\r\nHostname: fw1\r\nCurrent HA mode: a-p, primary\r\nFGT201G # ";
        let s = parse(raw).unwrap();
        assert_eq!(
            (
                s.model.as_str(),
                s.version.as_str(),
                s.build,
                s.release.as_deref()
            ),
            ("FortiGate-201G", "7.6.7", Some(3651), Some("GA.M"))
        );
        assert_eq!(
            (s.ha_mode.as_deref(), s.ha_role.as_deref()),
            (Some("a-p"), Some("primary"))
        );
        for bad in [
            "",
            "Unknown action 0",
            "Version: something else",
            "Hostname: x",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
