//! Configuration mistakes, each pinned to `file:line:column` so an operator can go straight to it.

use std::fmt;
use std::path::{Path, PathBuf};

/// Where in a configuration file something is (1-based line and column; 0 when unknown).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Position {
    pub file: PathBuf,
    pub line: u64,
    pub column: u64,
}

impl Position {
    pub fn new(file: &Path, line: u64, column: u64) -> Self {
        Position {
            file: file.to_path_buf(),
            line,
            column,
        }
    }

    /// The start of a file, for problems that belong to the file as a whole (e.g. it is missing).
    pub fn file_start(file: &Path) -> Self {
        Position::new(file, 1, 1)
    }

    pub fn from_location(file: &Path, location: serde_saphyr::Location) -> Self {
        Position::new(file, location.line(), location.column())
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}", self.file.display(), self.line, self.column)
    }
}

/// One configuration problem: where, and what is wrong (with what to do where it is not obvious).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{position}: {message}")]
pub struct ConfigError {
    pub position: Position,
    pub message: String,
    /// A key written at the wrong depth: which, so that a stage that knows where it belongs
    /// (the checks know a baseline's keys) can say so.
    pub misplaced: Option<MisplacedKey>,
}

/// A key at the wrong depth and the keys it is written under (`expect`; empty at the top).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MisplacedKey {
    pub key: String,
    pub under: String,
}

impl ConfigError {
    pub fn new(position: Position, message: impl Into<String>) -> Self {
        ConfigError {
            position,
            message: message.into(),
            misplaced: None,
        }
    }
}

/// Every problem found, so that `premarket validate` can show them all at once.
#[derive(Clone, Debug, Default, PartialEq, Eq, thiserror::Error)]
pub struct ConfigErrors(pub Vec<ConfigError>);

impl fmt::Display for ConfigErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                writeln!(f)?;
            }
            write!(f, "{error}")?;
        }
        Ok(())
    }
}

impl From<ConfigError> for ConfigErrors {
    fn from(error: ConfigError) -> Self {
        ConfigErrors(vec![error])
    }
}
