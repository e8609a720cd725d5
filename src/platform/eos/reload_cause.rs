//! `show reload cause`, JSON or text: why the switch last rebooted. After an unplanned reboot
//! every running-only setting is suspect (the LANZ incident began with one).
//!
//! JSON: `{"resetCauses": [{"description": "Reload requested by the user.", "timestamp":
//! 1683186892.0, "recommendedAction": "No action necessary.", ...}], "full": false}`; no
//! recorded cause is an empty list. Text: `Reload Cause 1:` / dashes / the description /
//! `Reload Time:` / `Reload occurred at Fri Feb 23 14:18:49 2018 UTC.` / `Recommended Action:`.

use serde::{Deserialize, Serialize};

use super::json::{epoch_us, json};
use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReloadCause {
    /// Most recent first, as printed; empty when the switch recorded none.
    pub causes: Vec<ResetCause>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ResetCause {
    /// `Reload requested by the user.`, `The system rebooted due to a Power Loss` ...
    pub description: String,
    /// When, epoch seconds (JSON only; the text form prints a date).
    pub timestamp_s: Option<u64>,
    /// `Reload occurred at ...` as printed (text only).
    pub occurred: Option<String>,
    pub recommended_action: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    reset_causes: Vec<JsonCause>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct JsonCause {
    description: String,
    #[serde(default)]
    timestamp: Option<f64>,
    #[serde(default)]
    recommended_action: Option<String>,
}

/// `show reload cause | json` (the text form parses too).
pub struct ShowReloadCause;

impl Query for ShowReloadCause {
    const KIND: &'static str = "eos.show-reload-cause";
    type Fact = ReloadCause;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ReloadCause, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowReloadCause {
    pub const TEXT: &'static str = "show reload cause | json";
}

pub fn parse(raw: &str) -> Result<ReloadCause, ParseError> {
    if let Some(parsed) = json::<Json>(raw, "show reload cause") {
        let mut causes = Vec::new();
        for c in parsed?.reset_causes {
            let timestamp_s = c
                .timestamp
                .map(|t| epoch_us(t).map(|us| us / 1_000_000))
                .transpose()
                .map_err(|e| ParseError::new(format!("reset cause `timestamp` {e}"), raw))?;
            causes.push(ResetCause {
                description: c.description,
                timestamp_s,
                occurred: None,
                recommended_action: c.recommended_action,
            });
        }
        return Ok(ReloadCause { causes });
    }
    text(raw)
}

/// Which titled block of the text form a line is in.
#[derive(Clone, Copy, PartialEq)]
enum Block {
    None,
    Cause,
    Time,
    Action,
    Other,
}

fn text(raw: &str) -> Result<ReloadCause, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let mut out = ReloadCause::default();
    let mut block = Block::None;
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.chars().all(|c| c == '-') {
            continue;
        }
        if let Some(title) = line.strip_suffix(':') {
            block = match title {
                t if t.starts_with("Reload Cause") => {
                    out.causes.push(ResetCause::default());
                    Block::Cause
                }
                "Reload Time" => Block::Time,
                "Recommended Action" => Block::Action,
                _ => Block::Other,
            };
            continue;
        }
        let Some(cause) = out.causes.last_mut() else {
            return Err(ParseError::at_line(
                format!("{} before any `Reload Cause N:` title", quote(line)),
                &lines.join("\n"),
                i,
            ));
        };
        let slot = match block {
            Block::Cause if cause.description.is_empty() => {
                cause.description = line.to_string();
                continue;
            }
            Block::Time => &mut cause.occurred,
            Block::Action => &mut cause.recommended_action,
            _ => continue,
        };
        slot.get_or_insert_with(|| line.to_string());
    }
    if out.causes.is_empty() || out.causes.iter().any(|c| c.description.is_empty()) {
        return Err(ParseError::new(
            "no `Reload Cause N:` with a description: not show reload cause output",
            raw,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "sw1#show reload cause\nReload Cause 1:\n-------------------\nThe system rebooted due to a Power Loss\n\nReload Time:\n------------\nReload occurred at Fri Feb 23 14:18:49 2018 UTC.\n\nRecommended Action:\n-------------------\nNo action necessary.\n\nDebugging Information:\n----------------------\nNone available.\nsw1#";

    #[test]
    fn json_and_text() {
        let j = parse("{\"resetCauses\": [{\"recommendedAction\": \"No action necessary.\", \"description\": \"Reload requested by the user.\", \"timestamp\": 1683186892.0, \"debugInfoIsDir\": false}], \"full\": false}").unwrap();
        assert_eq!(j.causes[0].description, "Reload requested by the user.");
        assert_eq!(j.causes[0].timestamp_s, Some(1_683_186_892));
        assert!(
            parse("{\"kernelCrashData\": [], \"resetCauses\": [], \"full\": false}")
                .unwrap()
                .causes
                .is_empty()
        );
        let t = parse(TEXT).unwrap();
        assert_eq!(t.causes.len(), 1);
        assert_eq!(
            t.causes[0].description,
            "The system rebooted due to a Power Loss"
        );
        assert_eq!(
            t.causes[0].occurred.as_deref(),
            Some("Reload occurred at Fri Feb 23 14:18:49 2018 UTC.")
        );
        assert_eq!(
            t.causes[0].recommended_action.as_deref(),
            Some("No action necessary.")
        );
        for bad in [
            "{\"resetCauses\": [{\"timestamp\": 1.0}]}",
            "{\"resetCauses\": [{\"description\": \"x\", \"timestamp\": -1}]}",
            "{\"full\": false}",
            "Reload Cause 1:\n-----\n",
            "hello world",
            "% Invalid input",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
