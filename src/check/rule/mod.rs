//! Declarative checks: a catalog entry with `command` and `rule` (and optionally `parse`)
//! instead of a built-in id, judged without any Rust of its own.
//!
//! ```yaml
//! - id: eos.ports.errors-absent
//!   title: Ports show no input errors
//!   platform: eos
//!   remedy: Check the optic and the cable of the port named in the evidence.
//!   command: show interfaces counters errors | json
//!   rule:
//!     each: $.interfaceErrorCounters.*
//!     all:
//!       - { path: $.fcsErrors, at_most: 0 }
//!       - { path: $.inErrors, at_most: { baseline: max_in_errors } }
//! ```
//!
//! When the catalog is resolved, the entry becomes a [`Declarative`] (a [`Definition`] like a
//! built-in check): the command must pass the platform's read-only allowlist, the output must
//! have a reader ([`readers`]), and the rule must read ([`grammar`]); every mistake is a
//! configuration error at its `file:line:column`. When a device's run is planned, its
//! `{ baseline: KEY }` values are looked up ([`Declarative::prepare`]); judging is [`eval`].

mod eval;
mod grammar;
mod ops;
mod path;
mod readers;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;
use serde_saphyr::Spanned;

use self::eval::{Outcome, Previous, Test};
use self::grammar::{Node, Ref, Spec};
use self::ops::{Cond, Op};
use self::readers::{Reader, RuleQuery};
use super::{BaselineText, Definition, InputError, Prepared};
use crate::config::{ConfigError, Declared, Entry, Position, TreeValue};
use crate::core::{Command, Platform, Verdict};
use crate::parse::{AnyQuery, Facts, text};
use crate::platform::{eos, fortigate};

/// A declarative check, read from its catalog entry.
pub struct Declarative {
    id: String,
    platform: Platform,
    query: RuleQuery,
    rule: Node<Spec>,
    /// Where the entry is (for errors about the whole rule).
    position: Position,
}

impl Declarative {
    /// Reads the declarative part of `entry`; every mistake is returned at once.
    pub fn from_entry(entry: &Entry, declared: &Declared) -> Result<Declarative, Vec<ConfigError>> {
        let mut errors = Vec::new();
        let file = entry.position.file.clone();
        let (Some((command, command_at)), Some(rule)) = (&declared.command, &declared.rule) else {
            let missing = if declared.command.is_none() {
                "command"
            } else {
                "rule"
            };
            return Err(vec![ConfigError::new(
                entry.position.clone(),
                format!(
                    "check {}: a declarative check needs both `command` and `rule`; `{missing}` is missing",
                    entry.id
                ),
            )]);
        };
        let platform = entry.platform;
        if let Err(reason) = allowed(platform, command) {
            errors.push(ConfigError::new(
                command_at.clone(),
                format!(
                    "check {}: the {platform} allowlist refuses `{command}`: {reason}",
                    entry.id
                ),
            ));
        }
        let reader = reader(entry, command, command_at, declared, &mut errors);
        let rule = grammar::read(rule, &file, &mut errors);
        match (reader, rule) {
            (Some(reader), Some(rule)) if errors.is_empty() => {
                let archived = rule.specs().iter().any(|s| s.op == Op::IncreaseAtMost);
                Ok(Declarative {
                    id: entry.id.clone(),
                    platform,
                    query: RuleQuery {
                        command: Command::new(command.clone()),
                        kind: format!("rule:{}", entry.id),
                        platform,
                        reader,
                        archived,
                    },
                    rule,
                    position: entry.position.clone(),
                })
            }
            _ => Err(errors),
        }
    }
}

/// The platform's read-only allowlist: the same function the SSH guard applies.
fn allowed(platform: Platform, command: &str) -> Result<(), String> {
    match platform {
        Platform::Eos => eos::allowlist::check(command),
        Platform::Fortigate => fortigate::allowlist::check(command),
        Platform::Probe => Err(
            "the probe is not sent commands: declarative checks are for eos and fortigate".into(),
        ),
    }
}

/// The reader of the entry's output: `parse:` as written, or the default for the command.
fn reader(
    entry: &Entry,
    command: &str,
    command_at: &Position,
    declared: &Declared,
    errors: &mut Vec<ConfigError>,
) -> Option<Reader> {
    let file = &entry.position.file;
    let Some(parse) = &declared.parse else {
        let found = readers::default_reader(entry.platform, command);
        if found.is_none() {
            errors.push(ConfigError::new(
                command_at.clone(),
                format!(
                    "check {}: no built-in parser reads `{command}`: add `parse:` (regex{}){}",
                    entry.id,
                    if entry.platform == Platform::Fortigate {
                        ", kv or config"
                    } else {
                        ""
                    },
                    if entry.platform == Platform::Eos {
                        ", or ask the switch for JSON with `| json`"
                    } else {
                        ""
                    },
                ),
            ));
        }
        return found;
    };
    let at = Position::from_location(file, parse.referenced);
    let mut refuse = |message: String| {
        errors.push(ConfigError::new(
            at.clone(),
            format!("check {}: {message}", entry.id),
        ));
        None
    };
    if entry.platform == Platform::Eos && readers::asks_json(command) {
        return refuse(format!(
            "`parse:` reads text output, and `{command}` is read as the switch's JSON: drop one of them"
        ));
    }
    let fortios_only = |name: &str| {
        format!(
            "parse: {name} reads FortiOS output; this check is for {}",
            entry.platform
        )
    };
    match &parse.value {
        TreeValue::String(name) if name == "kv" => match entry.platform {
            Platform::Fortigate => Some(Reader::Kv),
            _ => refuse(fortios_only("kv")),
        },
        TreeValue::String(name) if name == "config" => match entry.platform {
            Platform::Fortigate => Some(Reader::Config),
            _ => refuse(fortios_only("config")),
        },
        TreeValue::Map(entries) => {
            let mut pattern = None;
            let mut each_line = false;
            for (key, value) in entries {
                let key_at = Position::from_location(file, key.referenced);
                match (key.value.as_str(), &value.value) {
                    ("regex", TreeValue::String(p)) => pattern = Some((p.clone(), value)),
                    ("each_line", TreeValue::Bool(b)) => each_line = *b,
                    ("regex" | "each_line", other) => errors.push(ConfigError::new(
                        Position::from_location(file, value.referenced),
                        format!(
                            "check {}: parse: {} takes {}, not {}",
                            entry.id,
                            key.value,
                            if key.value == "regex" {
                                "a regex (a string)"
                            } else {
                                "true or false"
                            },
                            other.kind()
                        ),
                    )),
                    (other, _) => errors.push(ConfigError::new(
                        key_at,
                        format!(
                            "check {}: unknown key `{other}` in parse: (readers: `kv`, `config`, \
                             `{{ regex: PATTERN, each_line: true|false }}`)",
                            entry.id
                        ),
                    )),
                }
            }
            let (pattern, value) = pattern?;
            let value_at = Position::from_location(file, value.referenced);
            match regex::RegexBuilder::new(&pattern)
                .size_limit(1 << 20)
                .build()
            {
                Ok(re) if re.capture_names().flatten().next().is_some() => {
                    Some(Reader::Regex { re, each_line })
                }
                Ok(_) => {
                    errors.push(ConfigError::new(
                        value_at,
                        format!(
                            "check {}: the regex has no named group: name what it reads, e.g. `^(?P<state>\\S+)`",
                            entry.id
                        ),
                    ));
                    None
                }
                Err(e) => {
                    errors.push(ConfigError::new(
                        value_at,
                        format!("check {}: `{pattern}` is not a regex: {e}", entry.id),
                    ));
                    None
                }
            }
        }
        other => refuse(format!(
            "unknown reader {}: parse: is `kv`, `config` or `{{ regex: PATTERN, each_line: true|false }}`",
            match other {
                TreeValue::String(s) => format!("`{s}`"),
                _ => other.kind().to_string(),
            }
        )),
    }
}

impl Definition for Declarative {
    fn id(&self) -> &str {
        &self.id
    }

    fn platform(&self) -> Platform {
        self.platform
    }

    fn keys(&self) -> Vec<String> {
        let keys: BTreeSet<String> = self
            .rule
            .specs()
            .iter()
            .filter_map(|s| match &s.value {
                Ref::Baseline { key, .. } => Some(key.clone()),
                Ref::Literal(_) => None,
            })
            .collect();
        keys.into_iter().collect()
    }

    /// Looks up the rule's `{ baseline: KEY }` values in one device's baseline. A key the device
    /// does not define is an error at the reference in the catalog, naming the device file; a
    /// value of the wrong kind is an error at the value.
    fn prepare(&self, baseline: &BaselineText) -> Result<Arc<dyn Prepared>, InputError> {
        let values: BTreeMap<String, Spanned<Value>> = if self.keys().is_empty() {
            BTreeMap::new()
        } else {
            baseline.input(&self.id)?
        };
        let mut errors: Vec<ConfigError> = Vec::new();
        let mut build = |spec: &Spec| -> Result<Test, ConfigError> {
            match &spec.value {
                Ref::Literal(value) => Cond::build(spec.op, value)
                    .map(|cond| Test { cond, from: None })
                    .map_err(|m| ConfigError::new(self.position.clone(), m)),
                Ref::Baseline { key, at } => {
                    let Some(value) = values.get(key) else {
                        return Err(ConfigError::new(
                            at.clone(),
                            format!(
                                "check {}: device {} ({}) has no `expect.{key}`, which this rule reads: \
                                 add it, or list the check under `skip:` with a reason",
                                self.id,
                                baseline.device(),
                                baseline.file().display()
                            ),
                        ));
                    };
                    Cond::build(spec.op, &value.value)
                        .map(|cond| Test {
                            cond,
                            from: Some(key.clone()),
                        })
                        .map_err(|m| {
                            ConfigError::new(
                                Position::from_location(baseline.file(), value.referenced),
                                format!(
                                    "device {}: `expect.{key}`, read by check {} as {}: {m}",
                                    baseline.device(),
                                    self.id,
                                    spec.op.name()
                                ),
                            )
                        })
                }
            }
        };
        let rule = self.rule.map(&mut build, &mut errors);
        match (rule, errors.len()) {
            (Some(rule), 0) => Ok(Arc::new(Ready {
                query: self.query.clone(),
                expected: describe(&rule),
                rule,
            })),
            _ => Err(join(errors)),
        }
    }
}

/// Several problems of one device as one error (a [`Definition`] returns one): the first's
/// place, every message.
fn join(mut errors: Vec<ConfigError>) -> ConfigError {
    let first = errors.remove(0);
    if errors.is_empty() {
        return first;
    }
    let rest: Vec<String> = errors.iter().map(ToString::to_string).collect();
    ConfigError::new(
        first.position,
        format!("{}; also: {}", first.message, rest.join("; ")),
    )
}

/// A declarative check with one device's values in place.
struct Ready {
    query: RuleQuery,
    rule: Node<Test>,
    expected: String,
}

impl Prepared for Ready {
    fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(self.query.clone())]
    }

    fn evaluate(&self, facts: &Facts) -> Verdict {
        let fact = match facts.json(&self.query) {
            Ok(fact) => fact,
            Err(e) => return Verdict::from(e),
        };
        let recorded = facts.previous_json(&self.query.key());
        let previous = recorded.map(|r| Previous {
            fact: &r.fact,
            run_id: &r.run_id,
        });
        let outcome = eval::judge(&self.rule, &fact, previous.as_ref());
        let raw = facts.raw(&self.query.command).unwrap_or_default();
        self.verdict(outcome, raw)
    }
}

impl Ready {
    fn verdict(&self, outcome: Outcome, raw: &str) -> Verdict {
        let command = &self.query.command.text;
        let notes = if outcome.notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", outcome.notes.join("; "))
        };
        // Text output is quoted; of JSON, the nodes the verdict is about.
        let evidence = || {
            if self.query.reader.reads_text() || outcome.nodes.is_empty() {
                format!("{command}:\n{}", text::excerpt(raw, 12))
            } else {
                nodes_excerpt(command, &outcome.nodes)
            }
        };
        if !outcome.failures.is_empty() {
            let count = outcome.failures.len();
            let mut summary: Vec<String> = outcome
                .failures
                .iter()
                .take(3)
                .map(ToString::to_string)
                .collect();
            if count > 3 {
                summary.push(format!("and {} more", count - 3));
            }
            let mut actual: Vec<String> =
                outcome.failures.iter().map(ToString::to_string).collect();
            actual.extend(outcome.errors.iter().map(|e| format!("not judged: {e}")));
            let evidence = evidence();
            return Verdict::fail(summary.join("; "))
                .expected(&self.expected)
                .actual(actual.join("\n"))
                .evidence(evidence);
        }
        if !outcome.errors.is_empty() {
            return Verdict::error(format!(
                "the rule could not be judged on the output of `{command}` (read by {}): {}",
                self.query.reader.describe(),
                outcome.errors.join("; ")
            ))
            .expected(&self.expected)
            .evidence(evidence());
        }
        if outcome.judged == 0 {
            return Verdict::skip(format!("nothing judged yet{notes}")).expected(&self.expected);
        }
        Verdict::ok(format!("holds: {}{notes}", self.expected)).expected(&self.expected)
    }
}

/// The failing nodes as compact JSON, one per line, for evidence.
fn nodes_excerpt(command: &str, nodes: &[(String, Value)]) -> String {
    let mut lines = vec![format!("{command}:")];
    for (label, value) in nodes.iter().take(10) {
        lines.push(text::clip(&format!("{label}: {value}"), 300));
    }
    if nodes.len() > 10 {
        lines.push(format!("... and {} more", nodes.len() - 10));
    }
    lines.join("\n")
}

/// The rule in words, for `expected`: `each $.a.*: $.b at most 0 and $.c at most 10`.
fn describe(rule: &Node<Test>) -> String {
    match rule {
        Node::All(nodes) => nodes.iter().map(describe).collect::<Vec<_>>().join(" and "),
        Node::Any(nodes) => format!(
            "any of ({})",
            nodes.iter().map(describe).collect::<Vec<_>>().join(" | ")
        ),
        Node::Each { path, keys, body } => {
            let keys = keys.as_ref().map(|k| format!(" [{k}]")).unwrap_or_default();
            format!("each {path}{keys}: {}", describe(body))
        }
        Node::Test { path, tests } => tests
            .iter()
            .map(|t| format!("{path} {t}"))
            .collect::<Vec<_>>()
            .join(" and "),
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::{Severity, Tree};

    /// An entry of `checks/x.yaml` (at line 1) with the declarative part written in `yaml`.
    fn entry(platform: Platform, yaml: &str) -> (Entry, Declared) {
        #[derive(serde::Deserialize)]
        struct Part {
            command: Option<Spanned<String>>,
            parse: Option<Tree>,
            rule: Option<Tree>,
        }
        let file = Path::new("checks/x.yaml");
        let part: Part = serde_saphyr::from_str(yaml).unwrap();
        let declared = Declared {
            command: part
                .command
                .map(|c| (c.value, Position::from_location(file, c.referenced))),
            parse: part.parse,
            rule: part.rule,
        };
        let entry = Entry {
            id: format!("{platform}.x.y"),
            position: Position::new(file, 1, 7),
            title: "t".into(),
            platform,
            severity: Severity::Critical,
            tags: vec![],
            remedy: "r".into(),
            proves: None,
            declared: Some(declared.clone()),
        };
        (entry, declared)
    }

    fn errors(platform: Platform, yaml: &str) -> Vec<String> {
        let (entry, declared) = entry(platform, yaml);
        match Declarative::from_entry(&entry, &declared) {
            Ok(_) => Vec::new(),
            Err(errors) => errors.iter().map(ToString::to_string).collect(),
        }
    }

    #[test]
    fn entries_that_read() {
        let cases = [
            (
                Platform::Eos,
                "command: show version | json\nrule: { path: $.version, matches: '^4\\.3' }\n",
            ),
            (
                Platform::Eos,
                "command: show version\nrule: { path: $.version, present: true }\n",
            ),
            (
                Platform::Eos,
                "command: show ntp status\nparse: { regex: '^(?P<w>\\S+)', each_line: true }\nrule: { path: '$[*].w', count_at_least: 1 }\n",
            ),
            (
                Platform::Fortigate,
                "command: get system global\nparse: config\nrule: { path: \"$['udp-idle-timer']\", at_least: 180 }\n",
            ),
            (
                Platform::Fortigate,
                "command: get system status\nparse: kv\nrule: { path: $.Version, matches: v7 }\n",
            ),
        ];
        for (platform, yaml) in cases {
            assert_eq!(errors(platform, yaml), Vec::<String>::new(), "{yaml}");
        }
        let (entry, declared) = entry(
            Platform::Eos,
            "command: show interfaces counters errors | json\nrule:\n  each: $.c.*\n  keys: { baseline: ports }\n  all:\n    - { path: $.fcs, increase_at_most: { baseline: growth } }\n    - { path: $.in, at_most: 5 }\n",
        );
        let check = Declarative::from_entry(&entry, &declared).unwrap();
        assert_eq!(check.keys(), ["growth", "ports"]);
        assert!(check.query.archived());
        assert_eq!(check.query.key().kind, "rule:eos.x.y");
    }

    #[test]
    fn entries_that_do_not() {
        // (platform, entry, place, words)
        let cases = [
            (
                Platform::Eos,
                "command: show ntp status\nparse: kv\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:2:8",
                "parse: kv reads FortiOS output",
            ),
            (
                Platform::Eos,
                "command: show version | json\nparse: { regex: '(?P<a>.)' }\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:2:8",
                "`parse:` reads text output",
            ),
            (
                Platform::Eos,
                "command: show ntp status\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:1:10",
                "no built-in parser reads `show ntp status`",
            ),
            (
                Platform::Eos,
                "command: show ntp status\nparse: { regex: '^\\S+' }\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:2:17",
                "no named group",
            ),
            (
                Platform::Eos,
                "command: show ntp status\nparse: { regex: 5 }\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:2:17",
                "takes a regex",
            ),
            (
                Platform::Eos,
                "rule: { path: $.a, equals: 1 }\n",
                "x.yaml:1:7",
                "`command` is missing",
            ),
            (
                Platform::Eos,
                "command: show version | json\n",
                "x.yaml:1:7",
                "`rule` is missing",
            ),
            (
                Platform::Eos,
                "command: configure terminal\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:1:10",
                "allowlist refuses",
            ),
            (
                Platform::Probe,
                "command: show version\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:1:10",
                "declarative checks are for eos and fortigate",
            ),
        ];
        for (platform, yaml, at, words) in cases {
            let errors = errors(platform, yaml);
            assert!(
                errors
                    .iter()
                    .any(|e| e.starts_with(&format!("checks/{at}: ")) && e.contains(words)),
                "{yaml}: {errors:?}"
            );
        }
    }
}
