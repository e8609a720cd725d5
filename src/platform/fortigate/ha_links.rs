//! The HA link tables of `get system ha status`: `HBDEV stats:` (the heartbeat interfaces) and
//! `MONDEV stats:` (the monitored interfaces), per member, one line per interface:
//!
//! ```text
//! HBDEV stats:
//!     FG6H0EAAAAAAAAA1(updated 2 seconds ago):
//!         ha1: physical/1000auto, up, rx-bytes/packets/dropped/errors=3310298812/21900331/0/0, tx=3120984410/21812002/0/0
//! MONDEV stats:
//!     FG6H0EAAAAAAAAA1(updated 2 seconds ago):
//!         x2: physical/10000full, up, rx-bytes/packets/dropped/errors=40122093312/38120331/0/212, tx=90120033110/80922103/0/0
//! ```
//!
//! The grammar is the same from 5.6 to 7.4 (ntc-templates' 5.6-7.0 captures, Fortinet's 7.4
//! administration guide); 6.4 prints the lines unindented, so nothing here depends on
//! indentation. The kind is `physical` or `aggregate`, the speed `1000auto`, `10000full`, or
//! `00` on a link that is down. `MONDEV stats:` is absent when nothing is monitored, and a
//! standalone box prints `HBDEV stats:` empty (6.0). The counters are cumulative per unit.
//!
//! A line in these blocks that carries counters but does not read as a link is kept as
//! unread, so the check of the links can say so (ERROR with the line) while the rest of the HA
//! status (mode, members, sync) is still judged.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

/// Which table a link line is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkRole {
    /// `HBDEV stats:`: a heartbeat interface.
    Heartbeat,
    /// `MONDEV stats:`: a monitored interface.
    Monitored,
}

impl LinkRole {
    /// As the report names it.
    pub fn noun(self) -> &'static str {
        match self {
            LinkRole::Heartbeat => "heartbeat interface",
            LinkRole::Monitored => "monitored interface",
        }
    }

    /// The block's header, as printed.
    pub fn header(self) -> &'static str {
        match self {
            LinkRole::Heartbeat => "HBDEV stats",
            LinkRole::Monitored => "MONDEV stats",
        }
    }
}

/// One direction's counters: `rx-bytes/packets/dropped/errors=B/P/D/E` or `tx=B/P/D/E`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LinkCounters {
    pub bytes: u64,
    pub packets: u64,
    pub dropped: u64,
    pub errors: u64,
}

/// One interface of one member in `HBDEV stats:` or `MONDEV stats:`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HaLink {
    pub role: LinkRole,
    /// The member's serial, from the `SERIAL(updated N seconds ago):` line above.
    pub serial: String,
    /// `ha1`, `port16`, `x2`.
    pub port: String,
    /// `physical`, `aggregate`.
    pub kind: String,
    /// `1000auto`, `10000full`, `00` (down).
    pub speed: String,
    /// The state word as printed: `up` or `down`.
    pub state: String,
    pub rx: LinkCounters,
    pub tx: LinkCounters,
}

impl HaLink {
    pub fn is_up(&self) -> bool {
        self.state == "up"
    }
}

/// The link tables read from one output.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HaLinks {
    /// Whether `HBDEV stats:` was printed (older releases and web copies may not print it).
    pub heartbeat_printed: bool,
    pub links: Vec<HaLink>,
    /// Lines of the two blocks that carry counters but do not read as a link, as printed.
    pub unread: Vec<String>,
}

static LINK: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"^(\S+?):\s*([A-Za-z0-9_-]+)/(\S*),\s*([A-Za-z-]+),\s*rx-bytes/packets/dropped/errors=(\d+)/(\d+)/(\d+)/(\d+),\s*tx=(\d+)/(\d+)/(\d+)/(\d+)\s*$",
    )
    .expect("static regex")
});

/// Reads the link lines of the block `role`, for the member `serial` (the last
/// `SERIAL(updated ...):` line); `None` before any. Returns whether `line` was a link table
/// line (a link, or an unreadable line with counters); `false` means the block ended.
pub(super) fn read(links: &mut HaLinks, role: LinkRole, serial: Option<&str>, line: &str) -> bool {
    if let Some(c) = LINK.captures(line)
        && let Some(serial) = serial
    {
        // The digits matched `\d+`: only a value beyond u64 fails, and that is unread.
        let n = |i: usize| c[i].parse::<u64>().ok();
        let counters = |at: usize| {
            Some(LinkCounters {
                bytes: n(at)?,
                packets: n(at + 1)?,
                dropped: n(at + 2)?,
                errors: n(at + 3)?,
            })
        };
        if let (Some(rx), Some(tx)) = (counters(5), counters(9)) {
            links.links.push(HaLink {
                role,
                serial: serial.to_string(),
                port: c[1].to_string(),
                kind: c[2].to_string(),
                speed: c[3].to_string(),
                state: c[4].to_string(),
                rx,
                tx,
            });
            return true;
        }
    }
    if line.contains("rx-bytes") || line.contains("tx=") {
        links.unread.push(line.to_string());
        return true;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn link_lines() {
        let mut links = HaLinks::default();
        assert!(read(
            &mut links,
            LinkRole::Monitored,
            Some("FG6H0EAAAAAAAAA1"),
            "x2: physical/10000full, up, rx-bytes/packets/dropped/errors=40122093312/38120331/0/212, tx=90120033110/80922103/0/0",
        ));
        assert!(read(
            &mut links,
            LinkRole::Heartbeat,
            Some("FG6H0EAAAAAAAAA1"),
            "port16: physical/00, down, rx-bytes/packets/dropped/errors=1002210/5120/0/0, tx=990120/5002/0/0",
        ));
        assert_eq!(links.links.len(), 2);
        assert_eq!(links.links[0].rx.errors, 212);
        assert_eq!(links.links[0].tx.packets, 80922103);
        assert!(links.links[0].is_up());
        assert_eq!(
            (links.links[1].speed.as_str(), links.links[1].is_up()),
            ("00", false)
        );
        // Counters that do not read, a number beyond u64, a link line before any member.
        for bad in [
            "x2: physical/10000full, up, rx-bytes/packets/dropped/errors=1/2/3, tx=1/2/3/4",
            "x2: physical/10000full, up, rx-bytes/packets/dropped/errors=1/2/3/99999999999999999999, tx=1/2/3/4",
        ] {
            assert!(read(&mut links, LinkRole::Monitored, Some("FG1"), bad));
        }
        assert!(read(
            &mut links,
            LinkRole::Monitored,
            None,
            "x1: physical/10000full, up, rx-bytes/packets/dropped/errors=1/2/3/4, tx=1/2/3/4"
        ));
        assert_eq!((links.links.len(), links.unread.len()), (2, 3));
        assert!(!read(
            &mut links,
            LinkRole::Monitored,
            Some("FG1"),
            "Primary     : FGT600E-A      , FG6H0EAAAAAAAAA1, HA cluster index = 1"
        ));
    }
}
