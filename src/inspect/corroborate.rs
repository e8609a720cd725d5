//! The probe's packets beside the firewall's own account. The FortiGate says whether it
//! offloads a flow (`npu_state`, session counts); the probe measures what the packets felt.
//! When they agree the finding says so ("confirmed by the probe: steady-state median 18.8 us"),
//! which turns a reading of flags into a measured fact; when they disagree one of them is not
//! looking at the trading traffic, and that is a finding of its own.
//!
//! The probe does not name the firewall it measures, so the two are set side by side only when
//! the run judged exactly one FortiGate's trading flows.

use premarket_core::Status;
use premarket_report::{CheckResult, ProbeFigures};

/// The synthesized finding when probe and firewall disagree.
pub const CROSSCHECK: &str = "probe.crosscheck.offload";
const FLOWS: &str = "fortigate.flows.offloaded";
const SINGLE: &str = "fortigate.flows.single-session";
const TIMERS: [&str; 2] = [
    "fortigate.service.udp-idle",
    "fortigate.session.idle-margin",
];

/// What the probe's verdict says about offload.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Felt {
    Offloaded,
    CpuPath,
    NewSessions,
    Expired,
    Unknown,
}

fn felt(verdict: &str) -> Felt {
    match verdict {
        "offloaded" | "first_packets_not_slow" => Felt::Offloaded,
        "cpu_path" => Felt::CpuPath,
        "new_session_per_packet" => Felt::NewSessions,
        "idle_expiry" => Felt::Expired,
        _ => Felt::Unknown,
    }
}

fn us(ns: i64) -> String {
    format!("{:.1} us", ns as f64 / 1000.0)
}

/// The probe's figure in a few words.
fn measured(p: &ProbeFigures) -> String {
    match (p.steady_median_ns, p.median_ns) {
        (Some(steady), _) => format!("steady-state median {}", us(steady)),
        (None, Some(all)) => format!(
            "median {} with no steady state (every packet slow)",
            us(all)
        ),
        (None, None) => "no latency figure".to_string(),
    }
}

/// Adds the probe's confirmation to the firewall's findings, or a finding of its own when the
/// two disagree.
pub fn probe_and_firewall(results: &mut Vec<CheckResult>, probe: &[ProbeFigures]) {
    let mut firewalls: Vec<String> = results
        .iter()
        .filter(|r| r.check == FLOWS && matches!(r.status, Status::Ok | Status::Fail))
        .map(|r| r.device.clone())
        .collect();
    firewalls.dedup();
    let [firewall] = firewalls.as_slice() else {
        return;
    };
    let firewall = firewall.clone();
    for p in probe {
        let felt = felt(&p.verdict);
        if felt == Felt::Unknown {
            continue;
        }
        let confirmed = format!("; confirmed by the probe {}: {}", p.device, measured(p));
        let flows = results
            .iter()
            .find(|r| r.check == FLOWS && r.device == firewall);
        let flows_status = flows.map(|r| r.status);
        // A flow with no session at all (the feed has not started) says nothing about offload:
        // the probe's own flow may well be offloaded. Only a session on the CPU path compares.
        let no_session = flows.is_some_and(|r| r.summary.contains("no session"));
        let append = |results: &mut Vec<CheckResult>, check: &str, status: Status| {
            for r in results
                .iter_mut()
                .filter(|r| r.check == check && r.device == firewall && r.status == status)
            {
                r.summary.push_str(&confirmed);
            }
        };
        let disagreement = match (felt, flows_status) {
            (Felt::Offloaded, Some(Status::Ok)) | (Felt::Expired, Some(Status::Ok)) => {
                append(results, FLOWS, Status::Ok);
                if felt == Felt::Expired {
                    let expired = format!(
                        "; confirmed by the probe {}: after a pause its packets were slow again (the session had expired)",
                        p.device
                    );
                    for r in results.iter_mut().filter(|r| {
                        TIMERS.contains(&r.check.as_str())
                            && r.device == firewall
                            && r.status == Status::Fail
                    }) {
                        r.summary.push_str(&expired);
                    }
                }
                None
            }
            (Felt::CpuPath | Felt::NewSessions, Some(Status::Fail)) => {
                append(results, FLOWS, Status::Fail);
                if felt == Felt::NewSessions {
                    append(results, SINGLE, Status::Fail);
                }
                None
            }
            (Felt::CpuPath | Felt::NewSessions, Some(Status::Ok)) => Some(format!(
                "{firewall} reports the trading flows offloaded ({FLOWS} OK), but the probe {} measured {}: {}",
                p.device,
                p.verdict.replace('_', " "),
                measured(p)
            )),
            (Felt::Offloaded | Felt::Expired, Some(Status::Fail)) if !no_session => Some(format!(
                "{firewall} reports a trading flow not offloaded ({FLOWS} FAIL), but the probe {} measured offload: {}",
                p.device,
                measured(p)
            )),
            _ => None,
        };
        if let Some(summary) = disagreement {
            let mut r = CheckResult::new(CROSSCHECK, &p.device, Status::Fail, &summary);
            r.title = "The probe's packets and the firewall's sessions agree on offload".into();
            r.finding = "probe and firewall disagree".into();
            r.expected = format!("the probe and {firewall} agree");
            r.actual = format!(
                "probe: {}; {FLOWS}: {}",
                p.verdict,
                flows_status.map(Status::as_str).unwrap_or("-")
            );
            r.remedy = format!(
                "One of the two is not looking at the trading traffic. Check that the probe's VLANs \
                 (before_vlan, after_vlan) are the two sides of {firewall} on the trading path and that \
                 the baseline's flows are the flow the probe sends; then compare `diagnose sys session \
                 list` for the probe's flow. Until they agree, trust neither."
            );
            r.rerun = Some(format!(
                "premarket run --device {firewall} --device {}",
                p.device
            ));
            results.push(r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn figures(verdict: &str, steady: Option<i64>) -> ProbeFigures {
        ProbeFigures {
            device: "probe1".into(),
            verdict: verdict.into(),
            pairs: 100,
            lost: 0,
            median_ns: Some(21_600),
            p99_ns: None,
            steady_n: 100,
            mean_ns: None,
            steady_mean_ns: None,
            steady_median_ns: steady,
            steady_p99_ns: None,
        }
    }

    #[test]
    fn agreement_is_said_and_disagreement_is_a_finding() {
        let flows = |s| CheckResult::new(FLOWS, "fw1", s, "flows");
        let single = CheckResult::new(SINGLE, "fw1", Status::Fail, "new port per send");
        let cases: Vec<(Vec<CheckResult>, ProbeFigures, &str, bool)> = vec![
            (
                vec![flows(Status::Ok)],
                figures("offloaded", Some(4_100)),
                "confirmed by the probe probe1: steady-state median 4.1 us",
                false,
            ),
            (
                vec![flows(Status::Fail), single.clone()],
                figures("new_session_per_packet", None),
                "confirmed by the probe probe1: median 21.6 us",
                false,
            ),
            (
                vec![flows(Status::Fail)],
                figures("cpu_path", Some(18_800)),
                "steady-state median 18.8 us",
                false,
            ),
            (
                vec![flows(Status::Ok)],
                figures("cpu_path", Some(18_800)),
                "",
                true,
            ),
            (
                vec![flows(Status::Fail)],
                figures("offloaded", Some(4_100)),
                "",
                true,
            ),
            (
                vec![CheckResult::new(
                    FLOWS,
                    "fw1",
                    Status::Fail,
                    "md: no session, not started",
                )],
                figures("offloaded", Some(4_100)),
                "",
                false,
            ),
            (
                vec![flows(Status::Ok)],
                figures("inconclusive", None),
                "",
                false,
            ),
        ];
        for (mut results, p, confirmed, disagree) in cases {
            probe_and_firewall(&mut results, std::slice::from_ref(&p));
            let cross = results.iter().find(|r| r.check == CROSSCHECK);
            assert_eq!(cross.is_some(), disagree, "{}: {results:#?}", p.verdict);
            if !confirmed.is_empty() {
                assert!(
                    results[0].summary.contains(confirmed),
                    "{}",
                    results[0].summary
                );
            }
            if p.verdict == "new_session_per_packet" {
                assert!(
                    results[1].summary.contains("confirmed by the probe"),
                    "{}",
                    results[1].summary
                );
            }
        }
    }
}
