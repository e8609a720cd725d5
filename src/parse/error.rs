//! Output that did not have the shape its command prints.

use super::text;

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
