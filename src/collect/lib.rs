#![doc = include_str!("README.md")]

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
