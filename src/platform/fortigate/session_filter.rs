//! `diagnose sys session filter` without arguments: the current filter, read back before a
//! session list so a leftover or mistyped filter cannot make a flow look absent.
//!
//! ```text
//! session filter:
//!         vd: any
//!         proto: 17
//!         dest ip: 10.0.0.1
//!         dest port: 5000
//! ```
//! Single values may read back as `5000` or `5000-5000`.

use std::collections::BTreeMap;
use std::net::IpAddr;

use serde::{Deserialize, Serialize};

use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionFilterReadback {
    /// Every key as printed (`dest port`) with its value (`any`, `5000`, `5000-5000`).
    pub keys: BTreeMap<String, String>,
}

impl SessionFilterReadback {
    /// The value of `key` when it narrows to one value (`5000` or `5000-5000`); `None` for `any`
    /// or absent.
    pub fn single(&self, key: &str) -> Option<&str> {
        let value = self.keys.get(key)?.as_str();
        if value == "any" {
            return None;
        }
        match value.split_once('-') {
            Some((lo, hi)) if lo == hi => Some(lo),
            _ => Some(value),
        }
    }

    /// Differences from a filter that should set exactly `expected` (every other key `any`;
    /// `vd` is ignored, it names the VDOM context). Empty when the filter is as intended.
    pub fn differences(&self, expected: &[(&str, String)]) -> Vec<String> {
        let mut out = Vec::new();
        for (key, want) in expected {
            match self.keys.get(*key) {
                None => out.push(format!("`{key}` not read back (expected {want})")),
                Some(_) if self.single(key) == Some(want.as_str()) => {}
                Some(got) => out.push(format!("`{key}` is {got}, expected {want}")),
            }
        }
        for (key, got) in &self.keys {
            if key != "vd" && got != "any" && !expected.iter().any(|(k, _)| k == key) {
                out.push(format!("`{key}` is {got}, expected any"));
            }
        }
        out
    }
}

/// The session filter's read-back under `filter`: sent after setting the filter and before
/// listing, so a leftover or mistyped filter is caught.
pub struct FilterReadback(pub SessionFilter);

impl Query for FilterReadback {
    const KIND: &'static str = "fortigate.session-filter";
    type Fact = SessionFilterReadback;
    fn command(&self) -> Command {
        Command::in_context(self.0.context(), SESSION_FILTER)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SessionFilterReadback, ParseError> {
        parse(raw.text()?)
    }
}

/// Without arguments: prints the current filter (the read-back).
pub const SESSION_FILTER: &str = "diagnose sys session filter";
/// Resets the filter only. Not to be confused with `diagnose sys session clear`, which drops
/// every session on the box and is never sent.
pub const SESSION_FILTER_CLEAR: &str = "diagnose sys session filter clear";

/// What a unicast flow's session query narrows to. Source port is deliberately never part of
/// it: a flow that opens a new socket per send shows up as many sessions with other ports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionFilter {
    pub proto: u8,
    pub src: Option<IpAddr>,
    pub dst: Option<IpAddr>,
    pub dport: Option<u16>,
}

impl SessionFilter {
    /// The lines that set this filter, starting from a cleared one.
    pub fn context(&self) -> Vec<String> {
        let mut lines = vec![
            SESSION_FILTER_CLEAR.to_string(),
            format!("{SESSION_FILTER} proto {}", self.proto),
        ];
        if let Some(src) = self.src {
            lines.push(format!("{SESSION_FILTER} src {src}"));
        }
        if let Some(dst) = self.dst {
            lines.push(format!("{SESSION_FILTER} dst {dst}"));
        }
        if let Some(dport) = self.dport {
            lines.push(format!("{SESSION_FILTER} dport {dport}"));
        }
        lines
    }

    /// The readback lines this filter must produce, as `(key, value)` with the FortiOS key names;
    /// every other key must read `any`.
    pub fn expected(&self) -> Vec<(&'static str, String)> {
        let mut out = vec![("proto", self.proto.to_string())];
        if let Some(src) = self.src {
            out.push(("source ip", src.to_string()));
        }
        if let Some(dst) = self.dst {
            out.push(("dest ip", dst.to_string()));
        }
        if let Some(dport) = self.dport {
            out.push(("dest port", dport.to_string()));
        }
        out
    }
}

pub fn parse(raw: &str) -> Result<SessionFilterReadback, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let Some(start) = lines.iter().position(|l| l.trim() == "session filter:") else {
        return Err(ParseError::new(
            "no `session filter:` header: this is not a filter readback",
            &joined(&lines),
        ));
    };
    let mut readback = SessionFilterReadback::default();
    for (i, line) in lines.iter().enumerate().skip(start + 1) {
        let Some((key, value)) = line.trim().split_once(": ") else {
            return Err(ParseError::at_line(
                "unexpected line in the filter readback",
                &joined(&lines),
                i,
            ));
        };
        let (key, value) = (key.trim(), value.trim());
        match readback.keys.get(key) {
            Some(old) if old != value => {
                return Err(ParseError::at_line(
                    format!(
                        "`{}` read back twice with different values ({} and {})",
                        quote(key),
                        quote(old),
                        quote(value)
                    ),
                    &joined(&lines),
                    i,
                ));
            }
            Some(_) => {}
            None => {
                readback.keys.insert(key.to_string(), value.to_string());
            }
        }
    }
    if readback.keys.is_empty() {
        return Err(ParseError::new(
            "the filter readback lists no keys",
            &joined(&lines),
        ));
    }
    Ok(readback)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readback_compares_with_intent() {
        let raw = "FGT # diagnose sys session filter\nsession filter:\n        vd: any\n        proto: 17\n        source ip: any\n        dest ip: 10.0.0.1\n        dest port: 5000-5000\n        policy id: any\nFGT # ";
        let r = parse(raw).unwrap();
        let want = vec![
            ("proto", "17".to_string()),
            ("dest ip", "10.0.0.1".to_string()),
            ("dest port", "5000".to_string()),
        ];
        assert!(
            r.differences(&want).is_empty(),
            "{:?}",
            r.differences(&want)
        );
        let stale = parse(&raw.replace("policy id: any", "policy id: 7")).unwrap();
        assert_eq!(
            stale.differences(&want),
            vec!["`policy id` is 7, expected any"]
        );
        let wrong = parse(&raw.replace("5000-5000", "5001")).unwrap();
        assert_eq!(wrong.differences(&want).len(), 1);
        assert!(parse("FGT # diagnose sys session filter\nFGT # ").is_err());
        assert!(parse("session filter:\ngarbage\n").is_err());
        assert!(parse(&raw.replace("proto: 17", "proto: 17\n        proto: 6")).is_err());
        assert!(parse(&raw.replace("proto: 17", "proto: 17\n        proto: 17")).is_ok());
    }
}
