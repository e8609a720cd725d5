//! The NP6 generation's fast-path switches: `diagnose npu np6|np6lite|np6xlite npu-feature`
//! (what each chip has enabled) and, on NP6XLite models, `show system np6xlite` (where that
//! fast path is configured, per chip). The NP7 generation has neither (its fast path is `config
//! system npu`, read by [`super::npu`]).
//!
//! `npu-feature` prints one column per chip (Hardware Acceleration guide: 60F NP6XLite 567426,
//! 200E NP6Lite 5619):
//! ```text
//!                     np_0      np_1
//! ------------------- --------- ---------
//! Fastpath            Enabled   Enabled
//! HPE-type-shaping    Disabled  Disabled
//! IPv4 firewall       Yes       Yes
//! ```
//! The rows depend on chip and release (the 200E has no multicast rows); feature names have
//! spaces, so the last N cells of a row are the chips' values.
//!
//! `show system np6xlite` prints the non-default settings of each chip (CLI reference 7.2.8
//! 542620, "config system np6xlite"; the guide turns the fast path off with `edit np6xlite_0`,
//! `set fastpath disable`): a factory box prints its entries empty. No real output of it was
//! published; the shape is that of every `show` of a table.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::config_tree;
use super::npu_ports::Np;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{Availability, ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NpuFeatures {
    /// `np_0`, `np_1`, as the header names the chips.
    pub chips: Vec<String>,
    /// Feature -> one value per chip, in the order of `chips` (`Fastpath` -> `[Enabled]`).
    pub features: BTreeMap<String, Vec<String>>,
}

impl NpuFeatures {
    /// The chips whose `Fastpath` is not `Enabled`, with what it says; `None` without the row.
    pub fn fastpath_off(&self) -> Option<Vec<(&str, &str)>> {
        let row = self.features.get("Fastpath")?;
        Some(
            self.chips
                .iter()
                .zip(row)
                .filter(|(_, v)| !v.eq_ignore_ascii_case("enabled"))
                .map(|(c, v)| (c.as_str(), v.as_str()))
                .collect(),
        )
    }
}

/// `diagnose npu <np6|np6lite|np6xlite> npu-feature`.
pub struct DiagNpuFeature(pub &'static str);

impl DiagNpuFeature {
    pub const NP6: &'static str = "diagnose npu np6 npu-feature";
    pub const NP6LITE: &'static str = "diagnose npu np6lite npu-feature";
    pub const NP6XLITE: &'static str = "diagnose npu np6xlite npu-feature";

    /// The command of `np`, for the NP6 generation only.
    pub fn of(np: Np) -> Option<DiagNpuFeature> {
        match np {
            Np::Np6 => Some(DiagNpuFeature(Self::NP6)),
            Np::Np6lite => Some(DiagNpuFeature(Self::NP6LITE)),
            Np::Np6xlite => Some(DiagNpuFeature(Self::NP6XLITE)),
            Np::Np7 | Np::Np7lite => None,
        }
    }
}

impl Query for DiagNpuFeature {
    const KIND: &'static str = "fortigate.diagnose-npu-npu-feature";
    type Fact = NpuFeatures;
    fn command(&self) -> Command {
        Command::new(self.0)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<NpuFeatures, ParseError> {
        parse_features(raw.text()?)
    }
    /// Each NP's command exists on its models only, as its port list does.
    fn available_on(&self) -> Option<Availability> {
        Np::ALL
            .into_iter()
            .find(|np| DiagNpuFeature::of(*np).is_some_and(|q| q.0 == self.0))
            .map(Np::availability)
    }
}

pub fn parse_features(raw: &str) -> Result<NpuFeatures, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let text = joined(&lines);
    let Some(start) = lines.iter().position(|l| {
        let words: Vec<&str> = l.split_whitespace().collect();
        !words.is_empty() && words.iter().all(|w| is_chip(w))
    }) else {
        return Err(ParseError::new(
            "no header of chips (`np_0 ...`): not npu-feature output",
            &text,
        ));
    };
    let chips: Vec<String> = lines[start]
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut out = NpuFeatures {
        chips,
        features: BTreeMap::new(),
    };
    let n = out.chips.len();
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let at = |e: String| ParseError::at_line(e, &text, i);
        let cells: Vec<&str> = line.split_whitespace().collect();
        if cells.iter().all(|c| c.chars().all(|ch| ch == '-')) {
            continue;
        }
        if cells.len() <= n {
            return Err(at(format!(
                "a row of {} cells under {n} chip(s): {}",
                cells.len(),
                quote(line.trim())
            )));
        }
        let (name, values) = cells.split_at(cells.len() - n);
        let name = name.join(" ");
        let values: Vec<String> = values.iter().map(|v| v.to_string()).collect();
        if out.features.insert(name.clone(), values).is_some() {
            return Err(at(format!("feature {} is listed twice", quote(&name))));
        }
    }
    if out.features.is_empty() {
        return Err(ParseError::new("the feature table lists no feature", &text));
    }
    Ok(out)
}

/// `np_0`, `np_1`.
fn is_chip(word: &str) -> bool {
    word.strip_prefix("np_")
        .is_some_and(|n| !n.is_empty() && n.len() <= 2 && n.bytes().all(|b| b.is_ascii_digit()))
}

/// Each NP6XLite chip's non-default settings (`np6xlite_0` -> `fastpath` -> `disable`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Np6xliteSettings {
    pub chips: BTreeMap<String, BTreeMap<String, String>>,
}

/// `show system np6xlite` (NP6XLite models: 40F-201F).
pub struct ShowSystemNp6xlite;

impl ShowSystemNp6xlite {
    pub const TEXT: &'static str = "show system np6xlite";
}

impl Query for ShowSystemNp6xlite {
    const KIND: &'static str = "fortigate.show-system-np6xlite";
    type Fact = Np6xliteSettings;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Np6xliteSettings, ParseError> {
        let node = config_tree::single_table(raw.text()?, "system np6xlite")?;
        Ok(Np6xliteSettings {
            chips: node
                .children
                .iter()
                .map(|(chip, entry)| {
                    let settings = entry
                        .settings
                        .iter()
                        .map(|(k, v)| (k.clone(), v.join(" ")))
                        .collect();
                    (chip.clone(), settings)
                })
                .collect(),
        })
    }
    /// `config system np6xlite` exists on NP6XLite models only (the CLI reference's list).
    const AVAILABILITY: Option<Availability> = Some(super::model::PORT_LIST_NP6XLITE);
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = "fw4 # diagnose npu np6xlite npu-feature\n                    np_0\n------------------- ---------\nFastpath            Enabled\nHPE-type-shaping    Disabled\nIPv4 firewall       Yes\nGRE passthrough     Yes\nfw4 # ";

    #[test]
    fn chips_and_features() {
        let f = parse_features(ONE).unwrap();
        assert_eq!(f.chips, ["np_0"]);
        assert_eq!(f.features["IPv4 firewall"], ["Yes"]);
        assert_eq!(f.fastpath_off(), Some(vec![]));
        let two = "                    np_0      np_1\n------------------- --------- ---------\nFastpath            Enabled   Disabled\nGRE tunnel          No        No\n";
        let f = parse_features(two).unwrap();
        assert_eq!(f.fastpath_off(), Some(vec![("np_1", "Disabled")]));
        let no_row = ONE.replace("Fastpath            Enabled\n", "");
        assert_eq!(parse_features(&no_row).unwrap().fastpath_off(), None);
    }

    #[test]
    fn damage_is_an_error() {
        for bad in [
            ONE.replace("np_0\n", "chip\n"),
            ONE.replace("IPv4 firewall       Yes", "Yes"),
            ONE.replace("GRE passthrough     Yes", "Fastpath Enabled"),
            "                    np_0\n------------------- ---------\n".to_string(),
            "command parse error before 'np6xlite'\nCommand fail. Return code -61\n".to_string(),
        ] {
            assert!(parse_features(&bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn np6xlite_settings() {
        let text = "fw4 # show system np6xlite\nconfig system np6xlite\n    edit \"np6xlite_0\"\n        set fastpath disable\n    next\nend\nfw4 # ";
        let s = ShowSystemNp6xlite::parse(&mut Raw::new(text)).unwrap();
        assert_eq!(s.chips["np6xlite_0"]["fastpath"], "disable");
        let factory = "config system np6xlite\n    edit \"np6xlite_0\"\n    next\nend\n";
        assert!(
            ShowSystemNp6xlite::parse(&mut Raw::new(factory))
                .unwrap()
                .chips["np6xlite_0"]
                .is_empty()
        );
        assert!(ShowSystemNp6xlite::parse(&mut Raw::new("config system npu\nend\n")).is_err());
    }
}
