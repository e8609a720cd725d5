//! `diagnose sys mcast-session list`: the kernel's multicast sessions (5.4 and later). Multicast
//! flows never appear in `diagnose sys session list`.
//!
//! ```text
//! session info: id=6 vf=0 proto=17 10.1.1.10.30001->239.1.1.1.30001
//! used=2 path=1 duration=137 expire=177 indev=5 pkts=2 bytes=92
//! state=00000002:
//! session-npu-info: ipid/vlifid=128/136 vlanid/vtag_in=0/0 in_npuid=1 tae_index=3 qid=0 fwd_map=0x1
//! path: log policy=2, outdev=6
//! Total 1 sessions
//! ```
//! Addresses are `ip.port` (dotted), not `ip:port`. Offload: FortiOS documents no sign of an
//! offloaded multicast session here. The one 7.x example (7.6.1 "Including denied multicast
//! sessions in the session table") shows `npu-deny` on the *allowed* session's `path:` line,
//! with every `session-npu-info` field 0, and the denied session with `state=00000200: deny`.
//! So `npu-deny` reads as "offload refused" (`offloaded: false`); nothing reads as "offloaded":
//! `in_npuid` is an NP index that may well be 0 for the only NP of a 201G, so it proves nothing
//! either way and is only kept, as printed, in `npu_info`.

use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::kv::{NotACounter, counter, pairs};
use super::session_list::MAX_SESSIONS;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McastSession {
    pub id: Option<u64>,
    pub proto: Option<u8>,
    pub src: Option<IpAddr>,
    pub sport: Option<u16>,
    pub group: Option<IpAddr>,
    pub dport: Option<u16>,
    pub duration: Option<u64>,
    pub expire: Option<u64>,
    pub packets: Option<u64>,
    /// `state=HEX:flags` as printed.
    pub state: Option<String>,
    pub paths: Vec<McastPath>,
    /// The `session-npu-info:` line as printed, when present.
    pub npu_info: Option<String>,
    /// `Some(false)` when a path says `npu-deny` (offload refused); `None` otherwise: no
    /// documented field says a multicast session is offloaded.
    pub offloaded: Option<bool>,
    /// `state=...: deny`: a denied multicast session kept in the table (7.6.1 and later).
    #[serde(default)]
    pub denied: bool,
}

/// One `path:` line: an output interface the session is forwarded to.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McastPath {
    pub policy: Option<u32>,
    pub outdev: Option<u64>,
    /// `npu-deny` on the path: the NP refused to offload it (7.6.1 example, research §2).
    pub deny: bool,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct McastSessionList {
    pub total: Option<u64>,
    pub sessions: Vec<McastSession>,
}

/// `diagnose sys mcast-session list`: the multicast sessions.
pub struct DiagMcastSessions;

impl Query for DiagMcastSessions {
    const KIND: &'static str = "fortigate.mcast-session-list";
    type Fact = McastSessionList;
    fn command(&self) -> Command {
        Command::new(DiagMcastSessions::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<McastSessionList, ParseError> {
        parse(raw.text()?)
    }
}

impl DiagMcastSessions {
    pub const TEXT: &'static str = "diagnose sys mcast-session list";
}

pub fn parse(raw: &str) -> Result<McastSessionList, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut list = McastSessionList::default();
    let mut seen = false;
    let mut total = None;
    for (i, line) in lines.iter().enumerate() {
        let at = |e: String| ParseError::at_line(e, &joined(&lines), i);
        // Anything after `//` is an annotation in published copies, never device output.
        let line = line.split(" //").next().unwrap_or(line).trim();
        if let Some(rest) = line.strip_prefix("session info:") {
            seen = true;
            let mut session = McastSession::default();
            for (key, value) in pairs(rest) {
                let field = |e: String| at(format!("`{key}=` {e}"));
                match key {
                    "id" => set_once(
                        &mut session.id,
                        counter(value).map_err(|e| field(e.to_string()))?,
                    )
                    .map_err(field)?,
                    "proto" => set_once(
                        &mut session.proto,
                        protocol(value).map_err(|e| field(e.to_string()))?,
                    )
                    .map_err(field)?,
                    _ => {}
                }
            }
            if let Some(flow) = rest.split_whitespace().find(|w| w.contains("->")) {
                let (from, to) = flow.split_once("->").unwrap_or_default();
                let (Some(from), Some(to)) = (endpoint(from), endpoint(to)) else {
                    return Err(at(format!("unreadable flow {}", quote(flow))));
                };
                (session.src, session.sport) = (Some(from.0), Some(from.1));
                (session.group, session.dport) = (Some(to.0), Some(to.1));
            }
            // Both mark the multicast form; a unicast list's `session info:` has neither.
            if session.id.is_none() || session.src.is_none() {
                return Err(at(
                    "`session info:` without `id=` and an `ip.port->group.port` flow: not a multicast session list"
                        .to_string(),
                ));
            }
            list.sessions.push(session);
            continue;
        }
        if let Some(n) = line
            .strip_prefix("Total ")
            .and_then(|r| r.strip_suffix(" sessions").or(r.strip_suffix(" session")))
        {
            let n = counter(n)
                .ok()
                .filter(|n| *n <= MAX_SESSIONS)
                .ok_or_else(|| at(format!("{} is not a session count", quote(line))))?;
            set_once(&mut total, n).map_err(|e| at(format!("`Total N sessions` {e}")))?;
            seen = true;
            continue;
        }
        let Some(session) = list.sessions.last_mut() else {
            continue;
        };
        if let Some(rest) = line.strip_prefix("path:") {
            let mut path = McastPath {
                deny: rest.split_whitespace().any(|w| w == "npu-deny"),
                ..McastPath::default()
            };
            for (key, value) in pairs(rest) {
                let field = |e: String| at(format!("`{key}=` {e}"));
                match key {
                    "policy" => set_once(
                        &mut path.policy,
                        policy(value).map_err(|e| field(e.to_string()))?,
                    )
                    .map_err(field)?,
                    "outdev" => set_once(
                        &mut path.outdev,
                        counter(value).map_err(|e| field(e.to_string()))?,
                    )
                    .map_err(field)?,
                    _ => {}
                }
            }
            if path.deny {
                session.offloaded = Some(false);
            }
            session.paths.push(path);
        } else if let Some(rest) = line.strip_prefix("session-npu-info:") {
            set_once(&mut session.npu_info, rest.trim().to_string())
                .map_err(|e| at(format!("`session-npu-info:` {e}")))?;
            if let Some((_, v)) = pairs(rest).into_iter().find(|(k, _)| *k == "in_npuid") {
                counter(v).map_err(|e| at(format!("`in_npuid=` {e}")))?;
            }
        } else {
            if line.starts_with("state=") && line.split_whitespace().any(|w| w == "deny") {
                session.denied = true;
            }
            for (key, value) in pairs(line) {
                let field = |e: String| at(format!("`{key}=` {e}"));
                let slot = match key {
                    "duration" => &mut session.duration,
                    "expire" => &mut session.expire,
                    "pkts" => &mut session.packets,
                    "state" => {
                        set_once(&mut session.state, value.to_string()).map_err(field)?;
                        continue;
                    }
                    _ => continue,
                };
                set_once(slot, counter(value).map_err(|e| field(e.to_string()))?).map_err(field)?;
            }
        }
    }
    if !seen {
        return Err(ParseError::new(
            "no `session info:` and no `Total N sessions`: not a multicast session list",
            &joined(&lines),
        ));
    }
    list.total = total;
    if let Some(total) = list.total
        && total != list.sessions.len() as u64
    {
        return Err(ParseError::new(
            format!(
                "the list says `Total {total} sessions` but {} were read (output cut?)",
                list.sessions.len()
            ),
            &joined(&lines),
        ));
    }
    Ok(list)
}

/// An IP protocol number (0-255).
fn protocol(text: &str) -> Result<u8, IdError> {
    let n = counter(text)?;
    u8::try_from(n).map_err(|_| IdError::Protocol(n))
}

/// A policy id (32 bits).
fn policy(text: &str) -> Result<u32, IdError> {
    let n = counter(text)?;
    u32::try_from(n).map_err(|_| IdError::Policy(n))
}

/// A number that is no id of its kind.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum IdError {
    #[error(transparent)]
    NotACounter(#[from] NotACounter),
    #[error("{0} is not an IP protocol")]
    Protocol(u64),
    #[error("{0} is not a policy id")]
    Policy(u64),
}

/// `192.168.1.1.520`: the last dotted part is the port.
fn endpoint(text: &str) -> Option<(IpAddr, u16)> {
    let (ip, port) = text.trim().rsplit_once('.')?;
    Some((ip.parse().ok()?, port.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sessions_paths_and_offload() {
        let raw = "fw1 # diagnose sys mcast-session list\nsession info: id=6 vf=0 proto=17 10.1.1.10.30001->239.1.1.1.30001    //feed A\nused=2 path=1 duration=137 expire=177 indev=5 pkts=2 bytes=92\nstate=00000002:\nsession-npu-info: ipid/vlifid=128/136 vlanid/vtag_in=0/0 in_npuid=1 tae_index=3 qid=0 fwd_map=0x1\npath: log policy=2, outdev=6\n\nsession info: id=7 vf=0 proto=17 10.1.1.11.30002->239.1.1.2.30002\nused=2 path=1 duration=3 expire=170 indev=5 pkts=9 bytes=400\npath: log npu-deny policy=3, outdev=6\nTotal 2 sessions\n";
        let list = parse(raw).unwrap();
        let [a, b] = list.sessions.as_slice() else {
            panic!()
        };
        assert_eq!(
            (a.src, a.sport, a.group, a.dport),
            (
                Some("10.1.1.10".parse().unwrap()),
                Some(30001),
                Some("239.1.1.1".parse().unwrap()),
                Some(30001)
            )
        );
        assert_eq!(
            (a.expire, a.packets, a.offloaded, a.denied),
            (Some(177), Some(2), None, false)
        );
        assert_eq!(
            a.paths,
            vec![McastPath {
                policy: Some(2),
                outdev: Some(6),
                deny: false
            }]
        );
        assert_eq!((b.offloaded, b.paths[0].deny), (Some(false), true));
        let denied = parse(&raw.replace("state=00000002:", "state=00000200: deny")).unwrap();
        assert!(denied.sessions[0].denied && !denied.sessions[1].denied);
        assert!(parse("Total 0 sessions").unwrap().sessions.is_empty());
        assert!(
            parse("Total 3 sessions\nsession info: id=1 proto=17 1.1.1.1.1->239.0.0.1.1").is_err()
        );
        assert!(parse("nothing").is_err());
        for (from, to) in [
            ("expire=177", "expire=-177"),
            ("expire=177", "expire=177 expire=100"),
            ("pkts=2", "pkts=99999999999999999999999"),
            ("proto=17 10.1.1.10", "proto=1700 10.1.1.10"),
            ("10.1.1.10.30001->", "10.1.1.10.300001->"),
            ("Total 2 sessions", "Total 99999999999 sessions"),
            ("Total 2 sessions", "Total 2 sessions\nTotal 3 sessions"),
            ("in_npuid=1", "in_npuid=x"),
            ("policy=2,", "policy=-2,"),
        ] {
            assert!(raw.contains(from), "{from}");
            assert!(parse(&raw.replacen(from, to, 1)).is_err(), "{to}");
        }
    }
}
