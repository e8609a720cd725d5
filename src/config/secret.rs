//! References to secrets. A baseline names *where* a password is (an environment variable or a
//! file), never the password itself, so baselines can sit in git and in the run archive.

use std::fmt;
use std::path::PathBuf;

use secrecy::SecretString;
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

/// `{ env: NAME }` or `{ file: /path }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretRef {
    Env(String),
    File(PathBuf),
}

const INLINE: &str =
    "a secret is never written in a baseline: use { env: VARIABLE } or { file: /path }";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RefMap {
    env: Option<String>,
    file: Option<PathBuf>,
}

/// Hand-written so that a value written inline by mistake is refused *without* echoing it
/// (serde's own message would quote the password).
impl<'de> Deserialize<'de> for SecretRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RefVisitor;
        impl<'de> Visitor<'de> for RefVisitor {
            type Value = SecretRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("{ env: VARIABLE } or { file: /path }")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<SecretRef, A::Error> {
                let m = RefMap::deserialize(de::value::MapAccessDeserializer::new(map))?;
                match (m.env, m.file) {
                    (Some(env), None) => Ok(SecretRef::Env(env)),
                    (None, Some(file)) => Ok(SecretRef::File(file)),
                    _ => Err(de::Error::custom("give exactly one of env: or file:")),
                }
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
        }
        deserializer.deserialize_any(RefVisitor)
    }
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
