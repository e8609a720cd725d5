//! `fortigate.ntp.synchronised`: the firewall's clock is synchronised by NTP and within the
//! site's limits ([`crate::ntp_limits`]).

use serde::Deserialize;

use crate::ntp_limits::NtpLimits;
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{DiagNtpStatus, NtpServer};

/// `diagnose sys ntp status` says `synchronized: yes` and `ntpsync: enabled`, the server it
/// follows is `selected` (6.x prints no mark: then the nearest reachable server), and that
/// server's `clock offset` (printed in seconds) and stratum are within the baseline's limits
/// (default 100 ms): a real FortiGate says `synchronized: yes` 575 ms off.
///
/// ```yaml
/// - id: fortigate.ntp.synchronised
///   platform: fortigate
/// ```
/// Baseline (optional): `expect.ntp: { max_offset_ms: 100, max_stratum: 3 }`.
pub struct NtpSynchronised;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    ntp: NtpLimits,
}

const REMEDY: &str = "Check `config system ntp` (servers, `set ntpsync enable`), that the servers answer from the firewall (`execute ping <server>`) and agree (`diagnose sys ntp status`: offset, stratum); rerun `premarket check fortigate.ntp.synchronised`.";

impl Check for NtpSynchronised {
    const ID: &'static str = "fortigate.ntp.synchronised";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.ntp.validate()
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(DiagNtpStatus)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let limits = &input.ntp;
        let status = facts.get(&DiagNtpStatus)?;
        let expected = limits.expected();
        let servers: Vec<String> = status
            .servers
            .iter()
            .map(|s| {
                format!(
                    "{} {}{} stratum {} offset {}",
                    s.name,
                    if s.reachable {
                        "reachable"
                    } else {
                        "unreachable"
                    },
                    if s.selected { " selected" } else { "" },
                    s.stratum.map_or("-".to_string(), |v| v.to_string()),
                    s.offset_s.map_or("-".to_string(), |o| format!("{o} s"))
                )
            })
            .collect();
        let evidence = format!(
            "synchronized: {}, ntpsync: {}; {}",
            yes(status.synchronized),
            if status.ntpsync {
                "enabled"
            } else {
                "disabled"
            },
            servers.join("; ")
        );
        let header = format!(
            "synchronized: {}, ntpsync: {}",
            yes(status.synchronized),
            if status.ntpsync {
                "enabled"
            } else {
                "disabled"
            }
        );
        if !status.synchronized || !status.ntpsync {
            return Ok(Verdict::fail(format!("NTP not synchronised: `{header}`"))
                .expected(expected)
                .actual(header)
                .evidence(evidence)
                .remedy(REMEDY));
        }
        let Some((selected, marked)) = followed(&status.servers) else {
            return Ok(Verdict::fail(
                "NTP follows no server: none is `selected` and none is reachable with a clock offset, although the header says synchronized",
            )
            .expected(expected)
            .actual(header)
            .evidence(evidence)
            .remedy(REMEDY));
        };
        let server = selected.address.to_string();
        let Some(offset_s) = selected.offset_s else {
            return Ok(Verdict::error(format!(
                "cannot tell how far off the clock is: no `clock offset` for the selected server {server}"
            ))
            .expected(expected)
            .evidence(evidence)
            .remedy(REMEDY));
        };
        let offset_ms = offset_s * 1000.0;
        let mut problems = Vec::new();
        limits.judge(&server, offset_ms, selected.stratum, &mut problems);
        let unmarked = if marked {
            ""
        } else {
            " (no `selected` mark, as 6.x prints: the nearest reachable server)"
        };
        let actual = format!(
            "synchronized to {server}{unmarked}, stratum {}, offset {offset_ms:.3} ms",
            selected.stratum.map_or("?".to_string(), |v| v.to_string())
        );
        let verdict = if problems.is_empty() {
            Verdict::ok(actual.clone())
        } else {
            Verdict::fail(format!("NTP outside the limits: {}", problems.join("; "))).remedy(REMEDY)
        };
        Ok(verdict.expected(expected).actual(actual).evidence(evidence))
    }
}

/// The server the clock follows, and whether FortiOS marked it: the `selected` one, else (6.x
/// prints no mark: a 2020 capture shows one reachable server at stratum 2, 0.957 ms off, under
/// `synchronized: yes`) the reachable server with the smallest clock offset. `None` when no
/// server is selected or reachable with an offset: then the box follows none.
fn followed(servers: &[NtpServer]) -> Option<(&NtpServer, bool)> {
    if let Some(s) = servers.iter().find(|s| s.selected) {
        return Some((s, true));
    }
    servers
        .iter()
        .filter(|s| s.reachable)
        .filter_map(|s| s.offset_s.map(|o| (s, o.abs())))
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(s, _)| (s, false))
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "no" }
}
