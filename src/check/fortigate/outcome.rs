//! Checks over several flows (or policies, or services) judge each one, then fold the parts into
//! one verdict: FAIL if any part fails, else ERROR, else SKIP, else OK. A part that could not be
//! judged never hides behind another part's OK.

use crate::check::{Status, Verdict};
use crate::parse::FactError;

/// The verdict on one part (one flow, one policy ...).
#[derive(Clone, Debug)]
pub struct Outcome {
    pub status: Status,
    /// One line, naming the part.
    pub line: String,
    pub evidence: String,
    pub remedy: Option<String>,
}

impl Outcome {
    fn with(status: Status, line: impl Into<String>) -> Self {
        Outcome {
            status,
            line: line.into(),
            evidence: String::new(),
            remedy: None,
        }
    }

    pub fn ok(line: impl Into<String>) -> Self {
        Outcome::with(Status::Ok, line)
    }

    pub fn fail(line: impl Into<String>) -> Self {
        Outcome::with(Status::Fail, line)
    }

    pub fn error(line: impl Into<String>) -> Self {
        Outcome::with(Status::Error, line)
    }

    pub fn skip(line: impl Into<String>) -> Self {
        Outcome::with(Status::Skip, line)
    }

    /// A fact that is missing or unreadable, for the part named `name`.
    pub fn fact(name: &str, error: &FactError) -> Self {
        Outcome::error(format!("{name}: {error}")).evidence(error.excerpt())
    }

    pub fn evidence(mut self, evidence: impl Into<String>) -> Self {
        self.evidence = evidence.into();
        self
    }

    pub fn remedy(mut self, remedy: impl Into<String>) -> Self {
        self.remedy = Some(remedy.into());
        self
    }
}

fn rank(status: Status) -> u8 {
    match status {
        Status::Fail => 3,
        Status::Error => 2,
        Status::Skip => 1,
        Status::Ok => 0,
    }
}

/// One verdict from the parts; `noun` names a part in the plural summary (`flows`).
pub fn combine(parts: Vec<Outcome>, noun: &str, expected: impl Into<String>) -> Verdict {
    let Some(worst) = parts.iter().map(|p| p.status).max_by_key(|s| rank(*s)) else {
        return Verdict::skip(format!("no {noun} to judge in the baseline"));
    };
    let flagged: Vec<&Outcome> = parts.iter().filter(|p| p.status == worst).collect();
    let summary = if parts.len() == 1 {
        parts[0].line.clone()
    } else if worst == Status::Ok {
        format!("all {} {noun} as expected", parts.len())
    } else {
        let word = match worst {
            Status::Fail => "failing",
            Status::Error => "could not be judged",
            _ => "skipped",
        };
        format!(
            "{} of {} {noun} {word}: {}",
            flagged.len(),
            parts.len(),
            flagged
                .iter()
                .map(|p| p.line.as_str())
                .collect::<Vec<_>>()
                .join("; ")
        )
    };
    // Each line starts with the part's name up to the first ": ".
    let actual = if parts.len() == 1 {
        parts[0].line.clone()
    } else {
        parts
            .iter()
            .map(|p| {
                format!(
                    "{} {}",
                    p.line.split(": ").next().unwrap_or_default(),
                    p.status
                )
            })
            .collect::<Vec<_>>()
            .join(", ")
    };
    let evidence = parts
        .iter()
        .filter(|p| !p.evidence.is_empty())
        .map(|p| p.evidence.trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n\n");
    let mut remedies: Vec<&str> = Vec::new();
    for part in parts
        .iter()
        .filter(|p| p.status == Status::Fail || p.status == Status::Error)
    {
        if let Some(r) = part.remedy.as_deref()
            && !remedies.contains(&r)
        {
            remedies.push(r);
        }
    }
    let verdict = match worst {
        Status::Ok => Verdict::ok(summary),
        Status::Fail => Verdict::fail(summary),
        Status::Error => Verdict::error(summary),
        Status::Skip => Verdict::skip(summary),
    }
    .expected(expected)
    .actual(actual)
    .evidence(evidence);
    if remedies.is_empty() {
        verdict
    } else {
        verdict.remedy(remedies.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_part_wins_and_skip_never_looks_ok() {
        let v = combine(
            vec![Outcome::ok("a fine"), Outcome::skip("b absent")],
            "flows",
            "x",
        );
        assert_eq!(v.status, Status::Skip);
        let v = combine(
            vec![
                Outcome::error("a ?"),
                Outcome::fail("b bad").remedy("fix b"),
            ],
            "flows",
            "x",
        );
        assert_eq!(
            (v.status, v.summary.as_str(), v.remedy.as_deref()),
            (Status::Fail, "1 of 2 flows failing: b bad", Some("fix b"))
        );
        assert_eq!(combine(Vec::new(), "flows", "x").status, Status::Skip);
        assert_eq!(
            combine(vec![Outcome::ok("a"), Outcome::ok("b")], "flows", "x").status,
            Status::Ok
        );
    }
}
