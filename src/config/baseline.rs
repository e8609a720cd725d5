//! A device's `expect:` (or the site's, in `site.yaml`, read by the checks over several
//! devices), kept as the file's text with the positions of its keys, so that each check can
//! read exactly its own keys from it with serde-saphyr's `file:line:column` errors.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;
use serde::de::DeserializeOwned;

use super::error::{ConfigError, Position};
use super::origins::Origins;
use super::yaml;
use premarket_core::DeviceName;

/// Whose `expect:` a baseline is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Owner {
    Device(DeviceName),
    /// The site's own (`site.yaml`), named by the site.
    Site(String),
}

/// `device sw1`, `site lab`: how messages name the baseline's owner.
impl std::fmt::Display for Owner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owner::Device(name) => write!(f, "device {name}"),
            Owner::Site(name) => write!(f, "site {name}"),
        }
    }
}

/// The baseline of one device (or of the site), as written.
#[derive(Clone, Debug)]
pub struct BaselineText {
    owner: Owner,
    file: PathBuf,
    text: Arc<str>,
    /// Where `expect:` starts.
    position: Position,
    /// Every key under `expect:` with where it is written, in file order.
    keys: Vec<(String, Position)>,
    /// Where each line of `text` was written (a device that `extends:` a role file is read
    /// from the merged text).
    origins: Arc<Origins>,
    /// `draft: true`: its expectations are not all written yet (a device just imported). A
    /// check whose required key is missing waits for it ([`BaselineText::input_or_pending`]).
    draft: bool,
}

/// A check's input as read from a baseline: ready, or (in a draft) waiting for a value.
pub enum Reading<I> {
    Ready(I),
    /// What the check says until the value is written ([`BaselineText::pending`]).
    Pending(String),
}

/// The part of a device file a check reads: `expect:` with only the check's keys (absent or
/// empty, an empty block: a check's optional keys take their defaults).
#[derive(Deserialize)]
struct Expect<I> {
    #[serde(default = "Option::default")]
    expect: Option<I>,
}

/// Why a check's input could not be read: the mistake, and the key when one is missing.
struct Unread {
    missing: Option<String>,
    error: ConfigError,
}

impl BaselineText {
    pub fn new(
        owner: Owner,
        file: &Path,
        text: Arc<str>,
        position: Position,
        keys: Vec<(String, Position)>,
    ) -> BaselineText {
        BaselineText {
            owner,
            file: file.to_path_buf(),
            text,
            position,
            keys,
            origins: Arc::new(Origins::own(file)),
            draft: false,
        }
    }

    /// The baseline of a device whose file says `draft: true` (or `false`).
    pub fn drafted(mut self, draft: bool) -> BaselineText {
        self.draft = draft;
        self
    }

    /// Whether the device's file says `draft: true`.
    pub fn is_draft(&self) -> bool {
        self.draft
    }

    /// What a check of a draft baseline says while `expect.KEY` is not written: an ERROR in a
    /// run, a warning in `validate` ("sw7: eos.version.pinned has no expect.version yet").
    pub fn pending(&self, id: &str, key: &str) -> String {
        format!(
            "{}: {id} has no expect.{key} yet (the baseline is a draft: write the value in {} \
             or the role file it extends, and remove `draft: true` once every check has its \
             values)",
            match &self.owner {
                Owner::Device(name) => name.to_string(),
                site => site.to_string(),
            },
            self.file.display()
        )
    }

    /// The baseline read from a text assembled from several files ([`Origins`]).
    pub fn with_origins(mut self, origins: Origins) -> BaselineText {
        self.origins = Arc::new(origins);
        self
    }

    /// The text every check reads (the device's own, or merged with its role files).
    pub fn text(&self) -> &str {
        &self.text
    }

    /// Where each line of [`BaselineText::text`] was written.
    pub fn origins(&self) -> &Origins {
        &self.origins
    }

    /// Where a value serde-saphyr read from [`BaselineText::text`] was written.
    pub fn position_of(&self, location: serde_saphyr::Location) -> Position {
        self.origins.location(location)
    }

    /// Whose baseline it is (`device sw1`, `site lab`).
    pub fn owner(&self) -> &Owner {
        &self.owner
    }

    pub fn file(&self) -> &Path {
        &self.file
    }

    /// Where `expect:` starts.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// The keys written under `expect:`, with their positions.
    pub fn keys(&self) -> &[(String, Position)] {
        &self.keys
    }

    /// Where `expect.KEY` is written, if it is.
    pub fn key(&self, key: &str) -> Option<&Position> {
        self.keys.iter().find(|(k, _)| k == key).map(|(_, at)| at)
    }

    /// Reads the input of check `id` (a type whose fields are baseline keys). A missing or
    /// mistyped value is an error at its position that names the device and the check.
    pub fn input<I: DeserializeOwned>(&self, id: &str) -> Result<I, ConfigError> {
        self.read(id).map_err(|u| u.error)
    }

    /// [`BaselineText::input`], except that in a draft baseline a required key that is not
    /// written yet is [`Reading::Pending`] instead of a mistake.
    pub fn input_or_pending<I: DeserializeOwned>(
        &self,
        id: &str,
    ) -> Result<Reading<I>, ConfigError> {
        match self.read(id) {
            Ok(input) => Ok(Reading::Ready(input)),
            Err(unread) => match unread.missing {
                Some(key) if self.draft => Ok(Reading::Pending(self.pending(id, &key))),
                _ => Err(unread.error),
            },
        }
    }

    /// The input, or the mistake and the missing key when that is what it is.
    fn read<I: DeserializeOwned>(&self, id: &str) -> Result<I, Box<Unread>> {
        yaml::parse::<Expect<I>>(&self.file, &self.text)
            .and_then(|e| match e.expect {
                Some(input) => Ok(input),
                None => yaml::parse::<I>(&self.file, "{}"),
            })
            .map_err(|e| {
                let missing = e
                    .message
                    .strip_prefix("missing field ")
                    .map(|field| field.trim_matches('`').to_string());
                let message = match &missing {
                    Some(field) => format!(
                        "{}: check {id} needs `expect.{field}` in this baseline, and it is \
                         missing (add it, or list the check under `skip:` with a reason)",
                        self.owner,
                    ),
                    None => format!("{}: check {id}: {}", self.owner, e.message),
                };
                let position = if e.position.line == 0 {
                    self.position.clone()
                } else {
                    self.origins.translate(e.position)
                };
                Box::new(Unread {
                    missing,
                    error: ConfigError::new(position, message),
                })
            })
    }

    /// The text of the top-level `expect:` block (from its line to the next top-level line),
    /// when it stands alone: no alias (`*name`) that could take a value from elsewhere in the
    /// file. Two devices with the same block give every check the same input, so the plan
    /// builds it once (a fleet of 200 switches shares a handful of blocks).
    pub fn expect_section(&self) -> Option<&str> {
        let text: &str = &self.text;
        let mut start = None;
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let top_level = !line.starts_with([' ', '\t', '#', '\n', '\r']);
            match start {
                None if line.starts_with("expect:") => start = Some(offset),
                Some(from) if top_level => {
                    return Some(&text[from..offset]).filter(|s| !s.contains('*'));
                }
                _ => {}
            }
            offset += line.len();
        }
        start.map(|from| &text[from..]).filter(|s| !s.contains('*'))
    }

    /// An input that has the right types but breaks a rule of check `id`.
    pub fn invalid(&self, id: &str, message: String) -> ConfigError {
        ConfigError::new(
            self.position.clone(),
            format!("{}: check {id}: {message}", self.owner),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn baseline(text: &str) -> BaselineText {
        let file = Path::new("sw1.yaml");
        BaselineText::new(
            Owner::Device(DeviceName::new("sw1").expect("a valid name")),
            file,
            text.into(),
            Position::new(file, 1, 1),
            Vec::new(),
        )
    }

    #[test]
    fn the_expect_block_runs_to_the_next_top_level_key() {
        let text = "platform: eos\nssh:\n  port: 2201\nexpect:\n  lanz: true\n\n  # the trading ports\n  max_in_errors: 10\nskip:\n  eos.ptp.synchronised: none\n";
        assert_eq!(
            baseline(text).expect_section(),
            Some("expect:\n  lanz: true\n\n  # the trading ports\n  max_in_errors: 10\n")
        );
        // Two devices that differ only in how they are reached share the block.
        let other = text.replace("2201", "2202");
        assert_eq!(
            baseline(text).expect_section(),
            baseline(&other).expect_section()
        );
        assert_eq!(
            baseline("platform: eos\nexpect:\n  lanz: true").expect_section(),
            Some("expect:\n  lanz: true")
        );
    }

    #[test]
    fn a_block_that_may_take_values_from_elsewhere_is_never_shared() {
        let text = "ssh: &s\n  port: 22\nexpect:\n  lanz: *s\n";
        assert_eq!(baseline(text).expect_section(), None);
        assert_eq!(baseline("platform: eos\n").expect_section(), None);
    }
}
