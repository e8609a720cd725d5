//! The read-only guard. A [`Line`] can only be made by passing the platform's allowlist (or,
//! for VDOM steps, the platform's narrow VDOM rule), and the shell only sends [`Line`]s, so no
//! command reaches a device without being checked first. The one exception to read-only is
//! [`Line::filtered_session_clear`]: the probe clearing its own FortiGate session, which needs
//! a proof only the probe's filter read-back can make.

use super::profile::Profile;
use crate::core::Platform;
use crate::probe::firewall::FilterMatched;

/// A command line that passed the guard.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Line(String);

/// A line the guard refused, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{line}` was not sent: {reason}")]
pub struct Refused {
    pub line: String,
    pub reason: String,
}

impl Line {
    /// Checks a command against the platform's read-only allowlist.
    pub fn command(profile: &Profile, line: &str) -> Result<Line, Refused> {
        printable(line)?;
        (profile.allowlist)(line).map_err(|reason| Refused {
            line: shown(line),
            reason,
        })?;
        Ok(Line(line.to_string()))
    }

    /// Checks a VDOM step (`config vdom`, `edit NAME`, `end`) against its own narrow rule.
    pub fn vdom_step(profile: &Profile, line: &str) -> Result<Line, Refused> {
        printable(line)?;
        match &profile.vdom {
            Some(steps) if (steps.allows)(line) => Ok(Line(line.to_string())),
            _ => Err(Refused {
                line: shown(line),
                reason: "not a VDOM step this platform allows".into(),
            }),
        }
    }

    /// `diagnose sys session clear` on a FortiGate, and only with the proof that the session
    /// filter just read back as exactly the probe's 5-tuple. The proof is consumed: one
    /// read-back, one clear. Whoever sends the line must also make sure nothing else was sent
    /// between the read-back and the clear (see [`crate::ssh::firewall`]).
    pub fn filtered_session_clear(
        profile: &Profile,
        // Taken by value: the proof is used up by this line.
        _proof: FilterMatched,
    ) -> Result<Line, Refused> {
        let line = crate::platform::fortigate::allowlist::SESSION_CLEAR;
        if profile.platform != Platform::Fortigate {
            return Err(Refused {
                line: line.into(),
                reason: format!("{} has no session filter", profile.platform),
            });
        }
        Ok(Line(line.to_string()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// One line, printable ASCII, no command separator: a line cannot smuggle a second command.
fn printable(line: &str) -> Result<(), Refused> {
    if line.bytes().all(|b| (0x20..0x7f).contains(&b)) && !line.contains(';') {
        Ok(())
    } else {
        Err(Refused {
            line: shown(line),
            reason: "control characters, non-ASCII and `;` are never sent".into(),
        })
    }
}

/// The refused line as it can be shown on one line of a report.
fn shown(line: &str) -> String {
    line.escape_debug().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::platform::{eos, fortigate};

    #[test]
    fn writes_and_separators_are_refused_for_both_platforms() {
        let profiles = [&eos::cli::PROFILE, &fortigate::cli::PROFILE];
        for line in [
            "configure",
            "configure terminal",
            "write memory",
            "copy running-config startup-config",
            "reload",
            "execute reboot",
            "execute factoryreset",
            "config system console",
            "diagnose sys session clear",
            "diagnose sys session filter clear;diagnose sys session clear",
            "diagnose sys session filter dport 1\ndiagnose sys session clear",
            "show running-config | write flash:x",
            "show running-config | redirect flash:x",
            "show running-config > flash:x",
            "show version\u{0}",
        ] {
            for profile in profiles {
                assert!(
                    Line::command(profile, line).is_err(),
                    "{line:?} passed the {} guard",
                    profile.platform
                );
            }
        }
    }

    #[test]
    fn vdom_steps_are_not_commands() {
        let fgt = &fortigate::cli::PROFILE;
        assert!(Line::command(fgt, "config vdom").is_err());
        assert!(Line::vdom_step(fgt, "config vdom").is_ok());
        assert!(Line::vdom_step(fgt, "edit root").is_ok());
        assert!(Line::vdom_step(fgt, "config system console").is_err());
        assert!(Line::vdom_step(&eos::cli::PROFILE, "config vdom").is_err());
    }
}
