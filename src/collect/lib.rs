//! Stage 3 of the pipeline: get each planned command's raw output.
//!
//! A collector turns a [`DevicePlan`] into [`Outputs`]. The SSH collector talks to devices; the
//! offline collector reads saved outputs; the lab is SSH to emulated devices. Collectors never
//! judge: a device problem becomes a [`CollectError`] on the commands it affects, and the
//! checks that needed them report ERROR.

pub mod firewall_check;
pub mod offline;
pub mod probe;
pub mod probe_run;
pub mod ssh;

use std::future::Future;
use std::pin::Pin;

use premarket_core::Outputs;
use premarket_plan::DevicePlan;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Something that can fetch a device's outputs.
pub trait Collector: Send + Sync {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs>;
}
