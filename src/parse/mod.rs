//! Stage 4 of the pipeline: raw device text becomes typed facts.
//!
//! Each platform owns its parsers ([`crate::platform`]); this module holds what they share:
//! the [`Fact`] trait that lets checks ask for a typed value, [`ParseError`] with an excerpt of
//! the text that did not parse, the per-device [`Facts`] store, and [`text`] helpers that
//! tolerate CRLF, trailing spaces and echoed prompts.

mod facts;
pub mod text;

pub use facts::{FactError, Facts};

use std::any::Any;
use std::fmt;

/// A parsed output. Any `Serialize` type is a fact; checks get it back by type.
pub trait Fact: Any + Send + Sync + fmt::Debug {
    fn to_json(&self) -> serde_json::Value;
    fn as_any(&self) -> &dyn Any;
}

impl<T: serde::Serialize + Any + Send + Sync + fmt::Debug> Fact for T {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self)
            .unwrap_or_else(|e| serde_json::Value::String(format!("unserializable: {e}")))
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// Output that did not have the expected shape: why, and the lines around the problem.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{reason}")]
pub struct ParseError {
    pub reason: String,
    pub excerpt: String,
}

impl ParseError {
    /// An error whose excerpt is the start of `raw` (the first lines usually tell what came back).
    pub fn new(reason: impl Into<String>, raw: &str) -> Self {
        ParseError {
            reason: reason.into(),
            excerpt: text::excerpt(raw, 8),
        }
    }

    /// An error with an excerpt around a given (0-based) line of `raw`.
    pub fn at_line(reason: impl Into<String>, raw: &str, line: usize) -> Self {
        ParseError {
            reason: reason.into(),
            excerpt: text::excerpt_around(raw, line, 3),
        }
    }

    pub fn unsupported(command: &str) -> Self {
        ParseError {
            reason: format!("no parser for command {command:?}"),
            excerpt: String::new(),
        }
    }
}
