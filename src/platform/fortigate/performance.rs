//! `get system performance status`: CPU states (overall and per core), memory, average sessions,
//! setup rate, NPU sessions (where the box has them) and uptime. 5.x prints
//! `Memory states: 21% used` and no iowait/irq/softirq; 7.x prints
//! `Memory: 2040052k total, 966408k used (47.4%), ...`.
//!
//! One flow that the NP does not carry loads one core, not the average, so every
//! `CPUn states:` line is kept and [`Performance::busiest_core`] names the core to judge.

use serde::{Deserialize, Serialize};

use super::kv::{NotAPercent, counter, percent};
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{duration_in_words, quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

/// Most a CPU line's shares may add up to: 100% plus one point of rounding per printed share.
const MAX_CPU_SUM: f64 = 107.0;

/// One `CPU states:` line, percentages as printed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CpuStates {
    /// `None` for the overall line, `Some(n)` for `CPUn states:`.
    pub cpu: Option<u32>,
    pub user: f64,
    pub system: f64,
    pub nice: f64,
    pub idle: f64,
    pub iowait: Option<f64>,
    pub irq: Option<f64>,
    /// Packet work done in soft interrupts: where a flow on the CPU path shows up.
    pub softirq: Option<f64>,
}

impl CpuStates {
    /// Busy share: everything that is not idle.
    pub fn used(&self) -> f64 {
        (100.0 - self.idle).max(0.0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Performance {
    pub cpu: Option<CpuStates>,
    pub per_cpu: Vec<CpuStates>,
    pub memory_used_percent: Option<f64>,
    /// Sessions, average over the last minute.
    pub average_sessions: Option<u64>,
    /// Sessions per second, average over the last minute.
    pub average_setup_rate: Option<u64>,
    /// NPU sessions, average over the last minute (NP boxes on 6.x and later only).
    pub average_npu_sessions: Option<u64>,
    pub uptime_s: Option<u64>,
}

impl Performance {
    /// The core with the least idle time (the overall line on boxes that print no per-core
    /// lines); the first such core on a tie.
    pub fn busiest_core(&self) -> Option<&CpuStates> {
        self.per_cpu
            .iter()
            .reduce(|a, b| if b.used() > a.used() { b } else { a })
            .or(self.cpu.as_ref())
    }
}

/// `get system performance status`: CPU, memory, session rates.
pub struct GetPerformanceStatus;

impl Query for GetPerformanceStatus {
    const KIND: &'static str = "fortigate.get-system-performance-status";
    /// The next run compares its uptime (`fortigate.uptime.stable`).
    const ARCHIVED: bool = true;
    type Fact = Performance;
    fn command(&self) -> Command {
        Command::new(GetPerformanceStatus::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Performance, ParseError> {
        parse(raw.text()?)
    }
}

impl GetPerformanceStatus {
    pub const TEXT: &'static str = "get system performance status";
}

pub fn parse(raw: &str) -> Result<Performance, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut perf = Performance::default();
    let mut memory: Option<Option<f64>> = None;
    let mut cpus: Vec<CpuStates> = Vec::new();
    let mut seen_cpus = std::collections::BTreeMap::new();
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let key = key.trim();
        let value = value.trim();
        let at = |e: String| ParseError::at_line(format!("`{key}:` {e}"), &joined(&lines), i);
        let first_number = || {
            counter(value.split_whitespace().next().unwrap_or("")).map_err(|e| at(e.to_string()))
        };
        match key {
            "CPU states" => {
                let states = cpu_states(None, value).map_err(|e| at(e.to_string()))?;
                set_once(&mut perf.cpu, states).map_err(at)?
            }
            k if k.starts_with("CPU") && k.ends_with(" states") => {
                let n = &k["CPU".len()..k.len() - " states".len()];
                let n: u32 = n
                    .parse()
                    .map_err(|_| at(format!("no core number in {}", quote(k))))?;
                let states = cpu_states(Some(n), value).map_err(|e| at(e.to_string()))?;
                match seen_cpus.get(&n) {
                    Some(&at_index) if cpus[at_index] != states => {
                        return Err(at("printed twice with different values".to_string()));
                    }
                    Some(_) => {}
                    None => {
                        seen_cpus.insert(n, cpus.len());
                        cpus.push(states);
                    }
                }
            }
            "Memory" => set_once(
                &mut memory,
                memory_percent(value).map_err(|e| at(e.to_string()))?,
            )
            .map_err(at)?,
            "Memory states" => {
                let used = value
                    .strip_suffix("used")
                    .ok_or_else(|| at(format!("unreadable {}", quote(value))))?;
                let used = percent(used).map_err(|e| at(e.to_string()))?;
                set_once(&mut memory, Some(used)).map_err(at)?
            }
            "Average sessions" => {
                set_once(&mut perf.average_sessions, first_number()?).map_err(at)?
            }
            "Average session setup rate" => {
                set_once(&mut perf.average_setup_rate, first_number()?).map_err(at)?
            }
            "Average NPU sessions" => {
                set_once(&mut perf.average_npu_sessions, first_number()?).map_err(at)?
            }
            "Uptime" => {
                let uptime = duration_in_words(value).map_err(|e| at(e.to_string()))?;
                set_once(&mut perf.uptime_s, uptime).map_err(at)?
            }
            _ => {}
        }
    }
    if perf.cpu.is_none() {
        return Err(ParseError::new(
            "no `CPU states` line: not get system performance status output",
            raw,
        ));
    }
    perf.per_cpu = cpus;
    perf.memory_used_percent = memory.flatten();
    Ok(perf)
}

/// Why a CPU line does not read; the line is kept as printed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
enum CpuLineError {
    #[error("unreadable CPU line {}", quote(.0))]
    Unreadable(String),
    #[error(transparent)]
    Share(#[from] NotAPercent),
    /// `set_once`'s words: both values.
    #[error("`{name}` {twice}")]
    Twice { name: String, twice: String },
    #[error("CPU line without user, system and idle shares: {}", quote(.0))]
    Missing(String),
    #[error("CPU shares add up to {sum}%: {}", quote(.line))]
    Sum { sum: f64, line: String },
}

/// `0% user 1% system 0% nice 99% idle 0% iowait 0% irq 0% softirq`
fn cpu_states(cpu: Option<u32>, value: &str) -> Result<CpuStates, CpuLineError> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut states = CpuStates {
        cpu,
        ..CpuStates::default()
    };
    let (mut user, mut system, mut nice, mut idle) = (None, None, None, None);
    let mut sum = 0.0;
    for pair in words.chunks(2) {
        let [amount, name] = pair else {
            return Err(CpuLineError::Unreadable(value.to_string()));
        };
        let amount = percent(amount)?;
        sum += amount;
        let slot = match *name {
            "user" => &mut user,
            "system" => &mut system,
            "nice" => &mut nice,
            "idle" => &mut idle,
            "iowait" => &mut states.iowait,
            "irq" => &mut states.irq,
            "softirq" => &mut states.softirq,
            _ => continue,
        };
        set_once(slot, amount).map_err(|twice| CpuLineError::Twice {
            name: name.to_string(),
            twice,
        })?;
    }
    let (Some(user), Some(system), Some(idle)) = (user, system, idle) else {
        return Err(CpuLineError::Missing(value.to_string()));
    };
    if sum > MAX_CPU_SUM {
        return Err(CpuLineError::Sum {
            sum,
            line: value.to_string(),
        });
    }
    (states.user, states.system, states.nice, states.idle) =
        (user, system, nice.unwrap_or(0.0), idle);
    Ok(states)
}

/// `2040052k total, 966408k used (47.4%), ...` -> 47.4. A layout without a `used (N%)` part
/// (`Data Unavailable`, or one not seen yet) is `None`: the memory check says it cannot tell,
/// the CPU on the same output is still judged. A share that is printed must be a real one.
fn memory_percent(value: &str) -> Result<Option<f64>, NotAPercent> {
    let share = value
        .split(',')
        .find(|part| part.contains("used"))
        .and_then(|used| used.split_once('('))
        .and_then(|(_, rest)| rest.split_once(')'))
        .map(|(inside, _)| inside);
    share.map(percent).transpose()
}

#[cfg(test)]
mod tests {
    use super::*;

    const NEW: &str = "CPU states: 3% user 2% system 0% nice 95% idle 0% iowait 0% irq 0% softirq \nCPU0 states: 6% user 2% system 0% nice 92% idle 0% iowait 0% irq 0% softirq\nCPU1 states: 1% user 0% system 0% nice 61% idle 0% iowait 0% irq 38% softirq\nMemory: 2040052k total, 966408k used (47.4%), 663468k free (32.5%), 410176k freeable (20.1%) \nAverage sessions: 43 sessions in 1 minute, 24 sessions in 10 minutes\nAverage session setup rate: 7 sessions per second in last 1 minute\nAverage NPU sessions: 12 sessions in last 1 minute\nUptime: 4 days,  8 hours,  5 minutes\n";

    #[test]
    fn old_and_new_layouts() {
        let p = parse(NEW).unwrap();
        assert_eq!(p.cpu.as_ref().map(CpuStates::used), Some(5.0));
        assert_eq!(p.per_cpu.len(), 2);
        let busiest = p.busiest_core().unwrap();
        assert_eq!((busiest.cpu, busiest.softirq), (Some(1), Some(38.0)));
        assert_eq!(p.memory_used_percent, Some(47.4));
        assert_eq!(
            (
                p.average_sessions,
                p.average_setup_rate,
                p.average_npu_sessions
            ),
            (Some(43), Some(7), Some(12))
        );
        assert_eq!(p.uptime_s, Some(4 * 86_400 + 8 * 3_600 + 5 * 60));
        let old = "FGT30D $ get system performance status \nCPU states: 0% user 0% system 0% nice 100% idle\nMemory states: 21% used\nUptime: 106 days,  0 hours,  8 minutes, 3 seconds\n";
        let p = parse(old).unwrap();
        assert_eq!(
            (p.cpu.clone().unwrap().used(), p.memory_used_percent),
            (0.0, Some(21.0))
        );
        assert_eq!(p.busiest_core().and_then(|c| c.cpu), None);
        assert_eq!(p.uptime_s, Some(106 * 86_400 + 8 * 60 + 3));
        let unavailable =
            parse("CPU states: 0% user 0% system 0% nice 100% idle\nMemory: Data Unavailable\n")
                .unwrap();
        assert_eq!(unavailable.memory_used_percent, None);
        let unknown =
            parse("CPU states: 0% user 0% system 0% nice 100% idle\nMemory: 8G total, 2G used\n")
                .unwrap();
        assert_eq!(unknown.memory_used_percent, None);
        assert!(parse("CPU states: lots user\n").is_err());
        assert!(parse("hello").is_err());
        assert!(
            parse("Memory states: 21% used\n").is_err(),
            "no CPU states line"
        );
    }

    #[test]
    fn impossible_values_are_errors() {
        for (from, to) in [
            ("95% idle", "NaN% idle"),
            ("95% idle", "195% idle"),
            ("3% user", "-3% user"),
            ("3% user 2% system", "93% user 92% system"),
            ("(47.4%)", "(147.4%)"),
            ("Average sessions: 43", "Average sessions: -43"),
            (
                "Average NPU sessions: 12",
                "Average NPU sessions: 99999999999999999999999",
            ),
            ("4 days", "18446744073709551615 days"),
            ("CPU1 states", "CPUx states"),
            ("92% idle 0% iowait", "92% idle 1% idle"),
        ] {
            assert!(NEW.contains(from), "{from}");
            let bad = NEW.replacen(from, to, 1);
            assert!(parse(&bad).is_err(), "{to}");
        }
        let twice = format!(
            "{NEW}CPU0 states: 6% user 2% system 0% nice 92% idle 0% iowait 0% irq 0% softirq\n"
        );
        assert!(parse(&twice).is_ok(), "identical repeat");
        let disagree = format!("{NEW}CPU0 states: 60% user 2% system 0% nice 38% idle\n");
        assert!(parse(&disagree).is_err());
        assert!(parse(&format!("{NEW}Uptime: 5 days, 0 hours, 0 minutes\n")).is_err());
    }
}
