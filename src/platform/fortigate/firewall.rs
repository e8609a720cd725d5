//! The latency probe's business with the FortiGate, on an interactive CLI: cross-check the probe
//! flow's session (`npu_state`, the CPU packet counter) and, only when asked with
//! `--clear-session`, clear that one session before a round.
//!
//! `diagnose sys session clear` without a filter drops every session on the box, so the clear
//! is guarded: the session filter is set to the probe's exact 5-tuple ([`SessionFilter`] plus
//! the source port), read back, and the read-back must show exactly those values, every other
//! key `any` ([`SessionFilterReadback::differences`](super::session_filter::SessionFilterReadback::differences)). Only that comparison makes a
//! [`FilterMatched`], the one proof the SSH guard accepts for the clear (the profile names its
//! type), and the proof is consumed by the clear. The session list is read by the same parser
//! as the inspection's.

use std::any::TypeId;

use super::ListSessions;
use super::session_filter::{self, SESSION_FILTER, SESSION_FILTER_CLEAR, SessionFilter};
use super::session_list;
use premarket_core::CollectError;
use premarket_ssh::guard::{Proof, Refused};

/// Drops every session the CLI's session filter matches (all of them with no filter). Never on
/// the allowlist: it is sent only as a proven line, with a [`FilterMatched`].
pub const SESSION_CLEAR: &str = "diagnose sys session clear";

/// The probe's flow as the firewall sees it: the session filter (protocol, addresses,
/// destination port) and the source port, so the filter selects exactly one session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ProbeFlow {
    pub filter: SessionFilter,
    pub sport: u16,
}

impl ProbeFlow {
    /// The lines that set the filter to exactly this flow, from a cleared filter.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = self.filter.context();
        lines.push(format!("{SESSION_FILTER} sport {}", self.sport));
        lines
    }

    /// What the read-back must show (every other key `any`).
    fn expected(&self) -> Vec<(&'static str, String)> {
        let mut expected = self.filter.expected();
        expected.push(("source port", self.sport.to_string()));
        expected
    }
}

/// A FortiGate CLI session ([`super::firewall_shell::FirewallShell`] over SSH).
pub trait Cli {
    /// Sends one command line through the read-only guard; returns what the device printed.
    fn run(&mut self, line: &str) -> Result<String, ShellError>;

    /// Sends `diagnose sys session clear`, proven by `proof`.
    fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, ShellError>;
}

/// Why a line sent on the firewall's CLI brought back no output.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShellError {
    #[error("the SSH session to {device} is closed")]
    Closed { device: String },
    /// The session failed; the error has the session's secrets removed.
    #[error("{device}: {error}")]
    Session { device: String, error: CollectError },
    /// The guard refused the line.
    #[error("{device}: {refused}")]
    Refused { device: String, refused: Refused },
    /// The clear must follow the filter read-back at once: anything sent between could have
    /// changed the filter.
    #[error(
        "{device}: refused to clear the session for {flow:?}: the last line sent was {last:?}, not the filter read-back"
    )]
    NotAfterReadback {
        device: String,
        flow: ProbeFlow,
        last: String,
    },
}

/// Proof that the session filter was set to a probe flow and read back identical. It has no
/// public constructor, is neither `Clone` nor `Copy`, and is consumed by the clear.
#[derive(Debug)]
pub struct FilterMatched {
    flow: ProbeFlow,
}

impl FilterMatched {
    /// The flow the filter read back as.
    pub fn flow(&self) -> &ProbeFlow {
        &self.flow
    }

    /// The proof type the FortiGate profile names for [`SESSION_CLEAR`].
    pub fn type_id() -> TypeId {
        TypeId::of::<FilterMatched>()
    }
}

impl Proof for FilterMatched {
    fn line(&self) -> &'static str {
        SESSION_CLEAR
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FirewallError {
    #[error("refused to clear the session: {0}")]
    Refused(String),
    /// Boxed: a shell error is large, and this error travels up the probe's rounds.
    #[error("firewall: {0}")]
    Shell(Box<ShellError>),
    #[error("session list for the probe flow: {0}")]
    Unreadable(String),
}

/// Sets the filter and compares its read-back: the only maker of a [`FilterMatched`].
fn set_filter(cli: &mut dyn Cli, flow: &ProbeFlow) -> Result<FilterMatched, FirewallError> {
    for line in flow.lines() {
        cli.run(&line)
            .map_err(|e| FirewallError::Shell(Box::new(e)))?;
    }
    let back = cli
        .run(SESSION_FILTER)
        .map_err(|e| FirewallError::Shell(Box::new(e)))?;
    let readback =
        session_filter::parse(&back).map_err(|e| FirewallError::Refused(e.to_string()))?;
    let differences = readback.differences(&flow.expected());
    if !differences.is_empty() {
        return Err(FirewallError::Refused(format!(
            "the filter did not read back as the probe's flow: {}",
            differences.join("; ")
        )));
    }
    Ok(FilterMatched { flow: flow.clone() })
}

/// Runs `step` with the filter set, then resets the filter whatever happened (a filter left
/// behind would narrow the next `diagnose sys session list` typed on the same CLI).
fn with_filter<T>(
    cli: &mut dyn Cli,
    step: impl FnOnce(&mut dyn Cli) -> Result<T, FirewallError>,
) -> Result<T, FirewallError> {
    let result = step(cli);
    let reset = cli
        .run(SESSION_FILTER_CLEAR)
        .map_err(|e| FirewallError::Shell(Box::new(e)));
    let value = result?;
    reset?;
    Ok(value)
}

/// Clears the probe's own session. Refused unless `allowed` (`--clear-session`) and the filter
/// reads back as exactly the probe's 5-tuple.
pub fn clear_session(
    cli: &mut dyn Cli,
    flow: &ProbeFlow,
    allowed: bool,
) -> Result<(), FirewallError> {
    if !allowed {
        return Err(FirewallError::Refused(
            "clearing needs --clear-session".into(),
        ));
    }
    with_filter(cli, |cli| {
        let proof = set_filter(cli, flow)?;
        cli.clear_filtered(proof)
            .map_err(|e| FirewallError::Shell(Box::new(e)))?;
        Ok(())
    })
}

/// What the firewall says about the probe flow's session.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct SessionCheck {
    pub npu_state: String,
    pub offloaded_original: bool,
    /// Packets the CPU counted in the original direction (`statistic ... org=B/P/E`).
    pub cpu_packets: u64,
    /// Slow packets the probe measured.
    pub slow_packets: usize,
    pub agrees: bool,
}

/// Lists the probe flow's session and compares its CPU packet counter with the slow packets.
pub fn cross_check(
    cli: &mut dyn Cli,
    flow: &ProbeFlow,
    slow_packets: usize,
) -> Result<SessionCheck, FirewallError> {
    let list = with_filter(cli, |cli| {
        // Listing does not need the proof; it is dropped here, so it cannot be used later.
        set_filter(cli, flow)?;
        cli.run(ListSessions::TEXT)
            .map_err(|e| FirewallError::Shell(Box::new(e)))
    })?;
    let list = session_list::parse(&list).map_err(|e| FirewallError::Unreadable(e.to_string()))?;
    let session = match list.sessions.as_slice() {
        [one] => one,
        [] => {
            return Err(FirewallError::Unreadable(
                "no session for the probe flow".into(),
            ));
        }
        many => {
            return Err(FirewallError::Unreadable(format!(
                "the probe's 5-tuple filter lists {} sessions, not one",
                many.len()
            )));
        }
    };
    let npu_state = session
        .npu_state
        .clone()
        .ok_or_else(|| FirewallError::Unreadable("the session has no npu_state line".into()))?;
    let cpu_packets = session.org_packets.ok_or_else(|| {
        FirewallError::Unreadable("the session has no `statistic ... org=` counter".into())
    })?;
    Ok(SessionCheck {
        npu_state,
        offloaded_original: session.offload_org,
        cpu_packets,
        slow_packets,
        agrees: cpu_packets == slow_packets as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fortigate::cli::PROFILE;
    use premarket_ssh::guard::Line;

    /// A scripted FortiGate CLI: records every line, answers the read-back and the list.
    struct Scripted {
        sent: Vec<String>,
        readback: String,
        list: String,
    }

    impl Cli for Scripted {
        fn run(&mut self, line: &str) -> Result<String, ShellError> {
            Line::command(&PROFILE, line).map_err(|refused| ShellError::Refused {
                device: "scripted".into(),
                refused,
            })?;
            self.sent.push(line.to_string());
            Ok(match line {
                SESSION_FILTER => self.readback.clone(),
                ListSessions::TEXT => self.list.clone(),
                _ => String::new(),
            })
        }

        fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, ShellError> {
            assert_eq!(proof.flow(), &flow(), "the proof names the probe flow");
            let line = Line::proven(&PROFILE, proof).map_err(|refused| ShellError::Refused {
                device: "scripted".into(),
                refused,
            })?;
            self.sent.push(line.shown().to_string());
            Ok(String::new())
        }
    }

    fn flow() -> ProbeFlow {
        ProbeFlow {
            filter: SessionFilter {
                proto: 17,
                src: Some("198.18.0.1".parse().unwrap()),
                dst: Some("198.18.0.2".parse().unwrap()),
                dport: Some(31999),
            },
            sport: 40000,
        }
    }

    fn readback(src: &str, sport: &str, policy: &str) -> String {
        format!(
            "FW1 # diagnose sys session filter\nsession filter:\n        vd: any\n        sintf: any\n        dintf: any\n        proto: 17\n        proto-state: any\n        source ip: {src}\n        NAT'd source ip: any\n        dest ip: 198.18.0.2\n        source port: {sport}\n        NAT'd source port: any\n        dest port: 31999\n        policy id: {policy}\n        expire: any\n        duration: any\n        state1: any\n        state2: any\nFW1 # "
        )
    }

    fn cli(readback: String) -> Scripted {
        Scripted {
            sent: Vec::new(),
            readback,
            list: String::new(),
        }
    }

    #[test]
    fn clear_is_sent_only_after_an_exact_readback() {
        let mut s = cli(readback("198.18.0.1", "40000", "any"));
        clear_session(&mut s, &flow(), true).unwrap();
        let mut want = flow().lines();
        want.extend([SESSION_FILTER, SESSION_CLEAR, SESSION_FILTER_CLEAR].map(String::from));
        assert_eq!(s.sent, want);
        // ranges that are one value are the same value
        let mut s = cli(readback("198.18.0.1-198.18.0.1", "40000-40000", "any"));
        assert!(clear_session(&mut s, &flow(), true).is_ok());
    }

    #[test]
    fn clear_is_refused_without_the_flag() {
        let mut s = cli(readback("198.18.0.1", "40000", "any"));
        assert!(matches!(
            clear_session(&mut s, &flow(), false),
            Err(FirewallError::Refused(_))
        ));
        assert!(s.sent.is_empty());
    }

    #[test]
    fn clear_is_refused_on_any_readback_difference() {
        let cases = [
            readback("any", "40000", "any"), // the source filter did not take
            readback("198.18.0.1", "any", "any"), // neither did the port
            readback("198.18.0.9", "40000", "any"), // another host
            readback("198.18.0.1", "40000", "7"), // an extra key: still not our exact filter
            "session filter:\n".to_string(), // nothing read back
            "Command fail. Return code -61\n".to_string(),
        ];
        for back in cases {
            let mut s = cli(back.clone());
            let got = clear_session(&mut s, &flow(), true);
            assert!(matches!(got, Err(FirewallError::Refused(_))), "{back}");
            assert!(
                !s.sent.iter().any(|l| l == SESSION_CLEAR),
                "clear sent for {back}"
            );
            assert_eq!(
                s.sent.last().map(String::as_str),
                Some(SESSION_FILTER_CLEAR)
            );
        }
    }

    #[test]
    fn cross_check_reads_npu_state_and_the_cpu_packet_count() {
        let mut s = cli(readback("198.18.0.1", "40000", "any"));
        s.list = "session info: proto=17 proto_state=00 duration=10 expire=170 timeout=0\nstatistic(bytes/packets/allow_err): org=92/2/0 reply=0/0/0 tuples=2\nhook=pre dir=org act=noop 198.18.0.1:40000->198.18.0.2:31999(0.0.0.0:0)\nmisc=0 policy_id=1 vd=0\nnpu_state=0x4000400 ofld-O\ntotal session 1\n".into();
        let c = cross_check(&mut s, &flow(), 2).unwrap();
        assert!(c.offloaded_original && c.agrees);
        assert_eq!(
            (c.cpu_packets, c.npu_state.as_str()),
            (2, "0x4000400 ofld-O")
        );
        for list in ["total session 0\n", "garbage\n"] {
            s.list = list.into();
            assert!(
                matches!(
                    cross_check(&mut s, &flow(), 2),
                    Err(FirewallError::Unreadable(_))
                ),
                "{list}"
            );
        }
    }
}
