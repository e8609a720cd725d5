#![doc = include_str!("README.md")]

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
