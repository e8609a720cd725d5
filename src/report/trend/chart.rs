//! The trend drawn: three panels over the same runs (the probe's steady-state median and p99
//! on a log latency axis with the baseline's limits, then the FortiGate's offloaded sessions
//! and its session setup rate), the drifts written above them. A panel with no point or one
//! point says so instead of failing.

use std::collections::BTreeMap;

use chrono::{DateTime, FixedOffset};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::drift::{Drift, DriftRule, firewall_drifts, probe_drifts};
use super::{FirewallPoint, Limits, TrendPoint};
use premarket_core::Status;
use premarket_probe::chart::axes::{self, Ticked, count_label, latency_label};
use premarket_probe::chart::canvas::{
    self, ChartError, Drawing, Entry, LINE, Swatch, TEXT, WIDTH, draw_err, palette,
};
use premarket_probe::units::Nanos;

/// The trend as PNG (for the email).
pub fn png(
    probe: &[TrendPoint],
    firewall: &[FirewallPoint],
    limits: &Limits,
    statuses: &[(String, Status)],
) -> Result<Vec<u8>, ChartError> {
    canvas::png(&TrendChart::new(probe, firewall, limits, statuses))
}

/// The trend as SVG (for the archive).
pub fn svg(
    probe: &[TrendPoint],
    firewall: &[FirewallPoint],
    limits: &Limits,
    statuses: &[(String, Status)],
) -> Result<String, ChartError> {
    canvas::svg(&TrendChart::new(probe, firewall, limits, statuses))
}

struct TrendChart<'a> {
    probe: &'a [TrendPoint],
    firewall: &'a [FirewallPoint],
    limits: &'a Limits,
    /// The runs' overall status: FAIL and ERROR runs are marked above the probe's points.
    statuses: &'a [(String, Status)],
    /// Every run of either series, oldest first: the x axis.
    runs: Vec<(DateTime<FixedOffset>, String)>,
    /// Each run's label on the axis, in `runs`' order.
    labels: Vec<String>,
}

const HEIGHT: u32 = 1300;
const PROBE_PANEL: u32 = 520;
const FIREWALL_PANEL: u32 = 320;

impl<'a> TrendChart<'a> {
    fn new(
        probe: &'a [TrendPoint],
        firewall: &'a [FirewallPoint],
        limits: &'a Limits,
        statuses: &'a [(String, Status)],
    ) -> Self {
        let mut runs: BTreeMap<String, DateTime<FixedOffset>> = BTreeMap::new();
        for (id, at) in probe
            .iter()
            .map(|p| (&p.run_id, p.started_at))
            .chain(firewall.iter().map(|p| (&p.run_id, p.started_at)))
        {
            runs.entry(id.clone()).or_insert(at);
        }
        let mut runs: Vec<(DateTime<FixedOffset>, String)> =
            runs.into_iter().map(|(id, at)| (at, id)).collect();
        runs.sort();
        // Its time when all the runs are of one day, else its day and time; to the second
        // where runs share a minute.
        let one_day = match (runs.first(), runs.last()) {
            (Some((first, _)), Some((last, _))) => first.date_naive() == last.date_naive(),
            _ => true,
        };
        let format = if one_day { "%H:%M" } else { "%m-%d %H:%M" };
        let times: Vec<DateTime<FixedOffset>> = runs.iter().map(|(at, _)| *at).collect();
        let labels = crate::human::by_minute_or_second(&times, format);
        TrendChart {
            probe,
            firewall,
            limits,
            statuses,
            runs,
            labels,
        }
    }

    /// The x of a run.
    fn x(&self, run_id: &str) -> Option<f64> {
        self.runs
            .iter()
            .position(|(_, id)| id == run_id)
            .map(|i| i as f64)
    }

    fn x_axis(&self) -> Ticked {
        let k = self.runs.len().max(1);
        let every = k.div_ceil(6).max(1);
        Ticked {
            range: -0.5..k as f64 - 0.5,
            ticks: (0..k).step_by(every).map(|i| i as f64).collect(),
        }
    }

    /// A run's label (see [`TrendChart::labels`]).
    fn date(&self, x: f64) -> String {
        self.labels
            .get(x.round().max(0.0) as usize)
            .cloned()
            .unwrap_or_default()
    }

    fn heading(&self) -> Vec<(String, RGBColor)> {
        let mut lines = vec![(
            format!("trend over the last {} runs", self.runs.len()),
            palette::TEXT,
        )];
        if let (Some((first, _)), Some((last, _))) = (self.runs.first(), self.runs.last()) {
            lines.push((
                format!(
                    "from {} to {}",
                    first.format("%Y-%m-%d"),
                    last.format("%Y-%m-%d")
                ),
                palette::TEXT,
            ));
        }
        // A drift is said of the latest run only: an older run's drift, shown above a latest
        // run that has no figure, would read as the state now.
        let latest = self.runs.last().map(|(_, id)| id.as_str());
        let rule = DriftRule::default();
        let drifts: Vec<String> = probe_drifts(self.probe, &rule)
            .iter()
            .chain(&firewall_drifts(self.firewall, &rule))
            .filter(|d| Some(d.run_id.as_str()) == latest)
            .map(Drift::said)
            .collect();
        let probe_missing = !self.probe.is_empty()
            && !self.probe.iter().any(|p| {
                Some(p.run_id.as_str()) == latest && (p.median_ns.is_some() || p.p99_ns.is_some())
            });
        let firewall_missing = !self.firewall.is_empty()
            && !self.firewall.iter().any(|p| {
                Some(p.run_id.as_str()) == latest
                    && (p.npu_session_count.is_some() || p.setup_rate.is_some())
            });
        let missing: Vec<&str> = [(probe_missing, "probe"), (firewall_missing, "FortiGate")]
            .iter()
            .filter(|(m, _)| *m)
            .map(|(_, what)| *what)
            .collect();
        if !missing.is_empty() {
            lines.push((
                format!(
                    "the latest run has no {} figures: no drift said of it",
                    missing.join(" or ")
                ),
                palette::TEXT,
            ));
        } else if drifts.is_empty() {
            lines.push(("no drift against the week before".into(), palette::GREEN));
        }
        for d in drifts {
            for (i, part) in premarket_probe::chart::latency::wrap(&format!("DRIFT: {d}"), 56)
                .into_iter()
                .enumerate()
            {
                let part = if i == 0 { part } else { format!("  {part}") };
                lines.push((part, palette::VERMILLION));
            }
        }
        lines
    }
}

impl Drawing for TrendChart<'_> {
    fn size(&self) -> (u32, u32) {
        // Each heading line past the usual three (drifts) makes the chart taller, not the
        // panels smaller.
        let extra = self.heading().len().saturating_sub(3) as u32;
        (WIDTH, HEIGHT + extra * (TEXT + 8))
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        let body = canvas::heading(root, &self.heading())?;
        let mut entries = vec![
            entry(
                Swatch::Line {
                    color: palette::BLUE,
                    width: 5,
                },
                "probe median (steady)",
            ),
            entry(
                Swatch::Line {
                    color: palette::ORANGE,
                    width: 5,
                },
                "probe p99 (steady)",
            ),
        ];
        let limit = |v: Option<Nanos>, color, what: &str| {
            v.map(|v| {
                entry(
                    Swatch::Dashed { color, width: LINE },
                    &format!("{what} {}", latency_label(v.0 as f64 / 1e3)),
                )
            })
        };
        entries.extend(limit(
            self.limits.median_max,
            palette::BLUE,
            "limit: median",
        ));
        entries.extend(limit(self.limits.p99_max, palette::ORANGE, "limit: p99"));
        let body = canvas::legend(&body, &entries)?;
        let (probe, rest) = body.split_vertically(PROBE_PANEL);
        let (npu, rate) = rest.split_vertically(FIREWALL_PANEL);
        self.probe_panel(&probe)?;
        self.count_panel(
            &npu,
            "FortiGate npu_session_count",
            palette::GREEN,
            self.firewall
                .iter()
                .filter_map(|p| Some((p.run_id.as_str(), p.npu_session_count? as f64)))
                .collect(),
            self.limits.npu_sessions_min.map(|v| (v as f64, "min")),
        )?;
        self.count_panel(
            &rate,
            "FortiGate session setup rate (per s)",
            palette::ORANGE,
            self.firewall
                .iter()
                .filter_map(|p| Some((p.run_id.as_str(), p.setup_rate? as f64)))
                .collect(),
            self.limits.setup_rate_max.map(|v| (v as f64, "max")),
        )
    }
}

fn entry(swatch: Swatch, label: &str) -> Entry {
    Entry {
        swatch,
        label: label.to_string(),
    }
}

/// What a panel with too few points says.
fn sparse_note(points: usize, what: &str) -> Option<String> {
    match points {
        0 => Some(format!("no {what} in the archive yet")),
        1 => Some(format!("one run with {what} so far: a trend needs two")),
        _ => None,
    }
}

fn note_in<DB: DrawingBackend, X: Ranged<ValueType = f64>, Y: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    text: &str,
) -> Result<(), ChartError> {
    let area = chart.plotting_area().strip_coord_spec();
    let (w, h) = area.dim_in_pixel();
    let style = canvas::anchored(palette::GREY, HPos::Center, VPos::Center);
    area.draw(&Text::new(
        text.to_string(),
        (w as i32 / 2, h as i32 / 2),
        style,
    ))
    .map_err(draw_err)
}

impl TrendChart<'_> {
    /// The right end of the x axis.
    fn x_end(&self) -> f64 {
        self.runs.len().max(1) as f64 - 0.5
    }

    /// A limit drawn dashed across a panel.
    fn limit_line<DB: DrawingBackend, Y: Ranged<ValueType = f64>>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<Ticked, Y>>,
        y: f64,
        color: RGBColor,
    ) -> Result<(), ChartError> {
        chart
            .draw_series(DashedLineSeries::new(
                [(-0.5, y), (self.x_end(), y)],
                12,
                8,
                color.stroke_width(LINE),
            ))
            .map_err(draw_err)
            .map(|_| ())
    }

    /// A figure over the runs: a line with a dot per run, broken where a run has no figure.
    fn series<DB: DrawingBackend, Y: Ranged<ValueType = f64>>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<Ticked, Y>>,
        points: &[(f64, f64)],
        color: RGBColor,
        dot: u32,
    ) -> Result<(), ChartError> {
        // A run without the figure is a gap: the line stops there instead of bridging it.
        for segment in points.chunk_by(|a, b| b.0 - a.0 <= 1.0) {
            chart
                .draw_series(LineSeries::new(
                    segment.iter().copied(),
                    color.stroke_width(4),
                ))
                .map_err(draw_err)?;
        }
        chart
            .draw_series(points.iter().map(|p| Circle::new(*p, dot, color.filled())))
            .map_err(draw_err)
            .map(|_| ())
    }

    fn probe_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
    ) -> Result<(), ChartError> {
        let median: Vec<(f64, f64)> = self
            .probe
            .iter()
            .filter_map(|p| Some((self.x(&p.run_id)?, p.median_ns?.0 as f64 / 1e3)))
            .collect();
        let p99: Vec<(f64, f64)> = self
            .probe
            .iter()
            .filter_map(|p| Some((self.x(&p.run_id)?, p.p99_ns?.0 as f64 / 1e3)))
            .collect();
        let limits: Vec<f64> = [self.limits.median_max, self.limits.p99_max]
            .into_iter()
            .flatten()
            .map(|v| v.0 as f64 / 1e3)
            .collect();
        let values = median
            .iter()
            .chain(&p99)
            .map(|(_, y)| *y)
            .chain(limits.iter().copied());
        let (lo, hi) = values
            .filter(|v| v.is_finite() && *v > 0.0)
            .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
        let (lo, hi) = if lo > hi {
            (1.0, 100.0)
        } else {
            (axes::tick_below(lo / 1.15), axes::tick_above(hi * 1.15))
        };
        let mut chart = canvas::panel(area)
            .caption(
                "probe latency, steady state",
                canvas::text(TEXT, palette::TEXT),
            )
            .build_cartesian_2d(self.x_axis(), axes::latency_axis(lo, hi))
            .map_err(draw_err)?;
        let date = |x: &f64| self.date(*x);
        canvas::mesh(&mut chart)
            .x_label_formatter(&date)
            .y_label_formatter(&|y| latency_label(*y))
            .draw()
            .map_err(draw_err)?;
        for (limit, color) in [
            (self.limits.median_max, palette::BLUE),
            (self.limits.p99_max, palette::ORANGE),
        ] {
            if let Some(v) = limit {
                self.limit_line(&mut chart, v.0 as f64 / 1e3, color)?;
            }
        }
        // The p99 under the median: when they are a few ns apart the median's smaller dots
        // still show inside the p99's.
        self.series(&mut chart, &p99, palette::ORANGE, 9)?;
        self.series(&mut chart, &median, palette::BLUE, 5)?;
        // The mornings that were not OK, named in words at the top of the panel.
        for (id, status) in self.statuses {
            let Some(x) = self
                .x(id)
                .filter(|_| matches!(status, Status::Fail | Status::Error))
            else {
                continue;
            };
            let style = canvas::anchored(palette::TEXT, HPos::Center, VPos::Top);
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, hi)) + Text::new(status.to_string(), (0, 4), style),
                ))
                .map_err(draw_err)?;
        }
        match sparse_note(median.len().max(p99.len()), "probe runs") {
            Some(text) => note_in(&mut chart, &text),
            None => Ok(()),
        }
    }

    fn count_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        title: &str,
        color: RGBColor,
        values: Vec<(&str, f64)>,
        limit: Option<(f64, &str)>,
    ) -> Result<(), ChartError> {
        let points: Vec<(f64, f64)> = values
            .iter()
            .filter_map(|(id, v)| Some((self.x(id)?, *v)))
            .collect();
        let data_max = points.iter().map(|(_, v)| *v).fold(0.0, f64::max);
        // A limit far above the figures would flatten them: it is then written, not drawn.
        let (limit, off_chart) = match limit {
            Some((v, _)) if data_max > 0.0 && v > data_max * 3.0 => (None, limit),
            _ => (limit, None),
        };
        let max = limit.map_or(data_max, |(v, _)| v.max(data_max));
        // Counts are whole: an axis up to at least 5 steps by at least 1.
        let ticks = axes::linear_ticks((max * 1.1).max(5.0));
        let top = ticks.last().copied().unwrap_or(1.0);
        let mut chart = canvas::panel(area)
            .caption(title, canvas::text(TEXT, palette::TEXT))
            .build_cartesian_2d(
                self.x_axis(),
                Ticked {
                    range: 0.0..top,
                    ticks,
                },
            )
            .map_err(draw_err)?;
        let date = |x: &f64| self.date(*x);
        canvas::mesh(&mut chart)
            .x_label_formatter(&date)
            .y_label_formatter(&|y| count_label(*y))
            .draw()
            .map_err(draw_err)?;
        let x_end = self.x_end();
        if let Some((v, what)) = limit {
            self.limit_line(&mut chart, v, color)?;
            let style = canvas::anchored(color, HPos::Right, VPos::Bottom);
            let label = format!("{what} {}", count_label(v));
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x_end, v)) + Text::new(label, (-8, -4), style),
                ))
                .map_err(draw_err)?;
        }
        if let Some((v, what)) = off_chart {
            let style = canvas::anchored(color, HPos::Right, VPos::Top);
            let label = format!("{what} {} (far above)", count_label(v));
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x_end, top)) + Text::new(label, (-8, 4), style),
                ))
                .map_err(draw_err)?;
        }
        self.series(&mut chart, &points, color, 7)?;
        match sparse_note(points.len(), "FortiGate figures") {
            Some(text) => note_in(&mut chart, &text),
            None => Ok(()),
        }
    }
}
