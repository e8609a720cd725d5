//! `diagnose hardware deviceinfo nic <port>` (and `get hardware nic <port>`): one port's link and
//! counters, in the layout its model prints. The NP6 generation prints the NP layout of
//! Fortinet's NP6 document and the 40F capture (`Description :FortiASIC NP6LITE Adapter`, link
//! status, then counters with `Host Rx dropped`; no error counter); the NP7 generation's ports
//! and every model's MGMT and HA ports print the kernel driver layout of the 7.0 administration
//! guide (`Rx errors:`, `Rx Crc err:` ...). No NP7 or NP7Lite capture is published: that choice
//! is inferred.
//!
//! The counters run with the clock since boot (the feed: 2,000 packets a second in on x1 and
//! out on x2). x1 carries 3 old receive errors and drops (history, as in the guide's example).
//! Under `fw-port-errors` x1's optic fails from the day's maintenance minute on: 7 CRC errors a
//! second (NP layout: 7 host receive drops), so they grow between any two runs.

use super::super::clock;
use super::super::scenario::Fault;
use super::config::INTERFACES;
use super::state::FgState;
use premarket_platform::fortigate::Np;

/// Receive errors a second on x1 under `fw-port-errors`.
const FAILING_PER_S: f64 = 7.0;
/// Feed packets a second (in on x1, out on x2).
const FEED_PPS: f64 = 2_000.0;

/// The port's details, or `None` for a name that is no physical port of the box.
pub fn nic(s: &FgState, port: &str) -> Option<String> {
    if !INTERFACES.contains(&port) {
        return None;
    }
    let now = clock::now();
    let up = (now - s.booted).max(0.0);
    let failing = if s.faults.has(Fault::FwPortErrors) && port == "x1" {
        ((now - clock::day_anchor(now)).min(up) * FAILING_PER_S) as u64
    } else {
        0
    };
    let (rx, tx) = match port {
        "x1" => ((up * FEED_PPS) as u64, (up * FEED_PPS / 100.0) as u64),
        "x2" => ((up * FEED_PPS / 100.0) as u64, (up * FEED_PPS) as u64),
        "mgmt" => ((up * 3.0) as u64, (up * 2.0) as u64),
        _ => (0, 0),
    };
    let old = if port == "x1" { 3 } else { 0 };
    let speed = if port.starts_with('x') { 10_000 } else { 1_000 };
    let kernel = matches!(port, "mgmt" | "ha") || matches!(s.spec.np, Np::Np7 | Np::Np7lite);
    Some(if kernel {
        linux(port, s.spec.np, speed, (rx, tx), old + failing, failing)
    } else {
        np(s, speed, (rx, tx), failing)
    })
}

fn linux(port: &str, np: Np, speed: u32, (rx, tx): (u64, u64), errors: u64, crc: u64) -> String {
    let driver = if matches!(port, "mgmt" | "ha") {
        "igb".to_string()
    } else {
        format!("{}_eth", np.word())
    };
    let dropped = if port == "x1" { 3 } else { 0 };
    format!(
        "Name:            {port}\n\
         Driver:          {driver}\n\
         State:           up\n\
         Link:            up\n\
         Mtu:             1500\n\
         Supported:       1000full {speed}full\n\
         Advertised:\n\
         Speed:           {speed}full\n\
         Auto:            disabled\n\
         RX Ring:                 1024\n\
         TX Ring:                 512\n\
         Rx packets:              {rx}\n\
         Rx bytes:                {rxb}\n\
         Rx compressed:           0\n\
         Rx dropped:              {dropped}\n\
         Rx errors:               {errors}\n\
         \x20 Rx Length err:         0\n\
         \x20 Rx Buf overflow:       0\n\
         \x20 Rx Crc err:            {crc}\n\
         \x20 Rx Frame err:          0\n\
         \x20 Rx Fifo overrun:       0\n\
         \x20 Rx Missed packets:     0\n\
         Tx packets:              {tx}\n\
         Tx bytes:                {txb}\n\
         Tx compressed:           0\n\
         Tx dropped:              0\n\
         Tx errors:               0\n\
         \x20 Tx Aborted err:        0\n\
         \x20 Tx Carrier err:        0\n\
         \x20 Tx Fifo overrun:       0\n\
         \x20 Tx Heartbeat err:      0\n\
         \x20 Tx Window err:         0\n\
         Multicasts:              {mc}\n\
         Collisions:              0\n",
        rxb = rx * 256,
        txb = tx * 256,
        mc = rx / 2,
    )
}

fn np(s: &FgState, speed: u32, (rx, tx): (u64, u64), host_dropped: u64) -> String {
    let label = s.spec.np.label().to_ascii_uppercase();
    let board = s.model.trim_start_matches("FortiGate-");
    format!(
        "Description     :FortiASIC {label} Adapter\n\
         Driver Name     :FortiASIC {label} Driver\n\
         Board           :{board}\n\
         lif id          :7\n\
         lif oid         :71\n\
         netdev oid      :71\n\
         Current_HWaddr   04:d5:90:12:34:56\n\
         Permanent_HWaddr 04:d5:90:12:34:56\n\
         ========== Link Status ==========\n\
         Admin           :up\n\
         netdev status   :up\n\
         autonego_setting:1\n\
         link_setting    :1\n\
         speed_setting   :{speed}\n\
         duplex_setting  :0\n\
         Speed           :{speed}\n\
         Duplex          :Full\n\
         link_status     :Up\n\
         ============ Counters ===========\n\
         Rx Pkts         :{rx}\n\
         Rx Bytes        :{rxb}\n\
         Tx Pkts         :{tx}\n\
         Tx Bytes        :{txb}\n\
         Host Rx Pkts    :{host}\n\
         Host Rx Bytes   :{hostb}\n\
         Host Rx dropped :{host_dropped}\n\
         Host Tx Pkts    :{host}\n\
         Host Tx Bytes   :{hostb}\n\
         Host Tx dropped :0\n\
         FragTxCreate    :0\n\
         FragTxOk        :0\n\
         FragTxDrop      :0\n",
        rxb = rx * 256,
        txb = tx * 256,
        host = rx / 1000,
        hostb = rx / 1000 * 90,
    )
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::super::model::FG_100F;
    use super::*;

    #[test]
    fn layouts_by_model_and_the_failing_optic() {
        let ok = FgState::new("fw1", 1, &Faults::default());
        let x1 = nic(&ok, "x1").unwrap();
        assert!(
            x1.contains("Rx errors:               3\n")
                && x1.contains("Speed:           10000full")
        );
        assert!(nic(&ok, "md-lag").is_none());
        let bad = FgState::new("fw1", 1, &Faults::only(Fault::FwPortErrors));
        let crc = nic(&bad, "x1").unwrap();
        assert!(!crc.contains("Rx Crc err:            0\n"), "{crc}");
        assert!(
            nic(&bad, "x2")
                .unwrap()
                .contains("Rx Crc err:            0\n")
        );
        let f100 = FgState::of_model("fw4", 4, &Faults::default(), &FG_100F);
        let port1 = nic(&f100, "port1").unwrap();
        assert!(port1.starts_with("Description     :FortiASIC NP6XLITE Adapter\n"));
        assert!(port1.contains("Speed           :1000\n"));
        assert!(
            nic(&f100, "mgmt")
                .unwrap()
                .starts_with("Name:            mgmt\n")
        );
    }
}
