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
//! have a reader (`readers`), and the rule must read (`grammar`); every mistake is a
//! configuration error at its `file:line:column`. When a device's run is planned, its
//! `{ baseline: KEY }` values are looked up ([`Declarative::prepare`]); judging is `eval`,
//! the verdict `ready`. What a rule may cost (its paths' nesting, the size of what it
//! judges) is `budget`.

mod budget;
mod entry;
mod eval;
mod grammar;
mod ops;
mod path;
mod readers;
mod ready;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::Value;
use serde_saphyr::Spanned;

use self::eval::Test;
use self::grammar::{Node, Ref, Spec};
use self::ops::{Cond, Op};
use self::readers::RuleQuery;
use self::ready::PreparedRule;
use super::{BaselineText, Definition, InputError, Pending, Prepared};
use premarket_config::{ConfigError, Declared, Entry, Position};
use premarket_core::{Command, Platform};

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
        if let Err(reason) = entry::allowed(platform, command) {
            errors.push(ConfigError::new(
                command_at.clone(),
                format!(
                    "check {}: the {platform} allowlist refuses `{command}`: {reason}",
                    entry.id
                ),
            ));
        }
        let reader = entry::reader(entry, command, command_at, declared, &mut errors);
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

    /// The rule says what each key is: the value an operator compares with.
    fn reference(&self) -> Vec<premarket_config::reference::Key> {
        let mut keys: BTreeMap<String, Vec<Op>> = BTreeMap::new();
        for spec in self.rule.specs() {
            if let Ref::Baseline { key, .. } = &spec.value {
                let ops = keys.entry(key.clone()).or_default();
                if !ops.contains(&spec.op) {
                    ops.push(spec.op);
                }
            }
        }
        keys.into_iter()
            .map(|(path, ops)| {
                let names: Vec<String> = ops.iter().map(|op| format!("`{}`", op.name())).collect();
                premarket_config::reference::Key {
                    path,
                    ty: ops
                        .first()
                        .map_or("value", |op| op.value_type())
                        .to_string(),
                    required: true,
                    default: None,
                    source: String::new(),
                    meaning: format!(
                        "the value the rule's {} compares with (checks/ catalog entry {})",
                        names.join(", "),
                        self.id
                    ),
                }
            })
            .collect()
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
        if baseline.is_draft()
            && let Some(key) = self.keys().into_iter().find(|k| !values.contains_key(k))
        {
            return Ok(Arc::new(Pending(baseline.pending(&self.id, &key))));
        }
        let mut errors: Vec<ConfigError> = Vec::new();
        let mut build = |spec: &Spec| -> Result<Test, ConfigError> {
            match &spec.value {
                Ref::Literal(value) => Cond::build(spec.op, value)
                    .map(|cond| Test { cond, from: None })
                    .map_err(|m| ConfigError::new(self.position.clone(), m.to_string())),
                Ref::Baseline { key, at } => {
                    let Some(value) = values.get(key) else {
                        return Err(ConfigError::new(
                            at.clone(),
                            format!(
                                "check {}: {} ({}) has no `expect.{key}`, which this rule reads: \
                                 add it, or list the check under `skip:` with a reason",
                                self.id,
                                baseline.owner(),
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
                                baseline.position_of(value.referenced),
                                format!(
                                    "{}: `expect.{key}`, read by check {} as {}: {m}",
                                    baseline.owner(),
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
            (Some(rule), 0) => Ok(Arc::new(PreparedRule::new(self.query.clone(), rule))),
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
#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use premarket_config::{Severity, Tree};
    use premarket_parse::AnyQuery;

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
            why: None,
            examples: Default::default(),
            finding: None,
            explains: Vec::new(),
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
                "command: show clock\nrule: { path: $.a, equals: 1 }\n",
                "x.yaml:1:10",
                "no built-in parser reads `show clock`",
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
