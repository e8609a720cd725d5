//! Checks judged on the latency probe's measurement (`platform: probe` devices).

mod latency_offloaded;

pub use latency_offloaded::LatencyOffloaded;
