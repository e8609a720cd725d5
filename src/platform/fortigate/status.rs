//! `get system status`: `Key: value` lines; the version line carries model, version and build
//! (`Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)`). 7.0 and later also say why the
//! box last rebooted (`Last reboot reason: warm reboot` / `power cycle`).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{Model, ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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
    /// `Virtual domain configuration`: `disable`, `enable`, `multiple`, `split-task`.
    pub vdom_mode: Option<String>,
    pub current_vdom: Option<String>,
    /// `Last reboot reason` as printed (`warm reboot`, `power cycle`); 6.x does not print it.
    #[serde(default)]
    pub last_reboot_reason: Option<String>,
}

static VERSION: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\S+)\s+v(\d+\.\d+\.\d+)\s*,\s*build\s*(\d+)(?:\s*,\s*\d+)?(?:\s*\(([^)]*)\))?")
        .expect("static regex")
});

/// What the version line says.
#[derive(PartialEq, Debug)]
struct VersionLine {
    model: String,
    version: String,
    build: u32,
    release: Option<String>,
}

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
    /// The firewall's identity, for queries whose command depends on the model (NP type).
    fn identify(s: &SystemStatus) -> Option<Model> {
        (!s.model.is_empty()).then(|| Model::new(s.model.clone(), s.version.clone()))
    }
    fn identify_record(fact: &serde_json::Value) -> Option<Model> {
        serde_json::from_value::<SystemStatus>(fact.clone())
            .ok()
            .as_ref()
            .and_then(Self::identify)
    }
}

impl GetSystemStatus {
    pub const TEXT: &'static str = "get system status";
}

pub fn parse(raw: &str) -> Result<SystemStatus, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut status = SystemStatus::default();
    let mut version = None;
    let mut ha_mode = None;
    for (i, line) in lines.iter().enumerate() {
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        let at = |e: String| ParseError::at_line(format!("`{key}:` {e}"), &joined(&lines), i);
        let slot = match key {
            "Version" => {
                let line = version_line(value).map_err(|e| at(e.to_string()))?;
                set_once(&mut version, line).map_err(at)?;
                continue;
            }
            "Current HA mode" => {
                set_once(&mut ha_mode, value.to_string()).map_err(at)?;
                continue;
            }
            "Serial-Number" => &mut status.serial,
            "Hostname" => &mut status.hostname,
            "Operation Mode" => &mut status.operation_mode,
            "Virtual domain configuration" => &mut status.vdom_mode,
            "Current virtual domain" => &mut status.current_vdom,
            "Last reboot reason" => &mut status.last_reboot_reason,
            _ => continue,
        };
        if !value.is_empty() {
            set_once(slot, value.to_string()).map_err(at)?;
        }
    }
    let Some(version) = version else {
        return Err(ParseError::new(
            "no `Version:` line in get system status output",
            raw,
        ));
    };
    (status.model, status.version) = (version.model, version.version);
    (status.build, status.release) = (Some(version.build), version.release);
    if let Some(mode) = ha_mode {
        let mut parts = mode.splitn(2, ',');
        status.ha_mode = parts
            .next()
            .map(|m| m.trim().to_lowercase())
            .filter(|m| !m.is_empty());
        status.ha_role = parts
            .next()
            .map(|r| r.trim().to_string())
            .filter(|r| !r.is_empty());
    }
    Ok(status)
}

/// `FortiGate-201G v7.6.7,build3651,250606 (GA.M)`
fn version_line(value: &str) -> Result<VersionLine, VersionLineError> {
    let c = VERSION
        .captures(value)
        .ok_or_else(|| VersionLineError::Unrecognised(value.to_string()))?;
    Ok(VersionLine {
        model: c[1].to_string(),
        version: c[2].to_string(),
        build: c[3]
            .parse()
            .map_err(|_| VersionLineError::Build(c[3].to_string()))?,
        release: c.get(4).map(|m| m.as_str().to_string()),
    })
}

/// A `Version:` value that does not read, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum VersionLineError {
    #[error("unrecognised version {}", quote(.0))]
    Unrecognised(String),
    #[error("build number {} out of range", quote(.0))]
    Build(String),
}

#[cfg(test)]
mod tests {
    use super::*;

    const STATUS: &str = "FGT201G # get system status\r\nVersion: FortiGate-201G v7.6.7,build3651,250606 (GA.M)\r\nSerial-Number: FG201GTK00000001\r\nHostname: fw1\r\nCurrent HA mode: a-p, primary\r\nLast reboot reason: power cycle\r\nFGT201G # ";

    #[test]
    fn version_line_forms() {
        let s = parse(STATUS).unwrap();
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
        assert_eq!(s.last_reboot_reason.as_deref(), Some("power cycle"));
        for bad in [
            "",
            "Unknown action 0",
            "Version: something else",
            "Hostname: x",
            "Version: FortiGate-201G v7.6.7,build99999999999,250606 (GA.M)",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn repeated_keys_must_agree() {
        let twice = format!("{STATUS}\nHostname: fw1\n");
        assert!(parse(&twice).is_ok());
        for other in [
            "Hostname: fw2",
            "Version: FortiGate-201G v7.4.1,build2463,230830 (GA.F)",
            "Last reboot reason: warm reboot",
        ] {
            let e = parse(&format!("{STATUS}\n{other}\n")).unwrap_err();
            assert!(e.reason.contains("different values"), "{other}: {e}");
        }
    }
}
