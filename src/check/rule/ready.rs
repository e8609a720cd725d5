//! A declarative check prepared for one device (its query, its rule with the device's baseline
//! values in place), and its verdict from what judging the rule found: FAIL naming every
//! failing node, ERROR naming what could not be judged, SKIP when only a first run's
//! comparisons were left, else OK. The evidence quotes text output or, of JSON, the nodes the
//! verdict is about.

use serde_json::Value;

use super::eval::{self, Outcome, PreviousFact, Test};
use super::grammar::Node;
use super::readers::RuleQuery;
use crate::{Prepared, Watch};
use premarket_core::Verdict;
use premarket_parse::{AnyQuery, Facts, text};

/// A declarative check with one device's values in place.
pub struct PreparedRule {
    query: RuleQuery,
    rule: Node<Test>,
    expected: String,
}

impl PreparedRule {
    pub fn new(query: RuleQuery, rule: Node<Test>) -> PreparedRule {
        PreparedRule {
            query,
            expected: describe(&rule),
            rule,
        }
    }
}

impl Prepared for PreparedRule {
    fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(self.query.clone())]
    }

    fn evaluate(&self, facts: &Facts) -> Verdict {
        self.evaluate_watched(facts, &Watch::default())
    }

    /// A rule that judges growth (`increase_at_most`) compares with its reference; its query
    /// is archived for that alone.
    fn compares(&self) -> bool {
        self.query.archived()
    }

    fn evaluate_watched(&self, facts: &Facts, watch: &Watch) -> Verdict {
        let fact = match facts.json(&self.query) {
            Ok(fact) => fact,
            Err(e) => return Verdict::from(e),
        };
        let raw = facts.raw(&self.query.command).unwrap_or_default();
        if let Some(why) = super::budget::input(&fact) {
            return Verdict::error(format!(
                "not judged: {why} (`{}`, read by {})",
                self.query.command.text,
                self.query.reader.describe()
            ))
            .expected(&self.expected)
            .evidence(format!(
                "{}:\n{}",
                self.query.command.text,
                text::excerpt(raw, 12)
            ));
        }
        let recorded = facts.previous_json(&self.query.key());
        let before = recorded.map(|r| (r.fact.value(), r.run_id.as_str()));
        let previous = before
            .as_ref()
            .map(|(fact, run_id)| PreviousFact { fact, run_id });
        let outcome = eval::judge(&self.rule, &fact, previous.as_ref(), watch);
        self.verdict(outcome, raw)
    }
}

impl PreparedRule {
    fn verdict(&self, outcome: Outcome, raw: &str) -> Verdict {
        let command = &self.query.command.text;
        let mut notes = outcome.notes.clone();
        if outcome.more_notes > 0 {
            notes.push(format!("and {} more like these", outcome.more_notes));
        }
        let notes = if notes.is_empty() {
            String::new()
        } else {
            format!(" ({})", notes.join("; "))
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
            let failures: Vec<String> = outcome.failures.iter().map(ToString::to_string).collect();
            let mut actual = capped(&failures, LISTED, "failing");
            actual.extend(
                capped(&outcome.errors, LISTED, "not judged")
                    .into_iter()
                    .map(|e| format!("not judged: {e}")),
            );
            return Verdict::fail(capped(&failures, 3, "failing").join("; "))
                .expected(&self.expected)
                .actual(actual.join("\n"))
                .evidence(evidence())
                .about(subjects(&outcome.failures));
        }
        if !outcome.errors.is_empty() {
            return Verdict::error(format!(
                "the rule could not be judged on the output of `{command}` (read by {}): {}",
                self.query.reader.describe(),
                capped(&outcome.errors, 5, "not judged").join("; ")
            ))
            .expected(&self.expected)
            .actual(capped(&outcome.errors, LISTED, "not judged").join("\n"))
            .evidence(evidence());
        }
        if outcome.judged == 0 {
            return Verdict::skip(format!("nothing judged yet{notes}")).expected(&self.expected);
        }
        Verdict::ok(format!("holds: {}{notes}", self.expected)).expected(&self.expected)
    }
}

/// What a FAIL is about: the `each` nodes that fail (`Ethernet3`); a failure outside any node
/// beside them is named by its path. A rule without `each` names nothing: it is about the
/// device's output as a whole.
fn subjects(failures: &[eval::Failure]) -> Vec<String> {
    if failures.iter().all(|f| f.node.is_none()) {
        return Vec::new();
    }
    failures
        .iter()
        .map(|f| match &f.node {
            Some(node) => node.clone(),
            None => f.text.split(' ').next().unwrap_or_default().to_string(),
        })
        .collect()
}

/// How many failing nodes a report lists one by one (a hostile output can make thousands).
const LISTED: usize = 200;

/// The first `max` of `items`, then `and N more <what>` when there are more.
fn capped(items: &[String], max: usize, what: &str) -> Vec<String> {
    let mut out: Vec<String> = items.iter().take(max).cloned().collect();
    if items.len() > max {
        out.push(format!("and {} more {what}", items.len() - max));
    }
    out
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
    use super::*;
    use crate::rule::ops::{Cond, Num};
    use crate::rule::path::Path;
    use crate::rule::readers::Reader;
    use premarket_core::{Command, Platform, Status};

    fn errors_rule() -> PreparedRule {
        let query = RuleQuery {
            command: Command::new("show interfaces counters errors | json"),
            kind: "rule:eos.ports.errors-absent".into(),
            platform: Platform::Eos,
            reader: Reader::DeviceJson,
            archived: false,
        };
        let rule = Node::Each {
            path: Path::parse("$.interfaceErrorCounters.*").unwrap(),
            keys: None,
            body: Box::new(Node::Test {
                path: Path::parse("$.inErrors").unwrap(),
                tests: vec![Test {
                    cond: Cond::AtMost(Num::Int(0)),
                    from: None,
                }],
            }),
        };
        PreparedRule::new(query, rule)
    }

    fn judge(ready: &PreparedRule, output: &str) -> Verdict {
        let mut facts = Facts::default();
        let command = ready.query.command.clone();
        facts.insert(&command, Ok(&output.into()), &[&ready.query]);
        ready.evaluate(&facts)
    }

    #[test]
    fn thousands_of_failing_ports_are_counted_not_all_listed() {
        let ports: Vec<String> = (0..50_000)
            .map(|i| format!("\"Ethernet{i}\": {{\"inErrors\": {i}}}"))
            .collect();
        let output = format!("{{\"interfaceErrorCounters\": {{{}}}}}", ports.join(", "));
        let verdict = judge(&errors_rule(), &output);
        assert_eq!(verdict.status, Status::Fail);
        assert_eq!(verdict.actual.lines().count(), LISTED + 1);
        assert!(
            verdict.actual.ends_with("and 49799 more failing"),
            "{}",
            &verdict.actual[verdict.actual.len() - 60..]
        );
        assert!(
            verdict
                .summary
                .starts_with("Ethernet1: $.inErrors = 1, wanted at most 0;")
        );
        assert_eq!(verdict.subjects.len(), premarket_core::SUBJECTS_MAX + 1);
        assert_eq!(verdict.subjects[0], "Ethernet1");
        assert!(premarket_core::subjects_cut(&verdict.subjects));
        assert!(
            verdict.evidence.lines().count() <= 12,
            "{}",
            verdict.evidence
        );
    }

    #[test]
    fn an_output_past_the_input_budget_is_error_not_judged() {
        let levels = 40;
        let deep = format!(
            "{{\"interfaceErrorCounters\": {}1{}}}",
            "[".repeat(levels),
            "]".repeat(levels)
        );
        let verdict = judge(&errors_rule(), &deep);
        assert_eq!(verdict.status, Status::Error);
        assert!(
            verdict.summary.contains("nests deeper than 32 levels")
                && verdict
                    .summary
                    .contains("show interfaces counters errors | json"),
            "{}",
            verdict.summary
        );
    }

    #[test]
    fn verdicts_of_each_kind() {
        let ready = errors_rule();
        let ok = judge(
            &ready,
            "{\"interfaceErrorCounters\": {\"Ethernet1\": {\"inErrors\": 0}}}",
        );
        assert_eq!(
            (ok.status, ok.summary.as_str()),
            (
                Status::Ok,
                "holds: each $.interfaceErrorCounters.*: $.inErrors at most 0"
            )
        );
        let error = judge(&ready, "{\"interfaceErrorCounters\": {\"Ethernet1\": {}}}");
        assert_eq!(error.status, Status::Error);
        assert!(
            error
                .summary
                .ends_with("Ethernet1: $.inErrors found nothing"),
            "{}",
            error.summary
        );
        assert!(
            error.evidence.contains("Ethernet1: {}"),
            "{}",
            error.evidence
        );
        let unreadable = judge(&ready, "% Invalid input\n");
        assert_eq!(unreadable.status, Status::Error);
        assert!(
            unreadable.evidence.contains("% Invalid input"),
            "{unreadable:?}"
        );
    }
}
