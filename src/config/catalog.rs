//! `checks/*.yaml`: the catalog of checks: id, title, platform, severity, tags and remedy.
//!
//! The catalog is data. An entry names a built-in check by its id, or describes a declarative
//! check; the check stage resolves it (an id with no check is a configuration error there).

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::error::Position;
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
    /// Where the entry's `id:` is written.
    pub position: Position,
    pub title: String,
    pub platform: Platform,
    pub severity: Severity,
    pub tags: Vec<String>,
    pub remedy: String,
    pub proves: Option<String>,
}

impl Entry {
    pub fn from_file(f: EntryFile, position: Position) -> Self {
        Entry {
            id: f.id.value,
            position,
            title: f.title,
            platform: f.platform,
            severity: f.severity,
            tags: f.tags,
            remedy: f.remedy.trim_end().to_string(),
            proves: f.proves.map(|p| p.trim_end().to_string()),
        }
    }
}
