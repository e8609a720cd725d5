//! A software version pin, read by every platform's version check.

use serde::Deserialize;

/// `version: { exact: 7.6.7 }` or `version: { allowed: [7.6.6, 7.6.7] }`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct VersionPin {
    #[serde(default)]
    pub exact: Option<String>,
    #[serde(default)]
    pub allowed: Vec<String>,
}

impl VersionPin {
    /// True when the pin names at least one version (an empty pin is a missing baseline value).
    pub fn is_set(&self) -> bool {
        self.exact.is_some() || !self.allowed.is_empty()
    }

    /// `Err` for an empty pin, for a check's `validate`.
    pub fn require(&self) -> Result<(), String> {
        if self.is_set() {
            Ok(())
        } else {
            Err("`expect.version` names no version (give `exact:` or `allowed:`)".into())
        }
    }

    pub fn accepts(&self, version: &str) -> bool {
        self.exact.as_deref() == Some(version) || self.allowed.iter().any(|v| v == version)
    }

    /// How the pin reads in a report: `7.6.7` or `one of 7.6.6, 7.6.7`.
    pub fn describe(&self) -> String {
        let mut all: Vec<&str> = self.exact.iter().map(String::as_str).collect();
        all.extend(self.allowed.iter().map(String::as_str));
        match all.as_slice() {
            [one] => (*one).to_string(),
            many => format!("one of {}", many.join(", ")),
        }
    }
}
