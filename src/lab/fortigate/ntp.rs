//! `diagnose sys ntp status`, in the layout of real 7.0 captures: a header line, then one
//! block per server with `reachable(0x..)`, the `selected` mark and the clock offset in
//! seconds. 6.4 prints the shape of a 2020 capture: its one server, and no `selected` mark.
//! `ntp-unsynchronised`: every server unreachable, `synchronized: no`.

use chrono::{TimeZone, Utc};

use super::super::scenario::Fault;
use super::super::topology::{self, NTP_SERVER, NTP_SERVER_2, NTP_SERVER_STRATUM};
use super::model::Release;
use super::state::FgState;

/// Seconds between the NTP era (1900) and the Unix epoch.
const NTP_EPOCH_OFFSET: f64 = 2_208_988_800.0;

fn reference(at: f64) -> String {
    let ntp = at + NTP_EPOCH_OFFSET;
    let (secs, frac) = (ntp.floor(), ntp.fract());
    let utc = Utc
        .timestamp_opt(at as i64, 0)
        .single()
        .map(|t| t.format("%a %b %d %H:%M:%S %Y").to_string())
        .unwrap_or_default();
    format!(
        "{:08x}.{:08x} -- UTC {utc}",
        secs as u64,
        (frac * 4_294_967_296.0) as u64
    )
}

pub fn ntp_status(s: &FgState, now: f64) -> String {
    // `ntp-offset`: still "synchronized", 250 ms off (seconds, as FortiOS prints it).
    let off = if s.faults.has(Fault::NtpOffset) {
        0.25
    } else {
        0.0
    };
    let mut servers = vec![
        (topology::ip(NTP_SERVER), off + 0.001_204, true),
        (topology::ip(NTP_SERVER_2), off - 0.002_871, false),
    ];
    if s.spec.release == Release::Fos64 {
        servers = vec![(topology::ip(NTP_SERVER), off + 0.000_957, false)];
    }
    if s.faults.has(Fault::NtpUnsynchronised) {
        let mut out = String::from("synchronized: no, ntpsync: enabled, server-mode: disabled\n");
        for (ip, _, _) in &servers {
            out.push_str(&format!(
                "\nipv4 server({ip}) {ip} -- unreachable(0x0) S:7 T:8\n        no data\n"
            ));
        }
        return out;
    }
    let mut out = String::from("synchronized: yes, ntpsync: enabled, server-mode: disabled\n");
    for (i, (ip, offset, selected)) in servers.iter().enumerate() {
        out.push_str(&format!(
            "\nipv4 server({ip}) {ip} -- reachable(0xff) S:4 T:{t}{sel}\n\
             \x20       server-version=4, stratum={NTP_SERVER_STRATUM}\n\
             \x20       reference time is {reference}\n\
             \x20       clock offset is {offset:.6} sec, root delay is 0.000488 sec\n\
             \x20       root dispersion is 0.020233 sec, peer dispersion is {disp} msec\n",
            t = 34 + i * 7,
            sel = if *selected { " selected" } else { "" },
            reference = reference(now - 17.0 - i as f64 * 3.0),
            disp = 2 + i * 3,
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn synced_and_not() {
        let ok = FgState::new("fw1", 1, &Faults::default());
        let text = ntp_status(&ok, crate::clock::now());
        assert!(text.starts_with("synchronized: yes, ntpsync: enabled, "));
        assert_eq!(text.matches(" selected\n").count(), 1);
        assert!(text.contains("ipv4 server(10.0.0.1) 10.0.0.1 -- reachable(0xff) S:4 T:34 selected\n        server-version=4, stratum=2\n"));
        assert!(text.contains("clock offset is 0.001204 sec"));
        let bad = FgState::new("fw1", 1, &Faults::only(Fault::NtpUnsynchronised));
        assert!(ntp_status(&bad, 0.0).starts_with("synchronized: no,"));
        assert!(reference(0.0).starts_with("83aa7e80.00000000 -- UTC Thu Jan 01 00:00:00 1970"));
        let v64 = FgState::of_model("fw2", 2, &Faults::default(), &super::super::model::FG_600E);
        let text = ntp_status(&v64, crate::clock::now());
        assert_eq!(text.matches("ipv4 server(").count(), 1);
        assert!(!text.contains("selected") && text.contains("clock offset is 0.000957 sec"));
    }
}
