//! A bug in premarket that panics while one device is inspected is that device's ERROR, said as
//! a bug with its message; every other device is judged as it would have been, and the run
//! goes on to its report (each device is a task of its own on the runtime's workers).

use crate::common;

use std::sync::Arc;

use premarket::collect::offline::Offline;
use premarket::collect::{BoxFuture, Collector};
use premarket::core::Outputs;
use premarket::inspect::{Limits, inspect};
use premarket::plan::DevicePlan;
use premarket::{Config, Plan, Selection, Status};

/// Answers like the offline collector, except that it panics on one device.
struct PanicsOn(Offline, &'static str);

impl Collector for PanicsOn {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            if plan.device.name == self.1 {
                panic!("index out of range in a parser");
            }
            self.0.collect(plan).await
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panic_on_one_device_is_its_error_and_the_others_are_judged() {
    let config = Config::load(&common::repo()).expect("example site loads");
    let plan = Plan::new(&config, &Selection::default()).expect("plan");
    let limits = Limits::from_config(&config);
    let saved = || Offline::new(common::fixture("site/healthy"));
    let healthy = inspect(&config, plan.clone(), Arc::new(saved()), &limits).await;
    let report = inspect(&config, plan, Arc::new(PanicsOn(saved(), "sw1")), &limits).await;

    assert_eq!(report.results.len(), healthy.results.len());
    let (on_sw1, others): (Vec<_>, Vec<_>) = report.results.iter().partition(|r| r.device == "sw1");
    assert!(!on_sw1.is_empty() && !others.is_empty());
    for r in on_sw1 {
        assert_eq!(r.status, Status::Error, "{}", r.check);
        assert!(
            r.summary.contains("a bug in premarket")
                && r.summary.contains("index out of range in a parser"),
            "{}: {}",
            r.check,
            r.summary
        );
    }
    // The site check over sw1's feeds cannot tell either, and names sw1 and the bug.
    let (site, others): (Vec<_>, Vec<_>) = others.into_iter().partition(|r| r.device == "lab");
    assert_eq!(site.len(), 1);
    assert_eq!(site[0].status, Status::Error);
    assert!(
        site[0]
            .summary
            .contains("sw1: premarket could not inspect this device (a bug in premarket)"),
        "{}",
        site[0].summary
    );
    for r in others {
        let before = healthy
            .results
            .iter()
            .find(|h| h.check == r.check && h.device == r.device)
            .expect("the same pair in the healthy run");
        assert_eq!(r.status, before.status, "{} on {}", r.check, r.device);
    }
    assert_eq!(report.status, Status::Error);
}
