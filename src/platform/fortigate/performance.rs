//! `get system performance status`: CPU states (overall and per CPU), memory, average sessions,
//! setup rate, NPU sessions (where the box has them) and uptime. 5.x prints
//! `Memory states: 21% used` and no iowait/irq/softirq; 7.x prints
//! `Memory: 2040052k total, 966408k used (47.4%), ...`.

use serde::Serialize;

use super::kv::num;
use super::text::{body, device_error};
use crate::core::Command;
use crate::parse::{ParseError, Query, Raw};

/// One `CPU states:` line, percentages as printed.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct CpuStates {
    /// `None` for the overall line, `Some(n)` for `CPUn states:`.
    pub cpu: Option<u32>,
    pub user: f64,
    pub system: f64,
    pub nice: f64,
    pub idle: f64,
    pub iowait: Option<f64>,
    pub irq: Option<f64>,
    pub softirq: Option<f64>,
}

impl CpuStates {
    /// Busy share: everything that is not idle.
    pub fn used(&self) -> f64 {
        (100.0 - self.idle).max(0.0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize)]
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

/// `get system performance status`: CPU, memory, session rates.
pub struct GetPerformanceStatus;

impl Query for GetPerformanceStatus {
    const KIND: &'static str = "fortigate.get-system-performance-status";
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
    for line in &lines {
        let line = line.trim();
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let first_number = || value.split_whitespace().next().and_then(num);
        match key.trim() {
            "CPU states" => perf.cpu = Some(cpu_states(None, value, line, raw)?),
            k if k.starts_with("CPU") && k.ends_with(" states") => {
                let n = k
                    .trim_start_matches("CPU")
                    .trim_end_matches(" states")
                    .parse()
                    .ok();
                perf.per_cpu.push(cpu_states(n, value, line, raw)?);
            }
            "Memory" => perf.memory_used_percent = memory_percent(value),
            "Memory states" => {
                perf.memory_used_percent =
                    value.split('%').next().and_then(|p| p.trim().parse().ok())
            }
            "Average sessions" => perf.average_sessions = first_number(),
            "Average session setup rate" => perf.average_setup_rate = first_number(),
            "Average NPU sessions" => perf.average_npu_sessions = first_number(),
            "Uptime" => perf.uptime_s = uptime(value),
            _ => {}
        }
    }
    if perf.cpu.is_none() && perf.memory_used_percent.is_none() {
        return Err(ParseError::new(
            "no `CPU states` or memory line in get system performance status output",
            raw,
        ));
    }
    Ok(perf)
}

/// `0% user 1% system 0% nice 99% idle 0% iowait 0% irq 0% softirq`
fn cpu_states(
    cpu: Option<u32>,
    value: &str,
    line: &str,
    raw: &str,
) -> Result<CpuStates, ParseError> {
    let words: Vec<&str> = value.split_whitespace().collect();
    let mut states = CpuStates {
        cpu,
        ..CpuStates::default()
    };
    let mut idle_seen = false;
    for pair in words.chunks(2) {
        let [amount, name] = pair else { continue };
        let Ok(amount) = amount.trim_end_matches('%').parse::<f64>() else {
            return Err(ParseError::new(format!("unreadable CPU line: {line}"), raw));
        };
        match *name {
            "user" => states.user = amount,
            "system" => states.system = amount,
            "nice" => states.nice = amount,
            "idle" => {
                states.idle = amount;
                idle_seen = true;
            }
            "iowait" => states.iowait = Some(amount),
            "irq" => states.irq = Some(amount),
            "softirq" => states.softirq = Some(amount),
            _ => {}
        }
    }
    if !idle_seen {
        return Err(ParseError::new(
            format!("CPU line without idle share: {line}"),
            raw,
        ));
    }
    Ok(states)
}

/// `2040052k total, 966408k used (47.4%), ...` -> 47.4; `Data Unavailable` -> None.
fn memory_percent(value: &str) -> Option<f64> {
    let used = value.split(',').find(|part| part.contains("used"))?;
    let inside = used.split_once('(')?.1.split_once('%')?.0;
    inside.trim().parse().ok()
}

/// `4 days, 8 hours, 5 minutes` (single or double spaces).
fn uptime(value: &str) -> Option<u64> {
    let words: Vec<&str> = value
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .collect();
    let mut total = 0u64;
    let mut any = false;
    for pair in words.chunks(2) {
        let [n, unit] = pair else { continue };
        let n: u64 = n.parse().ok()?;
        let factor = match unit.trim_end_matches('s') {
            "day" => 86_400,
            "hour" => 3_600,
            "minute" => 60,
            "second" => 1,
            _ => return None,
        };
        total += n * factor;
        any = true;
    }
    any.then_some(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_and_new_layouts() {
        let new = "CPU states: 3% user 2% system 0% nice 95% idle 0% iowait 0% irq 0% softirq \nCPU0 states: 6% user 2% system 0% nice 92% idle 0% iowait 0% irq 0% softirq\nMemory: 2040052k total, 966408k used (47.4%), 663468k free (32.5%), 410176k freeable (20.1%) \nAverage sessions: 43 sessions in 1 minute, 24 sessions in 10 minutes\nAverage session setup rate: 7 sessions per second in last 1 minute\nAverage NPU sessions: 12 sessions in last 1 minute\nUptime: 4 days,  8 hours,  5 minutes\n";
        let p = parse(new).unwrap();
        assert_eq!(p.cpu.as_ref().map(CpuStates::used), Some(5.0));
        assert_eq!(p.per_cpu.len(), 1);
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
        let old = "FGT30D $ get system performance status \nCPU states: 0% user 0% system 0% nice 100% idle\nMemory states: 21% used\n";
        let p = parse(old).unwrap();
        assert_eq!(
            (p.cpu.unwrap().used(), p.memory_used_percent),
            (0.0, Some(21.0))
        );
        let unavailable =
            parse("CPU states: 0% user 0% system 0% nice 100% idle\nMemory: Data Unavailable\n")
                .unwrap();
        assert_eq!(unavailable.memory_used_percent, None);
        assert!(parse("CPU states: lots user\n").is_err());
        assert!(parse("hello").is_err());
    }
}
