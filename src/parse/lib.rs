//! Stage 4 of the pipeline: raw device text becomes typed facts.
//!
//! Every device command is a [`Query`]: its exact text, the parser of its output and the type
//! of fact that parser produces, defined once in the platform's folder. The parse stage runs
//! each planned query's parser once over the collected output ([`Raw`]) and files the result in
//! the device's [`Facts`], where a check asks for it by query and gets the typed fact back.
//! Output that does not parse is a [`ParseError`] carrying an excerpt; the check that needed it
//! reports ERROR. A large output stays on disk: its parsers stream it, and the facts keep only
//! its head for evidence. [`text`] holds the line helpers every parser shares; [`model`] how a
//! device's model decides which commands it has (SKIP, not ERROR, where it lacks one).

mod error;
mod facts;
pub mod model;
mod query;
mod raw;
mod reference;
pub mod text;

pub use error::ParseError;
pub use facts::{FactError, FactJson, Facts, Previous, Recorded};
pub use model::{Applies, Availability, Model};
pub use query::{AnyQuery, Arg, Fact, Query, QueryKey, QuerySpec, Shape, json_of};
pub use raw::{Raw, TEXT_LIMIT};
pub use reference::{BoxReference, Reference};

use premarket_core::Outputs;

/// Parses every collected output once for each query that reads it: the parse stage.
pub fn parse(outputs: &Outputs, queries: &[&dyn AnyQuery]) -> Facts {
    let mut facts = Facts::default();
    for (command, output) in &outputs.results {
        let readers: Vec<&dyn AnyQuery> = queries
            .iter()
            .copied()
            .filter(|q| &q.key().command == command)
            .collect();
        facts.insert(command, output.as_ref(), &readers);
    }
    facts.judge_models(queries);
    facts
}
