//! `ssh.concurrency` bounds the sessions open at once, and devices begin in the site's order;
//! what follows a device's session (parsing, judging, archiving) holds no slot.

use crate::common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use premarket::collect::offline::Offline;
use premarket::collect::{BoxFuture, Collector};
use premarket::core::Outputs;
use premarket::inspect::{Limits, inspect};
use premarket::plan::DevicePlan;
use premarket::{Config, Plan, Selection};

/// The offline collector, each collection held open a while, counting those open at once.
struct Counted {
    saved: Offline,
    open: AtomicUsize,
    most: AtomicUsize,
    began: Mutex<Vec<String>>,
}

impl Collector for Counted {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            let now = self.open.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            self.began
                .lock()
                .expect("order")
                .push(plan.device.name.to_string());
            tokio::time::sleep(Duration::from_millis(100)).await;
            let outputs = self.saved.collect(plan).await;
            self.open.fetch_sub(1, Ordering::SeqCst);
            outputs
        })
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_more_sessions_than_the_concurrency_and_in_the_sites_order() {
    let config = Config::load(&common::repo()).expect("example site loads");
    let plan = Plan::new(&config, &Selection::default()).expect("plan");
    let order: Vec<String> = plan
        .devices
        .iter()
        .map(|d| d.device.name.to_string())
        .collect();
    assert!(order.len() >= 2, "{order:?}");
    for concurrency in [1, order.len()] {
        let collector = Arc::new(Counted {
            saved: Offline::new(common::fixture("site/healthy")),
            open: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
            began: Mutex::new(Vec::new()),
        });
        let mut limits = Limits::from_config(&config);
        limits.concurrency = concurrency;
        let report = inspect(&config, plan.clone(), collector.clone(), &limits).await;
        assert!(!report.results.is_empty());
        assert_eq!(collector.most.load(Ordering::SeqCst), concurrency);
        if concurrency == 1 {
            assert_eq!(*collector.began.lock().expect("order"), order);
        }
    }
}
