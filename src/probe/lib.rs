//! The latency probe: replays the lab's measurement of the firewall's own latency.
//!
//! A sender emits numbered 64-byte UDP frames to a MAC nobody owns; the switch floods each one
//! straight to the capture port (VLAN "before") and through the firewall back to the same port
//! (VLAN "after"). One clock stamps both copies, so `after - before - calibration` is the
//! firewall's latency without clock synchronisation. The offline path (capture files in,
//! [`analysis::Analysis`] out) is the single source of truth; the live run writes its capture
//! as nanosecond pcap and goes through it. In the inspection pipeline the probe is one more
//! collector: its "output" is the analysis JSON ([`facts`]), judged by `probe.latency.offloaded`.

pub mod analysis;
pub mod baseline;
pub mod calibration;
pub mod capture;
pub mod chart;
pub mod cmsg;
pub mod facts;
pub mod figures;
pub mod format;
pub mod frame;
pub mod live;
pub mod offline;
pub mod options;
pub mod pair;
pub mod pcap;
pub mod pcapng;
pub mod record;
pub mod request;
pub mod rounds;
pub mod samples;
pub mod sender;
pub mod session;
pub mod sides;
pub mod stats;
pub mod stream;
pub mod synth;
pub mod sys;
pub mod text;
pub mod units;
pub mod verdict;

pub use figures::Analysis;
pub use options::{Options, TsSource};
pub use units::{Nanos, Port, Vlan};
