//! FortiGate model families: which network processor a model has, read from the name `get
//! system status` prints (`FortiGate-601F`, `FortiWiFi-60F`, `FortiGate-VM64-KVM`). The NP
//! decides which `diagnose npu ... port-list` command exists: `np7` on NP7 boxes, `np7lite`
//! on the 200G/201G, `np6`/`np6lite`/`np6xlite` on the E/D series and the F-series desktops.
//!
//! Sources: Fortinet CLI reference "config system np6xlite" (7.2.8, 7.6.6: the NP6XLite
//! model list), Hardware Acceleration guides (6.4-7.6: NP6, NP6Lite, NP7 architecture pages,
//! `diagnose npu np6lite npu-feature` from a 200E), research-18-19 §3.3. A model not listed
//! gives no family: every model-dependent command is then sent, and a "no such command"
//! answer is a SKIP rather than an ERROR.
//!
//! Some NP7 models also have ultra-low-latency (ULL) ports, wired to the NP7 without the
//! internal switch fabric (ISF): low latency only when traffic enters and exits through them.
//! The table lists only what Fortinet's Hardware Acceleration pages name port by port (400F/401F
//! and 600F/601F: x5-x8; 3700F/3701F: ports 1-4); the 900G/901G is said to have ULL ports but
//! no page names them, so it has no entry (a baseline declares them: `ull_ports`).

use premarket_parse::{AnyQuery, Applies, Availability, Model};

use super::npu_ports::Np;
use super::status::GetSystemStatus;

/// A FortiGate family: the model series and its network processor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Family {
    /// `601F`, `VM`.
    pub series: String,
    /// `None`: no NP at all (FortiGate-VM).
    pub np: Option<Np>,
    /// Its ultra-low-latency ports, as `get system interface` names them; empty when the
    /// model has none or premarket does not know which.
    pub ull_ports: &'static [&'static str],
}

/// (NP, the model numbers and letter of its family), as the Fortinet model lists name them.
const NP_MODELS: &[(Np, char, &[u32])] = &[
    // The lab notes' 200G/201G.
    (Np::Np7lite, 'G', &[200, 201]),
    (Np::Np7, 'G', &[400, 401, 900, 901]),
    (
        Np::Np7,
        'F',
        &[
            400, 401, 600, 601, 1000, 1001, 1800, 1801, 2600, 2601, 3000, 3001, 3200, 3201, 3500,
            3501, 3700, 3701, 4200, 4201, 4400, 4401, 4800, 4801,
        ],
    ),
    // "config system np6xlite ... available for" (CLI reference 7.2.8 and 7.6.6).
    (
        Np::Np6xlite,
        'F',
        &[40, 60, 61, 70, 71, 80, 81, 100, 101, 200, 201],
    ),
    // SoC3 desktops and the 200E (Hardware Acceleration guide: NP6Lite output from a 200E).
    (Np::Np6lite, 'E', &[60, 61, 80, 81, 100, 101, 140, 200, 201]),
    (
        Np::Np6,
        'E',
        &[
            300, 301, 400, 401, 500, 501, 600, 601, 1100, 1101, 2000, 2200, 2201, 2500, 3300, 3301,
            3400, 3401, 3600, 3601, 3960, 3980,
        ],
    ),
    (
        Np::Np6,
        'D',
        &[
            300, 400, 500, 600, 800, 900, 1000, 1200, 1500, 3000, 3100, 3200, 3700, 3800, 3810,
            3815,
        ],
    ),
];

/// (letter, model numbers, ULL ports). Sources: Fortinet Hardware Acceleration guide, "FortiGate
/// 600F and 601F fast path architecture" (7.0.7, page 589036: "traffic must enter and exit the
/// FortiGate through the X5 to X8 interfaces"), "400F and 401F" (7.2.9, 785717: x5-x8), "3700F
/// and 3701F" (7.0.10, 753806: front ports 1-4 directly on NP#0). The 400G/401G and 1000F/1001F
/// pages name none (every data port crosses the ISF).
const ULL_MODELS: &[(char, &[u32], &[&str])] = &[
    ('F', &[400, 401, 600, 601], &["x5", "x6", "x7", "x8"]),
    ('F', &[3700, 3701], &["port1", "port2", "port3", "port4"]),
];

impl Family {
    /// The family of a model name; `None` for a model premarket does not know.
    pub fn of(model: &str) -> Option<Family> {
        let name = model.trim();
        let rest = ["FortiGate-", "FortiWiFi-", "FortiGateRugged-"]
            .iter()
            .find_map(|p| name.strip_prefix(p))?;
        let token = rest.split('-').next().unwrap_or_default();
        if token.starts_with("VM") {
            return Some(Family {
                series: "VM".into(),
                np: None,
                ull_ports: &[],
            });
        }
        let digits: String = token.chars().take_while(char::is_ascii_digit).collect();
        let letter = token[digits.len()..].chars().next()?;
        let number: u32 = digits.parse().ok()?;
        NP_MODELS
            .iter()
            .find(|(_, l, numbers)| *l == letter && numbers.contains(&number))
            .map(|(np, _, _)| Family {
                series: format!("{number}{letter}"),
                np: Some(*np),
                ull_ports: ULL_MODELS
                    .iter()
                    .find(|(l, numbers, _)| *l == letter && numbers.contains(&number))
                    .map_or(&[], |(_, _, ports)| *ports),
            })
    }
}

/// One model per family, for the table of what runs where (`premarket list --models`).
pub const EXAMPLES: &[(&str, &str)] = &[
    ("200G, 201G (NP7Lite)", "FortiGate-201G"),
    ("400F-4800F, 400G, 900G (NP7)", "FortiGate-601F"),
    ("300E-3980E, 300D-3815D (NP6)", "FortiGate-600E"),
    ("60E-201E (NP6Lite)", "FortiGate-200E"),
    ("40F-201F (NP6XLite)", "FortiGate-60F"),
    ("FortiGate-VM (no NP)", "FortiGate-VM64-KVM"),
    ("a model premarket does not know", "FortiGate-9999Z"),
];

/// The FortiGate identity query: `get system status` names the model.
fn identity() -> Box<dyn AnyQuery> {
    Box::new(GetSystemStatus)
}

/// Whether `model` has the port list of `np`.
fn has_port_list(model: &Model, np: Np) -> Applies {
    match Family::of(&model.name) {
        None => Applies::Unknown,
        Some(Family { np: None, .. }) => Applies::No(format!(
            "a {} has no network processor: nothing is offloaded",
            model.name
        )),
        Some(Family { np: Some(has), .. }) if has == np => Applies::Yes,
        Some(Family { np: Some(has), .. }) => Applies::No(format!(
            "a {} has an {} (`diagnose npu {} port-list`), not an {}: the baseline's `np:` names the wrong processor",
            model.name,
            has.label(),
            has.word(),
            np.label()
        )),
    }
}

/// `diagnose npu <np> port-list`, one row per NP generation.
pub const PORT_LIST_NP7: Availability = Availability {
    identity,
    condition: "NP7 models (400F-4800F, 400G, 900G)",
    applies: |m| has_port_list(m, Np::Np7),
};
pub const PORT_LIST_NP7LITE: Availability = Availability {
    identity,
    condition: "NP7Lite models (200G, 201G)",
    applies: |m| has_port_list(m, Np::Np7lite),
};
pub const PORT_LIST_NP6: Availability = Availability {
    identity,
    condition: "NP6 models (300E-3980E, 300D-3815D)",
    applies: |m| has_port_list(m, Np::Np6),
};
pub const PORT_LIST_NP6LITE: Availability = Availability {
    identity,
    condition: "NP6Lite models (60E-201E)",
    applies: |m| has_port_list(m, Np::Np6lite),
};
pub const PORT_LIST_NP6XLITE: Availability = Availability {
    identity,
    condition: "NP6XLite models (40F-201F)",
    applies: |m| has_port_list(m, Np::Np6xlite),
};

/// `show system virtual-switch`: on models with a switch chip (hardware switches); which
/// models have one is not tabulated here, so it is sent to every hardware model and a
/// refusal is a SKIP. A FortiGate-VM has no switch chip.
pub const HARDWARE_SWITCH: Availability = Availability {
    identity,
    condition: "models with a switch chip (hardware switches)",
    applies: |m| match Family::of(&m.name) {
        Some(Family { np: None, .. }) => Applies::No(format!("a {} has no switch chip", m.name)),
        _ => Applies::Unknown,
    },
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_of_model_names() {
        for (name, np) in [
            ("FortiGate-201G", Some(Np::Np7lite)),
            ("FortiGate-601F", Some(Np::Np7)),
            ("FortiGate-1801F", Some(Np::Np7)),
            ("FortiGate-400G", Some(Np::Np7)),
            ("FortiGate-600E", Some(Np::Np6)),
            ("FortiGate-1500D", Some(Np::Np6)),
            ("FortiGate-200E", Some(Np::Np6lite)),
            ("FortiGate-60E-POE", Some(Np::Np6lite)),
            ("FortiGate-60F", Some(Np::Np6xlite)),
            ("FortiWiFi-61F", Some(Np::Np6xlite)),
            ("FortiGate-VM64-KVM", None),
        ] {
            assert_eq!(Family::of(name).map(|f| f.np), Some(np), "{name}");
        }
        for unknown in [
            "FortiGate-9999Z",
            "FortiGate-",
            "DCS-7280SR3-48YC8",
            "FortiGate-120G",
        ] {
            assert_eq!(Family::of(unknown), None, "{unknown}");
        }
    }

    #[test]
    fn ull_ports_by_model() {
        let ull = |name: &str| Family::of(name).map(|f| f.ull_ports);
        for name in [
            "FortiGate-600F",
            "FortiGate-601F",
            "FortiGate-400F",
            "FortiGate-401F",
        ] {
            assert_eq!(ull(name), Some(&["x5", "x6", "x7", "x8"][..]), "{name}");
        }
        assert_eq!(
            ull("FortiGate-3701F"),
            Some(&["port1", "port2", "port3", "port4"][..])
        );
        // No ULL ports, or none a public page names (900G): nothing to judge.
        for name in [
            "FortiGate-201G",
            "FortiGate-600E",
            "FortiGate-100F",
            "FortiGate-400G",
            "FortiGate-900G",
            "FortiGate-1001F",
            "FortiGate-VM64-KVM",
        ] {
            assert_eq!(ull(name), Some(&[][..]), "{name}");
        }
    }

    #[test]
    fn port_lists_by_family() {
        let m = |name: &str| Model::new(name, "7.6.3");
        assert_eq!((PORT_LIST_NP7.applies)(&m("FortiGate-601F")), Applies::Yes);
        assert_eq!(
            (PORT_LIST_NP7.applies)(&m("FortiGate-9999Z")),
            Applies::Unknown
        );
        let Applies::No(why) = (PORT_LIST_NP7.applies)(&m("FortiGate-600E")) else {
            panic!("a 600E has no NP7");
        };
        assert!(
            why.contains("an NP6 (`diagnose npu np6 port-list`)"),
            "{why}"
        );
        assert!(matches!(
            (PORT_LIST_NP6XLITE.applies)(&m("FortiGate-VM64-KVM")),
            Applies::No(_)
        ));
        assert_eq!(
            (PORT_LIST_NP6LITE.applies)(&m("FortiGate-200E")),
            Applies::Yes
        );
    }
}
