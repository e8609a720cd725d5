//! `eos.ntp.synchronised`: the switch's clock is synchronised by NTP and within the site's
//! limits ([`crate::ntp_limits`]).

use serde::Deserialize;

use crate::ntp_limits::NtpLimits;
use crate::{Check, Invalid};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{ShowNtpAssociations, ShowNtpStatus};

/// `show ntp status` begins with `synchronised` (not `unsynchronised`, not `NTP is disabled.`),
/// and in `show ntp associations | json` the peer the switch follows (`sys.peer`) is within
/// the baseline's offset (default 100 ms) and stratum limits: "synchronised" alone passes a
/// clock a quarter of a second off, and the timestamps of logs and LANZ records are compared
/// with the firewall's and the servers'. The offset is ntpq's column, read as milliseconds.
///
/// ```yaml
/// - id: eos.ntp.synchronised
///   platform: eos
/// ```
/// Baseline (optional): `expect.ntp: { max_offset_ms: 100, max_stratum: 3 }`.
pub struct NtpSynchronised;

/// `expect:` keys read.
#[derive(Deserialize, schemars::JsonSchema)]
pub struct Input {
    #[serde(default)]
    ntp: NtpLimits,
}

const REMEDY: &str = "Check `show running-config section ntp` (servers, source interface), that the servers answer and agree (`show ntp associations`: offset, stratum, reach), and the servers' own sources; rerun `premarket check eos.ntp.synchronised`.";

impl Check for NtpSynchronised {
    const ID: &'static str = "eos.ntp.synchronised";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.ntp.validate()
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowNtpStatus), Box::new(ShowNtpAssociations)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let limits = &input.ntp;
        let status = facts.get(&ShowNtpStatus)?;
        let expected = limits.expected();
        let mut evidence = format!("show ntp status: {}", status.status_line);
        if status.disabled || !status.synchronised {
            return Ok(
                Verdict::fail(format!("NTP not synchronised: `{}`", status.status_line))
                    .expected(expected)
                    .actual(status.status_line.clone())
                    .evidence(evidence)
                    .remedy(REMEDY),
            );
        }
        let associations = facts.get(&ShowNtpAssociations)?;
        let Some((name, peer)) = associations
            .peers
            .iter()
            .find(|(_, p)| p.condition == "sys.peer")
        else {
            let conditions: Vec<String> = associations
                .peers
                .iter()
                .map(|(n, p)| format!("{n} {}", p.condition))
                .collect();
            return Ok(Verdict::fail(
                "NTP follows no server: no association is `sys.peer` although `show ntp status` says synchronised",
            )
            .expected(expected)
            .actual(conditions.join(", "))
            .evidence(evidence)
            .remedy(REMEDY));
        };
        let server = peer.address.map_or(name.clone(), |a| a.to_string());
        evidence.push_str(&format!(
            "; sys.peer {server}: stratum {}, offset {} ms",
            peer.stratum,
            peer.offset_ms.map_or("-".to_string(), |o| o.to_string())
        ));
        let Some(offset) = peer.offset_ms else {
            return Ok(Verdict::error(format!(
                "cannot tell how far off the clock is: `show ntp associations` prints no offset for {server}"
            ))
            .expected(expected)
            .evidence(evidence)
            .remedy(REMEDY));
        };
        let mut problems = Vec::new();
        limits.judge(&server, offset, Some(peer.stratum), &mut problems);
        let actual = format!(
            "synchronised to {server}, stratum {}, offset {offset:.3} ms",
            peer.stratum
        );
        let verdict = if problems.is_empty() {
            Verdict::ok(actual.clone())
        } else {
            Verdict::fail(format!("NTP outside the limits: {}", problems.join("; "))).remedy(REMEDY)
        };
        Ok(verdict.expected(expected).actual(actual).evidence(evidence))
    }
}
