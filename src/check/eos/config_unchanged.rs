use crate::Check;
use crate::config_diff::{self, Input};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::RunningConfigLines;

/// The switch's running-config is the one the previous run saw: "what changed overnight?"
/// answered before the open, with the diff. It reads the `show running-config` that the LANZ
/// check reads (sent once), normalised: the `! Time:` / `! device:` header gone, secrets kept
/// only as their length. The first run on a switch records and says so.
///
/// ```yaml
/// - id: eos.config.unchanged
///   platform: eos
///   severity: warning
/// ```
/// Baseline: optional `expect.config_ignore: [REGEX, ...]`, lines expected to change.
pub struct ConfigUnchanged;

impl Check for ConfigUnchanged {
    const ID: &'static str = "eos.config.unchanged";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;
    const COMPARES: bool = true;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(RunningConfigLines)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let now = facts.get(&RunningConfigLines)?;
        let previous = facts.previous(&RunningConfigLines);
        let named = config_diff::Named {
            device: facts.device(),
            what: RunningConfigLines::NAME,
        };
        Ok(config_diff::judge(
            now,
            previous,
            &input.config_ignore,
            &named,
        ))
    }
}
