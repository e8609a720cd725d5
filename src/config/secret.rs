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
    /// The value is never shown, only where it is.
    #[error(
        "secret {0} holds a line break or another control character: a secret is one line (typed at a prompt, its later lines would run as commands)"
    )]
    NotOneLine(String),
    #[error("cannot read secret file {path}: {source}")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
}

impl SecretRef {
    /// Reads the secret; the value is never logged. A file's one final line ending is dropped;
    /// any other control character (CR, LF, ESC, ...) refuses the secret.
    pub fn resolve(&self) -> Result<SecretString, SecretError> {
        let value = match self {
            SecretRef::Env(name) => {
                std::env::var(name).map_err(|_| SecretError::EnvMissing(name.clone()))?
            }
            SecretRef::File(path) => {
                let mut text =
                    std::fs::read_to_string(path).map_err(|source| SecretError::File {
                        path: path.clone(),
                        source,
                    })?;
                if text.ends_with('\n') {
                    text.pop();
                    if text.ends_with('\r') {
                        text.pop();
                    }
                }
                text
            }
        };
        if value.chars().any(char::is_control) {
            return Err(SecretError::NotOneLine(self.to_string()));
        }
        Ok(SecretString::from(value))
    }

    /// Whether the secret is there to read (the variable is set, the file exists): `validate`
    /// reads only those, since offline work needs no secrets.
    pub fn is_present(&self) -> bool {
        match self {
            SecretRef::Env(name) => std::env::var_os(name).is_some(),
            SecretRef::File(path) => path.exists(),
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

#[cfg(test)]
mod tests {
    use secrecy::ExposeSecret;

    use super::*;

    #[test]
    fn a_secret_is_one_line_and_the_refusal_names_only_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        let cases: &[(&str, Option<&str>)] = &[
            ("Pw-Q7zV\n", Some("Pw-Q7zV")),
            ("Pw-Q7zV\r\n", Some("Pw-Q7zV")),
            ("Pw-Q7zV", Some("Pw-Q7zV")),
            (
                "with space; and semicolon\n",
                Some("with space; and semicolon"),
            ),
            ("Pw-Q7zV\nconfigure terminal\nwrite memory\n", None),
            ("Pw-Q7zV\n\n", None),
            ("Pw-Q7\rzV\n", None),
            ("Pw-Q7zV\u{1b}[2J\n", None),
            ("Pw-Q7zV\t\n", None),
        ];
        for (i, (content, want)) in cases.iter().enumerate() {
            let path = dir.path().join(format!("secret{i}"));
            std::fs::write(&path, content).unwrap();
            let reference = SecretRef::File(path.clone());
            match (reference.resolve(), want) {
                (Ok(value), Some(want)) => assert_eq!(value.expose_secret(), *want),
                (Err(e), None) => {
                    let message = e.to_string();
                    assert!(message.contains(&path.display().to_string()), "{message}");
                    assert!(
                        !message.contains("Pw-Q7") && !message.contains("configure"),
                        "{message}"
                    );
                }
                (got, _) => panic!("{content:?}: {:?}", got.map(|_| "a value")),
            }
        }
    }
}
