//! `checks/*.yaml`: the catalog of checks: id, title, platform, severity, tags, remedy, the
//! few words a FAIL is headlined with (`finding`), the checks a FAIL explains (`explains`), and
//! for `premarket explain` what it proves, why it matters and its verdicts' lines (`examples`).
//!
//! The catalog is data. An entry names a built-in check by its id, or describes a declarative
//! check with `command` and `rule` (and optionally `parse`); the check stage resolves it (an id
//! with no check, or a rule it cannot read, is a configuration error there). The rule and the
//! reader are kept as positioned YAML ([`Tree`]) because their grammar is the check stage's.

use serde::Deserialize;
use serde_saphyr::Spanned;

use super::error::Position;
use super::tree::Tree;
use premarket_core::Platform;

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
    /// Why it matters on a trading path: what goes wrong at the open when it fails
    /// (`premarket explain`).
    #[serde(default)]
    pub why: Option<String>,
    /// What its verdicts look like: a line the check really prints for each status
    /// (`premarket explain`; a test runs the check over fixtures and finds each one).
    #[serde(default)]
    pub examples: Examples,
    /// A FAIL in a few words (`LANZ not saved`): the start of its headline and of the email
    /// subject, where the title (the condition that should hold) would read as OK.
    #[serde(default)]
    pub finding: Option<String>,
    /// Checks whose FAIL on the same device this check's FAIL explains: they are shown under
    /// it, so the cause is read, and acted on, before its symptoms.
    #[serde(default)]
    pub explains: Vec<Spanned<String>>,
    /// A declarative check: the one command it reads.
    #[serde(default)]
    pub command: Option<Spanned<String>>,
    /// A declarative check: how the command's text output is read (`regex`, `kv`, `config`).
    #[serde(default)]
    pub parse: Option<Tree>,
    /// A declarative check: what must hold of the command's output.
    #[serde(default)]
    pub rule: Option<Tree>,
}

/// A verdict line of each status, as the report prints it after the check's id (the
/// headline: for a FAIL, the finding and the verdict).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Examples {
    #[serde(default)]
    pub ok: Option<String>,
    #[serde(default)]
    pub fail: Option<String>,
    #[serde(default)]
    pub error: Option<String>,
    #[serde(default)]
    pub skip: Option<String>,
}

impl Examples {
    /// (status word, line) of each example given, in the order OK, FAIL, ERROR, SKIP.
    pub fn all(&self) -> Vec<(&'static str, &str)> {
        [
            ("OK", &self.ok),
            ("FAIL", &self.fail),
            ("ERROR", &self.error),
            ("SKIP", &self.skip),
        ]
        .into_iter()
        .filter_map(|(status, line)| line.as_deref().map(|l| (status, l)))
        .collect()
    }
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
    pub why: Option<String>,
    pub examples: Examples,
    pub finding: Option<String>,
    /// Check ids this check's FAIL explains on the same device, with where each is written.
    pub explains: Vec<(String, Position)>,
    /// Present when the entry is a declarative check (it has `command`, `parse` or `rule`).
    pub declared: Option<Declared>,
}

/// The declarative part of an entry, as written; the check stage reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Declared {
    /// The command and where it is written.
    pub command: Option<(String, Position)>,
    pub parse: Option<Tree>,
    pub rule: Option<Tree>,
}

impl Entry {
    pub fn from_file(f: EntryFile, position: Position) -> Self {
        let file = position.file.clone();
        let declared =
            (f.command.is_some() || f.parse.is_some() || f.rule.is_some()).then(|| Declared {
                command: f.command.map(|c| {
                    let at = Position::from_location(&position.file, c.referenced);
                    (c.value, at)
                }),
                parse: f.parse,
                rule: f.rule,
            });
        Entry {
            id: f.id.value,
            position,
            title: f.title,
            platform: f.platform,
            severity: f.severity,
            tags: f.tags,
            remedy: f.remedy.trim_end().to_string(),
            proves: f.proves.map(|p| p.trim_end().to_string()),
            why: f.why.map(|p| p.trim_end().to_string()),
            examples: f.examples,
            finding: f
                .finding
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty()),
            explains: f
                .explains
                .into_iter()
                .map(|id| (id.value, Position::from_location(&file, id.defined)))
                .collect(),
            declared,
        }
    }
}
