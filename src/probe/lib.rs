#![doc = include_str!("README.md")]

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
