//! `show ptp | json`: the switch is a boundary clock locked through Ethernet1 to the
//! exchange's grandmaster, and a master towards the servers on Ethernet4. `ptp-unlocked`
//! makes it lose the grandmaster: it becomes its own (gm == own clock identity, no slave
//! port, steps removed 0, last sync 157 s before the lab started), as in ANTA's failure data.
//! `| json revision 2` gives the per-VLAN port list (what ANTA pins); a bare `| json` the
//! revision-1 flat port states, as eAPI does by default. Which revision a bare `| json`
//! returns on a real CLI is unconfirmed: pin it.

use super::super::scenario::Fault;
use super::super::topology;
use super::json::{J, obj};
use super::state::EosState;

/// Which JSON model the client asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Revision {
    One,
    Two,
}

pub fn ptp_json(s: &EosState, now: f64, revision: Revision) -> String {
    let locked = !s.faults.has(Fault::PtpUnlocked);
    let now_s = now.floor() as i64;
    let mut summary = vec![
        (
            "clockIdentity".to_string(),
            J::from(topology::PTP_OWN_CLOCK),
        ),
        (
            "gmClockIdentity".into(),
            J::from(if locked {
                topology::PTP_GRANDMASTER
            } else {
                topology::PTP_OWN_CLOCK
            }),
        ),
        ("numberOfSlavePorts".into(), J::from(u32::from(locked))),
        (
            "numberOfMasterPorts".into(),
            J::from(if locked { 1u32 } else { 2 }),
        ),
    ];
    if locked {
        summary.push(("slavePort".into(), J::from("Ethernet1")));
        summary.push(("slaveVlanId".into(), J::from(0u32)));
    }
    let last_sync = if locked {
        now_s - 1
    } else {
        s.started.floor() as i64 - 157
    };
    summary.extend([
        (
            "offsetFromMaster".to_string(),
            J::from(if locked { -11i64 } else { 0 }),
        ),
        (
            "meanPathDelay".into(),
            J::from(if locked { 412i64 } else { 0 }),
        ),
        (
            "stepsRemoved".into(),
            J::from(if locked { 2u32 } else { 0 }),
        ),
        ("skew".into(), J::from(1.000_001_526_500_768_7)),
        ("lastSyncTime".into(), J::from(last_sync)),
        ("currentPtpSystemTime".into(), J::from(now_s)),
    ]);
    let ports = [
        ("Ethernet1", if locked { "psSlave" } else { "psMaster" }),
        ("Ethernet4", "psMaster"),
    ];
    let summaries = ports.iter().map(|(name, state)| {
        let row = match revision {
            Revision::Two => obj! {
                "interface" => *name,
                "ptpIntfVlanSummaries" => J::arr([obj! {
                    "vlanId" => 0u32,
                    "portState" => *state,
                    "delayMechanism" => "e2e",
                    "transportMode" => "ipv4",
                    "mpassEnabled" => false,
                    "mpassStatus" => "active",
                }]),
            },
            Revision::One => obj! {
                "portState" => *state,
                "delayMechanism" => "e2e",
                "transportMode" => "ipv4",
            },
        };
        (name.to_string(), row)
    });
    let mut doc = vec![("ptpMode".to_string(), J::from("ptpBoundaryClock"))];
    if revision == Revision::Two {
        doc.push(("ptpProfile".into(), J::from("ptpDefaultProfile")));
    }
    doc.push(("ptpClockSummary".into(), J::Obj(summary)));
    doc.push(("ptpIntfSummaries".into(), J::obj(summaries)));
    J::Obj(doc).render()
}

/// `show ptp masters | json` (key names beyond `parent.gmClockQuality.clockClass` unconfirmed,
/// research-18-19 §5.1).
pub fn masters_json(s: &EosState) -> String {
    let (gm, class, accuracy) = if s.faults.has(Fault::PtpUnlocked) {
        (topology::PTP_OWN_CLOCK, 248u32, 0xFEu32)
    } else if s.faults.has(Fault::PtpHoldover) {
        (topology::PTP_GRANDMASTER, 7, 0x21)
    } else {
        (topology::PTP_GRANDMASTER, 6, 0x21)
    };
    obj! {
        "parent" => obj! {
            "parentClockIdentity" => gm,
            "parentPortNumber" => 1u32,
            "gmClockIdentity" => gm,
            "gmPriority1" => 128u32,
            "gmPriority2" => 128u32,
            "gmClockQuality" => obj! {
                "clockClass" => class,
                "clockAccuracy" => accuracy,
                "offsetScaledLogVariance" => 20061u32,
            },
        },
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn locked_and_unlocked() {
        let s = EosState::new("sw1", 1, &Faults::default());
        let now = s.started + 3.0;
        let v: serde_json::Value = serde_json::from_str(&ptp_json(&s, now, Revision::Two)).unwrap();
        let c = &v["ptpClockSummary"];
        assert_eq!(c["gmClockIdentity"], topology::PTP_GRANDMASTER);
        assert!(c["offsetFromMaster"].as_i64().unwrap().abs() <= 50);
        assert!(
            c["currentPtpSystemTime"].as_i64().unwrap() - c["lastSyncTime"].as_i64().unwrap() <= 5
        );
        assert_eq!(
            v["ptpIntfSummaries"]["Ethernet1"]["ptpIntfVlanSummaries"][0]["portState"],
            "psSlave"
        );
        let v1: serde_json::Value =
            serde_json::from_str(&ptp_json(&s, now, Revision::One)).unwrap();
        assert_eq!(v1["ptpIntfSummaries"]["Ethernet1"]["portState"], "psSlave");

        let u = EosState::new("sw1", 1, &Faults::only(Fault::PtpUnlocked));
        let v: serde_json::Value =
            serde_json::from_str(&ptp_json(&u, u.started, Revision::Two)).unwrap();
        let c = &v["ptpClockSummary"];
        assert_eq!(c["gmClockIdentity"], c["clockIdentity"]);
        assert_eq!(
            (c["stepsRemoved"].as_i64(), c["numberOfSlavePorts"].as_i64()),
            (Some(0), Some(0))
        );
        assert!(c.get("slavePort").is_none());
        assert!(
            c["currentPtpSystemTime"].as_i64().unwrap() - c["lastSyncTime"].as_i64().unwrap()
                >= 157
        );
    }

    #[test]
    fn holdover_keeps_the_identity_and_drops_the_class() {
        let class = |s: &EosState| {
            let v: serde_json::Value = serde_json::from_str(&masters_json(s)).unwrap();
            (
                v["parent"]["gmClockIdentity"].as_str().unwrap().to_string(),
                v["parent"]["gmClockQuality"]["clockClass"].as_u64(),
            )
        };
        let healthy = EosState::new("sw1", 1, &Faults::default());
        let holdover = EosState::new("sw1", 1, &Faults::only(Fault::PtpHoldover));
        assert_eq!(class(&healthy), (topology::PTP_GRANDMASTER.into(), Some(6)));
        assert_eq!(
            class(&holdover),
            (topology::PTP_GRANDMASTER.into(), Some(7))
        );
    }
}
