use crate::Check;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::DiagSessionStat;

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

/// `expect:` keys read.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {
    npu_sessions_min: u64,
    setup_rate_max: u64,
}

impl Check for SessionsNpu {
    const ID: &'static str = "fortigate.sessions.npu";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(DiagSessionStat)]
    }

    fn evaluate(input: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let (min, max) = (input.npu_sessions_min, input.setup_rate_max);
        let stat = facts.get(&DiagSessionStat)?;
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
