use crate::{Check, Invalid, VersionPin};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::ShowVersion;

/// The switch runs the pinned EOS version.
///
/// ```yaml
/// - id: eos.version.pinned
///   platform: eos
/// ```
/// Baseline: `expect.version: { exact: 4.31.6M }` or `{ allowed: [4.31.6M, 4.31.7M] }`.
pub struct VersionPinned;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    version: VersionPin,
}

impl Check for VersionPinned {
    const ID: &'static str = "eos.version.pinned";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.version.require()
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowVersion)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let pin = &input.version;
        let version = facts.get(&ShowVersion)?;
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
