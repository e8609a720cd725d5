//! `show ptp masters | json`: the grandmaster's clock quality, which `show ptp` does not print.
//!
//! A grandmaster that lost its GPS keeps its identity and goes into holdover: only its clock
//! class (and accuracy) tell. Only `parent.gmClockQuality.clockClass` is confirmed by a public
//! collector (research-18-19 §5.1, netpaca-ptp); `gmClockIdentity`, `clockAccuracy`,
//! `offsetScaledLogVariance` and the priorities are read where printed and are optional, so a
//! release naming them otherwise loses only those measures, never the class.

use serde::{Deserialize, Serialize};

use super::json::required;
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PtpMasters {
    /// The grandmaster's identity, lower case, where printed.
    pub gm_clock_identity: Option<String>,
    /// IEEE 1588 clockClass (6: locked to a primary reference; 7: holdover; 248: free-run).
    pub clock_class: u8,
    /// IEEE 1588 clockAccuracy code (0x21 = within 100 ns ... 0xFE unknown), where printed.
    pub clock_accuracy: Option<u8>,
    pub offset_scaled_log_variance: Option<u16>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    parent: JsonParent,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonParent {
    #[serde(default)]
    gm_clock_identity: Option<String>,
    gm_clock_quality: JsonQuality,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonQuality {
    clock_class: u8,
    #[serde(default)]
    clock_accuracy: Option<u8>,
    #[serde(default)]
    offset_scaled_log_variance: Option<u16>,
}

/// `show ptp masters | json`.
pub struct ShowPtpMasters;

impl Query for ShowPtpMasters {
    const KIND: &'static str = "eos.show-ptp-masters";
    /// Where `show ptp` exists: [`super::family::PTP`].
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::family::PTP);
    type Fact = PtpMasters;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<PtpMasters, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowPtpMasters {
    pub const TEXT: &'static str = "show ptp masters | json";
}

pub fn parse(raw: &str) -> Result<PtpMasters, ParseError> {
    let json: Json = required(raw, "show ptp masters")?;
    let q = json.parent.gm_clock_quality;
    Ok(PtpMasters {
        gm_clock_identity: json.parent.gm_clock_identity.map(|g| g.to_lowercase()),
        clock_class: q.clock_class,
        clock_accuracy: q.clock_accuracy,
        offset_scaled_log_variance: q.offset_scaled_log_variance,
    })
}

/// What a clock class means (IEEE 1588-2008 table 5; ITU-T G.8275.1 for the telecom classes),
/// for the FAIL line.
pub fn class_meaning(class: u8) -> &'static str {
    match class {
        6 => "locked to a primary reference",
        7 => "holdover within specification",
        13 => "locked to an application-specific source",
        14 => "application-specific source, holdover within specification",
        52 | 187 => "holdover out of specification",
        58 | 193 => "application-specific source, holdover out of specification",
        135 => "telecom boundary clock in holdover",
        140 | 150 | 160 => "telecom grandmaster in holdover out of specification",
        165 => "telecom boundary clock in holdover out of specification",
        248 => "free-running (never locked, or lost every reference)",
        255 => "slave-only",
        _ => "a class this site does not allow",
    }
}

/// What a grandmaster announcing a clock class is doing, as far as the class tells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassState {
    /// Locked to its reference: 6 (a primary reference: GNSS), 13 (an application-specific
    /// source). The classes grandmasters announce when locked, in every profile.
    Locked,
    /// Lost its reference and keeps time on its oscillator: 7 and 14 within specification,
    /// 52, 58, 187 and 193 out of it (IEEE 1588 table 5), 135 to 165 (ITU-T G.8275.1).
    Holdover,
    /// 248: never locked, or lost every reference and left holdover.
    FreeRunning,
    /// Reserved, alternate-profile or slave-only classes.
    Other,
}

/// The state a clock class announces.
pub fn class_state(class: u8) -> ClassState {
    match class {
        6 | 13 => ClassState::Locked,
        7 | 14 | 52 | 58 | 187 | 193 | 135 | 140 | 150 | 160 | 165 => ClassState::Holdover,
        248 => ClassState::FreeRunning,
        _ => ClassState::Other,
    }
}

/// The accuracy an IEEE 1588 clockAccuracy code stands for (table 6), for messages.
pub fn accuracy_meaning(code: u8) -> String {
    const STEPS: [&str; 18] = [
        "25 ns", "100 ns", "250 ns", "1 µs", "2.5 µs", "10 µs", "25 µs", "100 µs", "250 µs",
        "1 ms", "2.5 ms", "10 ms", "25 ms", "100 ms", "250 ms", "1 s", "10 s", "> 10 s",
    ];
    match code {
        0x20..=0x31 => format!("within {}", STEPS[usize::from(code - 0x20)]),
        0xFE => "unknown".to_string(),
        _ => "reserved".to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const LOCKED: &str = r#"{"parent": {"parentClockIdentity": "0x00:b0:ae:ff:fe:04:11:7a",
        "gmClockIdentity": "0x00:B0:AE:FF:FE:04:11:7A", "gmPriority1": 128,
        "gmClockQuality": {"clockClass": 6, "clockAccuracy": 33, "offsetScaledLogVariance": 20061}}}"#;

    #[test]
    fn reads_the_class_and_what_else_is_printed() {
        let m = parse(LOCKED).unwrap();
        assert_eq!(
            m,
            PtpMasters {
                gm_clock_identity: Some("0x00:b0:ae:ff:fe:04:11:7a".into()),
                clock_class: 6,
                clock_accuracy: Some(0x21),
                offset_scaled_log_variance: Some(20061),
            }
        );
        let bare = parse(r#"{"parent": {"gmClockQuality": {"clockClass": 7}}}"#).unwrap();
        assert_eq!((bare.clock_class, bare.clock_accuracy), (7, None));
        assert_eq!(accuracy_meaning(0x21), "within 100 ns");
        assert_eq!(accuracy_meaning(0x31), "within > 10 s");
        assert_eq!(accuracy_meaning(0xFE), "unknown");
    }

    #[test]
    fn a_locked_class_is_never_holdover() {
        for class in [6, 13] {
            assert_eq!(class_state(class), ClassState::Locked, "{class}");
            assert!(!class_meaning(class).contains("holdover"), "{class}");
        }
        for class in [7, 14, 52, 58, 187, 193, 135, 140, 150, 160, 165] {
            assert_eq!(class_state(class), ClassState::Holdover, "{class}");
            assert!(class_meaning(class).contains("holdover"), "{class}");
        }
        assert_eq!(class_state(248), ClassState::FreeRunning);
        assert_eq!(class_state(255), ClassState::Other);
    }

    #[test]
    fn damage_is_an_error() {
        for (from, to) in [
            ("\"clockClass\": 6", "\"clockClass\": 600"),
            ("\"clockClass\": 6,", ""),
            ("\"clockAccuracy\": 33", "\"clockAccuracy\": \"0x21\""),
        ] {
            assert!(LOCKED.contains(from), "{from}");
            assert!(parse(&LOCKED.replacen(from, to, 1)).is_err(), "{to}");
        }
        for bad in ["{}", "% Invalid input", "Grandmaster Clock Identity: 0x00"] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
