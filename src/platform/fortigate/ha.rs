//! `get system ha status`: cluster mode, health, and per member its serial, role and whether its
//! configuration is in sync. 7.x prints `Mode: HA A-P`, a `Configuration Status:` section with one
//! `SERIAL(updated N seconds ago): in-sync` line per member, and `Primary     : MODEL , SERIAL, ...`
//! lines; 5.x says `Master`/`Slave` and has no health line.

use std::sync::LazyLock;

use regex::Regex;
use serde::Serialize;

use super::text::{body, device_error};
use crate::core::Command;
use crate::parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct HaStatus {
    /// `standalone`, `a-p` or `a-a` (lower case, without the `HA ` prefix).
    pub mode: String,
    /// `OK`, or the warning text as printed; `None` on builds without the line.
    pub health: Option<String>,
    pub model: Option<String>,
    pub group: Option<String>,
    pub members: Vec<Member>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Member {
    pub serial: String,
    /// `primary` or `secondary` (`master`/`slave` on 5.x are mapped to these).
    pub role: Option<String>,
    /// From `Configuration Status`: `Some(true)` for `in-sync`.
    pub in_sync: Option<bool>,
    /// The status word as printed (`in-sync`, `out-of-sync`).
    pub sync_status: Option<String>,
}

static UPDATED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^(\S+?)\s*\(updated [^)]*\)\s*:\s*(\S*)").expect("static regex"));
static SERIAL: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^F[A-Z0-9*]{8,}$").expect("static regex"));

/// Which block of the output a line is in (only `Configuration Status` lines say in-sync).
#[derive(PartialEq)]
enum Section {
    Top,
    Configuration,
    Other,
}

/// `get system ha status`: mode, health, members and their sync state.
pub struct GetHaStatus;

impl Query for GetHaStatus {
    const KIND: &'static str = "fortigate.get-system-ha-status";
    type Fact = HaStatus;
    fn command(&self) -> Command {
        Command::new(GetHaStatus::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<HaStatus, ParseError> {
        parse(raw.text()?)
    }
}

impl GetHaStatus {
    pub const TEXT: &'static str = "get system ha status";
}

pub fn parse(raw: &str) -> Result<HaStatus, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut ha = HaStatus::default();
    let mut section = Section::Top;
    for line in &lines {
        let line = line.trim();
        match line {
            "Configuration Status:" => {
                section = Section::Configuration;
                continue;
            }
            "System Usage stats:"
            | "HBDEV stats:"
            | "MONDEV stats:"
            | "Primary selected using:"
            | "Master selected using:" => {
                section = Section::Other;
                continue;
            }
            _ => {}
        }
        if let Some(c) = UPDATED.captures(line) {
            if section == Section::Configuration && !c[2].is_empty() {
                let member = member(&mut ha.members, &c[1]);
                member.in_sync = Some(&c[2] == "in-sync");
                member.sync_status = Some(c[2].to_string());
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "HA Health Status" => ha.health = Some(value.to_string()),
            "Model" => ha.model = Some(value.to_string()),
            "Mode" => ha.mode = normalise_mode(value),
            "Group Name" | "Group" => ha.group = Some(value.to_string()),
            role @ ("Primary" | "Secondary" | "Master" | "Slave") => {
                if let Some(serial) = value
                    .split([',', ' '])
                    .map(str::trim)
                    .find(|w| SERIAL.is_match(w))
                {
                    let role = match role {
                        "Primary" | "Master" => "primary",
                        _ => "secondary",
                    };
                    member(&mut ha.members, serial)
                        .role
                        .get_or_insert_with(|| role.to_string());
                }
            }
            _ => {}
        }
    }
    if ha.mode.is_empty() {
        return Err(ParseError::new(
            "no `Mode:` line in get system ha status output",
            raw,
        ));
    }
    Ok(ha)
}

fn member<'a>(members: &'a mut Vec<Member>, serial: &str) -> &'a mut Member {
    let at = match members.iter().position(|m| m.serial == serial) {
        Some(at) => at,
        None => {
            members.push(Member {
                serial: serial.to_string(),
                ..Member::default()
            });
            members.len() - 1
        }
    };
    &mut members[at]
}

/// `HA A-P` -> `a-p`; `standalone` stays.
fn normalise_mode(value: &str) -> String {
    let lower = value.trim().to_lowercase();
    lower
        .strip_prefix("ha ")
        .unwrap_or(&lower)
        .trim()
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_members_and_sync() {
        let raw = "fw1 # get system ha status\nHA Health Status: OK\nModel: FortiGate-201G\nMode: HA A-P\nGroup Name: lab\nConfiguration Status:\n    FG201GTK00000001(updated 4 seconds ago): in-sync\n    FG201GTK00000001 chksum dump: 95 4e \n    FG201GTK00000002(updated 5 seconds ago): out-of-sync\nSystem Usage stats:\n    FG201GTK00000001(updated 4 seconds ago):\n        sessions=4, npu-sessions=0\nPrimary     : FortiGate-201G , FG201GTK00000001, HA cluster index = 1\nSecondary   : FortiGate-201G , FG201GTK00000002, HA cluster index = 0\n";
        let ha = parse(raw).unwrap();
        assert_eq!(ha.mode, "a-p");
        assert_eq!(ha.health.as_deref(), Some("OK"));
        assert_eq!(ha.members.len(), 2);
        assert_eq!(
            (ha.members[0].role.as_deref(), ha.members[0].in_sync),
            (Some("primary"), Some(true))
        );
        assert_eq!(
            (ha.members[1].role.as_deref(), ha.members[1].in_sync),
            (Some("secondary"), Some(false))
        );
    }

    #[test]
    fn standalone_and_errors() {
        let ha = parse("HA Health Status: OK\nModel: FortiGate-201G\nMode: standalone\n").unwrap();
        assert_eq!((ha.mode.as_str(), ha.members.len()), ("standalone", 0));
        assert!(parse("Model: x\n").is_err());
        assert!(parse("Command fail. Return code -1").is_err());
    }
}
