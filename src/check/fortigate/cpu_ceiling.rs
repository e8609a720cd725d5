use crate::Check;
use premarket_core::{Percent, Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{CpuStates, GetPerformanceStatus};

/// The busiest CPU core's use (100 - idle) is at most the baseline's ceiling, and, where the
/// box prints it, its softirq share too. One flow on the CPU path loads one core (its packets
/// are handled in soft interrupts on the core their queue lands on) and hides in the average
/// of the others: the lab notes' indirect indicator, judged where it shows.
///
/// ```yaml
/// - id: fortigate.cpu.ceiling
///   platform: fortigate
/// ```
/// Baseline: `expect.cpu_max_percent: 60` (busiest core), `expect.softirq_max_percent: 20`
/// (optional; softirq is "usually network traffic which is not offloaded", KB 228275).
pub struct CpuCeiling;

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    cpu_max_percent: Percent,
    #[serde(default)]
    softirq_max_percent: Option<Percent>,
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
        let (Some(cpu), Some(busiest)) = (&perf.cpu, perf.busiest_core()) else {
            return Ok(Verdict::error(
                "get system performance status printed no `CPU states` line",
            ));
        };
        let evidence = std::iter::once(cpu)
            .chain(&perf.per_cpu)
            .map(line)
            .collect::<Vec<_>>()
            .join("\n");
        let core = name(busiest);
        let used = busiest.used();
        let average = if perf.per_cpu.is_empty() {
            String::new()
        } else {
            format!(", average {:.0}%", cpu.used())
        };
        let softest = perf
            .per_cpu
            .iter()
            .chain(std::iter::once(cpu))
            .filter_map(|c| c.softirq.map(|s| (s, c)))
            .max_by(|a, b| a.0.total_cmp(&b.0));
        let mut problems = Vec::new();
        if used > max.0 {
            problems.push(format!(
                "{core} {used:.0}% used, above the {max} ceiling{average}"
            ));
        }
        if let (Some(limit), Some((softirq, c))) = (input.softirq_max_percent, softest)
            && softirq > limit.0
        {
            problems.push(format!(
                "{} at {softirq:.0}% softirq, above the {limit} ceiling: packets the NP does not carry are handled there",
                name(c)
            ));
        }
        let softirq_note = softest.map_or(String::new(), |(s, c)| {
            format!(", most softirq {s:.0}% on {}", name(c))
        });
        let verdict = if problems.is_empty() {
            Verdict::ok(format!(
                "busiest core {core} {used:.0}% used{average}{softirq_note}"
            ))
        } else {
            Verdict::fail(format!(
                "{}: packets may be taking the CPU path",
                problems.join("; ")
            ))
        };
        let expected = match input.softirq_max_percent {
            Some(s) => format!("busiest core at most {max}, softirq at most {s}"),
            None => format!("busiest core at most {max}"),
        };
        Ok(verdict
            .expected(expected)
            .actual(format!("{core} {used:.0}%{softirq_note}"))
            .evidence(evidence))
    }
}

fn name(c: &CpuStates) -> String {
    c.cpu.map_or("CPU".to_string(), |n| format!("CPU{n}"))
}

fn line(c: &CpuStates) -> String {
    let mut out = format!(
        "{} states: {}% user {}% system {}% nice {}% idle",
        name(c),
        c.user,
        c.system,
        c.nice,
        c.idle
    );
    for (value, label) in [(c.iowait, "iowait"), (c.irq, "irq"), (c.softirq, "softirq")] {
        if let Some(v) = value {
            out.push_str(&format!(" {v}% {label}"));
        }
    }
    out
}
