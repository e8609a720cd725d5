//! `get router info bgp summary`: the firewall's sessions to the hand-off routers of the example
//! baseline (the exchange's 10.20.0.1, AS 65010, and the broker's 10.20.0.5, AS 65020), in the
//! shape of the 7.x samples (`VRF 0 BGP router identifier ...`) or, on 6.4, without `VRF 0`.
//! Both sessions came up two minutes after boot, so their `Up/Down` follows the uptime and
//! crosses from `hh:mm:ss` to `1d02h` and `09w3d01h` as a real one does.

use super::super::clock;
use super::model::Release;
use super::state::FgState;

/// (neighbor, remote AS, prefixes received).
const PEERS: [(&str, u32, u32); 2] = [("10.20.0.1", 65010, 12), ("10.20.0.5", 65020, 3)];

pub fn summary(s: &FgState) -> String {
    let up = s.uptime(clock::now()).saturating_sub(120);
    let vrf = match s.spec.release {
        Release::Fos7 => "VRF 0 ",
        Release::Fos64 => "",
    };
    let mut out = format!(
        "{vrf}BGP router identifier 10.20.0.2, local AS number 65001\n\
         BGP table version is 17\n\
         3 BGP AS-PATH entries\n\
         0 BGP community entries\n\
         \n\
         Neighbor    V         AS MsgRcvd MsgSent   TblVer  InQ OutQ Up/Down  State/PfxRcd\n"
    );
    for (i, (peer, asn, prefixes)) in PEERS.iter().enumerate() {
        let messages = up / 60 + 20 + i as u64;
        out.push_str(&format!(
            "{peer:<11} 4 {asn:>10} {messages:>7} {sent:>7} {tbl:>8} {q:>4} {q:>4} {updown:>8} {prefixes:>8}\n",
            sent = messages + 2,
            tbl = 17,
            q = 0,
            updown = up_down(up),
        ));
    }
    out.push_str(&format!("\nTotal number of neighbors {}\n", PEERS.len()));
    out
}

/// `01:04:33` under a day, `1d02h` under a week, `09w3d01h` after (Quagga's format).
fn up_down(s: u64) -> String {
    let (w, d, h, m) = (s / 604_800, s / 86_400 % 7, s / 3600 % 24, s / 60 % 60);
    if s < 86_400 {
        format!("{h:02}:{m:02}:{:02}", s % 60)
    } else if s < 604_800 {
        format!("{d}d{h:02}h")
    } else {
        format!("{w:02}w{d}d{h:02}h")
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::super::model::FG_600E;
    use super::*;

    #[test]
    fn release_shapes_and_up_down() {
        let v7 = summary(&FgState::new("fw1", 1, &Faults::default()));
        assert!(v7.starts_with("VRF 0 BGP router identifier 10.20.0.2, local AS number 65001\n"));
        assert!(v7.contains("\n10.20.0.1   4      65010 "));
        let v6 = summary(&FgState::of_model("fw2", 2, &Faults::default(), &FG_600E));
        assert!(v6.starts_with("BGP router identifier"));
        assert_eq!(up_down(3873), "01:04:33");
        assert_eq!(up_down(93_600), "1d02h");
        assert_eq!(up_down(66 * 86_400 + 3600), "09w3d01h");
    }
}
