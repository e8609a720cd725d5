//! A device's model in the plan: which planned commands depend on it, how it is learnt, and
//! what is known of it before the run (the baseline's `model:`, else the previous run's
//! archived identity fact).
//!
//! The identity command goes first in every plan that has a model-dependent command. The
//! collector reads the model from its answer and withholds what the model lacks
//! ([`DevicePlan::withhold`]); `premarket plan` shows each such command's condition and, when
//! the model is already known, what it resolves to ([`DevicePlan::condition`]).

use std::sync::Arc;

use premarket_core::Output;
use premarket_parse::model::{lacks, withheld};
use premarket_parse::{AnyQuery, Model, Raw};

use super::DevicePlan;

/// The model as known when the run is planned, and where that knowledge comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Known {
    pub model: Model,
    /// `the baseline's model:`, `the previous run (20261130T081500.123)`.
    pub source: String,
}

/// The identity queries that the model-dependent queries among `queries` need, once each.
pub fn identities(queries: &[Arc<dyn AnyQuery>]) -> Vec<Arc<dyn AnyQuery>> {
    let mut out: Vec<Arc<dyn AnyQuery>> = Vec::new();
    for availability in queries.iter().filter_map(|q| q.availability()) {
        let identity: Arc<dyn AnyQuery> = Arc::from((availability.identity)());
        if !out.iter().any(|q| q.key() == identity.key()) {
            out.push(identity);
        }
    }
    out
}

impl DevicePlan {
    /// The queries reading command `index`.
    fn readers(&self, index: usize) -> Vec<&dyn AnyQuery> {
        let Some(command) = self.commands.get(index) else {
            return Vec::new();
        };
        self.queries
            .iter()
            .filter(|q| &q.key().command == command)
            .map(|q| q.as_ref())
            .collect()
    }

    /// Indexes of the identity commands (answered before any model-dependent command).
    pub fn identity_commands(&self) -> Vec<usize> {
        let wanted = identities(&self.queries);
        self.commands
            .iter()
            .enumerate()
            .filter(|(_, c)| wanted.iter().any(|q| &q.key().command == *c))
            .map(|(i, _)| i)
            .collect()
    }

    /// The plan as a model gate reads it while the device is collected: its commands, their
    /// queries and the model known before the run; not the checks, not the previous run's
    /// records (a gate per device held a copy of both).
    pub fn for_gate(&self) -> DevicePlan {
        DevicePlan {
            device: self.device.clone(),
            checks: Vec::new(),
            queries: self.queries.clone(),
            commands: self.commands.clone(),
            previous: Default::default(),
            box_facts: Default::default(),
            model: self.model.clone(),
        }
    }

    /// Whether any planned command depends on the model.
    pub fn depends_on_model(&self) -> bool {
        self.queries.iter().any(|q| q.availability().is_some())
    }

    /// The model, from the identity commands' outputs (`output(i)` for command `i`).
    pub fn model_from<'o>(&self, output: impl Fn(usize) -> Option<&'o Output>) -> Option<Model> {
        let identities = identities(&self.queries);
        self.identity_commands().into_iter().find_map(|i| {
            let text = output(i)?;
            let query = identities
                .iter()
                .find(|q| q.key().command == self.commands[i])?;
            let fact = query.parse_any(&mut Raw::output(text)).ok()?;
            query.identify(fact.as_ref())
        })
    }

    /// Why command `index` is not sent to a device whose model is `model` (`None`: send it).
    pub fn withhold(&self, index: usize, model: Option<&Model>) -> Option<String> {
        withheld(&self.readers(index), model)
    }

    /// [`DevicePlan::withhold`] for every command, by index: each query's command is built
    /// once, not once per command asked about (a gate asks for every command of the session).
    pub fn withhold_each(&self, model: Option<&Model>) -> Vec<Option<String>> {
        let read: Vec<_> = self.queries.iter().map(|q| q.key().command).collect();
        self.commands
            .iter()
            .map(|command| {
                let readers: Vec<&dyn AnyQuery> = self
                    .queries
                    .iter()
                    .zip(&read)
                    .filter(|(_, c)| *c == command)
                    .map(|(q, _)| q.as_ref())
                    .collect();
                withheld(&readers, model)
            })
            .collect()
    }

    /// The condition of command `index`, as `premarket plan` shows it: where it exists, and
    /// what that resolves to for the model known before the run; `None` for a command sent to
    /// every model.
    pub fn condition(&self, index: usize) -> Option<String> {
        let readers = self.readers(index);
        let mut conditions: Vec<&str> = Vec::new();
        for a in readers.iter().filter_map(|q| q.availability()) {
            if !conditions.contains(&a.condition) {
                conditions.push(a.condition);
            }
        }
        if conditions.is_empty() {
            return None;
        }
        let identity = self
            .identity_commands()
            .first()
            .map(|i| format!("`{}`", self.commands[*i].text))
            .unwrap_or_else(|| "the identity command".to_string());
        let only = format!("{} only", conditions.join("; "));
        Some(match &self.model {
            None => format!("{only}; {identity} decides"),
            Some(known) => match lacks(&readers, Some(&known.model)) {
                None => format!("{only}; {} (per {}): sent", known.model, known.source),
                Some(why) => format!(
                    "{only}; {} (per {}): not sent, {}",
                    known.model,
                    known.source,
                    why.join("; ")
                ),
            },
        })
    }

    /// The model known before the run: the baseline's `model:`, else what the identity fact of
    /// the previous run said.
    pub(crate) fn learn_model(&mut self) {
        if let Some(name) = &self.device.model {
            self.model = Some(Known {
                model: Model::new(name.clone(), ""),
                source: "the baseline's `model:`".to_string(),
            });
            return;
        }
        self.model = identities(&self.queries).iter().find_map(|q| {
            let record = self.previous.get(&q.key())?;
            Some(Known {
                model: q.identify_record(&record.fact.value())?,
                source: format!("the previous run ({})", record.run_id),
            })
        });
    }
}
