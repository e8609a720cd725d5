//! The outcome of one check on one device.

use std::fmt;

use serde::{Deserialize, Serialize};

/// OK: as the baseline says. FAIL: the network is not as the baseline says. ERROR: premarket
/// could not tell (unreachable, timeout, unreadable output, missing value). SKIP: not applicable,
/// with the reason. ERROR and SKIP never look like OK anywhere.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Status {
    #[serde(rename = "OK")]
    Ok,
    #[serde(rename = "FAIL")]
    Fail,
    #[serde(rename = "ERROR")]
    Error,
    #[serde(rename = "SKIP")]
    Skip,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "OK",
            Status::Fail => "FAIL",
            Status::Error => "ERROR",
            Status::Skip => "SKIP",
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a check concluded, in words an on-call engineer can act on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub status: Status,
    /// One line: what is wrong (or right).
    pub summary: String,
    pub expected: String,
    pub actual: String,
    /// The excerpt of raw output the verdict rests on.
    pub evidence: String,
    /// A remedy specific to what was found; the catalog's remedy is used when absent.
    pub remedy: Option<String>,
    /// One sentence the report leads with: what, where and the key number (`the md-unicast
    /// sender opens a new socket per send: 10,000 sessions in 9 s`); the summary follows as
    /// the detail. Absent: the catalog's finding words lead.
    pub lead: Option<String>,
    /// The few words the subject names the fault by (`PTP grandmaster in holdover`), when the
    /// catalog's `finding` would blame the wrong box. Absent: the catalog's finding.
    pub finding: Option<String>,
    /// When what the verdict is about happened (a reboot, a burst), in Unix seconds: the report
    /// shows it in the site's time and notices two devices that restarted together.
    pub when: Option<i64>,
    /// The whole text the evidence is the head of, when it is too long for a finding (a
    /// configuration diff): attached to the email as `DEVICE.diff` and kept in the archive.
    pub attachment: Option<String>,
    /// What a FAIL is about when a check can name several things (ports, flows, members,
    /// servers, changed lines): an acknowledgement binds to these, so a FAIL that names
    /// anything else is not covered by it. Empty: the check on the device as a whole.
    /// At most [`SUBJECTS_MAX`], the last then saying how many more there were.
    pub subjects: Vec<String>,
}

/// The most subjects a verdict names one by one (a hostile output can fail on thousands of
/// nodes); past it the last subject is `(and N more)`, which no acknowledgement covers.
pub const SUBJECTS_MAX: usize = 100;

/// Whether `subjects` were cut at [`SUBJECTS_MAX`] (the last says how many more).
pub fn subjects_cut(subjects: &[String]) -> bool {
    subjects
        .last()
        .is_some_and(|s| s.starts_with("(and ") && s.ends_with(" more)"))
}

impl Verdict {
    fn with(status: Status, summary: impl Into<String>) -> Self {
        Verdict {
            status,
            summary: summary.into(),
            expected: String::new(),
            actual: String::new(),
            evidence: String::new(),
            remedy: None,
            lead: None,
            finding: None,
            when: None,
            attachment: None,
            subjects: Vec::new(),
        }
    }

    pub fn ok(summary: impl Into<String>) -> Self {
        Verdict::with(Status::Ok, summary)
    }

    pub fn fail(summary: impl Into<String>) -> Self {
        Verdict::with(Status::Fail, summary)
    }

    pub fn error(summary: impl Into<String>) -> Self {
        Verdict::with(Status::Error, summary)
    }

    pub fn skip(reason: impl Into<String>) -> Self {
        Verdict::with(Status::Skip, reason)
    }

    pub fn expected(mut self, expected: impl Into<String>) -> Self {
        self.expected = expected.into();
        self
    }

    pub fn actual(mut self, actual: impl Into<String>) -> Self {
        self.actual = actual.into();
        self
    }

    pub fn evidence(mut self, evidence: impl Into<String>) -> Self {
        self.evidence = evidence.into();
        self
    }

    pub fn remedy(mut self, remedy: impl Into<String>) -> Self {
        self.remedy = Some(remedy.into());
        self
    }

    pub fn lead(mut self, lead: impl Into<String>) -> Self {
        self.lead = Some(lead.into());
        self
    }

    pub fn finding(mut self, finding: impl Into<String>) -> Self {
        self.finding = Some(finding.into());
        self
    }

    /// When it happened, Unix seconds.
    pub fn when(mut self, at: i64) -> Self {
        self.when = Some(at);
        self
    }

    pub fn attachment(mut self, text: impl Into<String>) -> Self {
        self.attachment = Some(text.into());
        self
    }

    /// What the verdict is about (see [`Verdict::subjects`]): each named once, in order.
    pub fn about<S: Into<String>>(mut self, subjects: impl IntoIterator<Item = S>) -> Self {
        self.subjects = named_once(subjects);
        self
    }
}

/// `subjects` without repeats, in their first order, cut at [`SUBJECTS_MAX`].
fn named_once<S: Into<String>>(subjects: impl IntoIterator<Item = S>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    let mut more = 0usize;
    for s in subjects {
        let s = s.into();
        if !seen.insert(s.clone()) {
            continue;
        }
        if out.len() < SUBJECTS_MAX {
            out.push(s);
        } else {
            more += 1;
        }
    }
    if more > 0 {
        out.push(format!("(and {more} more)"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_named_once_and_cut_at_the_maximum() {
        let v = Verdict::fail("x").about(["Ethernet1", "Ethernet2", "Ethernet1"]);
        assert_eq!(v.subjects, ["Ethernet1", "Ethernet2"]);
        assert!(!subjects_cut(&v.subjects));
        let many = Verdict::fail("x").about((0..SUBJECTS_MAX + 7).map(|i| format!("p{i}")));
        assert_eq!(many.subjects.len(), SUBJECTS_MAX + 1);
        assert_eq!(
            many.subjects.last().map(String::as_str),
            Some("(and 7 more)")
        );
        assert!(subjects_cut(&many.subjects));
    }
}
