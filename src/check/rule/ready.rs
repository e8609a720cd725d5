//! A declarative check prepared for one device (its query, its rule with the device's baseline
//! values in place), and its verdict from what judging the rule found: FAIL naming every
//! failing node, ERROR naming what could not be judged, SKIP when only a first run's
//! comparisons were left, else OK. The evidence quotes text output or, of JSON, the nodes the
//! verdict is about.

use serde_json::Value;

use super::eval::{self, Outcome, Previous, Test};
use super::grammar::Node;
use super::readers::RuleQuery;
use crate::check::Prepared;
use crate::core::Verdict;
use crate::parse::{AnyQuery, Facts, text};

/// A declarative check with one device's values in place.
pub struct Ready {
    query: RuleQuery,
    rule: Node<Test>,
    expected: String,
}

impl Ready {
    pub fn new(query: RuleQuery, rule: Node<Test>) -> Ready {
        Ready {
            query,
            expected: describe(&rule),
            rule,
        }
    }
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
