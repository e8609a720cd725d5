//! `show ntp status` (text; EOS prints no JSON for it): synchronised or not, and to what.
//!
//! The first line decides, as ANTA's `VerifyNTP` reads it: `synchronised to NTP server
//! (10.0.0.1) at stratum 2`, `unsynchronised`, or `NTP is disabled.`. British spelling, and
//! `unsynchronised` must never match `synchronised`. Any other first line is an error.

use std::net::IpAddr;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct NtpStatus {
    pub synchronised: bool,
    /// `NTP is disabled.`
    pub disabled: bool,
    /// The server it follows, when the first line names one.
    pub server: Option<IpAddr>,
    pub stratum: Option<u8>,
    /// The first line as printed, for evidence.
    pub status_line: String,
}

static SYNCED: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^synchronised to NTP server \(([^)]+)\) at stratum (\d+)").expect("static regex")
});

/// `show ntp status` (text).
pub struct ShowNtpStatus;

impl Query for ShowNtpStatus {
    const KIND: &'static str = "eos.show-ntp-status";
    type Fact = NtpStatus;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<NtpStatus, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowNtpStatus {
    pub const TEXT: &'static str = "show ntp status";
}

pub fn parse(raw: &str) -> Result<NtpStatus, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    let Some(first) = lines.first().map(|l| l.trim()) else {
        return Err(ParseError::new("empty show ntp status output", raw));
    };
    let mut status = NtpStatus {
        status_line: first.to_string(),
        ..NtpStatus::default()
    };
    match first.split_whitespace().next() {
        Some("synchronised") => {
            status.synchronised = true;
            if let Some(c) = SYNCED.captures(first) {
                status.server = Some(c[1].parse().map_err(|_| {
                    ParseError::new(format!("{} is not an address", quote(&c[1])), raw)
                })?);
                status.stratum = Some(c[2].parse::<u8>().ok().filter(|s| *s <= 16).ok_or_else(
                    || ParseError::new(format!("stratum {} is not 0-16", quote(&c[2])), raw),
                )?);
            }
        }
        Some("unsynchronised") => {}
        _ if first == "NTP is disabled." => status.disabled = true,
        _ => {
            return Err(ParseError::new(
                format!("{} is not an NTP status line", quote(first)),
                raw,
            ));
        }
    }
    Ok(status)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn states() {
        let s = parse("sw1#show ntp status\nsynchronised to NTP server (10.0.0.1) at stratum 2\n   time correct to within 12 ms\n   polling server every 64 s\nsw1#").unwrap();
        assert!(s.synchronised && !s.disabled);
        assert_eq!(
            (s.server, s.stratum),
            (Some("10.0.0.1".parse().unwrap()), Some(2))
        );
        assert!(
            parse("synchronised\npoll interval unknown\n")
                .unwrap()
                .synchronised
        );
        let u = parse("unsynchronised\n   time server re-starting\n   polling server every 8 s\n")
            .unwrap();
        assert!(!u.synchronised && !u.disabled);
        let d = parse("NTP is disabled.\n").unwrap();
        assert!(!d.synchronised && d.disabled);
        for bad in [
            "synchronised to NTP server (10.0.0.999) at stratum 2",
            "synchronised to NTP server (10.0.0.1) at stratum 99",
            "Synchronized: yes",
            "% Invalid input",
            "",
            "{\"peers\": {}}",
        ] {
            assert!(parse(bad).is_err(), "{bad}");
        }
    }
}
