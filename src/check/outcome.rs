//! Checks over several parts (flows, policies, services, ports, feeds) judge each one as a [`Verdict`] whose
//! summary starts with the part's name, then fold the parts into one verdict: FAIL if any part
//! fails, else ERROR, else SKIP, else OK. A part that could not be judged never hides behind
//! another part's OK. A FAIL is about the parts that fail ([`Verdict::subjects`]): each part's
//! own subjects when it names them, else its name, so an acknowledgement of one failing port
//! never covers another.

use premarket_core::{Status, Verdict};
use premarket_parse::FactError;

/// A part whose fact is missing or unreadable, for the part named `name` (SKIP when the
/// command does not exist on this model).
pub fn part_error(name: &str, error: &FactError) -> Verdict {
    if error.not_available() {
        return Verdict::skip(format!("{name}: {error}"));
    }
    Verdict::error(format!("{name}: {error}")).evidence(error.excerpt())
}

fn rank(status: Status) -> u8 {
    match status {
        Status::Fail => 3,
        Status::Error => 2,
        Status::Skip => 1,
        Status::Ok => 0,
    }
}

/// A part's name: its summary up to the first `": "`.
fn name_of(part: &Verdict) -> &str {
    part.summary.split(": ").next().unwrap_or_default()
}

/// One verdict from the parts; `noun` names a part in the plural summary (`flows`).
pub fn combine(parts: Vec<Verdict>, noun: &str, expected: impl Into<String>) -> Verdict {
    let Some(worst) = parts.iter().map(|p| p.status).max_by_key(|s| rank(*s)) else {
        return Verdict::skip(format!("no {noun} to judge in the baseline"));
    };
    let flagged: Vec<&Verdict> = parts.iter().filter(|p| p.status == worst).collect();
    let summary = if parts.len() == 1 {
        parts[0].summary.clone()
    } else if worst == Status::Ok {
        format!("all {} {noun} as expected", parts.len())
    } else {
        let word = match worst {
            Status::Fail => "failing",
            Status::Error => "could not be judged",
            _ => "skipped",
        };
        let lines: Vec<&str> = flagged.iter().map(|p| p.summary.as_str()).collect();
        format!(
            "{} of {} {noun} {word}: {}",
            flagged.len(),
            parts.len(),
            lines.join("; ")
        )
    };
    // Each summary starts with the part's name up to the first ": ".
    let actual = if parts.len() == 1 {
        parts[0].summary.clone()
    } else {
        let each: Vec<String> = parts
            .iter()
            .map(|p| format!("{} {}", name_of(p), p.status))
            .collect();
        each.join(", ")
    };
    let evidence: Vec<&str> = parts
        .iter()
        .map(|p| p.evidence.trim_end())
        .filter(|e| !e.is_empty())
        .collect();
    let mut remedies: Vec<&str> = Vec::new();
    for part in parts
        .iter()
        .filter(|p| matches!(p.status, Status::Fail | Status::Error))
    {
        if let Some(r) = part.remedy.as_deref()
            && !remedies.contains(&r)
        {
            remedies.push(r);
        }
    }
    // The first flagged part with a lead leads for all of them; the rest are in the summary.
    let lead = flagged
        .iter()
        .find_map(|p| p.lead.as_deref())
        .map(|lead| match flagged.len() {
            1 => lead.to_string(),
            n => format!("{lead} (and {} more {noun})", n - 1),
        });
    let when = flagged.iter().find_map(|p| p.when);
    let subjects: Vec<String> = if worst == Status::Fail {
        flagged
            .iter()
            .flat_map(|p| match p.subjects.is_empty() {
                true => vec![name_of(p).to_string()],
                false => p.subjects.clone(),
            })
            .collect()
    } else {
        Vec::new()
    };
    let mut verdict = match worst {
        Status::Ok => Verdict::ok(summary),
        Status::Fail => Verdict::fail(summary),
        Status::Error => Verdict::error(summary),
        Status::Skip => Verdict::skip(summary),
    }
    .expected(expected)
    .actual(actual)
    .evidence(evidence.join("\n\n"))
    .about(subjects);
    verdict.lead = lead;
    verdict.when = when;
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
            vec![Verdict::ok("a: fine"), Verdict::skip("b: absent")],
            "flows",
            "x",
        );
        assert_eq!(
            (v.status, v.actual.as_str()),
            (Status::Skip, "a OK, b SKIP")
        );
        let v = combine(
            vec![
                Verdict::error("a: ?"),
                Verdict::fail("b: bad").remedy("fix b"),
            ],
            "flows",
            "x",
        );
        assert_eq!(
            (v.status, v.summary.as_str(), v.remedy.as_deref()),
            (Status::Fail, "1 of 2 flows failing: b: bad", Some("fix b"))
        );
        assert_eq!(v.subjects, ["b"], "a FAIL is about its failing parts");
        let named = combine(
            vec![
                Verdict::fail("Ethernet1/1: down").about(["Ethernet1/1", "Ethernet1/2"]),
                Verdict::fail("c: bad"),
                Verdict::ok("d: fine"),
            ],
            "ports",
            "x",
        );
        assert_eq!(named.subjects, ["Ethernet1/1", "Ethernet1/2", "c"]);
        assert_eq!(combine(Vec::new(), "flows", "x").status, Status::Skip);
        assert_eq!(
            combine(vec![Verdict::ok("a"), Verdict::ok("b")], "flows", "x").status,
            Status::Ok
        );
    }
}
