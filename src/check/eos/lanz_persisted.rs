use crate::Check;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{ShowLanzStatus, ShowStartupConfig};

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

/// `expect:` keys read: whether LANZ should be on (and so saved).
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    lanz: bool,
}

impl Check for LanzPersisted {
    const ID: &'static str = "eos.lanz.persisted";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowStartupConfig), Box::new(ShowLanzStatus)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let want = input.lanz;
        let startup = facts.get(&ShowStartupConfig)?;
        // The running state only sharpens the message; the verdict rests on startup-config.
        let running = facts.get(&ShowLanzStatus).ok().map(|s| s.lanz_enabled);
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
