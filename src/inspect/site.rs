//! The checks over several devices, judged once per run after every device was: each reads the
//! facts of the devices it needs ([`premarket_check::site`]), bounded like any check (its
//! budget, the deadline, a stop signal); its verdict stands under the site's name.

use std::sync::Arc;
use std::time::Instant;

use premarket_check::bounded;
use premarket_check::site::{SiteFacts, bind};
use premarket_core::{Platform, Status, Verdict};
use premarket_parse::Facts;
use premarket_plan::Plan;
use premarket_report::CheckResult;
use premarket_report::redact::Redactor;

use super::{Limits, elapsed_ms, give_up, result};

/// Every site check of `plan`, judged over `facts` (the devices' facts kept for them).
pub(super) async fn judge(
    plan: &Plan,
    facts: SiteFacts,
    limits: &Limits,
    redactor: &Redactor,
    run_started: Instant,
) -> Vec<CheckResult> {
    let facts = Arc::new(facts);
    let mut results = Vec::with_capacity(plan.site.len());
    for check in plan.site.iter().filter(|s| s.judged()) {
        let started = Instant::now();
        let rerun = format!("premarket check {}", check.entry.id);
        let bound = bind(check.prepared.clone(), facts.clone());
        let verdict = bounded::evaluate(bound, Facts::default(), give_up(limits), &rerun).await;
        let verdict = set_aside(verdict, &check.set_aside);
        let mut judged = result(
            &check.entry,
            None,
            &plan.site_name,
            verdict,
            Platform::Site,
            redactor,
        );
        // A site check waits for its devices: its time is the run's until its verdict (a
        // device's is its collection and checks), its own evaluation is `eval_us`.
        judged.duration_ms = elapsed_ms(run_started);
        judged.eval_us = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX);
        results.push(judged);
    }
    results
}

/// A check planned without devices whose baselines have mistakes cannot say OK (nor SKIP, for
/// want of their part): ERROR naming them. A FAIL among the others stands.
fn set_aside(verdict: Verdict, devices: &[String]) -> Verdict {
    if devices.is_empty() || verdict.status == Status::Fail {
        return verdict;
    }
    Verdict::error(format!(
        "{}: premarket did not inspect this device: its baseline has mistakes (see its block), \
         so its part in this check is not known",
        devices.join(", ")
    ))
    .remedy("Correct the baseline's mistakes (`premarket validate` names each at its file:line:column), then rerun this check.")
}
