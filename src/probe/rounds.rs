//! ABBA rounds (on, off, off, on): the on/off effect with linear drift cancelled.
//!
//! Effect = mean(on medians) - mean(off medians); drift = on2 - on1 and off2 - off1. A drift
//! larger than max(100 ns, 5 % of the effect) is a warning: something other than the setting
//! moved between rounds. The lab: offload rounds 4.1 us, off rounds 18.93 and 18.97 us raw,
//! drift 40 ns against a 14.4 us effect.

use serde::Serialize;

use super::units::Nanos;

/// One round's setting as given to `--rounds`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Round {
    pub index: usize,
    pub label: String,
}

/// Parses `on,off,off,on` (any labels; "on" and "off" are what ABBA compares).
pub fn parse(spec: &str) -> Result<Vec<Round>, String> {
    let rounds: Vec<Round> = spec
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .enumerate()
        .map(|(index, label)| Round {
            index,
            label: label.to_ascii_lowercase(),
        })
        .collect();
    if rounds.is_empty() {
        return Err("--rounds lists no round".into());
    }
    if rounds.len() > 255 {
        return Err("--rounds lists more than 255 rounds".into());
    }
    Ok(rounds)
}

/// The ABBA summary.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Abba {
    pub on_ns: Vec<Nanos>,
    pub off_ns: Vec<Nanos>,
    pub effect_ns: Option<f64>,
    pub drift_on_ns: Option<i64>,
    pub drift_off_ns: Option<i64>,
    /// A drift larger than this warns: max(100 ns, 5 % of the effect).
    pub drift_limit_ns: f64,
    pub warning: Option<String>,
}

fn mean(v: &[Nanos]) -> Option<f64> {
    (!v.is_empty()).then(|| v.iter().map(|x| x.0 as f64).sum::<f64>() / v.len() as f64)
}

/// Summarises the medians of labelled rounds.
pub fn abba(medians: &[(String, Option<Nanos>)]) -> Abba {
    let pick = |label: &str| -> Vec<Nanos> {
        medians
            .iter()
            .filter(|(l, _)| l == label)
            .filter_map(|(_, m)| *m)
            .collect()
    };
    let (on, off) = (pick("on"), pick("off"));
    let effect = mean(&on).zip(mean(&off)).map(|(a, b)| a - b);
    let drift = |v: &[Nanos]| (v.len() >= 2).then(|| v[v.len() - 1].0 - v[0].0);
    let (drift_on, drift_off) = (drift(&on), drift(&off));
    let limit = effect.map_or(100.0, |e| (e.abs() * 0.05).max(100.0));
    let worst = [drift_on, drift_off]
        .into_iter()
        .flatten()
        .map(i64::abs)
        .max();
    let warning = worst.filter(|d| *d as f64 > limit).map(|d| {
        format!("rounds with the same setting differ by {d} ns (more than {limit:.0} ns): something besides the setting changed between rounds")
    });
    Abba {
        on_ns: on,
        off_ns: off,
        effect_ns: effect,
        drift_on_ns: drift_on,
        drift_off_ns: drift_off,
        drift_limit_ns: limit,
        warning,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(label: &str, ns: i64) -> (String, Option<Nanos>) {
        (label.to_string(), Some(Nanos(ns)))
    }

    #[test]
    fn lab_rounds_give_the_effect_and_a_small_drift() {
        let a = abba(&[
            m("on", 4_100),
            m("off", 18_930),
            m("off", 18_970),
            m("on", 4_100),
        ]);
        assert_eq!(a.effect_ns, Some(4_100.0 - 18_950.0));
        assert_eq!((a.drift_on_ns, a.drift_off_ns), (Some(0), Some(40)));
        assert_eq!(a.warning, None);
    }

    #[test]
    fn linear_drift_cancels_in_the_effect() {
        // +50 ns per round on top of on = 4100, off = 18500.
        let a = abba(&[
            m("on", 4_100),
            m("off", 18_550),
            m("off", 18_600),
            m("on", 4_250),
        ]);
        assert_eq!(a.effect_ns, Some(-14_400.0));
    }

    #[test]
    fn large_drift_warns() {
        let a = abba(&[
            m("on", 4_100),
            m("off", 18_930),
            m("off", 19_930),
            m("on", 4_100),
        ]);
        assert!(a.warning.unwrap().contains("1000 ns"));
    }

    #[test]
    fn parse_rounds() {
        let r = parse("on, OFF,off,on").unwrap();
        assert_eq!(
            r.iter().map(|r| r.label.as_str()).collect::<Vec<_>>(),
            ["on", "off", "off", "on"]
        );
        assert!(parse(" , ").is_err());
    }
}
