//! A rule as written in the catalog (`rule:`), read from its positioned YAML into a tree of
//! [`Node`]s. Every mistake is collected with its own `file:line:column`: an unknown operator
//! or key, a JSONPath that does not parse, a regex that does not compile, a value of the wrong
//! kind, a node that is neither a combinator nor a test.
//!
//! A node is one of:
//! - `all: [nodes]` / `any: [nodes]`;
//! - `each: PATH` with a body (`all:`, `any:`, or a test written in the same mapping), and
//!   optionally `keys:`;
//! - a test: `path: PATH` (default `$`) with one or more operators.
//!
//! Values are literals or `{ baseline: KEY }`; the latter are resolved per device later.

use std::path::Path as FilePath;

use serde_json::Value;
use serde_saphyr::{Location, Spanned};

use super::ops::{Cond, Op};
use super::path::Path;
use premarket_config::{ConfigError, Position, Tree, TreeValue};

/// A rule node. `C` is what an operator holds: [`Spec`] as written, a built condition once the
/// device's baseline values are known.
#[derive(Clone, Debug)]
pub enum Node<C> {
    All(Vec<Node<C>>),
    Any(Vec<Node<C>>),
    Each {
        path: Path,
        keys: Option<C>,
        body: Box<Node<C>>,
    },
    Test {
        path: Path,
        tests: Vec<C>,
    },
}

/// An operator as written: its value is a literal or a baseline reference.
#[derive(Clone, Debug)]
pub struct Spec {
    pub op: Op,
    pub value: Ref,
}

#[derive(Clone, Debug)]
pub enum Ref {
    Literal(Value),
    /// `{ baseline: KEY }`, and where it is written.
    Baseline {
        key: String,
        at: Position,
    },
}

impl<C> Node<C> {
    /// The same rule with every operator turned into `D` by `f`; every error is collected.
    pub fn map<D, E>(
        &self,
        f: &mut impl FnMut(&C) -> Result<D, E>,
        errors: &mut Vec<E>,
    ) -> Option<Node<D>> {
        let mut list = |nodes: &[Node<C>], errors: &mut Vec<E>| -> Option<Vec<Node<D>>> {
            let mapped: Vec<Option<Node<D>>> = nodes.iter().map(|n| n.map(f, errors)).collect();
            mapped.into_iter().collect()
        };
        match self {
            Node::All(nodes) => list(nodes, errors).map(Node::All),
            Node::Any(nodes) => list(nodes, errors).map(Node::Any),
            Node::Each { path, keys, body } => {
                let keys = keys.as_ref().map(|k| f(k).map_err(|e| errors.push(e)));
                let body = body.map(f, errors);
                match (keys, body) {
                    (None, Some(body)) => Some(Node::Each {
                        path: path.clone(),
                        keys: None,
                        body: Box::new(body),
                    }),
                    (Some(Ok(keys)), Some(body)) => Some(Node::Each {
                        path: path.clone(),
                        keys: Some(keys),
                        body: Box::new(body),
                    }),
                    _ => None,
                }
            }
            Node::Test { path, tests } => {
                let mapped: Vec<Option<D>> = tests
                    .iter()
                    .map(|t| f(t).map_err(|e| errors.push(e)).ok())
                    .collect();
                mapped
                    .into_iter()
                    .collect::<Option<Vec<D>>>()
                    .map(|tests| Node::Test {
                        path: path.clone(),
                        tests,
                    })
            }
        }
    }

    /// Every operator, depth first.
    pub fn specs(&self) -> Vec<&C> {
        match self {
            Node::All(nodes) | Node::Any(nodes) => nodes.iter().flat_map(Node::specs).collect(),
            Node::Each { keys, body, .. } => keys.iter().chain(body.specs()).collect(),
            Node::Test { tests, .. } => tests.iter().collect(),
        }
    }
}

/// The keys a rule node may have besides the leaf operators.
const STRUCTURE: [&str; 5] = ["each", "keys", "all", "any", "path"];

fn leaf_names() -> String {
    Op::LEAF
        .iter()
        .map(|o| o.name())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The keys of one rule node, each read (`None` inside: read with an error already reported)
/// with where its key is written.
#[derive(Default)]
struct Parts {
    each: Option<(Option<Path>, Location)>,
    keys: Option<(Option<Spec>, Location)>,
    all: Option<(Option<Vec<Node<Spec>>>, Location)>,
    any: Option<(Option<Vec<Node<Spec>>>, Location)>,
    path: Option<(Option<Path>, Location)>,
    tests: Vec<Option<Spec>>,
    /// An unknown key was reported.
    broken: bool,
}

/// Reads `rule:` of the catalog entry in `file`.
pub fn read(rule: &Tree, file: &FilePath, errors: &mut Vec<ConfigError>) -> Option<Node<Spec>> {
    Reader { file, errors }.node(rule)
}

struct Reader<'a> {
    file: &'a FilePath,
    errors: &'a mut Vec<ConfigError>,
}

impl Reader<'_> {
    fn at(&self, location: Location) -> Position {
        Position::from_location(self.file, location)
    }

    fn error(&mut self, location: Location, message: impl Into<String>) {
        let position = self.at(location);
        self.errors.push(ConfigError::new(position, message));
    }

    fn node(&mut self, tree: &Tree) -> Option<Node<Spec>> {
        let TreeValue::Map(entries) = &tree.value else {
            self.error(
                tree.referenced,
                format!(
                    "a rule node is a mapping (all, any, each, or path with operators), not {}",
                    tree.value.kind()
                ),
            );
            return None;
        };
        let mut parts = Parts::default();
        for (key, value) in entries {
            let at = key.referenced;
            match key.value.as_str() {
                "each" => parts.each = Some((self.path(value), at)),
                "keys" => parts.keys = Some((self.value(Op::Keys, value), at)),
                "all" => parts.all = Some((self.list(value), at)),
                "any" => parts.any = Some((self.list(value), at)),
                "path" => parts.path = Some((self.path(value), at)),
                name => match Op::from_name(name) {
                    Some(op) if op != Op::Keys => parts.tests.push(self.value(op, value)),
                    _ => {
                        self.error(
                            at,
                            format!(
                                "unknown operator or key `{name}` in a rule (keys: {}; operators: {})",
                                STRUCTURE.join(", "),
                                leaf_names()
                            ),
                        );
                        parts.broken = true;
                    }
                },
            }
        }
        self.assemble(parts, tree.referenced)
    }

    /// Checks that the keys of one node make one shape, and builds it.
    fn assemble(&mut self, parts: Parts, at: Location) -> Option<Node<Spec>> {
        let Parts {
            each,
            keys,
            all,
            any,
            path,
            tests,
            broken,
        } = parts;
        let has_test = path.is_some() || !tests.is_empty();
        let body = match (all, any) {
            (Some(_), Some((_, any_at))) => {
                self.error(
                    any_at,
                    "a rule node has `all` or `any`, not both: nest one inside the other",
                );
                return None;
            }
            (Some((_, at)), None) | (None, Some((_, at))) if has_test => {
                self.error(
                    at,
                    "a rule node is a combinator (all/any) or a test (path with operators), not \
                     both: move the test into the list",
                );
                return None;
            }
            (Some((nodes, _)), None) => nodes.map(Node::All),
            (None, Some((nodes, _))) => nodes.map(Node::Any),
            (None, None) if tests.is_empty() => {
                match (path, broken) {
                    (_, true) => {}
                    (Some((_, path_at)), false) => self.error(
                        path_at,
                        format!("`path` without an operator: add one of {}", leaf_names()),
                    ),
                    (None, false) if each.is_some() => self.error(
                        at,
                        "`each` needs a body: `all:`, `any:`, or `path:` with operators",
                    ),
                    (None, false) => self.error(
                        at,
                        "a rule node needs `all`, `any`, `each`, or `path` with an operator",
                    ),
                }
                return None;
            }
            (None, None) => {
                let path = match path {
                    Some((path, _)) => path,
                    None => Some(Path::root()),
                };
                let tests: Option<Vec<Spec>> = tests.into_iter().collect();
                path.zip(tests)
                    .map(|(path, tests)| Node::Test { path, tests })
            }
        };
        match (each, keys) {
            (Some((path, _)), keys) => {
                let keys = match keys {
                    None => Some(None),
                    Some((keys, _)) => keys.map(Some),
                };
                let (path, keys, body) = (path?, keys?, body?);
                (!broken).then(|| Node::Each {
                    path,
                    keys,
                    body: Box::new(body),
                })
            }
            (None, Some((_, keys_at))) => {
                self.error(
                    keys_at,
                    "`keys` filters the nodes of an `each`: add `each: PATH` beside it",
                );
                None
            }
            (None, None) => body.filter(|_| !broken),
        }
    }

    fn list(&mut self, tree: &Tree) -> Option<Vec<Node<Spec>>> {
        match &tree.value {
            TreeValue::List(items) if !items.is_empty() => {
                let nodes: Vec<Option<Node<Spec>>> = items.iter().map(|i| self.node(i)).collect();
                nodes.into_iter().collect()
            }
            other => {
                self.error(
                    tree.referenced,
                    format!(
                        "`all` and `any` take a non-empty list of rule nodes, not {}",
                        other.kind()
                    ),
                );
                None
            }
        }
    }

    fn path(&mut self, tree: &Tree) -> Option<Path> {
        let TreeValue::String(text) = &tree.value else {
            self.error(
                tree.referenced,
                format!(
                    "a path is a JSONPath string such as `$.a.b`, not {}",
                    tree.value.kind()
                ),
            );
            return None;
        };
        match Path::parse(text) {
            Ok(path) => Some(path),
            Err(message) => {
                self.error(tree.referenced, message.to_string());
                None
            }
        }
    }

    fn value(&mut self, op: Op, tree: &Tree) -> Option<Spec> {
        if let TreeValue::Map(entries) = &tree.value {
            return match entries.as_slice() {
                [
                    (
                        key,
                        Spanned {
                            value: TreeValue::String(name),
                            ..
                        },
                    ),
                ] if key.value == "baseline" => Some(Spec {
                    op,
                    value: Ref::Baseline {
                        key: name.clone(),
                        at: self.at(tree.referenced),
                    },
                }),
                _ => {
                    self.error(
                        tree.referenced,
                        format!(
                            "{}: a value is written as is or as `{{ baseline: KEY }}` (a key of the \
                             device's `expect:`)",
                            op.name()
                        ),
                    );
                    None
                }
            };
        }
        let literal = tree.value.to_json();
        match Cond::build(op, &literal) {
            Ok(_) => Some(Spec {
                op,
                value: Ref::Literal(literal),
            }),
            Err(message) => {
                self.error(tree.referenced, message.to_string());
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read_text(text: &str) -> Result<Node<Spec>, Vec<String>> {
        let tree: Tree = serde_saphyr::from_str(text).unwrap();
        let mut errors = Vec::new();
        let node = read(&tree, FilePath::new("c.yaml"), &mut errors);
        match node {
            Some(node) if errors.is_empty() => Ok(node),
            _ => Err(errors.iter().map(ToString::to_string).collect()),
        }
    }

    #[test]
    fn the_shapes_of_a_rule() {
        let each = read_text(
            "each: $.interfaceErrorCounters.*\nkeys: { baseline: trading_ports }\nall:\n  - { path: $.fcsErrors, at_most: 0 }\n  - { path: $.inErrors, at_most: { baseline: max_in_errors } }\n",
        )
        .unwrap();
        let Node::Each { path, keys, body } = &each else {
            panic!("{each:?}")
        };
        assert_eq!(path.to_string(), "$.interfaceErrorCounters.*");
        assert!(
            matches!(keys, Some(Spec { op: Op::Keys, value: Ref::Baseline { key, at } }) if key == "trading_ports" && at.line == 2)
        );
        assert!(matches!(body.as_ref(), Node::All(nodes) if nodes.len() == 2));
        assert_eq!(each.specs().len(), 3);

        let leaf = read_text("{ path: $.lanzEnabled, equals: true }").unwrap();
        assert!(matches!(leaf, Node::Test { ref tests, .. } if tests.len() == 1));
        let bare =
            read_text("{ each: '$.peers.*.condition', one_of: [sys.peer, candidate] }").unwrap();
        assert!(
            matches!(bare, Node::Each { ref body, .. } if matches!(body.as_ref(), Node::Test { .. }))
        );
        let any = read_text(
            "any:\n  - { path: $.a, present: true }\n  - { path: $.b, count_at_least: 2 }\n",
        )
        .unwrap();
        assert!(matches!(any, Node::Any(ref n) if n.len() == 2));
    }

    #[test]
    fn mistakes_point_at_their_place() {
        // (rule, line:column of the error, words of the message)
        let cases = [
            (
                "{ path: $.a, at_mst: 0 }",
                "1:14",
                "unknown operator or key `at_mst`",
            ),
            (
                "{ path: '$.a[', at_most: 0 }",
                "1:9",
                "not an RFC 9535 JSONPath",
            ),
            ("{ path: $.a, matches: '(x' }", "1:23", "is not a regex"),
            (
                "{ path: $.a, at_most: ten }",
                "1:23",
                "at_most needs a number",
            ),
            ("{ path: $.a }", "1:3", "without an operator"),
            ("all: []", "1:6", "non-empty list"),
            (
                "{ all: [{ path: $.a, equals: 1 }], any: [{ path: $.a, equals: 1 }] }",
                "1:36",
                "not both",
            ),
            (
                "{ keys: [a], path: $.a, equals: 1 }",
                "1:3",
                "add `each: PATH`",
            ),
            ("{ each: $.a.* }", "1:1", "needs a body"),
            (
                "{ path: $.a, at_most: { baseline: k, x: 1 } }",
                "1:23",
                "{ baseline: KEY }",
            ),
            (
                "each: $.a.*\nall:\n  - { path: $.b, equals: 1, bogus: 2 }\n",
                "3:29",
                "unknown operator or key `bogus`",
            ),
            ("[1]", "1:1", "a rule node is a mapping"),
        ];
        for (rule, at, says) in cases {
            let errors = read_text(rule).unwrap_err();
            assert!(
                errors
                    .iter()
                    .any(|e| e.starts_with(&format!("c.yaml:{at}: ")) && e.contains(says)),
                "{rule}: {errors:?}"
            );
        }
    }

    #[test]
    fn every_mistake_at_once() {
        let errors =
            read_text("all:\n  - { path: $.a, at_mst: 0 }\n  - { path: '$[', equals: 1 }\n")
                .unwrap_err();
        assert_eq!(errors.len(), 2, "{errors:?}");
    }
}
