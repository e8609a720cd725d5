//! `show`: the FortiGate's whole configuration (its non-default settings, as a backup file
//! holds them), normalised for the comparison with the previous run
//! (`fortigate.config.unchanged`).
//!
//! `show` at the top of the CLI prints the configuration of the scope the session is in: the
//! whole box without VDOMs; with `ssh.vdom`, the inspected VDOM (it is a per-VDOM command:
//! [`super::vdoms::global_scope`] leaves it out). It is read-only like every `show`, and is
//! what Oxidized reads from FortiOS too. Its output opens with a header that changes on every
//! read or with the software:
//!
//! ```text
//! #config-version=FG201G-7.4.4-FW-build2662-240514:opmode=0:vdom=0:user=premarket
//! #conf_file_ver=2873625514781726
//! #buildno=2662
//! #global_vdom=1
//! config system global
//!     set hostname "FGT201G"
//! end
//! config system admin
//!     edit "admin"
//!         set password ENC SH2b3Jm...=
//! ```
//! The header goes; every `ENC` blob (re-encrypted with a fresh salt on each `show`) and every
//! PEM block is kept only as "a secret of this length is set here".

use std::borrow::Cow;

use super::text::{body, device_error, joined};
use crate::config_lines::{self, ConfigLines, Rules};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

/// `show`, whole and normalised; archived for the next run.
pub struct ShowConfig;

impl Query for ShowConfig {
    const KIND: &'static str = "fortigate.show";
    const ARCHIVED: bool = true;
    type Fact = ConfigLines;
    fn command(&self) -> Command {
        Command::new(ShowConfig::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<ConfigLines, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowConfig {
    pub const TEXT: &'static str = "show";
    /// What a diff of it is called (`--- fw1 configuration, run of 12-04 02:17:05`).
    pub const NAME: &'static str = "configuration";
}

/// Header lines that change on every read (`conf_file_ver` counts saves) or with the software
/// (the version check judges that).
const VOLATILE: [&str; 4] = [
    "#config-version=",
    "#conf_file_ver=",
    "#buildno=",
    "#global_vdom=",
];

pub fn parse(raw: &str) -> Result<ConfigLines, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let opens = lines.iter().any(|l| l.starts_with("config "));
    let closes = lines.iter().any(|l| l.as_ref() == "end");
    if !opens || !closes {
        return Err(ParseError::new(
            "this does not look like a FortiOS configuration (no top-level `config` ... `end`)",
            &joined(&lines),
        ));
    }
    let rules = Rules {
        volatile: |l| VOLATILE.iter().any(|v| l.starts_with(v)),
        redact: |line| super::redact::redact(line).into_owned(),
    };
    Ok(config_lines::normalise(
        lines.iter().map(Cow::as_ref),
        &rules,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Modelled on a FortiOS 7.4 `show`: two reads a minute apart differ in the header and in
    /// every ENC blob, and in nothing else.
    fn show(conf_ver: &str, enc: &str) -> String {
        format!(
            "FGT201G # show\n#config-version=FG201G-7.4.4-FW-build2662-240514:opmode=0:vdom=0:user=premarket\n#conf_file_ver={conf_ver}\n#buildno=2662\n#global_vdom=1\nconfig system global\n    set hostname \"FGT201G\"\nend\nconfig system admin\n    edit \"admin\"\n        set accprofile \"super_admin\"\n        set password ENC {enc}\n    next\nend\nconfig vpn certificate local\n    edit \"feed-cert\"\n        set password ENC {enc}\n        set private-key \"-----BEGIN ENCRYPTED PRIVATE KEY-----\nMIIFHzBJBgkqhkiG9w0BBQ0wPDAbBgkqhkiG9w0BBQww\n-----END ENCRYPTED PRIVATE KEY-----\"\n        set certificate \"-----BEGIN CERTIFICATE-----\nMIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQUF\n-----END CERTIFICATE-----\"\n    next\nend\n\nFGT201G # "
        )
    }

    const BLOB: &str = "SH2nlSm9QL9tapcHPXIqAXvX7vBJuuqu22hpa0JxMqZ3yk8GDk5cGFwXm1eHG0=";

    #[test]
    fn a_reencryption_is_no_change_a_new_length_is() {
        let first = parse(&show("2873625514781726", BLOB)).unwrap().lines;
        assert!(!first.iter().any(|l| l.starts_with('#')), "{first:?}");
        assert!(first.contains(&format!(
            "        set password ENC <secret set, {} chars>",
            BLOB.len()
        )));
        assert!(
            first.contains(&"        set private-key \"<private key set, 44 chars>\"".to_string())
        );
        assert!(
            first.contains(&"        set certificate \"<certificate set, 44 chars>\"".to_string())
        );
        assert!(
            !first
                .iter()
                .any(|l| l.contains("MII") || l.contains("SH2nl"))
        );
        let rotated: String = BLOB.chars().rev().collect();
        assert_eq!(
            parse(&show("2873625514781790", &rotated)).unwrap().lines,
            first
        );
        let longer = format!("{BLOB}AAAAAAAAAAAAAAAAAAAAAA==");
        assert_ne!(parse(&show("1", &longer)).unwrap().lines, first);
    }

    #[test]
    fn errors_and_other_text_are_no_configuration() {
        assert!(parse("FGT201G # show\nCommand fail. Return code -1\nFGT201G # ").is_err());
        assert!(parse("Version: FortiGate-201G v7.4.4\n").is_err());
    }
}
