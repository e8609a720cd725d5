use crate::check::{Check, Missing};
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::{FactError, Facts};
use crate::platform::fortigate::{Expect, Performance, commands};

/// Memory use is at most the baseline's ceiling: in conserve mode a FortiGate stops building
/// new sessions (and drops traffic) long before it runs out.
///
/// ```yaml
/// - id: fortigate.memory.ceiling
///   platform: fortigate
/// ```
/// Baseline: `expect.memory_max_percent: 75`.
pub struct MemoryCeiling;

impl Check<Expect> for MemoryCeiling {
    fn id(&self) -> &'static str {
        "fortigate.memory.ceiling"
    }

    fn commands(&self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        expect
            .memory_max_percent
            .ok_or_else(|| Missing::key("memory_max_percent"))?;
        Ok(vec![Command::new(commands::GET_PERFORMANCE_STATUS)])
    }

    fn evaluate(&self, facts: &Facts, expect: &Expect) -> Result<Verdict, FactError> {
        let Some(max) = expect.memory_max_percent else {
            return Ok(Verdict::error("no memory_max_percent in the baseline"));
        };
        let perf = facts.get::<Performance>(&Command::new(commands::GET_PERFORMANCE_STATUS))?;
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
