//! The probe as a device of the site (`platform: probe` in `baselines/<name>.yaml`): where its
//! packets come from (`source:`) and what the latency must look like (`expect:`).
//!
//! ```yaml
//! platform: probe
//! source:
//!   pcap: [captures/open.pcap]         # relative to this file; or:
//!   # live: { tx: port0, rx: port1, count: 10000, interval_us: 1000 }
//! expect:
//!   before_vlan: 10
//!   after_vlan: 20
//!   calibration_ns: 436.8
//!   threshold_ns: 6000
//!   idle_timer_s: 180
//!   median_max_ns: 5000
//!   p99_max_ns: 6000
//! ```

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::calibration::Calibration;
use super::options::{Options, Rules, TsSource};
use super::request::Sides;
use super::units::{Nanos, Vlan};

/// Where the probe's copies come from.
#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum Source {
    /// Capture files (offline use, CI, or a capture taken by exanic-capture before the run).
    Pcap(Vec<PathBuf>),
    /// Send and capture now (root or CAP_NET_RAW on the measurement server).
    Live(LiveSource),
}

impl Default for Source {
    fn default() -> Self {
        Source::Pcap(Vec::new())
    }
}

#[derive(Clone, Debug, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LiveSource {
    pub tx: String,
    pub rx: String,
    #[serde(default = "default_count")]
    pub count: usize,
    #[serde(default = "default_interval_us")]
    pub interval_us: u64,
    #[serde(default)]
    pub src_port: Option<u16>,
    /// Keep the capture here (else a temporary file).
    #[serde(default)]
    pub out: Option<PathBuf>,
}

fn default_count() -> usize {
    10_000
}

fn default_interval_us() -> u64 {
    1_000
}

/// `expect:` of a probe device. Every value has the lab's default, so `expect: {}` works.
#[derive(Clone, Debug, Default, PartialEq, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// Filled from the file's `source:` (not written under `expect:`).
    #[serde(skip)]
    pub source: Source,
    #[serde(default)]
    pub before_vlan: Option<u16>,
    #[serde(default)]
    pub after_vlan: Option<u16>,
    #[serde(default)]
    pub calibration_ns: Option<f64>,
    #[serde(default)]
    pub threshold_ns: Option<i64>,
    #[serde(default)]
    pub idle_timer_s: Option<f64>,
    #[serde(default)]
    pub first_packets: Option<usize>,
    #[serde(default)]
    pub min_pairs: Option<usize>,
    /// Steady-state median must not exceed this (the lab: 4.1 us offloaded).
    #[serde(default)]
    pub median_max_ns: Option<i64>,
    /// Steady-state p99 must not exceed this (the lab: 4.2 us offloaded).
    #[serde(default)]
    pub p99_max_ns: Option<i64>,
    #[serde(default)]
    pub max_loss_fraction: Option<f64>,
    /// Where the time stamps come from (hardware in production; software makes it indicative).
    #[serde(default)]
    pub timestamps: Option<TsSource>,
    /// Also write the chart here (relative to the device file).
    #[serde(default)]
    pub chart: Option<PathBuf>,
}

impl Expect {
    /// Resolves relative paths against the device file's folder.
    pub fn resolve(mut self, source: Source, file: &Path) -> Self {
        let base = file.parent().unwrap_or(Path::new("."));
        let join = |p: &PathBuf| {
            if p.is_absolute() {
                p.clone()
            } else {
                base.join(p)
            }
        };
        self.source = match source {
            Source::Pcap(files) => Source::Pcap(files.iter().map(join).collect()),
            Source::Live(mut live) => {
                live.out = live.out.as_ref().map(join);
                Source::Live(live)
            }
        };
        self.chart = self.chart.as_ref().map(join);
        self
    }

    /// The analysis options this baseline asks for.
    pub fn options(&self) -> Options {
        let mut o = Options {
            sides: Sides {
                before: self.before_vlan.map(Vlan),
                after: self.after_vlan.map(Vlan),
            },
            calibration: self
                .calibration_ns
                .map(Calibration::fixed)
                .unwrap_or_default(),
            ..Options::default()
        };
        if let Some(t) = self.threshold_ns {
            o.threshold = Nanos(t);
        }
        if let Some(s) = self.idle_timer_s {
            o.idle_timer = Nanos::from_secs_f64(s);
        }
        if let Some(k) = self.first_packets {
            o.first_k = k;
        }
        if let Some(ts) = self.timestamps {
            o.timestamps = ts;
        }
        let defaults = Rules::default();
        o.rules.min_pairs = self.min_pairs.unwrap_or(defaults.min_pairs);
        o.rules.max_loss_fraction = self.max_loss_fraction.unwrap_or(defaults.max_loss_fraction);
        o
    }

    /// What is measured, for `premarket plan` and `list`: the capture files, or the live run.
    pub fn describe(&self) -> String {
        match &self.source {
            Source::Pcap(files) => {
                let files: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
                format!("analyze {}", files.join(" "))
            }
            Source::Live(l) => format!(
                "run --tx {} --rx {} --count {} --interval {}us",
                l.tx, l.rx, l.count, l.interval_us
            ),
        }
    }
}
