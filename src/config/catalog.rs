//! `checks/*.yaml`: the catalog of checks: id, title, platform, severity, tags and remedy.
//!
//! The catalog is data; the logic of each check is a built-in evaluator found by id in
//! [`crate::check::registry`]. A catalog id with no evaluator is a configuration error.

use serde::Deserialize;
use serde_saphyr::Spanned;

use crate::core::Platform;

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    #[default]
    Critical,
    Warning,
}

/// One catalog entry as written in `checks/*.yaml`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EntryFile {
    pub id: Spanned<String>,
    pub title: String,
    pub platform: Platform,
    #[serde(default)]
    pub severity: Severity,
    #[serde(default)]
    pub tags: Vec<String>,
    /// What the on-call engineer should do when the check fails.
    pub remedy: String,
    /// What the check proves, for the catalogue in the README and `premarket list`.
    #[serde(default)]
    pub proves: Option<String>,
}

/// A validated catalog entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    pub title: String,
    pub platform: Platform,
    pub severity: Severity,
    pub tags: Vec<String>,
    pub remedy: String,
    pub proves: Option<String>,
}

impl From<EntryFile> for Entry {
    fn from(f: EntryFile) -> Self {
        Entry {
            id: f.id.value,
            title: f.title,
            platform: f.platform,
            severity: f.severity,
            tags: f.tags,
            remedy: f.remedy.trim_end().to_string(),
            proves: f.proves.map(|p| p.trim_end().to_string()),
        }
    }
}
