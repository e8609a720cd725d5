//! Who made a reading the reference a comparison judges against (`premarket accept`), shown
//! beside the result of the next run that judges against it.

use serde::{Deserialize, Serialize};

/// An operator's acceptance of a device's latest reading as the new reference.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Accepted {
    /// The login name of whoever accepted.
    pub by: String,
    /// When (RFC 3339).
    pub at: String,
    pub reason: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
}

impl Accepted {
    /// `accepted by alice (CHG123)`, as the report shows it beside the result.
    pub fn note(&self) -> String {
        match &self.ticket {
            Some(ticket) => format!("accepted by {} ({ticket})", self.by),
            None => format!("accepted by {}", self.by),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_note_names_who_and_the_ticket() {
        let mut a = Accepted {
            by: "alice".into(),
            at: "2026-12-05T08:00:00+08:00".into(),
            reason: "planned".into(),
            ticket: Some("CHG123".into()),
        };
        assert_eq!(a.note(), "accepted by alice (CHG123)");
        a.ticket = None;
        assert_eq!(a.note(), "accepted by alice");
    }
}
