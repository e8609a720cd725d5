//! A software version pin, read by every platform's version check.

use serde::Deserialize;

use crate::Invalid;

/// `version: { exact: 7.6.7 }` or `version: { allowed: [7.6.6, 7.6.7] }`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize, schemars::JsonSchema)]
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
    pub fn require(&self) -> Result<(), Invalid> {
        if self.is_set() {
            Ok(())
        } else {
            Err("`expect.version` names no version (give `exact:` or `allowed:`)".into())
        }
    }

    /// Whether `version` is pinned. A pin without a build suffix also accepts the version
    /// with one: older EOS images print `4.22.4M-2GB` (flash size) and engineering builds
    /// `4.32.2F-38195967.4322F` for the release `4.22.4M` / `4.32.2F`. A pin that names a
    /// suffix matches only exactly.
    pub fn accepts(&self, version: &str) -> bool {
        let release = version.split('-').next().unwrap_or(version);
        let matches = |pin: &str| pin == version || (!pin.contains('-') && pin == release);
        self.exact.as_deref().is_some_and(matches) || self.allowed.iter().any(|v| matches(v))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_release_pin_accepts_its_build_suffixes() {
        let pin = VersionPin {
            exact: None,
            allowed: vec!["4.22.4M".into(), "4.31.6M".into()],
        };
        assert!(pin.accepts("4.22.4M-2GB"));
        assert!(pin.accepts("4.31.6M"));
        assert!(!pin.accepts("4.22.4"));
        assert!(!pin.accepts("4.22.4M1"));
        assert!(!pin.accepts("4.30.1F-2GB"));
        let exact = VersionPin {
            exact: Some("4.22.4M-2GB".into()),
            allowed: Vec::new(),
        };
        assert!(exact.accepts("4.22.4M-2GB"));
        assert!(!exact.accepts("4.22.4M"));
        assert!(!exact.accepts("4.22.4M-4GB"));
    }
}
