//! `get system ha status`: cluster mode, health, and per member its serial, role and whether its
//! configuration is in sync. 7.x prints `Mode: HA A-P`, a `Configuration Status:` section with one
//! `SERIAL(updated N seconds ago): in-sync` line per member, and `Primary     : MODEL , SERIAL, ...`
//! lines; 5.x says `Master`/`Slave` and has no health line.
//!
//! Health is `HA Health Status: OK` on one line, or (7.0 and later) `HA Health Status:` followed
//! by one line per problem before `Model:`, e.g. `    WARNING: FGT40FXXXXXXXXXX has hbdev down;`
//! or `ERROR: <serial> is lost @ <date> <time>` (web copies may put the first on the header line).
//! A line there that is neither is an error: an unknown health message must not read as healthy.
//!
//! Roles come from the cluster block (`Primary : MODEL, SERIAL, HA cluster index = 1`). The
//! `vcluster N:` blocks after it list roles per virtual cluster, where one unit may be primary
//! of one and secondary of another, so they do not set a member's role.
//!
//! The heartbeat and monitored interfaces (`HBDEV stats:`, `MONDEV stats:`) are read by
//! [`super::ha_links`].

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::ha_links::{self, HaLinks, LinkRole};
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HaStatus {
    /// `standalone`, `a-p` or `a-a` (lower case, without the `HA ` prefix).
    pub mode: String,
    /// `OK`, or the health messages joined by a space; `None` on builds without the line.
    pub health: Option<String>,
    /// Each message printed under `HA Health Status:`, as printed (`WARNING: FG... has hbdev
    /// down;`). Empty when the health is `OK` or not printed.
    #[serde(default)]
    pub health_messages: Vec<String>,
    pub model: Option<String>,
    pub group: Option<String>,
    pub members: Vec<Member>,
    /// The heartbeat and monitored interfaces per member (absent in records of older
    /// premarket versions).
    #[serde(default)]
    pub links: HaLinks,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
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

/// Which block of the output a line is in.
#[derive(PartialEq, Clone, Copy)]
enum Section {
    Top,
    /// Right after `HA Health Status:` with no value: the health messages, until `Model:`.
    Health,
    /// `Configuration Status:`: the only lines that say in-sync.
    Configuration,
    /// `HBDEV stats:` or `MONDEV stats:`: one line per member and interface.
    Links(LinkRole),
    Other,
    /// From `number of vcluster:` on: per-vcluster roles, not the cluster's.
    Vclusters,
}

/// More members than any FortiGate cluster has: FGCP clusters have at most 4 units and FGSP
/// peer groups at most 16, so a 17th serial means the text is not a real HA status.
const MAX_MEMBERS: usize = 16;

/// The members, found by serial in constant time whatever the output's length.
#[derive(Default)]
struct Members {
    list: Vec<Member>,
    index: BTreeMap<String, usize>,
}

/// A member past `MAX_MEMBERS`: the output is not a cluster's, and holding it would let a
/// hostile output grow the list without end.
#[derive(Debug, thiserror::Error)]
#[error(
    "more than {MAX_MEMBERS} cluster members listed ({one_more} is one more): no FortiGate cluster has that many"
)]
struct TooManyMembers {
    one_more: String,
}

impl Members {
    fn get(&mut self, serial: &str) -> Result<&mut Member, TooManyMembers> {
        let at = match self.index.get(serial) {
            Some(&at) => at,
            None if self.list.len() == MAX_MEMBERS => {
                return Err(TooManyMembers {
                    one_more: quote(serial),
                });
            }
            None => {
                self.list.push(Member {
                    serial: serial.to_string(),
                    ..Member::default()
                });
                self.index.insert(serial.to_string(), self.list.len() - 1);
                self.list.len() - 1
            }
        };
        Ok(&mut self.list[at])
    }
}

/// `get system ha status`: mode, health, members and their sync state.
pub struct GetHaStatus;

impl Query for GetHaStatus {
    const KIND: &'static str = "fortigate.get-system-ha-status";
    type Fact = HaStatus;
    /// The link counters are cumulative: the next run judges their growth.
    const ARCHIVED: bool = true;
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
    let (mut mode, mut health, mut model, mut group) = (None, None, None, None);
    let mut members = Members::default();
    let mut section = Section::Top;
    // The member whose link lines follow (`SERIAL(updated N seconds ago):`).
    let mut link_member: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let at = |e: String| ParseError::at_line(e, &joined(&lines), i);
        if section == Section::Health {
            if is_health_message(line) {
                ha.health_messages.push(line.to_string());
                continue;
            }
            if !(line.starts_with("Model:") || line.starts_with("Mode:")) {
                return Err(at(format!(
                    "unknown line among the HA health messages: {}",
                    quote(line)
                )));
            }
            section = Section::Top;
        }
        if let Section::Links(role) = section {
            if line.is_empty() {
                continue;
            }
            if let Some(c) = UPDATED.captures(line)
                && c[2].is_empty()
            {
                link_member = Some(c[1].to_string());
                continue;
            }
            if ha_links::read(&mut ha.links, role, link_member.as_deref(), line) {
                continue;
            }
            // Anything else ends the block and is read as usual.
            section = Section::Other;
        }
        match line {
            "Configuration Status:" => {
                section = Section::Configuration;
                continue;
            }
            "HBDEV stats:" | "MONDEV stats:" => {
                let role = match line {
                    "HBDEV stats:" => LinkRole::Heartbeat,
                    _ => LinkRole::Monitored,
                };
                ha.links.heartbeat_printed |= role == LinkRole::Heartbeat;
                section = Section::Links(role);
                link_member = None;
                continue;
            }
            "System Usage stats:" | "Primary selected using:" | "Master selected using:" => {
                section = Section::Other;
                continue;
            }
            l if l.starts_with("number of vcluster") || l.starts_with("vcluster ") => {
                section = Section::Vclusters;
                continue;
            }
            _ => {}
        }
        if let Some(c) = UPDATED.captures(line) {
            if section == Section::Configuration && !c[2].is_empty() {
                let member = members.get(&c[1]).map_err(|e| at(e.to_string()))?;
                set_once(&mut member.sync_status, c[2].to_string())
                    .map_err(|e| at(format!("configuration status of {} {e}", quote(&c[1]))))?;
                member.in_sync = Some(&c[2] == "in-sync");
            }
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        let field = |e: String| at(format!("`{key}:` {e}"));
        match key {
            "HA Health Status" => {
                set_once(&mut health, value.to_string()).map_err(field)?;
                if value.is_empty() || is_health_message(value) {
                    if !value.is_empty() {
                        ha.health_messages.push(value.to_string());
                    }
                    section = Section::Health;
                } else if value != "OK" {
                    // 6.x prints the problem on the line itself (`ERROR <serial> is lost @ ...`).
                    ha.health_messages.push(value.to_string());
                }
            }
            "Model" => set_once(&mut model, value.to_string()).map_err(field)?,
            "Mode" => set_once(&mut mode, normalise_mode(value)).map_err(field)?,
            "Group Name" | "Group" if !value.is_empty() => {
                set_once(&mut group, value.to_string()).map_err(field)?
            }
            role @ ("Primary" | "Secondary" | "Master" | "Slave")
                if section != Section::Vclusters =>
            {
                // The serial is the last serial-shaped word: a hostname before it may look
                // like one (`Primary : FGTTRADING01, FG201GTK..., HA cluster index = 1`).
                if let Some(serial) = value
                    .split([',', ' '])
                    .map(str::trim)
                    .rfind(|w| SERIAL.is_match(w))
                {
                    let role = match role {
                        "Primary" | "Master" => "primary",
                        _ => "secondary",
                    };
                    set_once(
                        &mut members.get(serial).map_err(|e| at(e.to_string()))?.role,
                        role.to_string(),
                    )
                    .map_err(|e| at(format!("the role of {} {e}", quote(serial))))?;
                }
            }
            _ => {}
        }
    }
    let Some(mode) = mode else {
        return Err(ParseError::new(
            "no `Mode:` line in get system ha status output",
            raw,
        ));
    };
    if health.as_deref() == Some("") && ha.health_messages.is_empty() {
        return Err(ParseError::new(
            "`HA Health Status:` printed with neither OK nor a message",
            &joined(&lines),
        ));
    }
    ha.mode = mode;
    ha.health = match ha.health_messages.is_empty() {
        true => health,
        false => Some(ha.health_messages.join(" ")),
    };
    (ha.model, ha.group, ha.members) = (model, group, members.list);
    Ok(ha)
}

/// `WARNING: FG... has hbdev down;`, `ERROR: FG... is lost @ ...` (also without the colon).
fn is_health_message(line: &str) -> bool {
    line.starts_with("WARNING") || line.starts_with("ERROR")
}

/// `HA A-P` -> `a-p`; `standalone` / `Standalone` -> `standalone`.
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

    const CLUSTER: &str = "fw1 # get system ha status\nHA Health Status: OK\nModel: FortiGate-201G\nMode: HA A-P\nGroup Name: lab\nConfiguration Status:\n    FG201GTK00000001(updated 4 seconds ago): in-sync\n    FG201GTK00000001 chksum dump: 95 4e \n    FG201GTK00000002(updated 5 seconds ago): out-of-sync\nSystem Usage stats:\n    FG201GTK00000001(updated 4 seconds ago):\n        sessions=4, npu-sessions=0\nPrimary     : FortiGate-201G , FG201GTK00000001, HA cluster index = 1\nSecondary   : FortiGate-201G , FG201GTK00000002, HA cluster index = 0\nnumber of vcluster: 2\nvcluster 1: work 169.254.0.1\nPrimary: FG201GTK00000001, HA operating index = 0\nSecondary: FG201GTK00000002, HA operating index = 1\nvcluster 2: work 169.254.0.2\nPrimary: FG201GTK00000002, HA operating index = 0\nSecondary: FG201GTK00000001, HA operating index = 1\n";

    #[test]
    fn cluster_members_and_sync() {
        let ha = parse(CLUSTER).unwrap();
        assert_eq!(ha.mode, "a-p");
        assert_eq!(ha.health.as_deref(), Some("OK"));
        assert!(ha.health_messages.is_empty());
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
    fn health_warnings_follow_the_header() {
        let warned = CLUSTER.replace(
            "HA Health Status: OK\n",
            "HA Health Status:\n    WARNING: FG201GTK00000001 has hbdev down;\n    WARNING: FG201GTK00000002 has hbdev down;\n",
        );
        let ha = parse(&warned).unwrap();
        assert_eq!(
            ha.health_messages,
            vec![
                "WARNING: FG201GTK00000001 has hbdev down;",
                "WARNING: FG201GTK00000002 has hbdev down;"
            ]
        );
        assert!(
            ha.health
                .as_deref()
                .is_some_and(|h| h.starts_with("WARNING"))
        );
        let same_line = CLUSTER.replace(
            "HA Health Status: OK",
            "HA Health Status: WARNING: FG201GTK00000002 has mondev down;",
        );
        assert_eq!(parse(&same_line).unwrap().health_messages.len(), 1);
        let lost = CLUSTER.replace(
            "HA Health Status: OK",
            "HA Health Status: ERROR FG201GTK00000002 is lost @ 2024/09/16 13:03:51",
        );
        assert_eq!(parse(&lost).unwrap().health_messages.len(), 1);
        for bad in [
            CLUSTER.replace("HA Health Status: OK\n", "HA Health Status:\n    something odd\n"),
            CLUSTER.replace("HA Health Status: OK\n", "HA Health Status:\n"),
            CLUSTER.replace("Mode: HA A-P\n", "Mode: HA A-P\nMode: standalone\n"),
            CLUSTER.replace("HA cluster index = 0\n", "HA cluster index = 0\nPrimary     : FortiGate-201G , FG201GTK00000002, HA cluster index = 0\n"),
            CLUSTER.replace("out-of-sync\n", "out-of-sync\n    FG201GTK00000002(updated 6 seconds ago): in-sync\n"),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn heartbeat_and_monitored_links() {
        let text = CLUSTER.replace(
            "Primary     :",
            "HBDEV stats:\n    FG201GTK00000001(updated 4 seconds ago):\n        ha1: physical/1000full, up, rx-bytes/packets/dropped/errors=80221003/402110/0/0, tx=79012211/398120/0/0\n        port16: physical/00, down, rx-bytes/packets/dropped/errors=1002210/5120/0/3, tx=990120/5002/1/0\nMONDEV stats:\nFG201GTK00000001(updated 4 seconds ago):\nx5: physical/25000full, up, rx-bytes/packets/dropped/errors=5120/4022/0/212, tx=2011033/12033/0/0\nPrimary     :",
        );
        let ha = parse(&text).unwrap();
        let links = &ha.links.links;
        assert!(ha.links.heartbeat_printed && ha.links.unread.is_empty());
        assert_eq!(links.len(), 3, "{links:?}");
        assert_eq!(
            (links[1].role, links[1].port.as_str(), links[1].is_up()),
            (LinkRole::Heartbeat, "port16", false)
        );
        assert_eq!((links[1].rx.errors, links[1].tx.dropped), (3, 1));
        // 6.4's unindented lines read the same.
        assert_eq!(
            (links[2].role, links[2].serial.as_str(), links[2].rx.errors),
            (LinkRole::Monitored, "FG201GTK00000001", 212)
        );
        // The roles after the blocks are still read.
        assert_eq!(ha.members[1].role.as_deref(), Some("secondary"));
        let odd = text.replace("tx=2011033/12033/0/0", "tx=2011033/12033");
        assert_eq!(parse(&odd).unwrap().links.unread.len(), 1);
        let no_blocks = parse(CLUSTER).unwrap();
        assert!(!no_blocks.links.heartbeat_printed && no_blocks.links.links.is_empty());
    }

    #[test]
    fn standalone_and_errors() {
        let ha = parse("HA Health Status: OK\nModel: FortiGate-201G\nMode: standalone\n").unwrap();
        assert_eq!((ha.mode.as_str(), ha.members.len()), ("standalone", 0));
        assert!(parse("Model: x\n").is_err());
        assert!(parse("Command fail. Return code -1").is_err());
    }

    #[test]
    fn more_members_than_any_cluster_is_an_error() {
        let listed = |n: usize| {
            let members: String = (0..n)
                .map(|i| format!("Secondary   : FGT , FG201GTK{i:08}, HA cluster index = {i}\n"))
                .collect();
            parse(&format!("Mode: HA A-P\nHA Health Status: OK\n{members}"))
        };
        assert_eq!(listed(MAX_MEMBERS).expect("16 members").members.len(), 16);
        let e = listed(MAX_MEMBERS + 1).expect_err("17 members");
        assert!(
            e.reason.contains("no FortiGate cluster has that many"),
            "{}",
            e.reason
        );
    }
}
