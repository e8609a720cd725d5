//! `diagnose sys session stat`: session table counters as `key=value` words over several lines
//! (indented on the device, flush-left in web copies; both read the same).

use serde::{Deserialize, Serialize};

use super::kv::{counter, pairs};
use super::session_list::MAX_SESSIONS;
use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::{quote, set_once};
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionStat {
    pub session_count: u64,
    pub setup_rate: Option<u64>,
    pub exp_count: Option<u64>,
    pub clash: Option<u64>,
    pub memory_tension_drop: Option<u64>,
    pub ephemeral_current: Option<u64>,
    pub ephemeral_limit: Option<u64>,
    pub removeable: Option<u64>,
    /// Sessions installed on the NPU (6.x and later).
    pub npu_session_count: Option<u64>,
    pub delete: Option<u64>,
    pub flush: Option<u64>,
}

/// `diagnose sys session stat`: session and NPU-session counters.
pub struct DiagSessionStat;

impl Query for DiagSessionStat {
    const KIND: &'static str = "fortigate.session-stat";
    type Fact = SessionStat;
    fn command(&self) -> Command {
        Command::new(DiagSessionStat::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<SessionStat, ParseError> {
        parse(raw.text()?)
    }
}

impl DiagSessionStat {
    pub const TEXT: &'static str = "diagnose sys session stat";
}

pub fn parse(raw: &str) -> Result<SessionStat, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut stat = SessionStat::default();
    let mut count = None;
    let mut ephemeral = None;
    // Only the first stat block counts (some saved outputs hold two runs).
    for (i, line) in lines
        .iter()
        .enumerate()
        .take_while(|(_, l)| !l.trim_start().starts_with("TCP sessions"))
    {
        for (key, value) in pairs(line) {
            let at = |e: String| ParseError::at_line(format!("`{key}=` {e}"), &joined(&lines), i);
            let slot = match key {
                "session_count" => &mut count,
                "setup_rate" => &mut stat.setup_rate,
                "exp_count" => &mut stat.exp_count,
                "clash" => &mut stat.clash,
                "memory_tension_drop" => &mut stat.memory_tension_drop,
                "removeable" => &mut stat.removeable,
                "npu_session_count" => &mut stat.npu_session_count,
                "delete" => &mut stat.delete,
                "flush" => &mut stat.flush,
                "ephemeral" => {
                    let (current, limit) = value
                        .split_once('/')
                        .ok_or_else(|| at(format!("{} is not current/limit", quote(value))))?;
                    let both = (
                        counter(current).map_err(|e| at(e.to_string()))?,
                        counter(limit).map_err(|e| at(e.to_string()))?,
                    );
                    set_once(&mut ephemeral, both).map_err(at)?;
                    continue;
                }
                _ => continue,
            };
            set_once(slot, counter(value).map_err(|e| at(e.to_string()))?).map_err(at)?;
        }
    }
    (stat.ephemeral_current, stat.ephemeral_limit) = ephemeral.unzip();
    let count = count.ok_or_else(|| {
        ParseError::new(
            "no session_count= in diagnose sys session stat output",
            &joined(&lines),
        )
    })?;
    for (name, n) in [
        ("session_count", Some(count)),
        ("npu_session_count", stat.npu_session_count),
    ] {
        if n.is_some_and(|n| n > MAX_SESSIONS) {
            return Err(ParseError::new(
                format!(
                    "`{name}={}` is more sessions than any FortiGate holds",
                    n.unwrap_or(0)
                ),
                &joined(&lines),
            ));
        }
    }
    stat.session_count = count;
    Ok(stat)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn indented_and_flat() {
        let indented = "# diag sys session stat\nmisc info:       session_count=30 setup_rate=4 exp_count=0 clash=2\n        memory_tension_drop=0 ephemeral=3/131062 removeable=0\n        npu_session_count=12\ndelete=0, flush=1, dev_down=0/0\nTCP sessions:\n         6 in ESTABLISHED state\n";
        let s = parse(indented).unwrap();
        assert_eq!(
            (s.session_count, s.setup_rate, s.clash, s.npu_session_count),
            (30, Some(4), Some(2), Some(12))
        );
        assert_eq!(
            (s.ephemeral_current, s.ephemeral_limit, s.delete, s.flush),
            (Some(3), Some(131_062), Some(0), Some(1))
        );
        assert!(parse("TCP sessions:\n").is_err());
        for (from, to) in [
            ("session_count=30", "session_count=-30"),
            ("session_count=30", "session_count=99999999999"),
            ("clash=2", "clash=2 clash=3"),
            ("ephemeral=3/131062", "ephemeral=3"),
            ("npu_session_count=12", "npu_session_count=1e3"),
        ] {
            assert!(parse(&indented.replacen(from, to, 1)).is_err(), "{to}");
        }
        assert!(parse(&indented.replacen("clash=2", "clash=2 clash=2", 1)).is_ok());
        assert!(parse("Unknown action 0").is_err());
    }
}
