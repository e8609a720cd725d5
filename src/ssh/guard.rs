//! The guard: the only way to make a [`Line`], and the shell writes nothing but [`Line`]s, so
//! every byte that reaches a device has passed here first.
//!
//! Each constructor admits one kind of line and takes no free text except where the kind needs
//! it: a planned command or context line (the platform's read-only allowlist), a session setting,
//! `enable` and the pager/banner keys (the platform profile's own list, nothing else), a VDOM
//! name (only one that a read-only listing showed in this session), a secret typed at a prompt
//! (one line, no control characters), the empty line (Enter alone, which every CLI answers with
//! its prompt), and the one line that is not read-only, which needs a proof only its platform
//! can make. Control characters never pass. Outside this module only
//! commands and proven lines can be made: the session's own lines (settings, escalation, the
//! secret, the keys, the VDOM steps, the empty line) are made by the script and the shell
//! alone, each in its place.

use std::any::{Any, TypeId};
use std::fmt;

use secrecy::{ExposeSecret, SecretString};

use super::profile::{Profile, VdomsUnreadable};

/// A line (or key) that passed the guard.
#[derive(Clone)]
pub struct Line {
    text: Text,
    /// A key (the pager answer) is sent as is; a line ends with a newline.
    key: bool,
}

#[derive(Clone)]
enum Text {
    Plain(String),
    Secret(SecretString),
}

/// A line the guard refused, and why.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("`{line}` was not sent: {reason}")]
pub struct Refused {
    pub line: String,
    pub reason: String,
}

/// Evidence that a line which changes the device is safe to send right now (the FortiGate's
/// filtered session clear: the session filter read back as exactly the probe's flow). The
/// platform's profile names the one type that proves each such line, so a proof made anywhere
/// else is refused; the proof is consumed, one proof per line.
pub trait Proof: Any {
    /// The line this proof allows.
    fn line(&self) -> &'static str;
}

/// The VDOMs that a read-only listing showed in this session. Only the driver makes one, from
/// the listing it just read, so `edit NAME` is never typed for a name the box did not list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Listed {
    names: Vec<String>,
}

impl Listed {
    /// Reads the platform's VDOM listing.
    pub(super) fn read(profile: &Profile, output: &str) -> Result<Listed, VdomsUnreadable> {
        let vdoms = profile
            .vdoms
            .as_ref()
            .ok_or(VdomsUnreadable::NoVdoms(profile.platform))?;
        let names = (vdoms.list)(output)?;
        Ok(Listed { names })
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }
}

impl Line {
    /// A planned command or a context line: the platform's read-only allowlist decides.
    pub fn command(profile: &Profile, line: &str) -> Result<Line, Refused> {
        printable(line)?;
        (profile.allowlist)(line).map_err(|reason| refused(line, reason.0))?;
        Ok(Line::plain(line))
    }

    /// A session setting: only the profile's own `on_open` lines.
    pub(super) fn setup(profile: &Profile, line: &str) -> Result<Line, Refused> {
        printable(line)?;
        if !profile.on_open.contains(&line) {
            return Err(refused(line, "not one of this platform's session settings"));
        }
        Ok(Line::plain(line))
    }

    /// The privilege escalation command (`enable`).
    pub(super) fn enable(profile: &Profile) -> Result<Line, Refused> {
        let enable = profile
            .enable
            .as_ref()
            .ok_or_else(|| refused("enable", "this platform has no privilege escalation"))?;
        printable(enable.command)?;
        Ok(Line::plain(enable.command))
    }

    /// A secret typed at a password prompt: one line of printable characters. A value holding a
    /// line break would type its later lines as commands.
    pub(super) fn secret(secret: &SecretString) -> Result<Line, Refused> {
        if secret.expose_secret().chars().any(char::is_control) {
            return Err(refused(
                "<secret>",
                "a secret holding a line break or another control character is never typed",
            ));
        }
        Ok(Line {
            text: Text::Secret(secret.clone()),
            key: false,
        })
    }

    /// Enter alone. Every CLI answers it with its prompt and nothing else, and it changes
    /// nothing: after the last line of a session (and after each interactive line) it proves
    /// that the prompt which ended the output was the real one.
    pub(super) fn settle() -> Line {
        Line::plain("")
    }

    /// The key that asks the pager for the next page.
    pub(super) fn pager_answer(profile: &Profile) -> Result<Line, Refused> {
        Line::key(profile.pager_answer)
    }

    /// The key that accepts the post-login banner, for platforms that show one.
    pub(super) fn banner_answer(profile: &Profile) -> Result<Option<Line>, Refused> {
        profile.banner.map(|(_, key)| Line::key(key)).transpose()
    }

    /// Enters the global context (`config global`); valid only as the context of read-only
    /// commands, so it is made only here, never from a plan.
    pub(super) fn global(profile: &Profile) -> Result<Line, Refused> {
        let vdoms = profile
            .vdoms
            .as_ref()
            .ok_or_else(|| refused("config global", "this platform has no VDOMs"))?;
        printable(vdoms.global)?;
        Ok(Line::plain(vdoms.global))
    }

    /// The read-only VDOM listing.
    pub(super) fn list_vdoms(profile: &Profile) -> Result<Line, Refused> {
        let vdoms = profile
            .vdoms
            .as_ref()
            .ok_or_else(|| refused("list VDOMs", "this platform has no VDOMs"))?;
        printable(vdoms.list_command)?;
        Ok(Line::plain(vdoms.list_command))
    }

    /// The command that tells whether the box has VDOMs.
    pub(super) fn vdom_mode(profile: &Profile) -> Result<Line, Refused> {
        let vdoms = profile
            .vdoms
            .as_ref()
            .ok_or_else(|| refused("VDOM mode", "this platform has no VDOMs"))?;
        Line::command(profile, vdoms.mode_command)
    }

    /// Leaves the global context or a VDOM (`end`).
    pub(super) fn leave(profile: &Profile) -> Result<Line, Refused> {
        let vdoms = profile
            .vdoms
            .as_ref()
            .ok_or_else(|| refused("end", "this platform has no VDOMs"))?;
        printable(vdoms.leave)?;
        Ok(Line::plain(vdoms.leave))
    }

    /// `config vdom` and `edit NAME`, only for a name the listing showed: on a FortiGate
    /// `edit` of a missing VDOM creates it.
    pub(super) fn enter_vdom(
        profile: &Profile,
        listed: &Listed,
        name: &str,
    ) -> Result<[Line; 2], Refused> {
        let edit = Line::vdom_edit(profile, name)?;
        if !listed.names.iter().any(|n| n == name) {
            return Err(refused(
                edit.shown(),
                format!(
                    "VDOM {name} is not among the VDOMs this box lists ({})",
                    listed.names.join(", ")
                ),
            ));
        }
        let table = profile.vdoms.as_ref().map(|v| v.table).unwrap_or_default();
        printable(table)?;
        Ok([Line::plain(table), edit])
    }

    /// `edit NAME` as it would be typed, checked for a valid VDOM name only: what `plan` and
    /// `validate` show before any listing exists. It is never sent as such.
    pub(super) fn vdom_edit(profile: &Profile, name: &str) -> Result<Line, Refused> {
        let Some(vdoms) = &profile.vdoms else {
            return Err(refused(
                name,
                format!("ssh.vdom is set, but {} has no VDOMs", profile.platform),
            ));
        };
        if !(vdoms.is_name)(name) {
            return Err(refused(
                name,
                "not a VDOM name (letters, digits, `_` and `-`, at most 31)",
            ));
        }
        let line = vdoms.edit.replace("{vdom}", name);
        printable(&line)?;
        Ok(Line::plain(&line))
    }

    /// The one kind of line that changes the device, made from the proof its platform names.
    pub fn proven<P: Proof>(profile: &Profile, proof: P) -> Result<Line, Refused> {
        let line = proof.line();
        let allowed = profile
            .proven
            .iter()
            .any(|p| p.line == line && (p.proof)() == TypeId::of::<P>());
        if !allowed {
            return Err(refused(
                line,
                format!("{} allows this line with no such proof", profile.platform),
            ));
        }
        printable(line)?;
        Ok(Line::plain(line))
    }

    fn plain(text: &str) -> Line {
        Line {
            text: Text::Plain(text.to_string()),
            key: false,
        }
    }

    fn key(text: &str) -> Result<Line, Refused> {
        if text.is_empty() || !text.bytes().all(|b| (0x20..0x7f).contains(&b)) {
            return Err(refused(text, "a key is printable ASCII"));
        }
        Ok(Line {
            text: Text::Plain(text.to_string()),
            key: true,
        })
    }

    /// The line as a person may see it: a secret is never shown.
    pub fn shown(&self) -> &str {
        match &self.text {
            Text::Plain(t) => t,
            Text::Secret(_) => "<secret>",
        }
    }

    pub fn is_secret(&self) -> bool {
        matches!(self.text, Text::Secret(_))
    }

    /// The bytes written to the channel.
    pub(super) fn wire(&self) -> Vec<u8> {
        let mut bytes = match &self.text {
            Text::Plain(t) => t.as_bytes().to_vec(),
            Text::Secret(s) => s.expose_secret().as_bytes().to_vec(),
        };
        if !self.key {
            bytes.push(b'\n');
        }
        bytes
    }
}

impl fmt::Debug for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Line({:?})", self.shown())
    }
}

impl PartialEq for Line {
    fn eq(&self, other: &Line) -> bool {
        match (&self.text, &other.text) {
            (Text::Plain(a), Text::Plain(b)) => a == b && self.key == other.key,
            _ => false,
        }
    }
}

/// One line, printable ASCII, no command separator: a line cannot smuggle a second command.
fn printable(line: &str) -> Result<(), Refused> {
    if line.bytes().all(|b| (0x20..0x7f).contains(&b)) && !line.contains(';') {
        Ok(())
    } else {
        Err(refused(
            line,
            "control characters, non-ASCII and `;` are never sent",
        ))
    }
}

fn refused(line: &str, reason: impl Into<String>) -> Refused {
    Refused {
        line: line.escape_debug().to_string(),
        reason: reason.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_profiles::{FIREWALL, SWITCH};

    #[test]
    fn each_kind_of_line_has_its_own_narrow_door() {
        let (fgt, eos) = (&FIREWALL, &SWITCH);
        assert!(Line::setup(eos, "terminal length 0").is_ok());
        assert!(Line::setup(eos, "terminal monitor").is_err());
        assert!(Line::setup(eos, "show version").is_err());
        assert!(Line::enable(fgt).is_err());
        assert_eq!(Line::enable(eos).unwrap().wire(), b"enable\n");
        assert_eq!(Line::pager_answer(fgt).unwrap().wire(), b" ");
        assert_eq!(Line::settle().wire(), b"\n");
        assert_eq!(Line::global(fgt).unwrap().wire(), b"config global\n");
        assert!(Line::global(eos).is_err());
        assert!(Line::vdom_edit(fgt, "root; execute reboot").is_err());
        assert!(Line::vdom_edit(fgt, "a b").is_err());
        assert!(Line::vdom_edit(eos, "root").is_err());
    }

    #[test]
    fn edit_only_for_a_listed_vdom() {
        let fgt = &FIREWALL;
        let listed = Listed {
            names: vec!["root".into(), "trading".into()],
        };
        let [table, edit] = Line::enter_vdom(fgt, &listed, "trading").unwrap();
        assert_eq!(
            (table.shown(), edit.shown()),
            ("config vdom", "edit trading")
        );
        let e = Line::enter_vdom(fgt, &listed, "tradnig").unwrap_err();
        assert!(e.reason.contains("root, trading"), "{e}");
    }

    #[test]
    fn secrets_are_one_line() {
        for bad in [
            "pw\nconfigure terminal",
            "pw\r",
            "pw\u{1b}[A",
            "pw\u{7f}",
            "\u{85}",
        ] {
            assert!(Line::secret(&SecretString::from(bad)).is_err(), "{bad:?}");
        }
        let line = Line::secret(&SecretString::from("s3cret; with spaces")).unwrap();
        assert_eq!(line.wire(), b"s3cret; with spaces\n");
        assert_eq!(format!("{line:?}"), "Line(\"<secret>\")");
    }
}
