//! Every built-in check, found by id. The catalog (`checks/*.yaml`) must agree with it.

use crate::config::Expect;
use crate::core::Command;
use crate::core::Platform;
use crate::parse::Facts;
use crate::platform::{eos, fortigate};

use super::{
    Check, Missing, eos as eos_checks, fortigate as fortigate_checks, probe as probe_checks,
};
use crate::core::Verdict;

/// A built-in check, typed by the platform whose baseline it reads.
#[derive(Clone, Copy)]
pub enum Evaluator {
    Eos(&'static dyn Check<eos::Expect>),
    Fortigate(&'static dyn Check<fortigate::Expect>),
    Probe(&'static dyn Check<crate::probe::baseline::Expect>),
}

impl Evaluator {
    pub fn id(self) -> &'static str {
        match self {
            Evaluator::Eos(c) => c.id(),
            Evaluator::Fortigate(c) => c.id(),
            Evaluator::Probe(c) => c.id(),
        }
    }

    pub fn platform(self) -> Platform {
        match self {
            Evaluator::Eos(_) => Platform::Eos,
            Evaluator::Fortigate(_) => Platform::Fortigate,
            Evaluator::Probe(_) => Platform::Probe,
        }
    }

    pub fn commands(self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        match (self, expect) {
            (Evaluator::Eos(c), Expect::Eos(e)) => c.commands(e),
            (Evaluator::Fortigate(c), Expect::Fortigate(e)) => c.commands(e),
            (Evaluator::Probe(c), Expect::Probe(e)) => c.commands(e),
            _ => Err(Missing(format!(
                "a {} baseline (the device is another platform)",
                self.platform()
            ))),
        }
    }

    pub fn evaluate(self, facts: &Facts, expect: &Expect) -> Verdict {
        let verdict = match (self, expect) {
            (Evaluator::Eos(c), Expect::Eos(e)) => c.evaluate(facts, e),
            (Evaluator::Fortigate(c), Expect::Fortigate(e)) => c.evaluate(facts, e),
            (Evaluator::Probe(c), Expect::Probe(e)) => c.evaluate(facts, e),
            _ => {
                return Verdict::error(format!(
                    "{} cannot judge a device of another platform",
                    self.id()
                ));
            }
        };
        verdict.unwrap_or_else(Verdict::from)
    }
}

/// All built-in checks.
pub fn all() -> Vec<Evaluator> {
    let mut all: Vec<Evaluator> = eos_checks::CHECKS
        .iter()
        .map(|c| Evaluator::Eos(*c))
        .collect();
    all.extend(
        fortigate_checks::CHECKS
            .iter()
            .map(|c| Evaluator::Fortigate(*c)),
    );
    all.extend(probe_checks::CHECKS.iter().map(|c| Evaluator::Probe(*c)));
    all
}

pub fn find(id: &str) -> Option<Evaluator> {
    all().into_iter().find(|e| e.id() == id)
}

pub fn ids() -> Vec<&'static str> {
    all().into_iter().map(Evaluator::id).collect()
}
