//! Names that travel through every stage: a device's and a check's. Both are checked once, where
//! they are read, because both end up in places that trust them: a device name becomes a
//! directory in the archive and under `capture --out`; a check id is what `--check`, history and
//! the email refer to.

use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;

use serde::{Deserialize, Serialize};

/// Why a name was refused.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct NameError(String);

/// A device name: `[A-Za-z0-9._-]`, 1-64 characters, never `.` or containing `..`, so that it
/// is always one plain path component.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct DeviceName(String);

impl DeviceName {
    pub fn new(name: &str) -> Result<DeviceName, NameError> {
        let plain = name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b));
        if name.is_empty() || name.len() > 64 || !plain || name == "." || name.contains("..") {
            return Err(NameError(format!(
                "device name {:?} is not allowed: use 1-64 of A-Z a-z 0-9 . _ - (no `..`), since it \
                 names a directory in the archive",
                name.escape_debug().to_string()
            )));
        }
        Ok(DeviceName(name.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// A check id, `<platform>.<area>.<assertion>`: lower-case words of letters, digits and `-`,
/// joined by dots, at least three of them.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CheckId(String);

impl CheckId {
    pub fn new(id: &str) -> Result<CheckId, NameError> {
        let word = |w: &str| {
            !w.is_empty()
                && !w.starts_with('-')
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        };
        if id.len() > 100 || id.split('.').count() < 3 || !id.split('.').all(word) {
            return Err(NameError(format!(
                "check id {:?} is not of the form <platform>.<area>.<assertion> (lower-case letters, \
                 digits and `-`, joined by dots)",
                id.escape_debug().to_string()
            )));
        }
        Ok(CheckId(id.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The platform part (`eos` in `eos.lanz.persisted`).
    pub fn platform_part(&self) -> &str {
        self.0.split('.').next().unwrap_or_default()
    }
}

macro_rules! string_like {
    ($t:ty) => {
        impl Deref for $t {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }
        impl Borrow<str> for $t {
            fn borrow(&self) -> &str {
                &self.0
            }
        }
        impl AsRef<str> for $t {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }
        impl AsRef<std::path::Path> for $t {
            fn as_ref(&self) -> &std::path::Path {
                std::path::Path::new(&self.0)
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }
        impl PartialEq<str> for $t {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }
        impl PartialEq<&str> for $t {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }
        impl PartialEq<String> for $t {
            fn eq(&self, other: &String) -> bool {
                &self.0 == other
            }
        }
    };
}

string_like!(DeviceName);
string_like!(CheckId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn device_names_are_one_plain_path_component() {
        for ok in ["fw1", "sw-core.01", "A_b-9"] {
            assert!(DeviceName::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "",
            ".",
            "..",
            "a..b",
            "../etc",
            "a/b",
            "a\\b",
            "sw 1",
            "sw1\n",
            "fw\u{1b}[2J",
            "é",
            &"x".repeat(65),
        ] {
            assert!(DeviceName::new(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn check_ids_have_three_dotted_words() {
        for ok in [
            "eos.lanz.persisted",
            "fortigate.flows.single-session",
            "a.b.c.d",
        ] {
            assert!(CheckId::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "eos.lanz",
            "Eos.lanz.x",
            "eos..x",
            "eos.lanz.x y",
            "eos.-a.b",
            "",
        ] {
            assert!(CheckId::new(bad).is_err(), "{bad:?}");
        }
        assert_eq!(CheckId::new("eos.a.b").unwrap().platform_part(), "eos");
    }
}
