//! `show running-config`, read a second way: the whole configuration, normalised for the
//! comparison with the previous run (`eos.config.unchanged`). The command is the one LANZ
//! already reads ([`super::ShowRunningConfig`]): it is sent once and parsed twice.
//!
//! ```text
//! ! Command: show running-config
//! ! device: sw1 (cEOSLab, EOS-4.31.6M)
//! ! Time: Wed Dec  2 08:31:02 2026
//! !
//! ! boot system flash:/cEOS-lab.swi
//! !
//! hostname sw1
//! username admin privilege 15 role network-admin secret sha512 $6$...
//! ```
//! The `! Command:`, `! device:` and `! Time:` header lines and `! Startup-config last modified
//! at` change on every read or with the software (which the version check judges); they go.
//! Secrets are what [`super::redact`] sees as one.

use super::config::ShowRunningConfig;
use super::text::{body, device_error};
use crate::config_lines::{self, ConfigLines, Rules};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

/// `show running-config`, whole and normalised; archived for the next run.
pub struct RunningConfigLines;

impl Query for RunningConfigLines {
    const KIND: &'static str = "eos.running-config-lines";
    const ARCHIVED: bool = true;
    type Fact = ConfigLines;
    fn command(&self) -> Command {
        Command::new(ShowRunningConfig::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigLines, ParseError> {
        parse(raw.text()?)
    }
}

impl RunningConfigLines {
    /// What a diff of it is called (`--- sw1 running-config, run of 12-04 02:17:05`).
    pub const NAME: &'static str = "running-config";
}

/// Header comments that change on every read.
const VOLATILE: [&str; 4] = [
    "! Command:",
    "! Time:",
    "! device:",
    "! Startup-config last modified",
];

pub fn parse(raw: &str) -> Result<ConfigLines, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    // The same test as the LANZ reading: every EOS configuration has `!` lines.
    if !lines.iter().any(|l| l.starts_with('!')) {
        return Err(ParseError::new(
            "this does not look like an EOS configuration (no `!` lines)",
            raw,
        ));
    }
    let rules = Rules {
        volatile: |l| VOLATILE.iter().any(|v| l.starts_with(v)),
        redact: |line| super::redact::redact(line).into_owned(),
    };
    Ok(config_lines::normalise(lines, &rules))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Modelled on cEOS 4.31 output: the header of two reads differs, the rest does not.
    const FIRST: &str = "sw1#show running-config\n! Command: show running-config\n! device: sw1 (cEOSLab, EOS-4.31.6M)\n! Time: Wed Dec  2 08:31:02 2026\n!\n! Startup-config last modified at Tue Dec  1 17:02:11 2026 by admin\n!\nhostname sw1\nusername admin privilege 15 role network-admin secret sha512 $6$Qx1.salt$hash0123\nsnmp-server community s3cr3t ro\n!\ninterface Ethernet1\n   description feed-A\n!\nend\nsw1#";

    #[test]
    fn headers_go_secrets_keep_their_length() {
        let got = parse(FIRST).unwrap().lines;
        assert_eq!(got[0], "!");
        assert!(
            !got.iter()
                .any(|l| l.contains("Time:") || l.contains("EOS-4.31"))
        );
        assert!(got.contains(
            &"username admin privilege 15 role network-admin secret <secret set, 27 chars>".into()
        ));
        assert!(got.contains(&"snmp-server community <secret set, 9 chars>".into()));
        assert!(
            !got.iter()
                .any(|l| l.contains("s3cr3t") || l.contains("$6$"))
        );
        let later = FIRST
            .replace("08:31:02", "09:15:40")
            .replace("EOS-4.31.6M", "EOS-4.32.0F");
        assert_eq!(parse(&later).unwrap().lines, got);
        let edited = FIRST.replace("feed-A", "feed-B");
        assert_ne!(parse(&edited).unwrap().lines, got);
    }

    #[test]
    fn an_error_is_no_configuration() {
        assert!(parse("% Invalid input (privileged mode required)").is_err());
        assert!(parse("sw1#show running-config\nsw1#").is_err());
    }
}
