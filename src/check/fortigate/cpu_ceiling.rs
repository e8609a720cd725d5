use crate::check::Check;
use crate::core::{Percent, Platform, Verdict};
use crate::parse::{AnyQuery, FactError, Facts};
use crate::platform::fortigate::{CpuStates, GetPerformanceStatus};

/// CPU use (100 - idle, all cores) is at most the baseline's ceiling. On an offloading firewall
/// the CPU rises when trading packets take the slow path (the lab notes' indirect indicator).
///
/// ```yaml
/// - id: fortigate.cpu.ceiling
///   platform: fortigate
/// ```
/// Baseline: `expect.cpu_max_percent: 60`.
pub struct CpuCeiling;

/// `expect:` keys read.
#[derive(serde::Deserialize)]
pub struct Input {
    cpu_max_percent: Percent,
}

impl Check for CpuCeiling {
    const ID: &'static str = "fortigate.cpu.ceiling";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(GetPerformanceStatus)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let max = input.cpu_max_percent;
        let perf = facts.get(&GetPerformanceStatus)?;
        let Some(cpu) = &perf.cpu else {
            return Ok(Verdict::error(
                "get system performance status printed no `CPU states` line",
            ));
        };
        let used = cpu.used();
        let busiest = perf
            .per_cpu
            .iter()
            .max_by(|a, b| a.used().total_cmp(&b.used()));
        let evidence = std::iter::once(cpu)
            .chain(&perf.per_cpu)
            .map(line)
            .collect::<Vec<_>>()
            .join("\n");
        let busiest_note = busiest.map_or(String::new(), |b| {
            format!(" (busiest CPU{} at {:.0}%)", b.cpu.unwrap_or(0), b.used())
        });
        let verdict = if used <= max.0 {
            Verdict::ok(format!("CPU {used:.0}% used{busiest_note}"))
        } else {
            Verdict::fail(format!(
                "CPU {used:.0}% used, above the {max} ceiling{busiest_note}: packets may be taking the CPU path"
            ))
        };
        Ok(verdict
            .expected(format!("at most {max}"))
            .actual(format!("{used:.0}%"))
            .evidence(evidence))
    }
}

fn line(c: &CpuStates) -> String {
    let name = c.cpu.map_or("CPU".to_string(), |n| format!("CPU{n}"));
    format!(
        "{name} states: {}% user {}% system {}% nice {}% idle",
        c.user, c.system, c.nice, c.idle
    )
}
