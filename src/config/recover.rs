//! Reading a configuration file past its first mistake, so that `validate` lists every
//! mistake of every file at once (serde stops at the first one, and the operator used to fix
//! `port: 33573x`, run again, fix `lanz: treu`, run again ...).
//!
//! Two passes, each leaving out what it could not read and reading the rest again, with line
//! numbers kept (a line left out becomes an empty line):
//! - [`repair`]: the YAML itself. A key at the wrong depth ([`indentation`]) is reported on its
//!   own line and left out; a key written twice loses its second line; any other syntax error
//!   costs its top-level block.
//! - [`read`]: the typed structure. A mistake in one top-level block (a key and what is indented
//!   under it, or one list item) is reported and the block left out, or replaced by a
//!   placeholder where the structure cannot do without the key, so a wrong type under `ssh:`
//!   does not hide one under `skip:`.
//!
//! One mistake per block is found; each block's own mistakes after the first wait for the next
//! run (the typed reader stops in a block at its first). A file whose reading is slow (an
//! alias bomb, a 10 MB comment: each parse costs a second) is read past its mistakes only
//! within [`PATIENCE`], so loading stays bounded however hostile the file.

use std::path::Path;
use std::time::{Duration, Instant};

use serde::de::{DeserializeOwned, IgnoredAny};

use super::error::{ConfigError, MisplacedKey, Position};
use super::{indentation, yaml};

/// At most this many mistakes are read past in one file (each costs a parse of it).
const MOST: usize = 64;

/// How long each pass may go on reading past mistakes; a right file parses in milliseconds.
pub(crate) const PATIENCE: Duration = Duration::from_secs(1);

/// `text` with what does not read as YAML left out, each mistake added to `errors`; `None` when
/// nothing more of it can be read (a mistake outside any block).
pub(crate) fn repair(path: &Path, text: &str, errors: &mut Vec<ConfigError>) -> Option<String> {
    let mut text = text.to_string();
    let started = Instant::now();
    for _ in 0..MOST {
        let Err(error) = yaml::parse::<IgnoredAny>(path, &text) else {
            return Some(text);
        };
        if started.elapsed() > PATIENCE {
            errors.push(error);
            return None;
        }
        let line = usize::try_from(error.position.line).unwrap_or(0);
        if let Some(m) = indentation::misplaced(&text, line) {
            errors.push(ConfigError {
                position: Position::new(path, m.line as u64, m.column as u64),
                message: m.message,
                misplaced: Some(MisplacedKey {
                    key: m.key,
                    under: m.under,
                }),
            });
            blank(&mut text, &m.lines);
            continue;
        }
        let twice = error.message.contains("appears twice");
        let lines = match (twice, block(&text, line)) {
            (true, _) if line > 0 => vec![line],
            (_, Some((lines, _))) => lines,
            _ => {
                errors.push(error);
                return None;
            }
        };
        errors.push(error);
        blank(&mut text, &lines);
    }
    None
}

/// The file at `path` read past its mistakes ([`first`]), with the text as read; a file that
/// cannot be read at all is one error.
pub(crate) fn read_file<T: DeserializeOwned>(
    path: &Path,
    placeholders: &[(&str, &str)],
    errors: &mut Vec<ConfigError>,
) -> (Option<T>, Vec<String>, String) {
    match yaml::read_text(path) {
        Ok(text) => first(path, text, placeholders, errors),
        Err(e) => {
            errors.push(e);
            (None, Vec::new(), String::new())
        }
    }
}

/// `T` from `text` in one parse when the file is right, as before files were read past their
/// mistakes; else [`repair`] and [`read`], unless that one parse already took longer than
/// [`PATIENCE`] (a hostile file: its first mistake is all it gets). Returns the value, the
/// keys of the blocks left out and the text as read (lines left out empty).
pub(crate) fn first<T: DeserializeOwned>(
    path: &Path,
    text: String,
    placeholders: &[(&str, &str)],
    errors: &mut Vec<ConfigError>,
) -> (Option<T>, Vec<String>, String) {
    let started = Instant::now();
    let error = match yaml::parse::<T>(path, &text) {
        Ok(value) => return (Some(value), Vec::new(), text),
        Err(error) => error,
    };
    if started.elapsed() > PATIENCE {
        errors.push(error);
        return (None, Vec::new(), text);
    }
    match repair(path, &text, errors) {
        Some(repaired) => {
            let (value, left_out) = read(path, &repaired, placeholders, errors);
            (value, left_out, repaired)
        }
        None => (None, Vec::new(), text),
    }
}

/// `T` read from `text` (already [`repair`]ed) block by block, each block's mistake added to
/// `errors`; a block left out for a key in `placeholders` is written as `key: placeholder`.
/// Returns the value, when one could be read, and the keys of the blocks left out.
pub(crate) fn read<T: DeserializeOwned>(
    path: &Path,
    text: &str,
    placeholders: &[(&str, &str)],
    errors: &mut Vec<ConfigError>,
) -> (Option<T>, Vec<String>) {
    let mut text = text.to_string();
    let mut left_out = Vec::new();
    let started = Instant::now();
    for _ in 0..MOST {
        let error = match yaml::parse::<T>(path, &text) {
            Ok(value) => return (Some(value), left_out),
            Err(error) => error,
        };
        // A key the structure cannot do without, missing: no block to leave out; and said
        // only when the file lacks it, not when its block was left out for its own mistake.
        if let Some(key) = error.message.strip_prefix("missing field ") {
            if !left_out.iter().any(|k| key.trim_matches('`') == k) {
                errors.push(error);
            }
            break;
        }
        let line = usize::try_from(error.position.line).unwrap_or(0);
        let found = block(&text, line)
            .filter(|(_, key)| !left_out.contains(key) && started.elapsed() <= PATIENCE);
        errors.push(error);
        let Some((lines, key)) = found else {
            break;
        };
        blank(&mut text, &lines);
        if let Some((_, placeholder)) = placeholders.iter().find(|(k, _)| *k == key) {
            put(&mut text, lines[0], &format!("{key}: {placeholder}"));
        }
        left_out.push(key);
    }
    (None, left_out)
}

/// The top-level block holding 1-based `line` (its lines, and its key; empty for a list
/// item): from a line at column 0 that is not a comment to the next one.
fn block(text: &str, line: usize) -> Option<(Vec<usize>, String)> {
    let lines: Vec<&str> = text.lines().collect();
    let top = |l: &str| !l.is_empty() && !l.starts_with([' ', '\t', '#']);
    let start = (0..line.min(lines.len())).rev().find(|&i| top(lines[i]))?;
    let end = (start + 1..lines.len())
        .find(|&i| top(lines[i]))
        .unwrap_or(lines.len());
    let key = match lines[start].split_once(':') {
        Some((key, _)) if !lines[start].starts_with('-') => key.trim().to_string(),
        _ => String::new(),
    };
    Some(((start + 1..=end).collect(), key))
}

/// Empties 1-based `lines` of `text`, keeping every line's number.
fn blank(text: &mut String, lines: &[usize]) {
    for &line in lines {
        put(text, line, "");
    }
}

/// Replaces 1-based `line` of `text` by `with` (one line).
fn put(text: &mut String, line: usize, with: &str) {
    let mut out = String::with_capacity(text.len());
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            out.push_str(with);
            if l.ends_with('\n') {
                out.push('\n');
            }
        } else {
            out.push_str(l);
        }
    }
    *text = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct File {
        name: String,
        ssh: Ssh,
        #[serde(default)]
        expect: std::collections::HashMap<String, IgnoredAny>,
        #[serde(default)]
        skip: std::collections::BTreeMap<String, String>,
    }

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Ssh {
        host: String,
        port: u16,
    }

    fn read_all(text: &str) -> (Option<File>, Vec<String>) {
        let path = Path::new("f.yaml");
        let mut errors = Vec::new();
        let file = repair(path, text, &mut errors).and_then(|text| {
            read::<File>(path, &text, &[("ssh", "{ host: x, port: 1 }")], &mut errors).0
        });
        (file, errors.iter().map(ToString::to_string).collect())
    }

    #[test]
    fn every_block_s_mistake_is_found_in_one_read() {
        let text = "name: sw1\nssh:\n  host: a\n  port: 33573x\nexpect:\n  ptp:\n    a: 1\n  b: 2\n    c: 3\nskip: [oops]\ncolour: red\n";
        let (file, errors) = read_all(text);
        assert_eq!(
            errors,
            [
                "f.yaml:8:3: `b` is at the wrong depth: it is written under `expect`, between keys of `expect.ptp` (the next line no longer reads)",
                "f.yaml:4:9: ssh.port: a port number 1-65535, not \"33573x\"",
                "f.yaml:10:7: expected mapping start",
                "f.yaml:11:1: unknown field `colour`, expected one of name, ssh, expect, skip",
            ]
            .map(String::from),
            "{file:?}"
        );
        let file = file.expect("the rest read");
        assert_eq!(file.name, "sw1");
        assert!(file.expect.contains_key("ptp") && !file.expect.contains_key("b"));
    }

    #[test]
    fn a_key_written_twice_loses_its_second_line_only() {
        let (file, errors) =
            read_all("name: a\nssh: { host: h, port: 22 }\nexpect:\n  x: 1\n  x: 2\n  y: 3\n");
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(
            errors[0].starts_with("f.yaml:5:3: `x` appears twice"),
            "{errors:?}"
        );
        assert!(file.expect("read").expect.contains_key("y"));
    }

    #[test]
    fn a_missing_key_stops_the_read_once() {
        let (file, errors) = read_all("ssh: { host: h, port: 22 }\n");
        assert!(file.is_none());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].contains("missing field `name`"), "{errors:?}");
        // Left out for its own mistake, it is not said missing as well.
        let (file, errors) = read_all("name: [a]\nssh: { host: h, port: 22 }\n");
        assert!(file.is_none());
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert!(errors[0].starts_with("f.yaml:1:7: "), "{errors:?}");
    }
}
