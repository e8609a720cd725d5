//! Why and when the switch last booted: `show reload cause` (JSON keys from ANTA's data, text
//! from a real ntc-templates capture) and `show uptime | json`. A healthy switch was reloaded
//! by an operator twelve days ago; `rebooted` lost power seconds before the lab started.

use chrono::{TimeZone, Utc};

use super::json::{J, obj};
use super::state::EosState;

/// (description, when) of the last reload.
fn cause(s: &EosState) -> (&'static str, f64) {
    let description = if s.rebooted() {
        // The real text form; the JSON description of a power loss is unconfirmed.
        "The system rebooted due to a Power Loss"
    } else {
        "Reload requested by the user."
    };
    (description, (s.booted - 40.0).floor())
}

pub fn reload_cause_json(s: &EosState) -> String {
    let (description, when) = cause(s);
    obj! {
        "resetCauses" => J::arr([obj! {
            "recommendedAction" => "No action necessary.",
            "description" => description,
            "timestamp" => when,
            "debugInfoIsDir" => false,
        }]),
        "full" => false,
    }
    .render()
}

pub fn reload_cause_text(s: &EosState) -> String {
    let (description, when) = cause(s);
    let at = Utc
        .timestamp_opt(when as i64, 0)
        .single()
        .map(|t| t.format("%a %b %e %H:%M:%S %Y").to_string())
        .unwrap_or_default();
    format!(
        "Reload Cause 1:\n-------------------\n{description}\n\n\
         Reload Time:\n------------\nReload occurred at {at} UTC.\n\n\
         Recommended Action:\n-------------------\nNo action necessary.\n\n\
         Debugging Information:\n----------------------\nNone available.\n"
    )
}

/// `show uptime | json` (ANTA's `VerifyUptime` reads `upTime`).
pub fn uptime_json(s: &EosState, now: f64) -> String {
    obj! {
        "upTime" => (s.uptime(now) * 100.0).round() / 100.0,
        "loadAvg" => J::arr([J::from(0.21), J::from(0.18), J::from(0.16)]),
        "users" => 1u32,
        "currentTime" => now,
    }
    .render()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::{Fault, Faults};
    use super::*;

    #[test]
    fn cause_follows_the_scenario() {
        let ok = EosState::new("sw1", 1, &Faults::default());
        assert!(reload_cause_json(&ok).contains("\"Reload requested by the user.\""));
        let r = EosState::new("sw1", 1, &Faults::only(Fault::Rebooted));
        assert!(reload_cause_text(&r).contains("\nThe system rebooted due to a Power Loss\n"));
        let v: serde_json::Value = serde_json::from_str(&uptime_json(&r, r.started)).unwrap();
        assert_eq!(v["upTime"], 35.0);
    }
}
