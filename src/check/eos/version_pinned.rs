use crate::check::{Check, Missing};
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::{FactError, Facts};
use crate::platform::eos::{Expect, Version, commands};

/// The switch runs the pinned EOS version.
///
/// ```yaml
/// - id: eos.version.pinned
///   platform: eos
/// ```
/// Baseline: `expect.version: { exact: 4.31.6M }` or `{ allowed: [4.31.6M, 4.31.7M] }`.
pub struct VersionPinned;

impl Check<Expect> for VersionPinned {
    fn id(&self) -> &'static str {
        "eos.version.pinned"
    }

    fn commands(&self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        match &expect.version {
            Some(pin) if pin.is_set() => Ok(vec![Command::new(commands::SHOW_VERSION)]),
            _ => Err(Missing::key("version (exact: or allowed:)")),
        }
    }

    fn evaluate(&self, facts: &Facts, expect: &Expect) -> Result<Verdict, FactError> {
        let Some(pin) = &expect.version else {
            return Ok(Verdict::error("no version pin in the baseline"));
        };
        let version = facts.get::<Version>(&Command::new(commands::SHOW_VERSION))?;
        let expected = pin.describe();
        Ok(if pin.accepts(&version.version) {
            Verdict::ok(format!("EOS {} as pinned", version.version))
        } else {
            Verdict::fail(format!(
                "EOS {} runs, the baseline pins {expected}",
                version.version
            ))
        }
        .expected(expected)
        .actual(format!(
            "{} on {} ({})",
            version.version, version.model, version.serial
        ))
        .evidence(format!("Software image version: {}", version.version)))
    }
}
