use crate::check::Check;
use crate::core::{Platform, Verdict};
use crate::parse::{AnyQuery, FactError, Facts, Query};
use crate::platform::eos::ShowLanzStatus;

/// LANZ (queue-length monitoring) is running now, as the baseline says.
///
/// ```yaml
/// - id: eos.lanz.running
///   platform: eos
/// ```
/// Baseline: `expect.lanz: true`.
pub struct LanzRunning;

/// `expect:` keys read: whether LANZ should be on.
#[derive(serde::Deserialize)]
pub struct Input {
    lanz: bool,
}

impl Check for LanzRunning {
    const ID: &'static str = "eos.lanz.running";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowLanzStatus)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let want = input.lanz;
        let command = ShowLanzStatus.command();
        let status = facts.get(&ShowLanzStatus)?;
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
