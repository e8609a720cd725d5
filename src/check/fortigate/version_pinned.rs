use crate::check::{Check, Missing};
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::{FactError, Facts};
use crate::platform::fortigate::{Expect, SystemStatus, commands};

/// The firewall runs the pinned FortiOS version (offload behaviour and defaults change between
/// versions: the lab's figures hold for 7.6.7 on the 201G only).
///
/// ```yaml
/// - id: fortigate.version.pinned
///   platform: fortigate
/// ```
/// Baseline: `expect.version: { exact: 7.6.7 }` or `{ allowed: [7.6.6, 7.6.7] }`.
pub struct VersionPinned;

impl Check<Expect> for VersionPinned {
    fn id(&self) -> &'static str {
        "fortigate.version.pinned"
    }

    fn commands(&self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        match &expect.version {
            Some(pin) if pin.is_set() => Ok(vec![Command::new(commands::GET_SYSTEM_STATUS)]),
            _ => Err(Missing::key("version (exact: or allowed:)")),
        }
    }

    fn evaluate(&self, facts: &Facts, expect: &Expect) -> Result<Verdict, FactError> {
        let Some(pin) = &expect.version else {
            return Ok(Verdict::error("no version pin in the baseline"));
        };
        let status = facts.get::<SystemStatus>(&Command::new(commands::GET_SYSTEM_STATUS))?;
        let expected = pin.describe();
        let build = status
            .build
            .map_or(String::new(), |b| format!(" build {b}"));
        Ok(if pin.accepts(&status.version) {
            Verdict::ok(format!("FortiOS {} as pinned", status.version))
        } else {
            Verdict::fail(format!(
                "FortiOS {} runs, the baseline pins {expected}",
                status.version
            ))
        }
        .expected(expected)
        .actual(format!(
            "{}{build} on {} ({})",
            status.version,
            status.model,
            status.serial.as_deref().unwrap_or("serial not shown")
        ))
        .evidence(format!(
            "Version: {} v{}{build}",
            status.model, status.version
        )))
    }
}
