use crate::check::{Check, Missing};
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::{FactError, Facts};
use crate::platform::eos::{Expect, LanzStatus, commands};

/// LANZ (queue-length monitoring) is running now, as the baseline says.
///
/// ```yaml
/// - id: eos.lanz.running
///   platform: eos
/// ```
/// Baseline: `expect.lanz: true`.
pub struct LanzRunning;

impl Check<Expect> for LanzRunning {
    fn id(&self) -> &'static str {
        "eos.lanz.running"
    }

    fn commands(&self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        expect.lanz.ok_or_else(|| Missing::key("lanz"))?;
        Ok(vec![Command::new(commands::SHOW_LANZ_STATUS)])
    }

    fn evaluate(&self, facts: &Facts, expect: &Expect) -> Result<Verdict, FactError> {
        let Some(want) = expect.lanz else {
            return Ok(Verdict::error("no lanz value in the baseline"));
        };
        let command = Command::new(commands::SHOW_LANZ_STATUS);
        let status = facts.get::<LanzStatus>(&command)?;
        let state = |on: bool| if on { "enabled" } else { "disabled" };
        let verdict = match (want, status.lanz_enabled) {
            (true, true) => Verdict::ok("LANZ is running"),
            (false, false) => Verdict::ok("LANZ is off, as the baseline says"),
            (true, false) => Verdict::fail(
                "LANZ is not running: queue build-up on this switch is not being recorded",
            ),
            (false, true) => {
                Verdict::fail("LANZ is running although the baseline says it should be off")
            }
        };
        Ok(verdict
            .expected(format!("LANZ {}", state(want)))
            .actual(format!("LANZ {}", state(status.lanz_enabled)))
            .evidence(format!(
                "{}: lanzEnabled={}",
                command.text, status.lanz_enabled
            )))
    }
}
