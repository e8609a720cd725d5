//! RFC 9535 JSONPath for rules (`path:` and `each:`), with the place of every node it selects.
//!
//! The query itself is `serde_json_path`'s (a maintained implementation of the RFC). What this
//! adds is an owned [`Location`]: a FAIL names the node it is about (`Ethernet3`), and
//! `increase_at_most` finds the same node in the previous run's fact by that location. A path
//! past the nesting budget ([`super::budget`]) does not parse.

use std::fmt;
use std::sync::Arc;

use serde_json::Value;
use serde_json_path::{JsonPath, PathElement};

/// Why a rule's path does not compile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("`{text}` is not an RFC 9535 JSONPath: {error}")]
    NotJsonPath { text: String, error: String },
    /// Past the nesting budget ([`super::budget`]); the budget's own words say which part.
    #[error("{0}")]
    OverBudget(String),
}

/// A compiled JSONPath and the text it was written as.
#[derive(Clone, Debug)]
pub struct Path {
    /// Shared: an evaluation in progress names the path it is reading ([`crate::Watch`]).
    text: Arc<str>,
    compiled: JsonPath,
}

impl Path {
    /// Compiles `text`; the error says why it is not RFC 9535 JSONPath, or why it is past the
    /// nesting budget.
    pub fn parse(text: &str) -> Result<Path, PathError> {
        if text.len() > super::budget::MAX_PATH_LEN {
            // Refused before the parser, which recurses on parentheses.
            return Err(PathError::OverBudget(
                super::budget::nesting(text).unwrap_or_default(),
            ));
        }
        let compiled = JsonPath::parse(text).map_err(|e| PathError::NotJsonPath {
            text: text.to_string(),
            error: e.to_string(),
        })?;
        if let Some(why) = super::budget::nesting(text) {
            return Err(PathError::OverBudget(why));
        }
        Ok(Path {
            text: text.into(),
            compiled,
        })
    }

    /// The path as written, shared.
    pub fn text(&self) -> &Arc<str> {
        &self.text
    }

    /// `$`: the node itself (a leaf without `path:`).
    pub fn root() -> Path {
        Path::parse("$").unwrap_or_else(|_| unreachable!("`$` is a JSONPath"))
    }

    /// The nodes `self` selects in `value`, each with its place relative to `value`.
    pub fn select<'v>(&self, value: &'v Value) -> Vec<(Location, &'v Value)> {
        self.compiled
            .query_located(value)
            .into_iter()
            .map(|node| {
                let steps = node
                    .location()
                    .iter()
                    .map(|step| match step {
                        PathElement::Name(name) => Step::Name((*name).to_string()),
                        PathElement::Index(i) => Step::Index(*i),
                    })
                    .collect();
                (Location(steps), node.node())
            })
            .collect()
    }
}

impl fmt::Display for Path {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// One step from a node to a child.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    Name(String),
    Index(usize),
}

/// Where a node is, from the root of the fact: the RFC's normalized path, owned.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Location(Vec<Step>);

impl Location {
    /// `self` followed by `rest`.
    pub fn join(&self, rest: &Location) -> Location {
        Location(self.0.iter().chain(&rest.0).cloned().collect())
    }

    /// The member name or index of the node (`Ethernet3`, `[2]`); `$` for the root.
    pub fn label(&self) -> String {
        match self.0.last() {
            Some(Step::Name(name)) => name.clone(),
            Some(Step::Index(i)) => format!("[{i}]"),
            None => "$".to_string(),
        }
    }

    /// The member name, when the node is an object member.
    pub fn name(&self) -> Option<&str> {
        match self.0.last() {
            Some(Step::Name(name)) => Some(name),
            _ => None,
        }
    }

    /// The node in `root` at this place (RFC 6901 pointer lookup), if it is there.
    pub fn find<'v>(&self, root: &'v Value) -> Option<&'v Value> {
        self.0.iter().try_fold(root, |node, step| match step {
            Step::Name(name) => node.get(name.as_str()),
            Step::Index(i) => node.get(*i),
        })
    }
}

impl fmt::Display for Location {
    /// The normalized path: `$['interfaceErrorCounters']['Ethernet3']`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("$")?;
        for step in &self.0 {
            match step {
                Step::Name(name) => {
                    let escaped = name.replace('\\', "\\\\").replace('\'', "\\'");
                    write!(f, "['{escaped}']")?;
                }
                Step::Index(i) => write!(f, "[{i}]")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn selects_with_places() {
        let doc =
            json!({"counters": {"Ethernet1": {"fcs": 0}, "Ethernet3": {"fcs": 5}}, "list": [1, 2]});
        let each = Path::parse("$.counters.*").unwrap();
        let nodes = each.select(&doc);
        let labels: Vec<String> = nodes.iter().map(|(at, _)| at.label()).collect();
        assert_eq!(labels, ["Ethernet1", "Ethernet3"]);
        let (at, node) = &nodes[1];
        assert_eq!(at.to_string(), "$['counters']['Ethernet3']");
        let fcs = Path::parse("$.fcs").unwrap().select(node);
        let whole = at.join(&fcs[0].0);
        assert_eq!(whole.find(&doc), Some(&json!(5)));
        let second = &Path::parse("$.list[1]").unwrap().select(&doc)[0];
        assert_eq!((second.0.label(), second.1), ("[1]".to_string(), &json!(2)));
        assert_eq!(Path::root().select(&doc)[0].0.label(), "$");
    }

    #[test]
    fn names_with_quotes_are_escaped() {
        let doc = json!({"it's": 1});
        let (at, _) = &Path::parse("$.*").unwrap().select(&doc)[0];
        assert_eq!(at.to_string(), r"$['it\'s']");
    }

    #[test]
    fn bad_paths_say_why() {
        for bad in ["interfaces.*", "$.a[", "$..", "$.a[?@.b ==]"] {
            let err = Path::parse(bad).unwrap_err();
            assert!(matches!(err, PathError::NotJsonPath { .. }), "{bad}: {err}");
            assert!(
                err.to_string().contains("not an RFC 9535 JSONPath"),
                "{bad}: {err}"
            );
        }
        let err = Path::parse("$..[?@..[?@..[?@..zz]]]").unwrap_err();
        assert!(matches!(err, PathError::OverBudget(_)), "{err}");
        assert!(err.to_string().contains("7 deep"), "{err}");
    }

    #[test]
    fn nested_parentheses_up_to_the_longest_path_do_not_exhaust_the_stack() {
        // A test thread has a 2 MiB stack, a quarter of the main thread's.
        let deep = |n: usize| format!("$[?{}@.a{}]", "(".repeat(n), ")".repeat(n));
        let longest = deep((super::super::budget::MAX_PATH_LEN - 8) / 2);
        assert!(longest.len() <= super::super::budget::MAX_PATH_LEN);
        assert!(Path::parse(&longest).is_ok());
        let err = Path::parse(&deep(300)).unwrap_err().to_string();
        assert!(err.contains("at most 512 characters"), "{err}");
    }
}
