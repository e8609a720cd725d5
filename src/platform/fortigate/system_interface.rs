//! `get system interface`: one record per interface, `== [ port1 ]` then one line of
//! `key: value` fields (`name: port1 mode: static ip: ... status: up ... type: physical ...
//! netflow-sampler: disable sflow-sampler: disable ...`). 7.4 separates fields with one space,
//! 6.4/7.0 with several and trailing spaces.
//!
//! Only what `fortigate.offload.blockers` needs is kept: sFlow on an interface disables NP
//! offloading for all its traffic (Hardware Acceleration guide, "sFlow and NetFlow and hardware
//! acceleration"); NetFlow does not, but is kept to say so.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemInterfaces {
    /// Keyed by the interface name in the `== [ name ]` header.
    pub interfaces: BTreeMap<String, SystemInterface>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SystemInterface {
    /// `up` or `down`; `None` when not printed (some tunnel and modem interfaces).
    pub status: Option<String>,
    /// `physical`, `aggregate`, `vlan`, `tunnel`, `hard-switch` ...
    #[serde(rename = "type")]
    pub kind: Option<String>,
    /// `sflow-sampler: enable` (`true`) disables offloading on the interface.
    pub sflow_sampler: Option<bool>,
    pub netflow_sampler: Option<bool>,
}

/// `get system interface`.
pub struct GetSystemInterface;

impl Query for GetSystemInterface {
    const KIND: &'static str = "fortigate.get-system-interface";
    type Fact = SystemInterfaces;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SystemInterfaces, ParseError> {
        parse(raw.text()?)
    }
}

impl GetSystemInterface {
    pub const TEXT: &'static str = "get system interface";
}

pub fn parse(raw: &str) -> Result<SystemInterfaces, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut out = SystemInterfaces::default();
    let mut current: Option<(String, Fields)> = None;
    for (i, line) in lines.iter().enumerate() {
        let at = |e: String| ParseError::at_line(e, &joined(&lines), i);
        let line = line.trim();
        if let Some(name) = header(line) {
            if let Some((name, fields)) = current.take() {
                store(&mut out, name, fields).map_err(|e| at(e.to_string()))?;
            }
            current = Some((name.to_string(), Fields::default()));
            continue;
        }
        let Some((name, fields)) = current.as_mut() else {
            return Err(at(format!(
                "a line before any `== [ name ]` header: {}",
                quote(line)
            )));
        };
        for (key, value) in record(line) {
            let field = |e: String| at(format!("{} `{key}:` {e}", quote(name)));
            let slot = match key {
                "name" => {
                    if value != *name {
                        return Err(field(format!("differs from the header {}", quote(name))));
                    }
                    fields.named = true;
                    continue;
                }
                "status" => &mut fields.status,
                "type" => &mut fields.kind,
                "sflow-sampler" => &mut fields.sflow,
                "netflow-sampler" => &mut fields.netflow,
                _ => continue,
            };
            set_once(slot, value.to_string()).map_err(field)?;
        }
    }
    match current.take() {
        Some((name, fields)) => store(&mut out, name, fields)
            .map_err(|e| ParseError::new(e.to_string(), &joined(&lines)))?,
        None => {
            return Err(ParseError::new(
                "no `== [ name ]` interface record: not get system interface output",
                raw,
            ));
        }
    }
    Ok(out)
}

/// What one record printed, before validation.
#[derive(Default)]
struct Fields {
    named: bool,
    status: Option<String>,
    kind: Option<String>,
    sflow: Option<String>,
    netflow: Option<String>,
}

fn store(out: &mut SystemInterfaces, name: String, f: Fields) -> Result<(), RecordError> {
    if !f.named {
        return Err(RecordError::Unnamed(name));
    }
    let toggle = |value: Option<String>, key: &'static str| -> Result<Option<bool>, RecordError> {
        match value.as_deref() {
            None => Ok(None),
            Some("enable") => Ok(Some(true)),
            Some("disable") => Ok(Some(false)),
            Some(other) => Err(RecordError::Toggle {
                name: name.clone(),
                key,
                value: other.to_string(),
            }),
        }
    };
    let interface = SystemInterface {
        status: f.status,
        kind: f.kind,
        sflow_sampler: toggle(f.sflow, "sflow-sampler")?,
        netflow_sampler: toggle(f.netflow, "netflow-sampler")?,
    };
    match out.interfaces.get(&name) {
        Some(old) if *old != interface => Err(RecordError::Twice(name)),
        Some(_) => Ok(()),
        None => {
            out.interfaces.insert(name, interface);
            Ok(())
        }
    }
}

/// Why an interface record cannot be kept; each names the interface.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum RecordError {
    #[error("the record of {} has no `name:` line (cut?)", quote(.0))]
    Unnamed(String),
    #[error("{} `{key}:` is {}, not enable or disable", quote(.name), quote(.value))]
    Toggle {
        name: String,
        key: &'static str,
        value: String,
    },
    #[error("{} is listed twice with different settings", quote(.0))]
    Twice(String),
}

/// `== [ port1 ]` -> `port1`.
fn header(line: &str) -> Option<&str> {
    let name = line
        .strip_prefix("==")?
        .trim()
        .strip_prefix('[')?
        .strip_suffix(']')?
        .trim();
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

/// `name: port1 mode: static ip: 0.0.0.0 0.0.0.0 status: up` -> (key, value) pairs: a word
/// ending in `:` starts a field, the words up to the next such word are its value.
fn record(line: &str) -> Vec<(&str, String)> {
    let mut out: Vec<(&str, String)> = Vec::new();
    for word in line.split_whitespace() {
        match word.strip_suffix(':') {
            Some(key) if !key.is_empty() && !key.contains(':') => out.push((key, String::new())),
            _ => {
                if let Some((_, value)) = out.last_mut() {
                    if !value.is_empty() {
                        value.push(' ');
                    }
                    value.push_str(word);
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const V74: &str = "fw1 # get system interface\n== [ x1 ]\nname: x1 mode: static ip: 0.0.0.0 0.0.0.0 status: up netbios-forward: disable type: physical ring-rx: 0 ring-tx: 0 netflow-sampler: disable sflow-sampler: enable src-check: enable\n== [ x2 ]\nname: x2 mode: static ip: 0.0.0.0 0.0.0.0 status: up netbios-forward: disable type: physical netflow-sampler: disable sflow-sampler: disable src-check: enable\n== [ ssl.root ]\nname: ssl.root ip: 0.0.0.0 0.0.0.0 status: up type: tunnel netflow-sampler: disable sflow-sampler: disable\nfw1 # ";

    #[test]
    fn records_and_spacing() {
        let p = parse(V74).unwrap();
        assert_eq!(p.interfaces.len(), 3);
        assert_eq!(p.interfaces["x1"].sflow_sampler, Some(true));
        assert_eq!(p.interfaces["x2"].sflow_sampler, Some(false));
        assert_eq!(p.interfaces["x2"].kind.as_deref(), Some("physical"));
        let wide = V74.replace(": ", ":    ").replace(" name:", "   name:");
        let spaced: String = wide.lines().map(|l| format!("{l}    \n")).collect();
        assert_eq!(parse(&spaced).unwrap(), p);
    }

    #[test]
    fn damaged_records_are_errors() {
        for bad in [
            V74.replace("sflow-sampler: enable", "sflow-sampler: maybe"),
            V74.replace("name: x2 ", "name: x3 "),
            V74.replace(
                "sflow-sampler: enable",
                "sflow-sampler: enable sflow-sampler: disable",
            ),
            V74.replace("== [ ssl.root ]", "== [ x1 ]")
                .replace("name: ssl.root", "name: x1"),
            V74.replace("name: x2 mode", "mode"),
            "hello\n".to_string(),
            "Unknown action 0\n".to_string(),
            String::new(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
