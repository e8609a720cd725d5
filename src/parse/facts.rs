//! The facts of one device: for every planned command, its parsed value or why there is none.

use std::collections::HashMap;

use super::{Fact, ParseError};
use crate::core::CollectError;
use crate::core::{Command, Verdict};

/// Why a check could not get the fact it needs. Always becomes an ERROR verdict, never OK.
#[derive(Clone, Debug, thiserror::Error)]
pub enum FactError {
    #[error("`{command}` was not collected: {error}")]
    NotCollected {
        command: String,
        error: CollectError,
    },
    #[error("`{command}` returned output premarket cannot read: {error}")]
    Unparsable { command: String, error: ParseError },
    #[error("`{command}` was parsed as another kind of fact (a bug in premarket)")]
    WrongType { command: String },
    #[error("`{command}` was not planned for this check (a bug in premarket)")]
    NotPlanned { command: String },
}

impl FactError {
    /// The raw text to show as evidence.
    pub fn excerpt(&self) -> &str {
        match self {
            FactError::Unparsable { error, .. } => &error.excerpt,
            _ => "",
        }
    }
}

struct Entry {
    raw: Option<String>,
    parsed: Result<Box<dyn Fact>, FactError>,
}

/// Parsed facts of one device, keyed by the command that produced them.
#[derive(Default)]
pub struct Facts {
    entries: HashMap<Command, Entry>,
}

impl Facts {
    /// Records a collected output and its parse (the parse stage calls this once per command).
    pub fn insert(
        &mut self,
        command: Command,
        raw: Result<String, CollectError>,
        parse: impl FnOnce(&Command, &str) -> Result<Box<dyn Fact>, ParseError>,
    ) {
        let entry = match raw {
            Ok(raw) => {
                let parsed = parse(&command, &raw).map_err(|error| FactError::Unparsable {
                    command: command.to_string(),
                    error,
                });
                Entry {
                    raw: Some(raw),
                    parsed,
                }
            }
            Err(error) => Entry {
                raw: None,
                parsed: Err(FactError::NotCollected {
                    command: command.to_string(),
                    error,
                }),
            },
        };
        self.entries.insert(command, entry);
    }

    /// The typed fact for `command`.
    pub fn get<T: Fact>(&self, command: &Command) -> Result<&T, FactError> {
        let entry = self
            .entries
            .get(command)
            .ok_or_else(|| FactError::NotPlanned {
                command: command.to_string(),
            })?;
        let fact = entry.parsed.as_ref().map_err(Clone::clone)?;
        fact.as_any()
            .downcast_ref::<T>()
            .ok_or_else(|| FactError::WrongType {
                command: command.to_string(),
            })
    }

    /// The raw output of `command`, as collected (for evidence excerpts).
    pub fn raw(&self, command: &Command) -> Option<&str> {
        self.entries.get(command).and_then(|e| e.raw.as_deref())
    }
}

impl From<FactError> for Verdict {
    fn from(error: FactError) -> Self {
        let evidence = error.excerpt().to_string();
        Verdict::error(error.to_string()).evidence(evidence)
    }
}
