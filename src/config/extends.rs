//! `extends: leaf.yaml`: a device's baseline that starts from a role file holding what every
//! device of that role shares (forty leaf switches, one design), and says only what is its own.
//!
//! Maps merge key by key, the device's own keys winning; lists and other values are replaced
//! whole; a secret reference (`{ env: }`, `{ file: }`, `{ command: }`) is one value; a key left
//! empty (`expect:` or `expect: {}`) takes the role's map. A role file may extend another (the
//! chain is followed, a loop refused). `extends:` names a file relative to the file that says
//! it, in its folder or below (no absolute path, no `..`): roles are the site's own files.
//!
//! The merge is done on the text, not on parsed values: the result is one YAML text made of the
//! files' own lines (each moved to its depth), with the file and line each came from
//! ([`Origins`]). Every later stage reads it as it reads a device's own file, serde-saphyr
//! reporting each mistake at a line and column of it, which the origins turn back into the
//! role file's own `leaf.yaml:12:5`; the checks need no idea of roles. That is possible because
//! a block map is one key a line: a map written inline (`{ a: 1, b: 2 }`) in one file and merged
//! with the same map in another is refused, naming both. The assembled text is then read back
//! and compared with the merge of the values: anything the line-for-line merge could not carry
//! (an alias `*name` to an anchor in a part left out) is an error, never a silent difference.

use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

use super::error::{ConfigError, Position};
use super::origins::{LineOrigin, Origins};
use super::tree::{Tree, TreeValue};
use super::yaml;

/// Most files in one chain (a device, its role, the role's role ...).
const MOST_FILES: usize = 8;

/// The keys of a secret reference: such a map is one value, never merged.
const SECRET_KEYS: &[&str] = &["env", "file", "command", "timeout_s"];

/// A device's baseline assembled from its chain.
#[derive(Clone, Debug)]
pub struct Assembled {
    pub text: String,
    pub origins: Origins,
}

/// Whether `text` says `extends:` at its top level (looked at before anything is parsed: most
/// devices extend nothing and are read as they always were).
pub fn says_extends(text: &str) -> bool {
    text.lines().any(|l| l.starts_with("extends:"))
}

/// The device file `path` (its `text`) with the role files it extends merged in; `None` when
/// it extends nothing. A role file that is missing or does not read, a loop, or a map that
/// cannot be merged is an error at its own `file:line:column`.
pub fn assemble(path: &Path, text: &str) -> Result<Option<Assembled>, Vec<ConfigError>> {
    if !says_extends(text) {
        return Ok(None);
    }
    let mut chain = vec![Source::read(path, text.to_string())?];
    while let Some((name, at)) = chain.last().and_then(|s| s.extends.clone()) {
        // Roles are the site's own files: an absolute path or `..` would read (and merge, and
        // quote in errors) any file this user can read.
        let inside = Path::new(&name)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if !inside {
            return Err(vec![ConfigError::new(
                at,
                format!(
                    "extends: {name}: a role file is a file of baselines/, named from the file \
                     that extends it without `/` at the start or `..` (leaf.yaml, roles/leaf.yaml)"
                ),
            )]);
        }
        let last = chain.last().map_or(path, |s| s.path.as_path());
        let next = last.parent().unwrap_or(Path::new("")).join(&name);
        if let Some(i) = chain.iter().position(|s| same_file(&s.path, &next)) {
            let mut names: Vec<String> = chain[i..].iter().map(|s| short(&s.path)).collect();
            names.push(short(&next));
            return Err(vec![ConfigError::new(
                at,
                format!(
                    "extends: {name} makes a loop: {} (a role file cannot extend, directly or \
                     not, a file that extends it)",
                    names.join(" -> ")
                ),
            )]);
        }
        if chain.len() >= MOST_FILES {
            return Err(vec![ConfigError::new(
                at,
                format!("extends: {name}: a chain of more than {MOST_FILES} files"),
            )]);
        }
        if !next.exists() {
            return Err(vec![ConfigError::new(
                at,
                format!(
                    "extends: {name}: there is no such file ({}); a role file sits beside the \
                     file that extends it",
                    next.display()
                ),
            )]);
        }
        let text = yaml::read_text(&next).map_err(|e| vec![e])?;
        chain.push(Source::read(&next, text)?);
    }
    let mut merged: Vec<Node> = Vec::new();
    for (file, source) in chain.iter().enumerate().rev() {
        let own = source.nodes(file);
        merged = merge(own, merged, &chain, "")?;
    }
    let mut lines = Vec::new();
    render(&merged, 0, &chain, &mut lines);
    let mut text = String::new();
    let mut origins = Vec::new();
    for (line, origin) in lines {
        text.push_str(&line);
        text.push('\n');
        origins.push(origin);
    }
    let origins = Origins::assembled(chain.iter().map(|s| s.path.clone()).collect(), origins);
    let device = &chain[0];
    let at = device
        .extends
        .as_ref()
        .map_or_else(|| Position::file_start(path), |(_, at)| at.clone());
    let carried = yaml::parse::<Option<Tree>>(path, &text)
        .map(|tree| tree.map_or(Value::Object(Map::new()), |t| t.value.to_json()));
    let wanted = chain
        .iter()
        .rev()
        .fold(Value::Object(Map::new()), |parent, s| {
            merge_values(s.values(), parent)
        });
    match carried {
        Ok(carried) if carried == wanted => Ok(Some(Assembled { text, origins })),
        Ok(_) => Err(vec![ConfigError::new(
            at,
            format!(
                "the baseline could not be assembled line for line from {}: an alias (*name) \
                 whose anchor is in another part of a file, or a document marker, does not \
                 carry over; write the value out",
                names(&chain)
            ),
        )]),
        Err(e) => Err(vec![ConfigError::new(
            origins.translate(e.position),
            format!(
                "{} (in the baseline assembled from {}: an alias or anchor does not carry over \
                 from one file to another)",
                e.message,
                names(&chain)
            ),
        )]),
    }
}

/// One file of the chain, read.
struct Source {
    path: PathBuf,
    lines: Vec<String>,
    /// The top-level map, `extends` left out; empty for a file with no keys.
    root: Vec<(serde_saphyr::Spanned<String>, Tree)>,
    /// The file it extends, and where that is written.
    extends: Option<(String, Position)>,
}

impl Source {
    fn read(path: &Path, text: String) -> Result<Source, Vec<ConfigError>> {
        let tree = yaml::parse::<Option<Tree>>(path, &text).map_err(|e| vec![e])?;
        let mut root = match tree.map(|t| (t.value, t.referenced)) {
            None | Some((TreeValue::Null, _)) => Vec::new(),
            Some((TreeValue::Map(entries), _)) => entries,
            Some((other, at)) => {
                return Err(vec![ConfigError::new(
                    Position::from_location(path, at),
                    format!(
                        "a baseline holds keys (platform:, ssh:, expect: ...), not {}",
                        other.kind()
                    ),
                )]);
            }
        };
        if !one_key_a_line(&root, 0) {
            return Err(vec![ConfigError::new(
                Position::file_start(path),
                "a file that extends or is extended is written one top-level key a line",
            )]);
        }
        let extends = match root.iter().position(|(k, _)| k.value == "extends") {
            None => None,
            Some(i) => {
                let (_, value) = root.remove(i);
                let at = Position::from_location(path, value.referenced);
                match value.value {
                    TreeValue::String(name) if !name.trim().is_empty() => Some((name, at)),
                    _ => {
                        return Err(vec![ConfigError::new(
                            at,
                            "extends: the name of a role file beside this one (extends: leaf.yaml)",
                        )]);
                    }
                }
            }
        };
        Ok(Source {
            path: path.to_path_buf(),
            lines: text.lines().map(str::to_string).collect(),
            root,
            extends,
        })
    }

    /// The top-level entries as nodes of file number `file`.
    fn nodes(&self, file: usize) -> Vec<Node> {
        let end = self.lines.len() as u64 + 1;
        nodes(file, &self.lines, &self.root, end)
    }

    /// The file's values, `extends` left out.
    fn values(&self) -> Value {
        Value::Object(
            self.root
                .iter()
                .map(|(k, v)| (k.value.clone(), v.value.to_json()))
                .collect(),
        )
    }
}

/// One key of a file and its value, as lines of that file.
#[derive(Clone, Debug)]
struct Node {
    key: String,
    file: usize,
    /// Its first line: the comments right above the key, at the key's column, are its own.
    start: u64,
    /// Where the key is written (1-based).
    line: u64,
    column: u64,
    /// The first line after its value (its next sibling's start, or its parent's end).
    end: u64,
    shape: Shape,
}

#[derive(Clone, Debug)]
enum Shape {
    /// A map written one key a line, as written in one file.
    Block(Vec<Node>),
    /// A map merged from several files: its key line, then its keys from wherever they came.
    Merged(Vec<Node>),
    /// A map with no keys, or no value at all: it takes the role's map.
    Empty,
    /// A map written inline; `secret`: a secret reference.
    Inline { secret: bool },
    /// A scalar or a list: replaced whole.
    Value,
}

impl Node {
    fn is_secret(&self) -> bool {
        match &self.shape {
            Shape::Block(keys) | Shape::Merged(keys) => {
                is_secret(keys.iter().map(|n| n.key.as_str()))
            }
            Shape::Inline { secret } => *secret,
            Shape::Empty | Shape::Value => false,
        }
    }

    fn is_map(&self) -> bool {
        !matches!(self.shape, Shape::Value)
    }
}

/// Whether a map with these keys is a secret reference.
fn is_secret<'a>(mut keys: impl Iterator<Item = &'a str> + Clone) -> bool {
    keys.clone().all(|k| SECRET_KEYS.contains(&k))
        && keys.any(|k| ["env", "file", "command"].contains(&k))
}

/// Whether each key of `entries` starts a line of its own, below `line`.
fn one_key_a_line(entries: &[(serde_saphyr::Spanned<String>, Tree)], line: u64) -> bool {
    let mut last = line;
    entries.iter().all(|(k, _)| {
        let here = k.referenced.line();
        let later = here > last;
        last = here;
        later
    })
}

fn nodes(
    file: usize,
    lines: &[String],
    entries: &[(serde_saphyr::Spanned<String>, Tree)],
    end: u64,
) -> Vec<Node> {
    let starts: Vec<u64> = entries
        .iter()
        .map(|(k, _)| comments_above(lines, k.referenced.line(), k.referenced.column()))
        .collect();
    let mut out = Vec::with_capacity(entries.len());
    for (i, (key, value)) in entries.iter().enumerate() {
        let line = key.referenced.line();
        let next = starts.get(i + 1).copied().unwrap_or(end);
        let shape = match &value.value {
            TreeValue::Null => Shape::Empty,
            TreeValue::Map(keys) if keys.is_empty() => Shape::Empty,
            TreeValue::Map(keys) if one_key_a_line(keys, line) => {
                Shape::Block(nodes(file, lines, keys, next))
            }
            TreeValue::Map(keys) => Shape::Inline {
                secret: is_secret(keys.iter().map(|(k, _)| k.value.as_str())),
            },
            _ => Shape::Value,
        };
        out.push(Node {
            key: key.value.clone(),
            file,
            start: starts[i],
            line,
            column: key.referenced.column(),
            end: next,
            shape,
        });
    }
    out
}

/// The first line of the comments written right above 1-based `line` at `column` (the key's
/// own: `# The exchange's querier speaks IGMPv2` above `querier_version:`); `line` if none.
fn comments_above(lines: &[String], line: u64, column: u64) -> u64 {
    let indent = usize::try_from(column.saturating_sub(1)).unwrap_or(0);
    let mut start = line;
    while start > 1 {
        let Some(above) = usize::try_from(start - 2).ok().and_then(|i| lines.get(i)) else {
            break;
        };
        let comment = above.len() > indent
            && above.as_bytes()[..indent].iter().all(|b| *b == b' ')
            && above[indent..].starts_with('#');
        if !comment {
            break;
        }
        start -= 1;
    }
    start
}

/// `child`'s keys over `parent`'s: the child's order, then the keys only the parent has.
fn merge(
    child: Vec<Node>,
    mut parent: Vec<Node>,
    chain: &[Source],
    under: &str,
) -> Result<Vec<Node>, Vec<ConfigError>> {
    let mut out = Vec::with_capacity(child.len() + parent.len());
    for node in child {
        match parent.iter().position(|p| p.key == node.key) {
            None => out.push(node),
            Some(i) => {
                let theirs = parent.remove(i);
                out.push(merge_node(node, theirs, chain, under)?);
            }
        }
    }
    out.extend(parent);
    Ok(out)
}

fn merge_node(
    mine: Node,
    theirs: Node,
    chain: &[Source],
    under: &str,
) -> Result<Node, Vec<ConfigError>> {
    if mine.is_secret() || theirs.is_secret() {
        return Ok(mine);
    }
    let path = if under.is_empty() {
        mine.key.clone()
    } else {
        format!("{under}.{}", mine.key)
    };
    match (mine.shape.clone(), &theirs.shape) {
        (Shape::Empty, _) if theirs.is_map() => Ok(theirs),
        (Shape::Block(keys) | Shape::Merged(keys), Shape::Block(their) | Shape::Merged(their)) => {
            Ok(Node {
                shape: Shape::Merged(merge(keys, their.clone(), chain, &path)?),
                ..mine
            })
        }
        (Shape::Block(_) | Shape::Merged(_) | Shape::Inline { .. }, Shape::Inline { .. })
        | (Shape::Inline { .. }, Shape::Block(_) | Shape::Merged(_)) => {
            let at = |n: &Node| Position::new(&chain[n.file].path, n.line, n.column);
            Err(vec![ConfigError::new(
                at(&mine),
                format!(
                    "`{path}` is a map here and in {}; to merge them key by key, write both one \
                     key a line (a map written inline, {{ ... }}, is not merged)",
                    at(&theirs)
                ),
            )])
        }
        _ => Ok(mine),
    }
}

/// The merge of the values, by the same rules (what the assembled text must read as).
fn merge_values(mine: Value, theirs: Value) -> Value {
    let secret = |v: &Value| {
        v.as_object()
            .is_some_and(|m| !m.is_empty() && is_secret(m.keys().map(String::as_str)))
    };
    if secret(&mine) || secret(&theirs) {
        return mine;
    }
    match (mine, theirs) {
        (Value::Null, Value::Object(theirs)) => Value::Object(theirs),
        (Value::Object(mine), Value::Object(mut theirs)) => {
            for (key, value) in mine {
                let merged = match theirs.remove(&key) {
                    Some(their) => merge_values(value, their),
                    None => value,
                };
                theirs.insert(key, merged);
            }
            Value::Object(theirs)
        }
        (mine, _) => mine,
    }
}

/// The lines of `nodes` at `depth` (two spaces a level), each with its origin.
fn render(nodes: &[Node], depth: u64, chain: &[Source], out: &mut Vec<(String, LineOrigin)>) {
    for node in nodes {
        let shift =
            i64::try_from(2 * depth + 1).unwrap_or(0) - i64::try_from(node.column).unwrap_or(0);
        let lines = &chain[node.file].lines;
        let mut emit = |line: u64| {
            let Some(text) = line
                .checked_sub(1)
                .and_then(|i| lines.get(usize::try_from(i).ok()?))
            else {
                return;
            };
            if text == "---" || text == "..." {
                return;
            }
            out.push((
                moved(text, shift),
                LineOrigin {
                    file: node.file,
                    line,
                    shift,
                },
            ));
        };
        match &node.shape {
            Shape::Merged(keys) => {
                (node.start..=node.line).for_each(&mut emit);
                render(keys, depth + 1, chain, out);
            }
            _ => (node.start..node.end).for_each(emit),
        }
    }
}

/// `line` moved `shift` columns (to the left only over its leading spaces).
fn moved(line: &str, shift: i64) -> String {
    if shift >= 0 {
        let pad = " ".repeat(usize::try_from(shift).unwrap_or(0));
        return format!("{pad}{line}");
    }
    let drop = usize::try_from(-shift).unwrap_or(0);
    let spaces = line.len() - line.trim_start_matches(' ').len();
    line[drop.min(spaces)..].to_string()
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A file's name as the operator wrote it in `extends:` (its last component).
fn short(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

fn names(chain: &[Source]) -> String {
    chain
        .iter()
        .map(|s| short(&s.path))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "extends_tests.rs"]
mod tests;
