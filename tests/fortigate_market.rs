//! The market-data path's FortiGate checks over fixtures (issue 19), run by
//! [`crate::fortigate_checks`]'s row runner: the clock within the site's NTP limits.

use crate::fortigate_checks::{Row, row};

use premarket::Status::{Error, Fail, Ok};

const NTP: &str = "fortigate.ntp.synchronised";
const DIAG: &str = "diagnose-sys-ntp-status";

pub(crate) fn rows() -> Vec<Row> {
    vec![
        row(
            NTP,
            &[],
            Ok,
            &["synchronized to 10.0.0.1, stratum 2, offset 0.412 ms"],
        ),
        // A real FortiGate says "synchronized" 575 ms off: the default limit (100 ms) fails it.
        row(
            NTP,
            &[(DIAG, "synchronized-but-575ms-off")],
            Fail,
            &["clock offset -575.402 ms from 10.0.0.1, beyond ±100 ms"],
        ),
        row(
            NTP,
            &[(DIAG, "unsynchronized")],
            Fail,
            &["NTP not synchronised: `synchronized: no, ntpsync: enabled`"],
        ),
        row(
            NTP,
            &[(DIAG, "reachable-none-selected")],
            Fail,
            &["none is `selected`"],
        ),
        row(NTP, &[(DIAG, "command-fail")], Error, &["Command fail"]),
    ]
}
