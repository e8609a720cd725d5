use crate::Check;
use premarket_core::{Percent, Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::GetPerformanceStatus;

/// Memory use is at most the baseline's ceiling: in conserve mode a FortiGate stops building
/// new sessions (and drops traffic) long before it runs out.
///
/// ```yaml
/// - id: fortigate.memory.ceiling
///   platform: fortigate
/// ```
/// Baseline: `expect.memory_max_percent: 75`.
pub struct MemoryCeiling;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    memory_max_percent: Percent,
}

impl Check for MemoryCeiling {
    const ID: &'static str = "fortigate.memory.ceiling";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(GetPerformanceStatus)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let max = input.memory_max_percent;
        let perf = facts.get(&GetPerformanceStatus)?;
        let Some(used) = perf.memory_used_percent else {
            return Ok(Verdict::error(
                "get system performance status printed no memory use (e.g. `Memory: Data Unavailable`)",
            ));
        };
        let verdict = if used <= max.0 {
            Verdict::ok(format!("memory {used}% used"))
        } else {
            Verdict::fail(format!(
                "memory {used}% used, above the {max} ceiling: conserve mode (no new sessions) comes next"
            ))
        };
        Ok(verdict
            .expected(format!("at most {max}"))
            .actual(format!("{used}%"))
            .evidence(format!("memory used: {used}%")))
    }
}
