use crate::check::{Check, Missing};
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::{FactError, Facts};
use crate::platform::eos::{Config, Expect, LanzStatus, commands};

/// LANZ is in startup-config, so it survives a reload: the lab notes' incident, where LANZ was
/// enabled only in running-config and came back off after a reboot without any alarm.
///
/// ```yaml
/// - id: eos.lanz.persisted
///   platform: eos
/// ```
/// Baseline: `expect.lanz: true`.
pub struct LanzPersisted;

const REMEDY: &str = "On the switch: `configure`, `queue-monitor length`, `end`, then `write memory`. \
                      Then rerun `premarket check eos.lanz.persisted`: the fix is done when it is OK.";

impl Check<Expect> for LanzPersisted {
    fn id(&self) -> &'static str {
        "eos.lanz.persisted"
    }

    fn commands(&self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        expect.lanz.ok_or_else(|| Missing::key("lanz"))?;
        Ok(vec![
            Command::new(commands::SHOW_STARTUP_CONFIG),
            Command::new(commands::SHOW_LANZ_STATUS),
        ])
    }

    fn evaluate(&self, facts: &Facts, expect: &Expect) -> Result<Verdict, FactError> {
        let Some(want) = expect.lanz else {
            return Ok(Verdict::error("no lanz value in the baseline"));
        };
        let startup = facts.get::<Config>(&Command::new(commands::SHOW_STARTUP_CONFIG))?;
        // The running state only sharpens the message; the verdict rests on startup-config.
        let running = facts
            .get::<LanzStatus>(&Command::new(commands::SHOW_LANZ_STATUS))
            .ok()
            .map(|s| s.lanz_enabled);
        let saved = startup.has_queue_monitor_length && !startup.has_no_queue_monitor_length;
        let evidence = if startup.queue_monitor_lines.is_empty() {
            "show startup-config: no `queue-monitor length` line".to_string()
        } else {
            format!(
                "show startup-config:\n{}",
                startup.queue_monitor_lines.join("\n")
            )
        };
        let verdict = match (want, saved, running) {
            (true, true, _) => Verdict::ok("LANZ is saved in startup-config and survives a reload"),
            (true, false, Some(true)) => Verdict::fail(
                "LANZ is on only in running-config and will be off after the next reload (it is not saved in startup-config)",
            )
            .remedy(REMEDY),
            (true, false, _) => Verdict::fail(
                "LANZ is not in startup-config: after a reload the switch comes back without queue monitoring",
            )
            .remedy(REMEDY),
            (false, false, _) => Verdict::ok("LANZ is not in startup-config, as the baseline says"),
            (false, true, _) => Verdict::fail("startup-config enables LANZ although the baseline says it should be off"),
        };
        let actual = match (saved, running) {
            (true, _) => "queue-monitor length in startup-config".to_string(),
            (false, Some(true)) => {
                "running: enabled; startup-config: no queue-monitor length".to_string()
            }
            (false, _) => "startup-config: no queue-monitor length".to_string(),
        };
        let expected = if want {
            "queue-monitor length in startup-config"
        } else {
            "no queue-monitor length in startup-config"
        };
        Ok(verdict.expected(expected).actual(actual).evidence(evidence))
    }
}
