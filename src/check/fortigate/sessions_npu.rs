use crate::check::{Check, Missing};
use crate::core::Command;
use crate::core::Verdict;
use crate::parse::{FactError, Facts};
use crate::platform::fortigate::{Expect, SessionStat, commands};

/// The lab notes' indirect indicators: the NPU holds at least the baseline's number of sessions
/// (0 when every packet builds a new session), and new sessions per second stay under the
/// baseline's maximum (every new session's first packets take the CPU).
///
/// ```yaml
/// - id: fortigate.sessions.npu
///   platform: fortigate
/// ```
/// Baseline: `expect.npu_sessions_min: 1`, `expect.setup_rate_max: 200`.
pub struct SessionsNpu;

impl Check<Expect> for SessionsNpu {
    fn id(&self) -> &'static str {
        "fortigate.sessions.npu"
    }

    fn commands(&self, expect: &Expect) -> Result<Vec<Command>, Missing> {
        expect
            .npu_sessions_min
            .ok_or_else(|| Missing::key("npu_sessions_min"))?;
        expect
            .setup_rate_max
            .ok_or_else(|| Missing::key("setup_rate_max"))?;
        Ok(vec![Command::new(commands::SESSION_STAT)])
    }

    fn evaluate(&self, facts: &Facts, expect: &Expect) -> Result<Verdict, FactError> {
        let (Some(min), Some(max)) = (expect.npu_sessions_min, expect.setup_rate_max) else {
            return Ok(Verdict::error(
                "npu_sessions_min or setup_rate_max missing in the baseline",
            ));
        };
        let stat = facts.get::<SessionStat>(&Command::new(commands::SESSION_STAT))?;
        let evidence = format!(
            "session_count={} setup_rate={} npu_session_count={}",
            stat.session_count,
            stat.setup_rate
                .map_or("(not printed)".into(), |v| v.to_string()),
            stat.npu_session_count
                .map_or("(not printed)".into(), |v| v.to_string())
        );
        let expected = format!("npu_session_count >= {min}, setup_rate <= {max}/s");
        let (Some(npu), Some(rate)) = (stat.npu_session_count, stat.setup_rate) else {
            return Ok(Verdict::error("diagnose sys session stat does not print npu_session_count and setup_rate on this build")
                .expected(expected)
                .evidence(evidence));
        };
        let mut problems = Vec::new();
        if npu < min {
            problems.push(format!(
                "only {npu} session(s) on the NPU (at least {min} expected): trading flows are on the CPU path or not established"
            ));
        }
        if rate > max {
            problems.push(format!(
                "{rate} new sessions per second (at most {max}): the first packets of every new session take the CPU; a sender opening a new socket per send looks like this"
            ));
        }
        let actual = format!("npu_session_count={npu}, setup_rate={rate}/s");
        Ok(if problems.is_empty() {
            Verdict::ok(format!("{npu} NPU session(s), {rate} new sessions/s"))
        } else {
            Verdict::fail(problems.join("; ")).remedy(
                "Run `premarket check fortigate.flows.offloaded` and `premarket check fortigate.flows.single-session` to find the flow on the CPU path, fix it, then rerun this check.",
            )
        }
        .expected(expected)
        .actual(actual)
        .evidence(evidence))
    }
}
