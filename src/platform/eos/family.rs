//! EOS model families: which switch a `modelName` is, and which of premarket's commands each
//! family has (research-18-19 §2). The family comes from the model name alone (`DCS-` or `CCS-`,
//! then series digits, then the generation letter): `DCS-7280SR3-48YC8` is a 7280R3 (Jericho2,
//! VOQ), `DCS-7050SX-64-R` a 7050X (Trident2), `DCS-7150S-24-CL-R` a 7150S (FM6000), `cEOSLab` a
//! virtual switch. A name premarket does not know gives no family: every model-dependent
//! command is then sent, and a "no such command" answer is a SKIP rather than an ERROR.
//!
//! Each [`Availability`] below is the table row of one command: where it exists, and why not
//! elsewhere. The checks read whichever source the model has (queue drops on VOQ families,
//! egress queue counters on Trident/Tomahawk, discards where neither is documented).

use premarket_parse::{AnyQuery, Applies, Availability, Model};

use super::ShowVersion;

/// The forwarding hardware behind a family: what decides which counters exist.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Asic {
    /// Jericho/Arad ("Sand"): virtual output queues, `show interfaces counters queue drops`.
    Sand,
    /// Trident/Tomahawk ("Strata"): egress queues, `... queue detail`.
    Strata,
    /// Intel/Fulcrum FM6000 (7150S).
    Fm6000,
    /// FPGA (7130): LANZ from 4.29.1F only.
    Fpga,
    /// cEOS-lab, vEOS: no forwarding hardware at all.
    Virtual,
}

/// A switch family: `7280R3`, `7050X`, `7150S`, `virtual`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    pub name: String,
    pub asic: Asic,
}

/// Series with egress-queue (non-VOQ) Trident or Tomahawk silicon.
const STRATA_SERIES: [u32; 11] = [7050, 7060, 7010, 7300, 7250, 7260, 7358, 720, 722, 710, 750];

impl Family {
    /// The family of a `modelName`; `None` for a name premarket does not know.
    pub fn of(model: &str) -> Option<Family> {
        let name = model.trim();
        let lower = name.to_ascii_lowercase();
        if lower.starts_with("ceos") || lower.starts_with("veos") {
            return Some(Family {
                name: "virtual".into(),
                asic: Asic::Virtual,
            });
        }
        let bare = ["DCS-", "CCS-"]
            .iter()
            .find_map(|p| name.strip_prefix(p))
            .unwrap_or(name);
        let token = bare.split('-').next().unwrap_or_default();
        let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
        let rest = &token[digits.len()..];
        if !(3..=4).contains(&digits.len()) {
            return None;
        }
        let series: u32 = digits.parse().ok()?;
        let generation = generation(rest);
        // A chassis name carries a slot count (`7504N`, `7816-SUP`), not a generation letter.
        let chassis = if generation.starts_with(['R', 'E']) {
            generation.as_str()
        } else {
            ""
        };
        let (label, asic) = match series {
            7280 | 7020 => (format!("{series}{generation}"), Asic::Sand),
            7500..=7599 => (format!("7500{chassis}"), Asic::Sand),
            7800..=7899 => (format!("7800{chassis}"), Asic::Sand),
            7150 => ("7150S".to_string(), Asic::Fm6000),
            7130 => ("7130".to_string(), Asic::Fpga),
            s if STRATA_SERIES.contains(&s) => (format!("{series}{generation}"), Asic::Strata),
            _ => return None,
        };
        Some(Family { name: label, asic })
    }
}

/// The generation part of a series token's letters: the first `R`, `E` or `X` with the digits
/// after it (`SR3` -> `R3`, `SX3` -> `X3`, `TRA` -> `R`), else the letters as printed (`T`).
fn generation(rest: &str) -> String {
    match rest.find(['R', 'E', 'X']) {
        Some(i) => {
            let tail = &rest[i + 1..];
            let digits: String = tail.chars().take_while(char::is_ascii_digit).collect();
            format!("{}{digits}", &rest[i..=i])
        }
        None => rest.chars().take_while(char::is_ascii_alphabetic).collect(),
    }
}

/// One model per family, for the table of what runs where (`premarket list --models`).
pub const EXAMPLES: &[(&str, &str)] = &[
    ("7280R, 7500R, 7800R, 7020R (VOQ)", "DCS-7280SR3-48YC8"),
    ("7050X, 7060X, 7010T, 720XP", "DCS-7050SX3-48YC12"),
    ("7150S", "DCS-7150S-64-CL-R"),
    ("7130", "DCS-7130-48LB"),
    ("cEOS, vEOS", "cEOSLab"),
    ("a model premarket does not know", "DCS-9999X"),
];

/// The EOS identity query: `show version | json` names the model.
fn identity() -> Box<dyn AnyQuery> {
    Box::new(ShowVersion)
}

/// What a family has, or `Unknown` for a model premarket does not know.
fn by_family(model: &Model, answer: fn(&Family) -> Applies) -> Applies {
    match Family::of(&model.name) {
        Some(family) => answer(&family),
        None => Applies::Unknown,
    }
}

fn no(text: String) -> Applies {
    Applies::No(text)
}

/// `show interfaces counters queue drops | json`: VOQ (Sand) families only (ANTA PR #1210);
/// a 7050X answers `% Incomplete command`.
pub const VOQ_DROPS: Availability = Availability {
    identity,
    condition: "VOQ families (7280R, 7280E, 7500R/E, 7800R3, 7020R)",
    applies: |model| {
        by_family(model, |f| match f.asic {
            Asic::Sand => Applies::Yes,
            Asic::Strata => no(format!(
                "a {} has no VOQ drop counters (`queue drops` is a 7280R/7500R/7800R/7020R command); its egress queues are read instead",
                f.name
            )),
            Asic::Virtual => no("a virtual switch has no hardware queues".into()),
            _ => no(format!("a {} has no VOQ drop counters", f.name)),
        })
    },
};

/// `show interfaces counters queue detail | json`: egress queue drops per traffic class on
/// Trident/Tomahawk families (ANTA PR #1223, "non-Jericho").
pub const EGRESS_QUEUES: Availability = Availability {
    identity,
    condition: "Trident/Tomahawk families (7050X, 7060X, 7010T, 720XP, 7300X)",
    applies: |model| match Family::of(&model.name) {
        Some(f) => match f.asic {
            Asic::Strata => Applies::Yes,
            Asic::Sand => no(format!("a {} counts drops per VOQ (`queue drops`)", f.name)),
            Asic::Virtual => no("a virtual switch has no hardware queues".into()),
            _ => no(format!(
                "egress queue counters are not documented on a {}",
                f.name
            )),
        },
        // An unknown model is asked for VOQ drops and discards instead.
        None => no("a model premarket does not know is asked for VOQ drops and discards".into()),
    },
};

/// `show interfaces counters discards | json`: on every family, read where neither queue
/// source is documented (7150S, 7130, a model premarket does not know).
pub const DISCARDS: Availability = Availability {
    identity,
    condition: "families without queue drop counters (7150S, 7130, unknown models)",
    applies: |model| {
        by_family(model, |f| match f.asic {
            Asic::Sand => no(format!("a {} counts its drops per VOQ instead", f.name)),
            Asic::Strata => no(format!(
                "a {} counts its drops per egress queue instead",
                f.name
            )),
            Asic::Virtual => no("a virtual switch has no hardware queues".into()),
            Asic::Fm6000 | Asic::Fpga => Applies::Unknown,
        })
    },
};

/// LANZ (`show queue-monitor length ...`): every hardware family (7130 only from 4.29.1F).
pub const LANZ: Availability = Availability {
    identity,
    condition: "hardware switches (the 7130 from EOS 4.29.1F)",
    applies: |model| {
        by_family(model, |f| match f.asic {
            Asic::Virtual => no("a virtual switch has no LANZ".into()),
            Asic::Fpga => Applies::Unknown,
            _ => Applies::Yes,
        })
    },
};

/// `show ptp`: VOQ families have PTP; on others it depends on the model (a switch without
/// answers `% Incomplete command`, ANTA PR #1299).
pub const PTP: Availability = Availability {
    identity,
    condition: "PTP hardware (7280R, 7500R, 7800R, 7020R; other families per model)",
    applies: |model| {
        by_family(model, |f| match f.asic {
            Asic::Sand => Applies::Yes,
            Asic::Virtual => no("a virtual switch has no PTP hardware".into()),
            _ => Applies::Unknown,
        })
    },
};

/// `show interfaces transceiver dom thresholds`: optics with thresholds on hardware switches;
/// which 4.2x release added the command is not known, so on 4.2x a refusal is a SKIP.
pub const DOM_THRESHOLDS: Availability = Availability {
    identity,
    condition: "hardware switches with optics (on EOS 4.2x per release)",
    applies: |model| match Family::of(&model.name) {
        Some(f) if f.asic == Asic::Virtual => no("a virtual switch has no transceivers".into()),
        Some(_) if release_at_least(&model.version, (4, 30)) => Applies::Yes,
        _ => Applies::Unknown,
    },
};

/// `show hardware counter drop`: Sand platforms only (7280R, 7500R, 7800R, 7700R, 7020R);
/// elsewhere `% Unavailable command (not supported on this hardware platform)` (ANTA's tests).
pub const SAND_DROPS: Availability = Availability {
    identity,
    condition: "Sand families (7280R, 7500R, 7800R, 7020R)",
    applies: |model| {
        by_family(model, |f| match f.asic {
            Asic::Sand => Applies::Yes,
            Asic::Virtual => no("a virtual switch has no forwarding chips".into()),
            _ => no(format!(
                "a {} has no Sand chip (`show hardware counter drop` is a 7280R/7500R/7800R/7020R command)",
                f.name
            )),
        })
    },
};

/// Whether an EOS release (`4.31.6M`, `4.22.4M-2GB`) is at least `major.minor`.
pub fn release_at_least(version: &str, (major, minor): (u32, u32)) -> bool {
    let mut parts = version.split(['.', '-']);
    let number = |p: Option<&str>| p.and_then(|p| p.parse::<u32>().ok());
    match (number(parts.next()), number(parts.next())) {
        (Some(a), Some(b)) => (a, b) >= (major, minor),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_from_model_names() {
        let cases = [
            ("DCS-7280SR3-48YC8", Some(("7280R3", Asic::Sand))),
            ("DCS-7280SR3-48YC8-F", Some(("7280R3", Asic::Sand))),
            ("DCS-7280CR3-32P4-F", Some(("7280R3", Asic::Sand))),
            ("DCS-7280SR2-48YC6", Some(("7280R2", Asic::Sand))),
            ("DCS-7280SE-64", Some(("7280E", Asic::Sand))),
            ("DCS-7280TR-48C6", Some(("7280R", Asic::Sand))),
            ("DCS-7020TRA-48", Some(("7020R", Asic::Sand))),
            ("DCS-7508", Some(("7500", Asic::Sand))),
            ("DCS-7504N", Some(("7500", Asic::Sand))),
            ("DCS-7816-SUP", Some(("7800", Asic::Sand))),
            ("DCS-7050SX-64", Some(("7050X", Asic::Strata))),
            ("DCS-7050SX-64-R", Some(("7050X", Asic::Strata))),
            ("DCS-7050QX-32S", Some(("7050X", Asic::Strata))),
            ("DCS-7050SX3-48YC12", Some(("7050X3", Asic::Strata))),
            ("DCS-7050CX3-32S", Some(("7050X3", Asic::Strata))),
            ("DCS-7050TX-64-R", Some(("7050X", Asic::Strata))),
            ("DCS-7060CX2-32S", Some(("7060X2", Asic::Strata))),
            ("DCS-7060X6-32PE-F", Some(("7060X6", Asic::Strata))),
            ("DCS-7010T-48-R", Some(("7010T", Asic::Strata))),
            ("CCS-720XP-24ZY4-F", Some(("720X", Asic::Strata))),
            ("DCS-7150S-64-CL-R", Some(("7150S", Asic::Fm6000))),
            ("DCS-7150SC-24-CLD", Some(("7150S", Asic::Fm6000))),
            ("cEOSLab", Some(("virtual", Asic::Virtual))),
            ("vEOS-lab", Some(("virtual", Asic::Virtual))),
            ("DCS-9999X", None),
            ("", None),
            ("Arista", None),
        ];
        for (model, want) in cases {
            let got = Family::of(model).map(|f| (f.name, f.asic));
            assert_eq!(got, want.map(|(n, a)| (n.to_string(), a)), "{model}");
        }
    }

    #[test]
    fn each_command_row_answers_per_family() {
        let m = |name: &str, version: &str| Model::new(name, version);
        let voq = m("DCS-7280SR3-48YC8", "4.31.6M");
        let strata = m("DCS-7050SX-64-R", "4.22.4M-2GB");
        let fm = m("DCS-7150S-24-CL-R", "4.23.3M");
        let unknown = m("DCS-9999X", "4.33.0F");
        let lab = m("cEOSLab", "4.32.0F");
        assert_eq!((VOQ_DROPS.applies)(&voq), Applies::Yes);
        assert!(
            matches!((VOQ_DROPS.applies)(&strata), Applies::No(w) if w.contains("7050X has no VOQ"))
        );
        assert_eq!((VOQ_DROPS.applies)(&unknown), Applies::Unknown);
        assert_eq!((EGRESS_QUEUES.applies)(&strata), Applies::Yes);
        assert!(matches!((EGRESS_QUEUES.applies)(&voq), Applies::No(_)));
        assert!(matches!((EGRESS_QUEUES.applies)(&unknown), Applies::No(_)));
        assert_eq!((DISCARDS.applies)(&fm), Applies::Unknown);
        assert_eq!((DISCARDS.applies)(&unknown), Applies::Unknown);
        assert!(matches!((DISCARDS.applies)(&strata), Applies::No(_)));
        assert!(matches!((LANZ.applies)(&lab), Applies::No(_)));
        assert_eq!((LANZ.applies)(&strata), Applies::Yes);
        assert_eq!((PTP.applies)(&strata), Applies::Unknown);
        assert_eq!((PTP.applies)(&voq), Applies::Yes);
        assert_eq!((SAND_DROPS.applies)(&voq), Applies::Yes);
        assert!(
            matches!((SAND_DROPS.applies)(&strata), Applies::No(w) if w.contains("7050X has no Sand chip"))
        );
        assert!(matches!((SAND_DROPS.applies)(&fm), Applies::No(_)));
        assert!(matches!((SAND_DROPS.applies)(&lab), Applies::No(_)));
        assert_eq!((SAND_DROPS.applies)(&unknown), Applies::Unknown);
        assert_eq!((DOM_THRESHOLDS.applies)(&voq), Applies::Yes);
        assert_eq!((DOM_THRESHOLDS.applies)(&strata), Applies::Unknown);
        assert!(release_at_least("4.31.6M", (4, 30)));
        assert!(!release_at_least("4.22.4M-2GB", (4, 30)));
        assert!(!release_at_least("", (4, 30)));
    }
}
