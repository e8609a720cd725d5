//! The FortiGate side of the probe: cross-check the probe flow's session (`npu_state`, packet
//! counter) and, only when asked with `--clear-session`, clear that one session before a round.
//!
//! `diagnose sys session clear` without a filter drops every session on the box, so the clear
//! is guarded: the filter is cleared, set to the probe's exact 5-tuple, read back, and the
//! read-back must show exactly those values (every other key `any`); otherwise the clear is
//! refused and never sent. The SSH layer provides the [`Shell`]; this module decides what is
//! sent and parses what comes back.

use std::collections::BTreeMap;

use super::frame::FiveTuple;

/// A FortiGate CLI session (the SSH layer implements it; its read-only allowlist must let the
/// probe's filter commands through, and `diagnose sys session clear` only via [`clear_session`]).
pub trait Shell {
    /// Sends one command line (through the read-only allowlist) and returns what the device
    /// printed.
    fn run(&mut self, line: &str) -> Result<String, String>;

    /// Sends `diagnose sys session clear`. Only [`clear_session`] can call this, because only
    /// it can make a [`FilterMatched`]: the proof that the filter just read back as exactly the
    /// probe's 5-tuple.
    fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, String>;
}

/// Proof that the session filter was set to `flow` and read back identical. It has no public
/// constructor, is neither `Clone` nor `Copy`, and is consumed by [`Shell::clear_filtered`]: one
/// read-back allows one clear.
#[derive(Debug)]
pub struct FilterMatched {
    flow: FiveTuple,
}

impl FilterMatched {
    /// The 5-tuple the filter read back as.
    pub fn flow(&self) -> &FiveTuple {
        &self.flow
    }
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FirewallError {
    #[error("refused to clear the session: {0}")]
    Refused(String),
    #[error("firewall: {0}")]
    Shell(String),
    #[error("session list for the probe flow: {0}")]
    Unreadable(String),
}

/// The lines that set the session filter to exactly `flow` (after clearing it).
pub fn filter_lines(flow: &FiveTuple) -> Vec<String> {
    vec![
        "diagnose sys session filter clear".to_string(),
        format!("diagnose sys session filter src {}", flow.src),
        format!("diagnose sys session filter dst {}", flow.dst),
        format!("diagnose sys session filter sport {}", flow.sport),
        format!("diagnose sys session filter dport {}", flow.dport),
        format!("diagnose sys session filter proto {}", flow.proto),
    ]
}

/// Reads `diagnose sys session filter` output into key -> value (indented or not).
pub fn parse_readback(text: &str) -> BTreeMap<String, String> {
    text.lines()
        .map(str::trim)
        .filter(|l| {
            !l.ends_with('#') && !l.starts_with("diagnose") && !l.starts_with("session filter")
        })
        .filter_map(|l| {
            l.split_once(": ")
                .or_else(|| l.strip_suffix(':').map(|k| (k, "")))
        })
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

fn same(value: &str, want: &str) -> bool {
    value == want
        || value
            .split_once('-')
            .is_some_and(|(a, b)| a == want && b == want)
}

/// Checks a read-back filter against the probe's 5-tuple. Every key we set must read back our
/// value; every other key must be `any` (`vd` may name the VDOM).
pub fn check_readback(text: &str, flow: &FiveTuple) -> Result<(), FirewallError> {
    let got = parse_readback(text);
    let wanted = [
        ("source ip", flow.src.to_string()),
        ("dest ip", flow.dst.to_string()),
        ("source port", flow.sport.to_string()),
        ("dest port", flow.dport.to_string()),
        ("proto", flow.proto.to_string()),
    ];
    for (key, value) in &wanted {
        match got.get(*key) {
            Some(v) if same(v, value) => {}
            Some(v) => {
                return Err(FirewallError::Refused(format!(
                    "the filter reads back {key}: {v}, not {value}"
                )));
            }
            None => {
                return Err(FirewallError::Refused(format!(
                    "the filter read-back has no `{key}` line"
                )));
            }
        }
    }
    for (key, value) in &got {
        let ours = wanted.iter().any(|(k, _)| k == key);
        if !ours && key != "vd" && value != "any" {
            return Err(FirewallError::Refused(format!(
                "the filter also has {key}: {value}; it must be the probe's 5-tuple only"
            )));
        }
    }
    Ok(())
}

/// The read-back command; the SSH side sends a clear only right after it.
pub const READBACK: &str = "diagnose sys session filter";
/// Undoes the filter once the probe is done with it.
const FILTER_RESET: &str = "diagnose sys session filter clear";

fn set_filter(shell: &mut dyn Shell, flow: &FiveTuple) -> Result<FilterMatched, FirewallError> {
    for line in filter_lines(flow) {
        shell.run(&line).map_err(FirewallError::Shell)?;
    }
    let back = shell.run(READBACK).map_err(FirewallError::Shell)?;
    check_readback(&back, flow)?;
    Ok(FilterMatched { flow: *flow })
}

/// Runs `step` with the filter set, then resets the filter whatever happened (a filter left
/// behind would narrow the next `diagnose sys session list` typed on the same CLI).
fn with_filter<T>(
    shell: &mut dyn Shell,
    step: impl FnOnce(&mut dyn Shell) -> Result<T, FirewallError>,
) -> Result<T, FirewallError> {
    let result = step(shell);
    let reset = shell.run(FILTER_RESET).map_err(FirewallError::Shell);
    let value = result?;
    reset?;
    Ok(value)
}

/// Clears the probe's own session. Refused unless `allowed` (`--clear-session`) and the filter
/// reads back as exactly the probe's 5-tuple.
pub fn clear_session(
    shell: &mut dyn Shell,
    flow: &FiveTuple,
    allowed: bool,
) -> Result<(), FirewallError> {
    if !allowed {
        return Err(FirewallError::Refused(
            "clearing needs --clear-session".into(),
        ));
    }
    with_filter(shell, |shell| {
        let proof = set_filter(shell, flow)?;
        shell.clear_filtered(proof).map_err(FirewallError::Shell)?;
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
    shell: &mut dyn Shell,
    flow: &FiveTuple,
    slow_packets: usize,
) -> Result<SessionCheck, FirewallError> {
    let list = with_filter(shell, |shell| {
        // Listing does not need the proof; it is dropped here, so it cannot be used later.
        set_filter(shell, flow)?;
        shell
            .run("diagnose sys session list")
            .map_err(FirewallError::Shell)
    })?;
    let npu = list
        .lines()
        .find_map(|l| {
            l.trim()
                .split_once("npu_state=")
                .map(|(_, v)| v.trim().to_string())
        })
        .ok_or_else(|| {
            FirewallError::Unreadable("no npu_state line (no session for the probe flow?)".into())
        })?;
    let packets = list
        .lines()
        .find_map(|l| {
            l.trim()
                .strip_prefix("statistic(bytes/packets/allow_err): org=")
        })
        .and_then(|rest| rest.split('/').nth(1))
        .and_then(|p| p.trim().parse::<u64>().ok())
        .ok_or_else(|| FirewallError::Unreadable("no statistic org= counter".into()))?;
    let bits = u64::from_str_radix(
        npu.split_whitespace()
            .next()
            .unwrap_or("0")
            .trim_start_matches("0x"),
        16,
    )
    .unwrap_or(0);
    let offloaded = npu.contains("ofld-O") || bits & 0x400 != 0;
    Ok(SessionCheck {
        npu_state: npu,
        offloaded_original: offloaded,
        cpu_packets: packets,
        slow_packets,
        agrees: packets == slow_packets as u64,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::probe::units::Port;

    /// A scripted FortiGate CLI: records every line, answers the read-back and the list.
    struct Scripted {
        sent: Vec<String>,
        readback: String,
        list: String,
    }

    impl Shell for Scripted {
        fn run(&mut self, line: &str) -> Result<String, String> {
            self.sent.push(line.to_string());
            Ok(match line {
                "diagnose sys session filter" => self.readback.clone(),
                "diagnose sys session list" => self.list.clone(),
                _ => String::new(),
            })
        }

        fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, String> {
            assert_eq!(proof.flow(), &flow(), "the proof names the probe flow");
            self.sent.push("diagnose sys session clear".to_string());
            Ok(String::new())
        }
    }

    fn flow() -> FiveTuple {
        FiveTuple {
            src: "198.18.0.1".parse().unwrap(),
            dst: "198.18.0.2".parse().unwrap(),
            sport: Port(40000),
            dport: Port(31999),
            proto: 17,
        }
    }

    fn readback(src: &str, sport: &str, policy: &str) -> String {
        format!(
            "FW1 # diagnose sys session filter\nsession filter:\n        vd: any\n        sintf: any\n        dintf: any\n        proto: 17\n        proto-state: any\n        source ip: {src}\n        NAT'd source ip: any\n        dest ip: 198.18.0.2\n        source port: {sport}\n        NAT'd source port: any\n        dest port: 31999\n        policy id: {policy}\n        expire: any\n        duration: any\n        state1: any\n        state2: any\nFW1 # "
        )
    }

    fn shell(readback: String) -> Scripted {
        Scripted {
            sent: Vec::new(),
            readback,
            list: String::new(),
        }
    }

    #[test]
    fn clear_is_sent_only_after_an_exact_readback() {
        let mut s = shell(readback("198.18.0.1", "40000", "any"));
        clear_session(&mut s, &flow(), true).unwrap();
        assert_eq!(s.sent.first().unwrap(), "diagnose sys session filter clear");
        let n = s.sent.len();
        assert_eq!(
            &s.sent[n - 3..],
            [
                "diagnose sys session filter",
                "diagnose sys session clear",
                "diagnose sys session filter clear"
            ]
        );
        assert_eq!(
            s.sent
                .iter()
                .filter(|l| *l == "diagnose sys session clear")
                .count(),
            1
        );
        // ranges that are one value are the same value
        let mut s = shell(readback("198.18.0.1-198.18.0.1", "40000-40000", "any"));
        assert!(clear_session(&mut s, &flow(), true).is_ok());
    }

    #[test]
    fn clear_is_refused_without_the_flag() {
        let mut s = shell(readback("198.18.0.1", "40000", "any"));
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
            let mut s = shell(back.clone());
            let got = clear_session(&mut s, &flow(), true);
            assert!(matches!(got, Err(FirewallError::Refused(_))), "{back}");
            assert!(
                !s.sent.iter().any(|l| l == "diagnose sys session clear"),
                "clear sent for {back}"
            );
        }
    }

    #[test]
    fn cross_check_reads_npu_state_and_the_cpu_packet_count() {
        let mut s = shell(readback("198.18.0.1", "40000", "any"));
        s.list = "session info: proto=17 proto_state=00 duration=10 expire=170\nstatistic(bytes/packets/allow_err): org=92/2/0 reply=0/0/0 tuples=2\nnpu_state=0x4000400 ofld-O\ntotal session 1\n".into();
        let c = cross_check(&mut s, &flow(), 2).unwrap();
        assert!(c.offloaded_original && c.agrees);
        assert_eq!(
            (c.cpu_packets, c.npu_state.as_str()),
            (2, "0x4000400 ofld-O")
        );
        s.list = "total session 0\n".into();
        assert!(matches!(
            cross_check(&mut s, &flow(), 2),
            Err(FirewallError::Unreadable(_))
        ));
    }
}
