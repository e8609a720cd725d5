use crate::Check;
use crate::config_diff::{self, Input};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::ShowConfig;

/// The firewall's configuration (`show`: the box, or with `ssh.vdom` the inspected VDOM) is
/// the one the previous run saw. FortiOS re-encrypts every `ENC` secret on each read, which
/// makes RANCID-style diffs change every day; here a secret counts only as "set, N chars", so
/// a re-encryption is no change and a new or removed secret is. The first run records.
///
/// ```yaml
/// - id: fortigate.config.unchanged
///   platform: fortigate
///   severity: warning
/// ```
/// Baseline: optional `expect.config_ignore: [REGEX, ...]`, lines expected to change.
pub struct ConfigUnchanged;

impl Check for ConfigUnchanged {
    const ID: &'static str = "fortigate.config.unchanged";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;
    const COMPARES: bool = true;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowConfig)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let now = facts.get(&ShowConfig)?;
        let previous = facts.previous(&ShowConfig);
        let named = config_diff::Named {
            device: facts.device(),
            what: ShowConfig::NAME,
        };
        Ok(config_diff::judge(
            now,
            previous,
            &input.config_ignore,
            &named,
        ))
    }
}
