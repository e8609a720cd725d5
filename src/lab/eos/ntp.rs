//! NTP on the switch: `show ntp status` (text, the form ANTA reads: the first word is
//! `synchronised` or `unsynchronised`) and `show ntp associations` (JSON shape from a real
//! pyATEOS snapshot, text from napalm's fixture). The status line's stratum is the switch's
//! own, one below the server's, as ntpstat prints it (inferred for EOS: unconfirmed).
//! `ntp-unsynchronised`: the servers stopped answering. `ntp-offset`: still synchronised, but
//! the clock is 250 ms off its servers (as after a step the daemon refused to slew).

use super::super::scenario::Fault;
use super::super::topology::{self, NTP_SERVER, NTP_SERVER_2, NTP_SERVER_STRATUM};
use super::json::{J, obj};
use super::state::EosState;

fn synchronised(s: &EosState) -> bool {
    !s.faults.has(Fault::NtpUnsynchronised)
}

/// `show ntp status`.
pub fn status_text(s: &EosState) -> String {
    if synchronised(s) {
        format!(
            "synchronised to NTP server ({}) at stratum {}\n   time correct to within 12 ms\n   polling server every 64 s\n",
            topology::ip(NTP_SERVER),
            NTP_SERVER_STRATUM + 1
        )
    } else {
        "unsynchronised\n   time server re-starting\n   polling server every 8 s\n".to_string()
    }
}

/// One association: (address, condition, stratum, refid, offset ms, delay ms, jitter ms, reach).
type Peer = (String, &'static str, u8, &'static str, f64, f64, f64, bool);

fn peers(s: &EosState) -> Vec<Peer> {
    let (a, b) = (topology::ip(NTP_SERVER), topology::ip(NTP_SERVER_2));
    // Milliseconds, as ntpq's column.
    let off = if s.faults.has(Fault::NtpOffset) {
        250.0
    } else {
        0.0
    };
    if synchronised(s) {
        vec![
            (
                a,
                "sys.peer",
                NTP_SERVER_STRATUM,
                "10.0.0.250",
                off + 0.012,
                0.236,
                0.018,
                true,
            ),
            (
                b,
                "candidate",
                NTP_SERVER_STRATUM,
                "10.0.0.250",
                off - 0.044,
                0.301,
                0.021,
                true,
            ),
        ]
    } else {
        vec![
            (a, "reject", 16, ".INIT.", 0.0, 0.0, 0.0, false),
            (b, "reject", 16, ".INIT.", 0.0, 0.0, 0.0, false),
        ]
    }
}

/// `show ntp associations | json`.
pub fn associations_json(s: &EosState, now: f64) -> String {
    let rows = peers(s).into_iter().map(
        |(addr, condition, stratum, refid, offset, delay, jitter, reach)| {
            let mut row = vec![
                ("condition".to_string(), J::from(condition)),
                ("peerIpAddr".into(), J::from(addr.as_str())),
                ("stratumLevel".into(), J::from(u32::from(stratum))),
                ("refid".into(), J::from(refid)),
                ("offset".into(), J::from(offset)),
                ("delay".into(), J::from(delay)),
                ("jitter".into(), J::from(jitter)),
                ("pollInterval".into(), J::from(64u32)),
            ];
            if reach {
                row.push(("lastReceived".into(), J::from((now - 23.0).floor())));
            }
            row.push(("peerType".into(), J::from("unicast")));
            row.push((
                "reachabilityHistory".into(),
                J::arr((0..8).map(|_| J::from(reach))),
            ));
            (addr, J::Obj(row))
        },
    );
    obj! { "peers" => J::obj(rows) }.render()
}

/// `show ntp associations` (text, ntpq style).
pub fn associations_text(s: &EosState) -> String {
    let mut out = String::from(
        "     remote           refid      st t when poll reach   delay   offset  jitter\n\
         ==============================================================================\n",
    );
    for (addr, condition, stratum, refid, offset, delay, jitter, reach) in peers(s) {
        let tally = match condition {
            "sys.peer" => '*',
            "candidate" => '+',
            _ => ' ',
        };
        let (when, reach) = if reach { ("23", 377) } else { ("-", 0) };
        out.push_str(&format!(
            "{tally}{addr:<15} {refid:<16} {stratum:>2} u {when:>4}   64  {reach:>3} {delay:>8.3} {offset:>8.3} {jitter:>7.3}\n"
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn synchronised_or_not() {
        let ok = EosState::new("sw1", 1, &Faults::default());
        assert!(
            status_text(&ok).starts_with("synchronised to NTP server (10.0.0.1) at stratum 3\n")
        );
        let v: serde_json::Value =
            serde_json::from_str(&associations_json(&ok, ok.started)).unwrap();
        assert_eq!(v["peers"]["10.0.0.1"]["condition"], "sys.peer");
        assert_eq!(v["peers"]["10.0.0.1"]["stratumLevel"], 2);
        assert!(associations_text(&ok).contains("\n*10.0.0.1 "));
        let bad = EosState::new("sw1", 1, &Faults::only(Fault::NtpUnsynchronised));
        assert!(status_text(&bad).starts_with("unsynchronised\n"));
        let v: serde_json::Value =
            serde_json::from_str(&associations_json(&bad, bad.started)).unwrap();
        assert!(
            v["peers"]
                .as_object()
                .unwrap()
                .values()
                .all(|p| p["condition"] != "sys.peer")
        );
    }
}
