use serde::Deserialize;

use crate::Check;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{DiagHaChecksum, GetHaStatus};

/// The HA mode is the baseline's; in a cluster the health is OK and every member's
/// configuration is in sync (a failover to an out-of-sync member can bring back old policies).
/// 7.0 and later print health problems one per line under `HA Health Status:`
/// (`WARNING: <serial> has hbdev down;`): each one is named in the FAIL. An out-of-sync member
/// is named with the tables that differ from the primary's (`diagnose sys ha checksum
/// cluster`): checksums are cumulative, so the first differing table is the one to fix and
/// `all` differs whenever anything does (KB 193061). A table whose two digests differ inside
/// one member is a checksum calculation error (`diagnose sys ha checksum recalculate`).
///
/// ```yaml
/// - id: fortigate.ha.state
///   platform: fortigate
/// ```
/// Baseline: `expect.ha: { mode: standalone | a-p | a-a, members: 2 }` (`members` optional).
pub struct HaState;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    ha: HaExpect,
}

#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct HaExpect {
    pub mode: HaMode,
    /// Cluster size, when it should be checked.
    #[serde(default)]
    pub members: Option<usize>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
pub enum HaMode {
    #[serde(rename = "standalone")]
    Standalone,
    #[serde(rename = "a-p")]
    ActivePassive,
    #[serde(rename = "a-a")]
    ActiveActive,
}

impl HaMode {
    /// As `get system ha status` prints it (after normalising `HA A-P` to `a-p`).
    pub fn as_str(self) -> &'static str {
        match self {
            HaMode::Standalone => "standalone",
            HaMode::ActivePassive => "a-p",
            HaMode::ActiveActive => "a-a",
        }
    }
}

impl Check for HaState {
    const ID: &'static str = "fortigate.ha.state";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(GetHaStatus), Box::new(DiagHaChecksum)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let want = &input.ha;
        let ha = facts.get(&GetHaStatus)?;
        if want.mode != HaMode::Standalone && ha.mode == want.mode.as_str() && ha.members.is_empty()
        {
            return Ok(Verdict::error(format!(
                "HA {} but get system ha status lists no members: cannot tell whether they are in sync",
                ha.mode
            ))
            .expected(format!("{}, every member in sync", want.mode.as_str()))
            .actual(ha.mode.clone()));
        }
        let mut problems = Vec::new();
        // What each problem is about, for an acknowledgement to bind to: one member's sync,
        // one health message, the mode, the member count.
        let mut about: Vec<String> = Vec::new();
        if ha.mode != want.mode.as_str() {
            about.push("HA mode".into());
            problems.push(format!(
                "HA mode is {}, the baseline says {}",
                ha.mode,
                want.mode.as_str()
            ));
        }
        let mut remedies = Vec::new();
        let cluster = want.mode != HaMode::Standalone || ha.mode != HaMode::Standalone.as_str();
        if cluster {
            // 7.0+ prints each problem on its own line under `HA Health Status:`.
            if !ha.health_messages.is_empty() {
                about.extend(ha.health_messages.iter().map(|m| m.trim().to_string()));
                problems.push(format!("cluster health: {}", ha.health_messages.join(" ")));
                let text = ha.health_messages.join(" ");
                if text.contains("hbdev down") {
                    remedies.push("A heartbeat interface is down: check its cable and port (`get system ha status`, HBDEV stats) before the open; with every heartbeat down both units may become primary.");
                }
                if text.contains("mondev down") {
                    remedies.push("A monitored interface is down on the unit named: fix the link, or the cluster fails over (or has failed over) to the other unit.");
                }
                if text.contains("is lost") {
                    remedies.push("A member left the cluster: check that it is powered and its heartbeat links, then `diagnose sys ha checksum cluster` once it is back.");
                }
            } else if let Some(health) = ha
                .health
                .as_deref()
                .filter(|h| !h.is_empty() && !h.starts_with("OK"))
            {
                about.push("cluster health".into());
                problems.push(format!("cluster health: {health}"));
            }
            for m in &ha.members {
                if m.in_sync != Some(true) {
                    about.push(format!("member {}", m.serial));
                }
                match m.in_sync {
                    Some(true) => {}
                    Some(false) => problems.push(format!(
                        "member {} configuration is {}{}",
                        m.serial,
                        m.sync_status.as_deref().unwrap_or("out of sync"),
                        tables_differing(&m.serial, facts)
                    )),
                    None => problems.push(format!(
                        "member {} has no configuration status line",
                        m.serial
                    )),
                }
            }
            if want.mode != HaMode::Standalone
                && let Some(n) = want.members
                && ha.members.len() != n
            {
                about.push("member count".into());
                problems.push(format!(
                    "{} member(s) listed, the baseline says {n}",
                    ha.members.len()
                ));
            }
        }
        let members: Vec<String> = ha
            .members
            .iter()
            .map(|m| {
                format!(
                    "{} {} {}",
                    m.serial,
                    m.role.as_deref().unwrap_or("-"),
                    m.sync_status.as_deref().unwrap_or("-")
                )
            })
            .collect();
        let health = if ha.health_messages.is_empty() {
            ha.health.as_deref().unwrap_or("(not printed)").to_string()
        } else {
            format!("\n    {}", ha.health_messages.join("\n    "))
        };
        let evidence = format!(
            "Mode: {}\nHA Health Status: {health}\n{}",
            ha.mode,
            members.join("\n")
        );
        let expected = match want.members {
            Some(n) if want.mode != HaMode::Standalone => {
                format!("{} with {n} members in sync", want.mode.as_str())
            }
            _ if want.mode != HaMode::Standalone => {
                format!("{}, every member in sync", want.mode.as_str())
            }
            _ => "standalone".to_string(),
        };
        let actual = if members.is_empty() {
            ha.mode.clone()
        } else {
            format!("{}: {}", ha.mode, members.join(", "))
        };
        let verdict = if problems.is_empty() {
            Verdict::ok(format!("HA {} as expected", ha.mode))
        } else if remedies.is_empty() {
            Verdict::fail(problems.join("; ")).about(about)
        } else {
            Verdict::fail(problems.join("; "))
                .remedy(remedies.join("\n"))
                .about(about)
        };
        Ok(verdict
            .expected(expected)
            .actual(actual)
            .evidence(evidence.trim_end()))
    }
}

/// ` (checksum tables differing from FG..817: `root` first, then `all`)` for an out-of-sync member, from
/// `diagnose sys ha checksum cluster`; what could not be read is said instead.
fn tables_differing(serial: &str, facts: &Facts) -> String {
    let sums = match facts.get(&DiagHaChecksum) {
        Ok(s) => s,
        Err(e) => return format!(" (the tables that differ could not be read: {e})"),
    };
    let (Some(reference), Some(member)) = (
        sums.reference(),
        sums.members.iter().find(|m| m.serial == serial),
    ) else {
        return format!(" (`{}` does not list it)", DiagHaChecksum::TEXT);
    };
    let mut said = Vec::new();
    if reference.serial != member.serial {
        let differ = member.differing(reference);
        // The first table that differs is the one to fix; `all` differs whenever anything does.
        let first = differ.iter().position(|t| *t != "all").unwrap_or(0);
        let mut ordered: Vec<String> = differ.iter().map(|t| format!("`{t}`")).collect();
        if !ordered.is_empty() {
            let head = ordered.remove(first);
            ordered.insert(0, head);
        }
        said.push(match ordered.as_slice() {
            [] => format!("its checksums equal {}'s now", reference.serial),
            [one] => format!("checksum table differing from {}: {one}", reference.serial),
            [head, rest @ ..] => format!(
                "checksum tables differing from {}: {head} first, then {}",
                reference.serial,
                rest.join(", ")
            ),
        });
    }
    let mut units = vec![member];
    if reference.serial != member.serial {
        units.push(reference);
    }
    for m in units {
        let wrong = m.miscalculated();
        if !wrong.is_empty() {
            said.push(format!(
                "{}'s debugzone and checksum differ in {} (a calculation error: `diagnose sys ha checksum recalculate`)",
                m.serial,
                wrong.join(", ")
            ));
        }
    }
    if said.is_empty() {
        String::new()
    } else {
        format!(" ({})", said.join("; "))
    }
}
