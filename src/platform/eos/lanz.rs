//! `show queue-monitor length status`: is LANZ (queue-length monitoring) running now?
//!
//! JSON carries `lanzEnabled` (what ANTA reads). The text form begins with a global line such
//! as `queue-monitor length enabled` (or `LANZ is disabled`); per-interface lines that follow
//! are not the global state and are ignored.

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::json::json;
use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::set_once;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LanzStatus {
    pub lanz_enabled: bool,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    lanz_enabled: bool,
}

static GLOBAL: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^\s*(?:lanz|queue[- ]monitor length)(?: status)?\s*(?:is|:)?\s*(enabled|disabled)\b",
    )
    .expect("static regex")
});

/// `show queue-monitor length status | json`: is LANZ running now.
pub struct ShowLanzStatus;

impl Query for ShowLanzStatus {
    const KIND: &'static str = "eos.show-queue-monitor-length-status";
    /// Not on every family: [`super::family::LANZ`].
    const AVAILABILITY: Option<premarket_parse::Availability> = Some(super::family::LANZ);
    type Fact = LanzStatus;
    fn command(&self) -> Command {
        Command::new(ShowLanzStatus::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<LanzStatus, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowLanzStatus {
    pub const TEXT: &'static str = "show queue-monitor length status | json";
}

pub fn parse(raw: &str) -> Result<LanzStatus, ParseError> {
    if let Some(parsed) = json::<Json>(raw, "queue-monitor status") {
        return Ok(LanzStatus {
            lanz_enabled: parsed?.lanz_enabled,
        });
    }
    let lines = body(raw);
    device_error(&lines, raw)?;
    let mut enabled = None;
    for c in lines.iter().filter_map(|l| GLOBAL.captures(l)) {
        set_once(&mut enabled, c[1].eq_ignore_ascii_case("enabled"))
            .map_err(|e| ParseError::new(format!("the global LANZ state {e}"), raw))?;
    }
    enabled
        .map(|lanz_enabled| LanzStatus { lanz_enabled })
        .ok_or_else(|| {
            ParseError::new("no global LANZ state (enabled/disabled) in the output", raw)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forms() {
        let cases = [
            (
                "sw1#show queue-monitor length status | json\n{\"lanzEnabled\": true, \"platformName\": \"Sand\"}\n",
                true,
            ),
            ("{\r\n  \"lanzEnabled\": false\r\n}\r\n", false),
            (
                "queue-monitor length enabled\nqueue-monitor length mode: fixed\n",
                true,
            ),
            ("LANZ is disabled\n", false),
            (
                "{\"jsonrpc\": \"2.0\", \"result\": [{}, {\"lanzEnabled\": true}]}",
                true,
            ),
        ];
        for (raw, enabled) in cases {
            assert_eq!(parse(raw).unwrap().lanz_enabled, enabled, "{raw}");
        }
        for raw in [
            "",
            "% Invalid input",
            "{\"other\": 1}",
            "Per-interface: Et1 enabled",
            "LANZ is enabled\nLANZ is disabled\n",
        ] {
            assert!(parse(raw).is_err(), "{raw}");
        }
    }
}
