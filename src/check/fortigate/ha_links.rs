//! `fortigate.ha.links`: the cluster's heartbeat and monitored interfaces, as `get system ha
//! status` prints them per member (`HBDEV stats:`, `MONDEV stats:`).

use serde::Deserialize;

use crate::Check;
use crate::outcome::combine;
use premarket_core::{Platform, Status, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{GetHaStatus, HaLink, HaLinks, LinkCounters, LinkRole};

/// Every heartbeat and monitored interface of every member is up, and none of its receive or
/// transmit error or drop counters grew since the previous run. The counters are cumulative
/// per unit and a real box carries old errors for months (ntc's 6.2 capture: `errors=337` on a
/// monitored port), so only growth is judged; the first run records. A counter that went down
/// means that member's counters restarted (a reboot or a clear): said, not judged. A standalone
/// box has no HA links (OK); a cluster whose release prints no `HBDEV stats:` is a SKIP (not
/// printed is not broken); the secondary's zero transmit counters on monitored ports are
/// normal in A-P and not judged (only errors and drops are).
///
/// ```yaml
/// - id: fortigate.ha.links
///   platform: fortigate
/// ```
/// Baseline: none (the HA mode is `fortigate.ha.state`'s).
pub struct HaLinksUp;

/// No `expect:` key.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {}

/// Reads one counter of a direction.
type Read = fn(&LinkCounters) -> u64;

/// The counters judged for growth: (direction, which, label).
const JUDGED: [(Dir, Read, &str); 4] = [
    (Dir::Rx, |c| c.errors, "receive errors"),
    (Dir::Rx, |c| c.dropped, "receive drops"),
    (Dir::Tx, |c| c.errors, "transmit errors"),
    (Dir::Tx, |c| c.dropped, "transmit drops"),
];

#[derive(Clone, Copy)]
enum Dir {
    Rx,
    Tx,
}

impl Dir {
    fn of(self, link: &HaLink) -> &LinkCounters {
        match self {
            Dir::Rx => &link.rx,
            Dir::Tx => &link.tx,
        }
    }
}

/// The previous run's links, as far as they can be compared.
enum Before {
    FirstRun,
    Unreadable(String),
    Run { links: HaLinks, run_id: String },
}

impl Check for HaLinksUp {
    const ID: &'static str = "fortigate.ha.links";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;
    const COMPARES: bool = true;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(GetHaStatus)]
    }

    fn evaluate(_: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let ha = facts.get(&GetHaStatus)?;
        let links = &ha.links;
        if !links.unread.is_empty() {
            return Ok(Verdict::error(format!(
                "{} line(s) of the HA link tables do not read as `PORT: TYPE/SPEED, up|down, rx-bytes/packets/dropped/errors=B/P/D/E, tx=B/P/D/E`: {}",
                links.unread.len(),
                links.unread[0]
            ))
            .evidence(links.unread.join("\n")));
        }
        if links.links.is_empty() {
            return Ok(if ha.mode == "standalone" {
                Verdict::ok("standalone: no heartbeat or monitored interface")
            } else if !links.heartbeat_printed {
                Verdict::skip(format!(
                    "HA {}, but `get system ha status` prints no `HBDEV stats:` block on this release: the heartbeat links cannot be judged",
                    ha.mode
                ))
            } else {
                Verdict::error(format!(
                    "HA {}, but `HBDEV stats:` lists no heartbeat interface",
                    ha.mode
                ))
            }
            .expected("every heartbeat and monitored interface up, no error or drop growth"));
        }
        let before = match facts.previous(&GetHaStatus) {
            None => Before::FirstRun,
            Some((Err(e), record)) => Before::Unreadable(format!(
                "the previous run's record ({}) is unreadable ({e})",
                record.run_id
            )),
            Some((Ok(fact), record)) => Before::Run {
                links: fact.links,
                run_id: record.run_id.clone(),
            },
        };
        let mut restarted = Vec::new();
        let parts = links
            .links
            .iter()
            .map(|link| {
                let (verdict, note) = judge(link, &before);
                restarted.extend(note);
                verdict
            })
            .collect();
        let mut verdict = combine(
            parts,
            "HA links",
            "every heartbeat and monitored interface up; no error or drop growth since the previous run",
        );
        if verdict.status == Status::Ok {
            let note = match &before {
                Before::FirstRun => Some(
                    "first run on this cluster: counters recorded, growth is judged from the next run"
                        .to_string(),
                ),
                Before::Unreadable(why) => Some(format!("{why}: growth is judged again from the next run")),
                Before::Run { .. } if !restarted.is_empty() => Some(format!(
                    "{}: growth is judged again from the next run",
                    restarted.join("; ")
                )),
                Before::Run { .. } => None,
            };
            if let Some(note) = note {
                verdict.summary = format!("{} ({note})", verdict.summary);
            }
        }
        Ok(verdict.evidence(evidence(links)))
    }
}

/// One link: up, and no judged counter grew since the previous run. The second value says
/// that its counters restarted.
fn judge(link: &HaLink, before: &Before) -> (Verdict, Option<String>) {
    let name = format!("{} on {}", link.port, link.serial);
    let mut problems = Vec::new();
    let mut remedies = Vec::new();
    if !link.is_up() {
        problems.push(format!(
            "{} {} ({}/{})",
            link.role.noun(),
            link.state,
            link.kind,
            link.speed
        ));
        remedies.push(match link.role {
            LinkRole::Heartbeat => "A heartbeat interface is down: check its cable and port before the open; with every heartbeat link down both units may become primary.",
            LinkRole::Monitored => "A monitored interface is down: fix the link, or the cluster fails over (or has failed over) to the other unit.",
        });
    }
    let mut note = None;
    if let Before::Run { links, run_id } = before {
        let previous = links
            .links
            .iter()
            .find(|l| l.role == link.role && l.serial == link.serial && l.port == link.port);
        if let Some(previous) = previous {
            let pairs: Vec<(u64, u64, &str)> = JUDGED
                .iter()
                .map(|(dir, read, label)| (read(dir.of(link)), read(dir.of(previous)), *label))
                .collect();
            let packets = [
                (link.rx.packets, previous.rx.packets),
                (link.tx.packets, previous.tx.packets),
            ];
            if pairs.iter().any(|(now, was, _)| now < was)
                || packets.iter().any(|(now, was)| now < was)
            {
                note = Some(format!(
                    "{name}: its counters restarted since the previous run ({run_id}: reboot or clear)"
                ));
            } else {
                let grew: Vec<String> = pairs
                    .iter()
                    .filter(|(now, was, _)| now > was)
                    .map(|(now, was, label)| format!("+{} {label}", now - was))
                    .collect();
                if !grew.is_empty() {
                    problems.push(format!(
                        "{}, {} since the previous run ({run_id})",
                        link.role.noun(),
                        grew.join(" and ")
                    ));
                    remedies.push(match link.role {
                        LinkRole::Heartbeat => "Heartbeat errors or drops grew: check the heartbeat cable, optic and port (`diagnose hardware deviceinfo nic PORT`); lost heartbeats cause failovers and, with every link affected, split brain.",
                        LinkRole::Monitored => "Errors or drops grew on a monitored interface: check its optic and cable (`diagnose hardware deviceinfo nic PORT`) and the peer's port; a monitored link that goes down fails the cluster over.",
                    });
                }
            }
        }
    }
    let verdict = if problems.is_empty() {
        Verdict::ok(format!("{name}: {} up", link.role.noun()))
    } else {
        Verdict::fail(format!("{name}: {}", problems.join("; "))).remedy(remedies.join("\n"))
    };
    (verdict, note)
}

/// The link tables, one line per link, as judged.
fn evidence(links: &HaLinks) -> String {
    let mut out = Vec::new();
    for role in [LinkRole::Heartbeat, LinkRole::Monitored] {
        let rows: Vec<String> = links
            .links
            .iter()
            .filter(|l| l.role == role)
            .map(|l| {
                format!(
                    "    {} {}: {}/{}, {}, rx dropped/errors={}/{}, tx dropped/errors={}/{}",
                    l.serial,
                    l.port,
                    l.kind,
                    l.speed,
                    l.state,
                    l.rx.dropped,
                    l.rx.errors,
                    l.tx.dropped,
                    l.tx.errors
                )
            })
            .collect();
        if !rows.is_empty() {
            out.push(format!("{}:\n{}", role.header(), rows.join("\n")));
        }
    }
    out.join("\n")
}
