//! References to secrets. A baseline names *where* a password is (an environment variable or a
//! file), never the password itself, so baselines can sit in git and in the run archive.

use std::fmt;
use std::path::PathBuf;

use secrecy::SecretString;
use serde::Deserialize;

/// `{ env: NAME }` or `{ file: /path }`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum SecretRef {
    Env(String),
    File(PathBuf),
}

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    #[error("environment variable {0} is not set (it should hold the secret)")]
    EnvMissing(String),
    #[error("cannot read secret file {path}: {source}")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl SecretRef {
    /// Reads the secret. A file's trailing newline is dropped; the value is never logged.
    pub fn resolve(&self) -> Result<SecretString, SecretError> {
        match self {
            SecretRef::Env(name) => std::env::var(name)
                .map(SecretString::from)
                .map_err(|_| SecretError::EnvMissing(name.clone())),
            SecretRef::File(path) => std::fs::read_to_string(path)
                .map(|s| SecretString::from(s.trim_end_matches(['\r', '\n']).to_string()))
                .map_err(|source| SecretError::File {
                    path: path.clone(),
                    source,
                }),
        }
    }
}

impl fmt::Display for SecretRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretRef::Env(name) => write!(f, "env:{name}"),
            SecretRef::File(path) => write!(f, "file:{}", path.display()),
        }
    }
}
