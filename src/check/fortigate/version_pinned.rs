use crate::{Check, Invalid, VersionPin};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::GetSystemStatus;

/// The firewall runs the pinned FortiOS version (offload behaviour and defaults change between
/// versions: the lab's figures hold for 7.6.7 on the 201G only).
///
/// ```yaml
/// - id: fortigate.version.pinned
///   platform: fortigate
/// ```
/// Baseline: `expect.version: { exact: 7.6.7 }` or `{ allowed: [7.6.6, 7.6.7] }`.
pub struct VersionPinned;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    version: VersionPin,
}

impl Check for VersionPinned {
    const ID: &'static str = "fortigate.version.pinned";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn validate(input: &Input) -> Result<(), Invalid> {
        input.version.require()
    }

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(GetSystemStatus)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let pin = &input.version;
        let status = facts.get(&GetSystemStatus)?;
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
