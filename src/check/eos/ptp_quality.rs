//! The PTP clock's quality beyond "locked" (`eos.ptp.synchronised`, issue 19): the baseline's
//! limits with their defaults, and the grandmaster's clock class and accuracy from `show ptp
//! masters` (a grandmaster in holdover keeps its identity: only its class tells).
//!
//! Defaults and their sources (research-18-19 §5.3): offset 1000 ns (ANTA `VerifyPtpOffset`),
//! mean path delay 2000 ns (Arista's `ptp monitor threshold mean-path-delay` example), last
//! sync 60 s (ANTA `VerifyPtpLockStatus`), clock classes [6] (IEEE 1588 table 5 and G.8275.1:
//! 6 is the only class locked to a primary reference), clock accuracy 0x27 = within 100 µs
//! (MiFID II RTS 25's limit for high-frequency trading), steps removed unlimited unless set.

use serde::Deserialize;

use crate::Invalid;
use premarket_platform::eos::PtpMasters;
use premarket_platform::eos::ptp_masters::{
    ClassState, accuracy_meaning, class_meaning, class_state,
};

pub const DEFAULT_MAX_OFFSET_NS: u64 = 1000;
pub const DEFAULT_MAX_MEAN_PATH_DELAY_NS: u64 = 2000;
pub const DEFAULT_MAX_SYNC_AGE_S: u64 = 60;
pub const DEFAULT_CLOCK_CLASSES: [u8; 1] = [6];
pub const DEFAULT_MAX_CLOCK_ACCURACY: u8 = 0x27;

/// `expect.ptp`.
#[derive(Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct PtpExpect {
    /// One allowed grandmaster (`0xec:46:70:ff:fe:00:ff:a8`, any case); kept for old baselines.
    #[serde(default)]
    pub grandmaster: Option<String>,
    /// The allowed grandmasters: primary and backup.
    #[serde(default)]
    pub grandmasters: Vec<String>,
    #[serde(default = "max_offset_ns")]
    pub max_offset_ns: u64,
    #[serde(default = "max_mean_path_delay_ns")]
    pub max_mean_path_delay_ns: u64,
    #[serde(default)]
    pub max_steps_removed: Option<u32>,
    #[serde(default = "max_sync_age_s")]
    pub max_sync_age_s: u64,
    #[serde(default = "allowed_clock_classes")]
    pub allowed_clock_classes: Vec<u8>,
    /// The worst clockAccuracy code allowed (lower is better; 0x21 = within 100 ns).
    #[serde(default = "max_clock_accuracy")]
    pub max_clock_accuracy: u8,
    #[serde(default)]
    pub slave_port: Option<String>,
}

/// A grandmaster that is not good while the switch follows it: the result's lead, the
/// subject's words and a remedy that starts at the grandmaster.
pub struct GmFault {
    pub lead: String,
    pub finding: &'static str,
    pub remedy: String,
}

fn max_offset_ns() -> u64 {
    DEFAULT_MAX_OFFSET_NS
}
fn max_mean_path_delay_ns() -> u64 {
    DEFAULT_MAX_MEAN_PATH_DELAY_NS
}
fn max_sync_age_s() -> u64 {
    DEFAULT_MAX_SYNC_AGE_S
}
fn allowed_clock_classes() -> Vec<u8> {
    DEFAULT_CLOCK_CLASSES.to_vec()
}
fn max_clock_accuracy() -> u8 {
    DEFAULT_MAX_CLOCK_ACCURACY
}

impl PtpExpect {
    /// Every allowed grandmaster, lower case.
    pub fn allowed(&self) -> Vec<String> {
        self.grandmaster
            .iter()
            .chain(&self.grandmasters)
            .map(|g| g.to_lowercase())
            .collect()
    }

    pub fn validate(&self) -> Result<(), Invalid> {
        let all = self.allowed();
        if all.is_empty() {
            return Err("`expect.ptp` names no grandmaster: set `grandmasters: [..]`".into());
        }
        for gm in &all {
            let ok = gm.len() == 25
                && gm.starts_with("0x")
                && gm[2..]
                    .split(':')
                    .all(|b| b.len() == 2 && b.bytes().all(|c| c.is_ascii_hexdigit()));
            if !ok {
                return Err(Invalid(format!(
                    "`expect.ptp` grandmaster {gm:?} is not a clock identity like 0xec:46:70:ff:fe:00:ff:a8"
                )));
            }
        }
        if self.allowed_clock_classes.is_empty() {
            return Err(
                "`expect.ptp.allowed_clock_classes` is empty: no grandmaster could pass".into(),
            );
        }
        Ok(())
    }

    /// Problems with the grandmaster's quality (class, accuracy) in `show ptp masters`.
    pub fn judge_quality(&self, m: &PtpMasters, problems: &mut Vec<String>) {
        if !self.allowed_clock_classes.contains(&m.clock_class) {
            problems.push(format!(
                "grandmaster clock class {} ({}), allowed {:?}",
                m.clock_class,
                class_meaning(m.clock_class),
                self.allowed_clock_classes
            ));
        }
        if let Some(a) = m.clock_accuracy
            && a > self.max_clock_accuracy
        {
            problems.push(format!(
                "grandmaster clock accuracy 0x{a:02X} ({}), limit 0x{:02X} ({})",
                accuracy_meaning(a),
                self.max_clock_accuracy,
                accuracy_meaning(self.max_clock_accuracy)
            ));
        }
    }

    /// When the switch follows an allowed grandmaster and that grandmaster is not good (its
    /// class or accuracy), the fault is the grandmaster's: the words that lead with it. `gm`
    /// is its identity, `via` how the switch follows it (`Ethernet1, offset -11 ns`).
    pub fn grandmaster_fault(&self, gm: &str, m: &PtpMasters, via: &str) -> Option<GmFault> {
        let class = m.clock_class;
        let class_bad = !self.allowed_clock_classes.contains(&class);
        let accuracy_bad = m.clock_accuracy.filter(|a| *a > self.max_clock_accuracy);
        let (lead, finding, what) = match (class_bad, class_state(class), accuracy_bad) {
            (true, ClassState::Holdover, _) => (
                format!("grandmaster {gm} in holdover (clock class {class})"),
                "PTP grandmaster in holdover",
                format!(
                    "it announces clock class {class} ({}), so it lost its reference and keeps time on its own oscillator, drifting",
                    class_meaning(class)
                ),
            ),
            (true, ClassState::FreeRunning, _) => (
                format!("grandmaster {gm} free-running (clock class {class})"),
                "PTP grandmaster free-running",
                format!(
                    "it announces clock class {class} ({}), so its time is traceable to nothing",
                    class_meaning(class)
                ),
            ),
            (true, _, _) => (
                format!(
                    "grandmaster {gm} announces clock class {class} ({})",
                    class_meaning(class)
                ),
                "PTP grandmaster clock class not allowed",
                format!(
                    "it announces clock class {class} ({}), which this site does not allow",
                    class_meaning(class)
                ),
            ),
            (false, _, Some(a)) => (
                format!(
                    "grandmaster {gm} accuracy 0x{a:02X} ({}), limit 0x{:02X}",
                    accuracy_meaning(a),
                    self.max_clock_accuracy
                ),
                "PTP grandmaster accuracy",
                format!(
                    "it announces clock accuracy 0x{a:02X} ({}), worse than the limit 0x{:02X} ({})",
                    accuracy_meaning(a),
                    self.max_clock_accuracy,
                    accuracy_meaning(self.max_clock_accuracy)
                ),
            ),
            (false, _, None) => return None,
        };
        let classes = self
            .allowed_clock_classes
            .iter()
            .map(u8::to_string)
            .collect::<Vec<_>>()
            .join(" or ");
        let backups: Vec<String> = self.allowed().into_iter().filter(|g| g != gm).collect();
        let backup = match backups.as_slice() {
            [] => String::new(),
            b => format!(
                ", or fail over to the backup grandmaster ({})",
                b.join(", ")
            ),
        };
        let remedy = format!(
            "Start at the grandmaster {gm}: {what}. Check its reference (GNSS antenna, cable and receiver lock) and its alarms{backup}. The switch follows it correctly ({via}): nothing to change on the switch. Timestamps of orders and market data drift until the grandmaster is locked again; once it announces clock class {classes}, rerun `premarket check eos.ptp.synchronised`."
        );
        Some(GmFault {
            lead,
            finding,
            remedy,
        })
    }

    /// Problems with the path to the grandmaster (mean path delay, steps removed).
    pub fn judge_path(
        &self,
        mean_path_delay_ns: Option<i64>,
        steps_removed: Option<u32>,
        problems: &mut Vec<String>,
    ) {
        if let Some(d) = mean_path_delay_ns
            && d.unsigned_abs() > self.max_mean_path_delay_ns
        {
            problems.push(format!(
                "mean path delay {d} ns, beyond {} ns",
                self.max_mean_path_delay_ns
            ));
        }
        if let (Some(max), Some(steps)) = (self.max_steps_removed, steps_removed)
            && steps > max
        {
            problems.push(format!("steps removed {steps}, more than {max}"));
        }
    }
}
