use super::since::boot_since;
use crate::Check;
use crate::reboot::{Since, describe_uptime, utc};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::eos::{ShowReloadCause, ShowVersion};

/// The switch has not rebooted since the previous run, and if it has, says why (`show reload
/// cause`). After a reload every setting that lived only in running-config is gone: the LANZ
/// incident of the lab notes began with a reboot that nobody noticed.
///
/// The boot time is `show version`'s `bootupTimestamp` (the switch's clock; collection time
/// minus `uptime` when absent); the archive keeps the previous run's, and a boot more than two
/// minutes later is a reboot. The first run on a switch says so and judges nothing.
///
/// ```yaml
/// - id: eos.uptime.stable
///   platform: eos
/// ```
/// Baseline: no keys.
pub struct UptimeStable;

/// `expect:` keys read: none.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {}

impl Check for UptimeStable {
    const ID: &'static str = "eos.uptime.stable";
    const PLATFORM: Platform = Platform::Eos;
    type Input = Input;
    const COMPARES: bool = true;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(ShowVersion), Box::new(ShowReloadCause)]
    }

    fn evaluate(_: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let version = facts.get(&ShowVersion)?;
        let Some((boot, since)) = boot_since(facts)? else {
            return Ok(Verdict::error(
                "`show version` printed no uptime or boot time: cannot tell when the switch booted",
            ));
        };
        let up = version.uptime_s.map_or("?".to_string(), describe_uptime);
        // The cause is a detail: a switch that records none is still judged.
        let cause = match facts.get(&ShowReloadCause) {
            Ok(c) => c
                .causes
                .first()
                .map_or("none recorded".to_string(), |c| c.description.clone()),
            Err(e) => format!("unknown ({e})"),
        };
        let evidence = format!(
            "show version: uptime {up}, boot {}\nshow reload cause: {cause}",
            utc(boot)
        );
        let verdict = match since {
            Since::FirstRun => Verdict::ok(format!(
                "up {up} (last reload: {cause}); first run on this switch, nothing to compare yet"
            )),
            Since::SameBoot { run_id } => Verdict::ok(format!(
                "up {up}, no reload since the previous run ({run_id})"
            )),
            Since::ClockMoved { run_id, by_s } => Verdict::ok(format!(
                "up {up}: the boot time is {by_s} s earlier than in the previous run ({run_id}), a clock change rather than a reload"
            )),
            Since::Rebooted {
                run_id,
                previous_boot,
                ..
            } => Verdict::fail(format!(
                "reloaded since the previous run ({run_id}): up only {up}, reload cause: {cause}; every setting that was only in running-config is gone and must be re-verified"
            ))
            .lead(format!("reloaded at {} ({cause})", utc(boot)))
            .when(boot)
            .expected(format!("the boot of {} (the previous run's)", utc(previous_boot)))
            .remedy(
                "Find why it reloaded (`show reload cause`, `show logging`), then re-verify what a reload loses: rerun the whole inspection \
                 (`premarket run`: eos.lanz.running and eos.config.saved catch settings that were only in running-config) and compare \
                 `show running-config` with the intended configuration. Counters restarted: growth checks judge again from the next run.",
            ),
        };
        Ok(verdict.actual(format!("up {up}")).evidence(evidence))
    }
}
