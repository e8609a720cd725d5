//! The facts of one device: for every planned query, its parsed fact or why there is none.

use std::collections::HashMap;

use super::{AnyQuery, Fact, ParseError, Query, QueryKey, Raw};
use crate::core::{CollectError, Command, Verdict};

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

/// Parsed facts of one device, filed by query.
#[derive(Default)]
pub struct Facts {
    parsed: HashMap<QueryKey, Result<Box<dyn Fact>, FactError>>,
    /// The collected text of each command, for evidence excerpts.
    raw: HashMap<Command, String>,
}

impl Facts {
    /// Files one command's output as read by each of `queries` (all of which send `command`).
    pub fn insert(
        &mut self,
        command: &Command,
        output: Result<&str, &CollectError>,
        queries: &[&dyn AnyQuery],
    ) {
        match output {
            Ok(text) => {
                for query in queries {
                    let parsed = query.parse_any(&mut Raw::new(text)).map_err(|error| {
                        FactError::Unparsable {
                            command: command.to_string(),
                            error,
                        }
                    });
                    self.parsed.insert(query.key(), parsed);
                }
                self.raw.insert(command.clone(), text.to_string());
            }
            Err(error) => {
                for query in queries {
                    let missing = FactError::NotCollected {
                        command: command.to_string(),
                        error: error.clone(),
                    };
                    self.parsed.insert(query.key(), Err(missing));
                }
            }
        }
    }

    /// The typed fact of `query`.
    pub fn get<Q: Query>(&self, query: &Q) -> Result<&Q::Fact, FactError> {
        let fact = self.entry(&query.key())?;
        fact.as_any()
            .downcast_ref::<Q::Fact>()
            .ok_or_else(|| FactError::WrongType {
                command: query.command().to_string(),
            })
    }

    /// The fact of any query, as JSON (for YAML checks and the archive).
    pub fn json(&self, query: &dyn AnyQuery) -> Result<serde_json::Value, FactError> {
        self.entry(&query.key()).map(|fact| fact.to_json())
    }

    fn entry(&self, key: &QueryKey) -> Result<&dyn Fact, FactError> {
        match self.parsed.get(key) {
            None => Err(FactError::NotPlanned {
                command: key.command.to_string(),
            }),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(fact)) => Ok(fact.as_ref()),
        }
    }

    /// The raw output of `command`, as collected (for evidence excerpts).
    pub fn raw(&self, command: &Command) -> Option<&str> {
        self.raw.get(command).map(String::as_str)
    }
}

impl From<FactError> for Verdict {
    fn from(error: FactError) -> Self {
        let evidence = error.excerpt().to_string();
        Verdict::error(error.to_string()).evidence(evidence)
    }
}
