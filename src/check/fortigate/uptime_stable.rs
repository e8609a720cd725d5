use crate::Check;
use crate::reboot::{Since, boot_instant, describe_uptime, utc};
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};
use premarket_platform::fortigate::{GetPerformanceStatus, GetSystemStatus};

/// The firewall has not rebooted since the previous run. A reboot loses every session (the
/// first packets of each rebuilt one take the CPU) and anything set only at run time; it is
/// named with its reason (`Last reboot reason:` of `get system status`, 7.0 and later).
///
/// The boot instant is the collection time minus `Uptime:` of `get system performance
/// status` (whole minutes); the archive keeps the previous run's, and a boot more than two
/// minutes later is a reboot. The first run on a device says so and judges nothing.
///
/// ```yaml
/// - id: fortigate.uptime.stable
///   platform: fortigate
/// ```
/// Baseline: no keys.
pub struct UptimeStable;

/// `expect:` keys read: none.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct Input {}

impl Check for UptimeStable {
    const ID: &'static str = "fortigate.uptime.stable";
    const PLATFORM: Platform = Platform::Fortigate;
    type Input = Input;
    const COMPARES: bool = true;

    fn queries(_: &Input) -> Vec<Box<dyn AnyQuery>> {
        vec![Box::new(GetPerformanceStatus), Box::new(GetSystemStatus)]
    }

    fn evaluate(_: &Input, facts: &Facts) -> Result<Verdict, FactError> {
        let perf = facts.get(&GetPerformanceStatus)?;
        let Some(uptime) = perf.uptime_s else {
            return Ok(Verdict::error(
                "get system performance status printed no `Uptime:` line",
            ));
        };
        let Some(now) = facts.collected_at() else {
            return Ok(Verdict::error(
                "the collection time is unknown (a bug in premarket): cannot place the boot",
            ));
        };
        // The reason is a detail: a box that prints none (6.x) is still judged.
        let reason = facts
            .get(&GetSystemStatus)
            .ok()
            .and_then(|s| s.last_reboot_reason.clone())
            .unwrap_or_else(|| "not printed".to_string());
        let boot = boot_instant(now, uptime);
        let previous = facts
            .previous(&GetPerformanceStatus)
            .and_then(|(fact, record)| {
                let previous_uptime = fact.ok()?.uptime_s?;
                Some((
                    boot_instant(record.collected_at?, previous_uptime),
                    record.run_id.clone(),
                ))
            });
        let since = Since::compare(boot, previous.as_ref().map(|(b, r)| (*b, r.as_str())));
        let up = describe_uptime(uptime);
        let evidence = format!(
            "Uptime: {up} (boot about {})\nLast reboot reason: {reason}",
            utc(boot)
        );
        let verdict = match since {
            Since::FirstRun => Verdict::ok(format!(
                "up {up} (last reboot: {reason}); first run on this device, nothing to compare yet"
            )),
            Since::SameBoot { run_id } => Verdict::ok(format!(
                "up {up}, no reboot since the previous run ({run_id}); last reboot: {reason}"
            )),
            Since::ClockMoved { run_id, by_s } => Verdict::ok(format!(
                "up {up}: the boot time is {by_s} s earlier than the previous run ({run_id}) computed, a clock change rather than a reboot; last reboot: {reason}"
            )),
            Since::Rebooted {
                run_id,
                previous_boot,
                ..
            } => Verdict::fail(format!(
                "rebooted since the previous run ({run_id}): up only {up}, last reboot reason: {reason}; every session was rebuilt and every setting that was not saved must be re-verified"
            ))
            .lead(format!("rebooted at about {} ({reason})", utc(boot)))
            .when(boot)
            .expected(format!("the boot of about {} (the previous run's)", utc(previous_boot)))
            .remedy(
                "Find out why it rebooted (`get system status` Last reboot reason, `diagnose debug crashlog read`, the event log) before the open. \
                 Then rerun the whole inspection (`premarket run`): after a reboot every session is new (its first packets took the CPU) and \
                 anything configured but not saved is gone.",
            ),
        };
        Ok(verdict.actual(format!("up {up}")).evidence(evidence))
    }
}
