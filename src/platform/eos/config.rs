//! `show startup-config` and `show running-config` (text): the facts checks need from a
//! configuration, not a full model of it.

use serde::{Deserialize, Serialize};

use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Config {
    pub hostname: Option<String>,
    /// A top-level `queue-monitor length` line (the global LANZ enable).
    pub has_queue_monitor_length: bool,
    /// A top-level `no queue-monitor length` line (LANZ explicitly off).
    pub has_no_queue_monitor_length: bool,
    /// The `queue-monitor length ...` lines, for evidence.
    pub queue_monitor_lines: Vec<String>,
}

/// `show startup-config`: what the switch comes back with after a reload.
pub struct ShowStartupConfig;

impl Query for ShowStartupConfig {
    const KIND: &'static str = "eos.show-startup-config";
    type Fact = Config;
    fn command(&self) -> Command {
        Command::new(ShowStartupConfig::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Config, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowStartupConfig {
    pub const TEXT: &'static str = "show startup-config";
}

/// `show running-config` (needs `enable`).
pub struct ShowRunningConfig;

impl Query for ShowRunningConfig {
    const KIND: &'static str = "eos.show-running-config";
    type Fact = Config;
    fn command(&self) -> Command {
        Command::new(ShowRunningConfig::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Config, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowRunningConfig {
    pub const TEXT: &'static str = "show running-config";
}

pub fn parse(raw: &str) -> Result<Config, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    // Every saved or running EOS configuration has `!` separator and comment lines; `end` or
    // a `hostname` line alone is not enough (FortiOS prints both).
    let looks_like_config = lines.iter().any(|l| l.starts_with('!'));
    if !looks_like_config {
        return Err(ParseError::new(
            "this does not look like an EOS configuration (no `!` lines)",
            raw,
        ));
    }
    let top_level = || lines.iter().filter(|l| !l.starts_with(' '));
    let mut hostname = None;
    for name in top_level().filter_map(|l| l.strip_prefix("hostname ")) {
        if name.trim().is_empty()
            || name.trim().contains(char::is_whitespace)
            || name.starts_with([' ', ':'])
        {
            return Err(ParseError::new(
                format!(
                    "{} is not an EOS hostname line",
                    quote(&format!("hostname {name}"))
                ),
                raw,
            ));
        }
        set_once(&mut hostname, name.trim().to_string())
            .map_err(|e| ParseError::new(format!("`hostname` {e}"), raw))?;
    }
    Ok(Config {
        hostname,
        has_queue_monitor_length: top_level().any(|l| *l == "queue-monitor length"),
        has_no_queue_monitor_length: top_level().any(|l| *l == "no queue-monitor length"),
        queue_monitor_lines: lines
            .iter()
            .filter(|l| l.contains("queue-monitor length"))
            .map(|l| l.to_string())
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn queue_monitor_lines() {
        let on = "sw1#show startup-config\n! Command: show startup-config\nhostname sw1\n!\nqueue-monitor length\nqueue-monitor length log 5\n!\nend\nsw1#";
        let off = "! device: sw1\nhostname sw1\nno queue-monitor length\ninterface Ethernet1\n   no queue-monitor length\nend\n";
        let none = "hostname sw1\n!\nqueue-monitor length log 5\nend\n";
        let c = parse(on).unwrap();
        assert!(c.has_queue_monitor_length && !c.has_no_queue_monitor_length);
        assert_eq!(c.hostname.as_deref(), Some("sw1"));
        let c = parse(off).unwrap();
        assert!(!c.has_queue_monitor_length && c.has_no_queue_monitor_length);
        let c = parse(none).unwrap();
        assert!(!c.has_queue_monitor_length && !c.has_no_queue_monitor_length);
        assert!(parse("% Invalid input (privileged mode required)").is_err());
        assert!(parse("random words").is_err());
        assert!(parse("hostname sw1\n!\nhostname sw2\nend\n").is_err());
        assert!(parse("hostname sw1\n!\nhostname sw1\nend\n").is_ok());
    }
}
