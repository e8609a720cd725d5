//! Judging a rule over one device's fact: which nodes fail, which could not be judged, what the
//! first run could not compare yet.
//!
//! A FAIL names every failing node (its member name or index, the path, the value and the
//! condition); an ERROR names the path that found nothing or the value of the wrong type. Any
//! failure makes the rule FAIL (errors are listed with it); otherwise any error makes it ERROR;
//! a rule whose every test was left for the next run (`increase_at_most` on a first run) is
//! SKIP; else OK. Each path is announced to the run's [`Watch`] before it is run, so a check
//! given up on names what it was reading and stops at the next path.

use std::fmt;

use serde_json::Value;

use super::grammar::Node;
use super::ops::{Cond, Num, show};
use super::path::{Location, Path};
use crate::Watch;

/// An operator with its value and, when the value came from the baseline, its key.
#[derive(Clone, Debug)]
pub struct Test {
    pub cond: Cond,
    pub from: Option<String>,
}

impl fmt::Display for Test {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.cond)?;
        if let Some(key) = &self.from {
            write!(f, " (expect.{key})")?;
        }
        Ok(())
    }
}

/// The previous run's fact of the same query, for `increase_at_most`.
pub struct PreviousFact<'a> {
    pub fact: &'a Value,
    pub run_id: &'a str,
}

/// One failing node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    /// The node of the `each` it is about (`Ethernet3`), when there is one.
    pub node: Option<String>,
    /// What is wrong: `$.fcsErrors = 5, wanted at most 0`.
    pub text: String,
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.node {
            Some(node) => write!(f, "{node}: {}", self.text),
            None => f.write_str(&self.text),
        }
    }
}

/// What judging a rule found.
#[derive(Debug, Default)]
pub struct Outcome {
    pub failures: Vec<Failure>,
    /// Paths that found nothing, values of the wrong type.
    pub errors: Vec<String>,
    /// Tests left for a later run, with why (the first few; `more_notes` counts the rest).
    pub notes: Vec<String>,
    pub more_notes: usize,
    /// Tests judged (passed or failed).
    pub judged: usize,
    /// The `each` nodes that failed or could not be judged, for evidence: (label, value).
    pub nodes: Vec<(String, Value)>,
}

impl Outcome {
    fn passed(&self) -> bool {
        self.failures.is_empty() && self.errors.is_empty() && self.judged > 0
    }

    fn absorb(&mut self, other: Outcome) {
        self.failures.extend(other.failures);
        self.errors.extend(other.errors);
        for note in other.notes {
            self.note(note);
        }
        self.more_notes += other.more_notes;
        self.judged += other.judged;
        self.nodes.extend(other.nodes);
    }

    /// Keeps a note once; past a few, only counts them (a device with thousands of new
    /// interfaces must not make judging quadratic or the report endless).
    fn note(&mut self, note: String) {
        const KEPT: usize = 5;
        if self.notes.contains(&note) {
            return;
        }
        if self.notes.len() < KEPT {
            self.notes.push(note);
        } else {
            self.more_notes += 1;
        }
    }
}

/// Judges `rule` over `fact`; stops early (with a partial outcome, not to be read) when the
/// run gives up on it.
pub fn judge(
    rule: &Node<Test>,
    fact: &Value,
    previous: Option<&PreviousFact<'_>>,
    watch: &Watch,
) -> Outcome {
    let mut out = Outcome::default();
    let scope = Scope {
        value: fact,
        at: Location::default(),
        label: None,
    };
    node(rule, &scope, previous, watch, &mut out);
    out
}

/// The node a rule is applied to: `$` of its paths.
struct Scope<'v> {
    value: &'v Value,
    /// Where it is in the whole fact.
    at: Location,
    /// The labels of the `each` nodes it is in (`Ethernet3`, `Ethernet3/TC0`).
    label: Option<String>,
}

impl Scope<'_> {
    fn prefix(&self) -> String {
        self.label
            .as_ref()
            .map(|l| format!("{l}: "))
            .unwrap_or_default()
    }
}

fn node(
    rule: &Node<Test>,
    scope: &Scope<'_>,
    previous: Option<&PreviousFact<'_>>,
    watch: &Watch,
    out: &mut Outcome,
) {
    match rule {
        Node::All(nodes) => {
            for n in nodes {
                node(n, scope, previous, watch, out);
            }
        }
        Node::Any(nodes) => {
            let mut tried = Vec::new();
            for n in nodes {
                let mut one = Outcome::default();
                node(n, scope, previous, watch, &mut one);
                if one.passed() {
                    out.judged += 1;
                    return;
                }
                tried.push(one);
            }
            for one in tried {
                out.absorb(one);
            }
        }
        Node::Each { path, keys, body } => {
            each(path, keys.as_ref(), body, scope, previous, watch, out)
        }
        Node::Test { path, tests } => test(path, tests, scope, previous, watch, out),
    }
}

fn each(
    path: &Path,
    keys: Option<&Test>,
    body: &Node<Test>,
    scope: &Scope<'_>,
    previous: Option<&PreviousFact<'_>>,
    watch: &Watch,
    out: &mut Outcome,
) {
    if !watch.reading(path.text()) {
        return;
    }
    let nodes = path.select(scope.value);
    if nodes.is_empty() {
        out.errors
            .push(format!("{}each {path} found nothing", scope.prefix()));
        return;
    }
    let mut chosen: Vec<(Location, &Value)> = Vec::new();
    match keys {
        None => chosen = nodes,
        Some(Test {
            cond: Cond::Keys(names),
            from,
        }) => {
            for name in names {
                match nodes.iter().find(|(at, _)| at.name() == Some(name)) {
                    Some(found) => chosen.push(found.clone()),
                    None => {
                        let source = from
                            .as_ref()
                            .map(|k| format!(", listed in expect.{k}"))
                            .unwrap_or_default();
                        out.judged += 1;
                        out.failures.push(Failure {
                            node: Some(labelled(scope, name)),
                            text: format!("not in the output (each {path}{source})"),
                        });
                    }
                }
            }
        }
        Some(other) => out.errors.push(format!(
            "`keys` holds {other}, not member names (a bug in premarket)"
        )),
    }
    for (at, value) in chosen {
        let label = labelled(scope, &at.label());
        let inner = Scope {
            value,
            at: scope.at.join(&at),
            label: Some(label.clone()),
        };
        let mut one = Outcome::default();
        node(body, &inner, previous, watch, &mut one);
        if !one.failures.is_empty() || !one.errors.is_empty() {
            one.nodes.insert(0, (label, value.clone()));
        }
        out.absorb(one);
    }
}

fn labelled(scope: &Scope<'_>, name: &str) -> String {
    match &scope.label {
        Some(outer) => format!("{outer}/{name}"),
        None => name.to_string(),
    }
}

fn test(
    path: &Path,
    tests: &[Test],
    scope: &Scope<'_>,
    previous: Option<&PreviousFact<'_>>,
    watch: &Watch,
    out: &mut Outcome,
) {
    if !watch.reading(path.text()) {
        return;
    }
    let nodes = path.select(scope.value);
    let decides_absence = tests.iter().any(|t| matches!(t.cond, Cond::Present(_)));
    // With several nodes, each is named by its place; with one, the path as written does.
    let name = |at: &Location| {
        if nodes.len() > 1 {
            format!("{path} at {at}")
        } else {
            path.to_string()
        }
    };
    for t in tests {
        let fail = |out: &mut Outcome, text: String| {
            out.failures.push(Failure {
                node: scope.label.clone(),
                text,
            })
        };
        match &t.cond {
            Cond::Present(want) => {
                out.judged += 1;
                let present = !nodes.is_empty();
                if present != *want {
                    let is = if present { "is present" } else { "is absent" };
                    fail(out, format!("{path} {is}, wanted {t}"));
                }
            }
            Cond::CountAtLeast(n) | Cond::CountAtMost(n) => {
                out.judged += 1;
                let count = nodes.len() as u64;
                let holds = match t.cond {
                    Cond::CountAtLeast(_) => count >= *n,
                    _ => count <= *n,
                };
                if !holds {
                    fail(out, format!("{path} selects {count} node(s), wanted {t}"));
                }
            }
            _ if nodes.is_empty() => {
                if !decides_absence {
                    out.errors
                        .push(format!("{}{path} found nothing", scope.prefix()));
                }
            }
            Cond::IncreaseAtMost(limit) => {
                for (at, value) in &nodes {
                    increase(
                        &name(at),
                        &scope.at.join(at),
                        value,
                        *limit,
                        t,
                        scope,
                        previous,
                        out,
                    );
                }
            }
            cond => {
                for (at, value) in &nodes {
                    match cond.holds(value) {
                        Ok(true) => out.judged += 1,
                        Ok(false) => {
                            out.judged += 1;
                            fail(out, format!("{} = {}, wanted {t}", name(at), show(value)));
                        }
                        Err(wrong) => {
                            out.errors
                                .push(format!("{}{} {wrong}", scope.prefix(), name(at)))
                        }
                    }
                }
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn increase(
    name: &str,
    whole: &Location,
    value: &Value,
    limit: Num,
    test: &Test,
    scope: &Scope<'_>,
    previous: Option<&PreviousFact<'_>>,
    out: &mut Outcome,
) {
    let Some(now) = Num::read(value) else {
        out.errors.push(format!(
            "{}{name} is {}, increase_at_most needs a number",
            scope.prefix(),
            super::ops::describe(value)
        ));
        return;
    };
    let Some(previous) = previous else {
        out.note(
            "first run of this check on this device: increases are judged from the next run on"
                .to_string(),
        );
        return;
    };
    let Some(before) = whole.find(previous.fact).and_then(Num::read) else {
        out.note(format!(
            "{}{name} has no number in run {} to compare with: judged from the next run on",
            scope.prefix(),
            previous.run_id
        ));
        return;
    };
    out.judged += 1;
    // A counter that went down was cleared (or the device restarted): all it holds is new.
    let (grown, how) = if now < before {
        (now, format!("went back from {before} to {now} (cleared?)"))
    } else {
        (now.minus(before), format!("grew from {before} to {now}"))
    };
    if grown > limit {
        out.failures.push(Failure {
            node: scope.label.clone(),
            text: format!(
                "{name} {how} since run {}, wanted an increase of at most {limit}{}",
                previous.run_id,
                test.from
                    .as_ref()
                    .map(|k| format!(" (expect.{k})"))
                    .unwrap_or_default()
            ),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rule::ops::Op;
    use serde_json::json;

    fn judged(rule: &Node<Test>, fact: &Value, previous: Option<&PreviousFact<'_>>) -> Outcome {
        judge(rule, fact, previous, &Watch::default())
    }

    fn t(op: Op, value: Value) -> Test {
        Test {
            cond: Cond::build(op, &value).unwrap(),
            from: None,
        }
    }

    fn leaf(path: &str, tests: Vec<Test>) -> Node<Test> {
        Node::Test {
            path: Path::parse(path).unwrap(),
            tests,
        }
    }

    fn errors_rule(keys: Option<Test>) -> Node<Test> {
        Node::Each {
            path: Path::parse("$.interfaceErrorCounters.*").unwrap(),
            keys,
            body: Box::new(Node::All(vec![
                leaf("$.fcsErrors", vec![t(Op::AtMost, json!(0))]),
                leaf(
                    "$.inErrors",
                    vec![Test {
                        cond: Cond::AtMost(Num::Int(10)),
                        from: Some("max_in_errors".into()),
                    }],
                ),
            ])),
        }
    }

    fn counters(e3_fcs: u64) -> Value {
        json!({"interfaceErrorCounters": {
            "Ethernet1": {"fcsErrors": 0, "inErrors": 3},
            "Ethernet3": {"fcsErrors": e3_fcs, "inErrors": e3_fcs},
        }})
    }

    #[test]
    fn each_names_every_failing_node() {
        let ok = judged(&errors_rule(None), &counters(0), None);
        assert!(ok.passed(), "{ok:?}");
        assert_eq!(ok.judged, 4);
        let bad = judged(&errors_rule(None), &counters(12), None);
        let texts: Vec<String> = bad.failures.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "Ethernet3: $.fcsErrors = 12, wanted at most 0",
                "Ethernet3: $.inErrors = 12, wanted at most 10 (expect.max_in_errors)",
            ]
        );
        assert_eq!(bad.nodes[0].0, "Ethernet3");
    }

    #[test]
    fn keys_keep_listed_nodes_and_missing_ones_fail() {
        let keys = Test {
            cond: Cond::Keys(vec!["Ethernet1".into(), "Ethernet7".into()]),
            from: Some("trading_ports".into()),
        };
        let out = judged(&errors_rule(Some(keys)), &counters(12), None);
        let texts: Vec<String> = out.failures.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            [
                "Ethernet7: not in the output (each $.interfaceErrorCounters.*, listed in expect.trading_ports)"
            ]
        );
    }

    #[test]
    fn nothing_found_and_wrong_types_are_errors() {
        let out = judged(&errors_rule(None), &json!({"other": {}}), None);
        assert_eq!(
            out.errors,
            ["each $.interfaceErrorCounters.* found nothing"]
        );
        let out = judged(
            &errors_rule(None),
            &json!({"interfaceErrorCounters": {"Ethernet1": {"inErrors": "n/a"}}}),
            None,
        );
        assert_eq!(
            out.errors,
            [
                "Ethernet1: $.fcsErrors found nothing",
                "Ethernet1: $.inErrors is a string (\"n/a\"), at_most needs a number",
            ]
        );
        assert!(out.failures.is_empty());
    }

    #[test]
    fn presence_counts_and_any() {
        let doc =
            json!({"peers": {"a": {"condition": "sys.peer"}, "b": {"condition": "candidate"}}});
        let cases = [
            (
                leaf(
                    "$.peers[?@.condition == 'sys.peer']",
                    vec![t(Op::CountAtLeast, json!(1)), t(Op::CountAtMost, json!(1))],
                ),
                true,
            ),
            (
                leaf("$.peers.*", vec![t(Op::CountAtLeast, json!(3))]),
                false,
            ),
            (leaf("$.leap", vec![t(Op::Present, json!(false))]), true),
            (leaf("$.peers", vec![t(Op::Present, json!(false))]), false),
            (
                leaf(
                    "$.leap",
                    vec![t(Op::Present, json!(true)), t(Op::Equals, json!(0))],
                ),
                false,
            ),
            (
                Node::Any(vec![
                    leaf("$.peers.a.condition", vec![t(Op::Equals, json!("reject"))]),
                    leaf(
                        "$.peers.b.condition",
                        vec![t(Op::Equals, json!("candidate"))],
                    ),
                ]),
                true,
            ),
            (
                Node::Any(vec![
                    leaf("$.peers.a.condition", vec![t(Op::Equals, json!("reject"))]),
                    leaf("$.peers.*.condition", vec![t(Op::Equals, json!("x"))]),
                ]),
                false,
            ),
        ];
        for (rule, passes) in cases {
            let out = judged(&rule, &doc, None);
            assert_eq!(out.passed(), passes, "{rule:?}: {out:?}");
            assert!(out.errors.is_empty(), "{out:?}");
        }
        let several = judged(
            &leaf(
                "$.peers.*.condition",
                vec![t(Op::Equals, json!("sys.peer"))],
            ),
            &doc,
            None,
        );
        assert_eq!(
            several.failures[0].text,
            "$.peers.*.condition at $['peers']['b']['condition'] = \"candidate\", wanted equal to \"sys.peer\""
        );
    }

    #[test]
    fn increases_against_the_previous_run() {
        let rule = Node::Each {
            path: Path::parse("$.c.*").unwrap(),
            keys: None,
            body: Box::new(leaf("$.fcs", vec![t(Op::IncreaseAtMost, json!(0))])),
        };
        let now = json!({"c": {"Et1": {"fcs": 3}, "Et3": {"fcs": 1846}, "Et9": {"fcs": 0}}});
        let first = judged(&rule, &now, None);
        assert_eq!(first.judged, 0);
        assert!(first.failures.is_empty() && first.errors.is_empty());
        assert_eq!(first.notes.len(), 1, "{first:?}");
        let before = json!({"c": {"Et1": {"fcs": 3}, "Et3": {"fcs": 3}}});
        let previous = PreviousFact {
            fact: &before,
            run_id: "20261130T081500.000",
        };
        let second = judged(&rule, &now, Some(&previous));
        assert_eq!(second.judged, 2);
        assert_eq!(
            second.failures[0].to_string(),
            "Et3: $.fcs grew from 3 to 1846 since run 20261130T081500.000, wanted an increase of at most 0"
        );
        assert!(
            second.notes[0].starts_with("Et9: $.fcs has no number in run"),
            "{second:?}"
        );
        let cleared = json!({"c": {"Et1": {"fcs": 1}}});
        let older = json!({"c": {"Et1": {"fcs": 50}}});
        let out = judged(
            &rule,
            &cleared,
            Some(&PreviousFact {
                fact: &older,
                run_id: "r",
            }),
        );
        assert!(
            out.failures[0].text.contains("went back from 50 to 1"),
            "{out:?}"
        );
    }
}
