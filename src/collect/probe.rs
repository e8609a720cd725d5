//! The probe as a collector: for a `platform: probe` device, "running the command" means
//! analysing its capture files (or sending and capturing live) and returning the analysis JSON,
//! which the probe parser reads back like any device output.
//!
//! [`Routing`] wraps the collector a run would use anyway (SSH, offline) and sends probe
//! devices here, so `premarket run` needs one extra line to include the probe. The chart of
//! each measurement is kept as PNG and SVG ([`Routing::charts`]) for the email and the archive.

use std::sync::{Arc, Mutex};

use super::{BoxFuture, Collector};
use premarket_config::Access;
use premarket_core::Platform;
use premarket_core::{CollectError, Outputs};
use premarket_plan::DevicePlan;
use premarket_probe::baseline::{self, Source};
use premarket_probe::{chart, offline};

/// One measurement's chart (percentile plot and histogram), ready to attach.
#[derive(Clone, Debug)]
pub struct Chart {
    pub device: String,
    pub png: Vec<u8>,
    /// The same chart for the archive (read at a desk).
    pub svg: Option<String>,
}

/// The analysis JSON and its chart: PNG, and SVG when that drew too.
type Measured = (String, Option<(Vec<u8>, Option<String>)>);

/// Measures probe devices.
#[derive(Default)]
pub struct ProbeCollector {
    charts: Mutex<Vec<Chart>>,
}

impl ProbeCollector {
    /// The charts drawn so far, in the order the devices finished.
    pub fn charts(&self) -> Vec<Chart> {
        self.charts.lock().map(|c| c.clone()).unwrap_or_default()
    }

    fn measure(device: &str, expect: &baseline::Expect) -> Result<Measured, CollectError> {
        let options = expect.options();
        let analysis = match &expect.source {
            Source::Pcap(files) => offline::analyze_files(files, &options)
                .map_err(|e| CollectError::Other(format!("probe: {e}")))?,
            Source::Live(live) => premarket_probe::live::measure_source(live, &options)
                .map_err(|e| CollectError::Other(format!("probe: {e}")))?,
        };
        let png = chart::png(&analysis).ok();
        let mut json = serde_json::to_value(&analysis)
            .map_err(|e| CollectError::Other(format!("probe {device}: {e}")))?;
        if let (Some(path), Some(bytes)) = (&expect.chart, &png) {
            premarket_files::write_atomic(path, bytes).map_err(|e| {
                CollectError::Other(format!(
                    "probe: cannot write the chart {}: {e}",
                    path.display()
                ))
            })?;
            json["chart_png"] = serde_json::Value::String(path.display().to_string());
        }
        let svg = chart::svg(&analysis).ok();
        Ok((json.to_string(), png.map(|png| (png, svg))))
    }
}

impl Collector for ProbeCollector {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        Box::pin(async move {
            let Access::Probe(expect) = &plan.device.access else {
                return Outputs::all_failed(
                    &plan.commands,
                    CollectError::Other(format!("{} is not a probe device", plan.device.name)),
                );
            };
            let (device, e) = (plan.device.name.to_string(), expect.clone());
            let measured =
                tokio::task::spawn_blocking(move || ProbeCollector::measure(&device, &e))
                    .await
                    .unwrap_or_else(|e| Err(CollectError::Other(format!("probe stopped: {e}"))));
            let output = match measured {
                Ok((json, drawn)) => {
                    if let (Some((png, svg)), Ok(mut charts)) = (drawn, self.charts.lock()) {
                        charts.push(Chart {
                            device: plan.device.name.to_string(),
                            png,
                            svg,
                        });
                    }
                    Ok(premarket_core::Output::Text(json.into()))
                }
                Err(e) => Err(e),
            };
            // Every planned command of a probe device is the same measurement.
            Outputs {
                results: plan
                    .commands
                    .iter()
                    .map(|c| (c.clone(), output.clone()))
                    .collect(),
            }
        })
    }
}

/// Sends probe devices to the [`ProbeCollector`] and every other device to `inner`.
pub struct Routing {
    inner: Arc<dyn Collector>,
    probe: ProbeCollector,
}

impl Routing {
    pub fn new(inner: Arc<dyn Collector>) -> Self {
        Routing {
            inner,
            probe: ProbeCollector::default(),
        }
    }

    /// The probe charts of this run (for the email).
    pub fn charts(&self) -> Vec<Chart> {
        self.probe.charts()
    }
}

impl Collector for Routing {
    fn collect<'a>(&'a self, plan: &'a DevicePlan) -> BoxFuture<'a, Outputs> {
        if plan.device.platform == Platform::Probe {
            self.probe.collect(plan)
        } else {
            self.inner.collect(plan)
        }
    }
}
