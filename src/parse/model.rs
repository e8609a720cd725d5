//! Knowing the model: which commands a device has, decided from what it says it is.
//!
//! A real trading floor is a mixed fleet (7050X next to 7280R, EOS 4.2x next to 4.3x, FortiGates
//! of several NP generations). A command that one family lacks would otherwise ERROR every
//! morning on that family. So each platform names one identity query (EOS `show version`,
//! FortiOS `get system status`) whose fact gives the device's [`Model`], and a query whose
//! command exists only on some models declares its [`Availability`]: the identity query it
//! depends on, the condition `premarket plan` shows before the model is known, and the answer
//! for a given model ([`Applies`]). The plan sends the identity command first; the collector
//! then sends only what the model has, and the parse stage turns the device's own "no such
//! command" answer into SKIP where the model is not known to have the command, ERROR where it
//! is ([`super::Facts`]).

use std::fmt;

use serde::{Deserialize, Serialize};

use super::AnyQuery;

/// What a device says it is: the model as it names itself and its software release.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Model {
    /// `DCS-7150S-64-CL-R`, `FortiGate-201G`.
    pub name: String,
    /// The release as printed (`4.22.4M-2GB`, `7.6.7`); empty when only the name is known (a
    /// baseline's `model:`).
    pub version: String,
}

impl Model {
    pub fn new(name: impl Into<String>, version: impl Into<String>) -> Model {
        Model {
            name: name.into(),
            version: version.into(),
        }
    }
}

/// `DCS-7150S-64-CL-R (4.22.4M)`, or the name alone when the release is not known.
impl fmt::Display for Model {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.version.is_empty() {
            f.write_str(&self.name)
        } else {
            write!(f, "{} ({})", self.name, self.version)
        }
    }
}

/// Whether a model has a command.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Applies {
    /// Known to have it: a refusal is an ERROR.
    Yes,
    /// Known not to have it, and why (said in the SKIP): it is not sent.
    No(String),
    /// Not known either way: it is sent, and a "no such command" answer is a SKIP.
    Unknown,
}

/// On which models a query's command exists, when not on every model of its platform.
#[derive(Clone, Copy)]
pub struct Availability {
    /// The platform's identity query, which must answer first.
    pub identity: fn() -> Box<dyn AnyQuery>,
    /// Where the command exists, as `premarket plan` says it before the model is known
    /// (`VOQ families: 7280R, 7500R, 7800R, 7020R`).
    pub condition: &'static str,
    /// The answer for a known model.
    pub applies: fn(&Model) -> Applies,
}

impl fmt::Debug for Availability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Availability")
            .field("condition", &self.condition)
            .finish()
    }
}

/// Whether `query`'s command is for a device whose model is `model` (`None`: not known yet, or
/// the identity command gave no model).
pub fn applies(query: &dyn AnyQuery, model: Option<&Model>) -> Applies {
    match (query.availability(), model) {
        (None, _) => Applies::Yes,
        (Some(_), None) => Applies::Unknown,
        (Some(a), Some(m)) => (a.applies)(m),
    }
}

/// Why the model lacks a command read by `readers`: every reader's reason, or `None` when one
/// of them has it or may have it (the command is then sent).
pub fn lacks(readers: &[&dyn AnyQuery], model: Option<&Model>) -> Option<Vec<String>> {
    let mut reasons: Vec<String> = Vec::new();
    for query in readers {
        match applies(*query, model) {
            Applies::No(why) => {
                if !reasons.contains(&why) {
                    reasons.push(why);
                }
            }
            Applies::Yes | Applies::Unknown => return None,
        }
    }
    (!reasons.is_empty()).then_some(reasons)
}

/// Whether a command read by `readers` is sent to a device whose model is `model`: `None` to
/// send it, `Some(why)` when every reader's model says no (`not on MODEL: why`).
pub fn withheld(readers: &[&dyn AnyQuery], model: Option<&Model>) -> Option<String> {
    let reasons = lacks(readers, model)?;
    let on = model.map_or_else(|| "this model".to_string(), ToString::to_string);
    Some(format!("not on {on}: {}", reasons.join("; ")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_reads_with_its_release_when_known() {
        assert_eq!(
            Model::new("DCS-7150S-64-CL-R", "4.22.4M").to_string(),
            "DCS-7150S-64-CL-R (4.22.4M)"
        );
        assert_eq!(Model::new("DCS-7050SX-64", "").to_string(), "DCS-7050SX-64");
    }
}
