//! The market-data path's EOS checks over fixtures (issue 19), run by [`crate::eos_checks`]'s
//! row runner: OK, FAIL and ERROR for feeds flowing now, PTP quality, NTP limits and pause
//! frames.

use crate::eos_checks::{FEED_B_2, Row};

use premarket::Status;

pub(crate) const ROWS: &[Row] = &[
    Row {
        check: "eos.multicast.flowing",
        outputs: &[],
        previous: None,
        status: Status::Ok,
        summary: "all 2 feed sides as expected",
    },
    Row {
        check: "eos.multicast.flowing",
        outputs: &[(
            FEED_B_2,
            Some("show-interfaces-port/ethernet9-sample-2-stalled.txt"),
        )],
        previous: None,
        status: Status::Fail,
        summary: "239.2.1.1",
    },
    Row {
        check: "eos.multicast.flowing",
        outputs: &[(FEED_B_2, Some("show-version/garbage.txt"))],
        previous: None,
        status: Status::Error,
        summary: "Ethernet9",
    },
];
