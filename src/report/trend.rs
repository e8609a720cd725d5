//! The trend over mornings, read from the run archive: the probe's steady-state median and
//! p99 per run with the baseline's limits, the FortiGate's `npu_session_count` and session
//! setup rate with theirs, and the drift detector that decides whether the email attaches the
//! trend. Pure functions over points (the archive reading makes them), so `premarket history
//! --chart FILE` and the email draw the same thing.
//!
//! Drift, precisely: take the latest run that has the figure. Its reference is the nearest-rank
//! median of the same figure over the earlier runs that started less than [`DriftRule::window`]
//! (7 days) before it, when there are at least [`DriftRule::min_runs`] (3) of them; fewer runs
//! are no reference and never a drift. The figure drifted when the latest value is more than
//! [`DriftRule::change`] (10 %) above the reference (for latency and the setup rate) or below
//! it (for the offloaded session count). The median of a week, not the day before, so one odd
//! morning neither hides nor raises a drift.

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, FixedOffset};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};
use serde::Serialize;

use crate::probe::chart::axes::{self, Ticked, count_label, latency_label, show};
use crate::probe::chart::canvas::{
    self, ChartError, Drawing, Entry, LINE, Swatch, TEXT, WIDTH, draw_err, palette,
};
use crate::probe::units::Nanos;

/// How many runs the trend shows unless told.
pub const DEFAULT_RUNS: usize = 30;

/// The probe's figures of one run (the steady state, which the baseline's limits judge).
#[derive(Clone, Debug, PartialEq)]
pub struct TrendPoint {
    pub run_id: String,
    pub started_at: DateTime<FixedOffset>,
    pub median_ns: Option<Nanos>,
    pub p99_ns: Option<Nanos>,
}

impl TrendPoint {
    /// From the probe's analysis JSON as the archive keeps it (`raw/<probe>/probe-analyze-*.txt`):
    /// `steady.median_ns` and `steady.p99_ns`.
    pub fn from_probe_json(
        run_id: &str,
        started_at: DateTime<FixedOffset>,
        json: &str,
    ) -> Result<Self, String> {
        let value: serde_json::Value = serde_json::from_str(json)
            .map_err(|e| format!("the probe output is not the analysis JSON: {e}"))?;
        let steady = value
            .get("steady")
            .ok_or("the probe output has no `steady` summary")?;
        let figure = |key: &str| {
            steady
                .get(key)
                .and_then(serde_json::Value::as_i64)
                .map(Nanos)
        };
        Ok(TrendPoint {
            run_id: run_id.to_string(),
            started_at,
            median_ns: figure("median_ns"),
            p99_ns: figure("p99_ns"),
        })
    }
}

/// The FortiGate's figures of one run (`diagnose sys session stat`).
#[derive(Clone, Debug, PartialEq)]
pub struct FirewallPoint {
    pub run_id: String,
    pub started_at: DateTime<FixedOffset>,
    pub npu_session_count: Option<u64>,
    pub setup_rate: Option<u64>,
}

/// The baselines' limits, drawn across their panels.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// The probe's `median_max_ns` and `p99_max_ns`.
    pub median_max: Option<Nanos>,
    pub p99_max: Option<Nanos>,
    /// The FortiGate's `npu_sessions_min` and `setup_rate_max`.
    pub npu_sessions_min: Option<u64>,
    pub setup_rate_max: Option<u64>,
}

/// When a figure has drifted (see the module documentation).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DriftRule {
    pub window: Duration,
    pub min_runs: usize,
    /// The change that counts, as a fraction (0.10: 10 %).
    pub change: f64,
}

impl Default for DriftRule {
    fn default() -> Self {
        DriftRule {
            window: Duration::days(7),
            min_runs: 3,
            change: 0.10,
        }
    }
}

/// Which way is worse for a figure.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Worse {
    Up,
    Down,
}

/// A figure that drifted.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Drift {
    pub figure: String,
    pub run_id: String,
    pub latest: f64,
    /// The median of the window before it.
    pub reference: f64,
    /// (latest - reference) / reference.
    pub change: f64,
    /// Runs in the window.
    pub runs: usize,
}

impl Drift {
    /// "probe median 4.60 µs: +12 % on the week before (4.10 µs, 6 runs)".
    pub fn describe(&self, show: impl Fn(f64) -> String) -> String {
        format!(
            "{} {}: {:+.0} % on the week before ({}, {} runs)",
            self.figure,
            show(self.latest),
            self.change * 100.0,
            show(self.reference),
            self.runs
        )
    }
}

/// The smallest change that counts for latency, whatever the fraction (the ABBA drift floor).
pub const LATENCY_FLOOR_NS: f64 = 100.0;
/// The smallest change that counts for session counts and setup rates.
pub const COUNT_FLOOR: f64 = 5.0;

/// Whether the latest of `series` (time, run id, value; any order) drifted `worse` against
/// the window before it, by more than the rule's fraction and more than `floor`.
pub fn drift(
    figure: &str,
    series: &[(DateTime<FixedOffset>, &str, f64)],
    rule: &DriftRule,
    worse: Worse,
    floor: f64,
) -> Option<Drift> {
    let (latest_at, run_id, latest) = series.iter().max_by_key(|(t, id, _)| (*t, *id))?;
    let mut window: Vec<f64> = series
        .iter()
        .filter(|(t, _, _)| t < latest_at && *latest_at - *t < rule.window)
        .map(|(_, _, v)| *v)
        .collect();
    if window.len() < rule.min_runs.max(1) {
        return None;
    }
    window.sort_by(f64::total_cmp);
    let reference = *window.get(window.len().div_ceil(2) - 1)?;
    let change = if reference != 0.0 {
        (latest - reference) / reference.abs()
    } else if *latest > 0.0 {
        f64::INFINITY
    } else {
        0.0
    };
    let drifted = match worse {
        Worse::Up => change > rule.change && latest - reference > floor,
        Worse::Down => change < -rule.change && reference - latest > floor,
    };
    drifted.then(|| Drift {
        figure: figure.to_string(),
        run_id: run_id.to_string(),
        latest: *latest,
        reference,
        change,
        runs: window.len(),
    })
}

/// The probe's drifts: steady median or p99 up.
pub fn probe_drifts(points: &[TrendPoint], rule: &DriftRule) -> Vec<Drift> {
    let series = |f: fn(&TrendPoint) -> Option<Nanos>| -> Vec<(DateTime<FixedOffset>, &str, f64)> {
        points
            .iter()
            .filter_map(|p| f(p).map(|v| (p.started_at, p.run_id.as_str(), v.0 as f64)))
            .collect()
    };
    [
        drift(
            "probe median",
            &series(|p| p.median_ns),
            rule,
            Worse::Up,
            LATENCY_FLOOR_NS,
        ),
        drift(
            "probe p99",
            &series(|p| p.p99_ns),
            rule,
            Worse::Up,
            LATENCY_FLOOR_NS,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The FortiGate's drifts: offloaded sessions down, setup rate up.
pub fn firewall_drifts(points: &[FirewallPoint], rule: &DriftRule) -> Vec<Drift> {
    let series = |f: fn(&FirewallPoint) -> Option<u64>| -> Vec<(DateTime<FixedOffset>, &str, f64)> {
        points
            .iter()
            .filter_map(|p| f(p).map(|v| (p.started_at, p.run_id.as_str(), v as f64)))
            .collect()
    };
    [
        drift(
            "npu_session_count",
            &series(|p| p.npu_session_count),
            rule,
            Worse::Down,
            COUNT_FLOOR,
        ),
        drift(
            "setup rate",
            &series(|p| p.setup_rate),
            rule,
            Worse::Up,
            COUNT_FLOOR,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
}

/// The trend as PNG (for the email).
pub fn png(
    probe: &[TrendPoint],
    firewall: &[FirewallPoint],
    limits: &Limits,
) -> Result<Vec<u8>, ChartError> {
    canvas::png(&TrendChart::new(probe, firewall, limits))
}

/// The trend as SVG (for the archive).
pub fn svg(
    probe: &[TrendPoint],
    firewall: &[FirewallPoint],
    limits: &Limits,
) -> Result<String, ChartError> {
    canvas::svg(&TrendChart::new(probe, firewall, limits))
}

/// The last `n` points by start time (the trend shows the last [`DEFAULT_RUNS`]).
pub fn last<T: Clone>(points: &[T], n: usize, at: impl Fn(&T) -> DateTime<FixedOffset>) -> Vec<T> {
    let mut sorted = points.to_vec();
    sorted.sort_by_key(|p| at(p));
    let skip = sorted.len().saturating_sub(n);
    sorted.split_off(skip)
}

struct TrendChart<'a> {
    probe: &'a [TrendPoint],
    firewall: &'a [FirewallPoint],
    limits: &'a Limits,
    /// Every run of either series, oldest first: the x axis.
    runs: Vec<(DateTime<FixedOffset>, String)>,
}

const HEIGHT: u32 = 1300;
const PROBE_PANEL: u32 = 520;
const FIREWALL_PANEL: u32 = 320;

impl<'a> TrendChart<'a> {
    fn new(probe: &'a [TrendPoint], firewall: &'a [FirewallPoint], limits: &'a Limits) -> Self {
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
        TrendChart {
            probe,
            firewall,
            limits,
            runs,
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

    fn date(&self, x: f64) -> String {
        self.runs
            .get(x.round().max(0.0) as usize)
            .map(|(at, _)| at.format("%m-%d").to_string())
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
        let rule = DriftRule::default();
        let ns = |v: f64| show(Nanos(v.round() as i64));
        let whole = |v: f64| count_label(v);
        let drifts: Vec<String> = probe_drifts(self.probe, &rule)
            .iter()
            .map(|d| d.describe(ns))
            .chain(
                firewall_drifts(self.firewall, &rule)
                    .iter()
                    .map(|d| d.describe(whole)),
            )
            .collect();
        if drifts.is_empty() {
            lines.push(("no drift against the week before".into(), palette::GREEN));
        }
        for d in drifts {
            for (i, part) in crate::probe::chart::latency::wrap(&format!("DRIFT: {d}"), 56)
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

    /// A figure over the runs: a line with a dot per run.
    fn series<DB: DrawingBackend, Y: Ranged<ValueType = f64>>(
        &self,
        chart: &mut ChartContext<'_, DB, Cartesian2d<Ticked, Y>>,
        points: &[(f64, f64)],
        color: RGBColor,
        dot: u32,
    ) -> Result<(), ChartError> {
        chart
            .draw_series(LineSeries::new(
                points.iter().copied(),
                color.stroke_width(4),
            ))
            .map_err(draw_err)?;
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
        let ticks = axes::linear_ticks(max * 1.1);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn at(day: u32) -> DateTime<FixedOffset> {
        DateTime::parse_from_rfc3339(&format!("2026-11-{day:02}T08:30:00+08:00")).unwrap()
    }

    fn probe(day: u32, median: i64) -> TrendPoint {
        TrendPoint {
            run_id: format!("run{day:02}"),
            started_at: at(day),
            median_ns: Some(Nanos(median)),
            p99_ns: Some(Nanos(median + 40)),
        }
    }

    #[test]
    fn drift_table() {
        let rule = DriftRule::default();
        // name, (day, median) runs, expected drifted figure
        type Case = (&'static str, Vec<(u32, i64)>, Option<&'static str>);
        let cases: Vec<Case> = vec![
            (
                "steady week",
                vec![(1, 4100), (2, 4110), (3, 4090), (4, 4105)],
                None,
            ),
            (
                "up 12 %",
                vec![(1, 4100), (2, 4110), (3, 4090), (4, 4600)],
                Some("probe median"),
            ),
            (
                "up 9 % only",
                vec![(1, 4100), (2, 4100), (3, 4100), (4, 4469)],
                None,
            ),
            (
                "two runs before: no reference",
                vec![(2, 4100), (3, 4100), (4, 9000)],
                None,
            ),
            // The runs 8 days before are out of the window: only two remain.
            (
                "old runs do not count",
                vec![(1, 4100), (2, 4100), (8, 4100), (9, 4100), (10, 9000)],
                None,
            ),
            // One odd morning in the week does not move the reference (a median, not a mean).
            (
                "one odd morning",
                vec![(1, 4100), (2, 18_500), (3, 4100), (4, 4150)],
                None,
            ),
            (
                "down is not worse for latency",
                vec![(1, 4100), (2, 4100), (3, 4100), (4, 2000)],
                None,
            ),
            // 20 % of a 400 ns figure is 80 ns: below the 100 ns floor.
            (
                "under the floor",
                vec![(1, 400), (2, 400), (3, 400), (4, 480)],
                None,
            ),
        ];
        for (name, runs, want) in cases {
            let points: Vec<TrendPoint> = runs.iter().map(|(d, m)| probe(*d, *m)).collect();
            let got = probe_drifts(&points, &rule);
            let median = got.iter().find(|d| d.figure == "probe median");
            assert_eq!(median.map(|d| d.figure.as_str()), want, "{name}: {got:?}");
        }
        let points: Vec<TrendPoint> = [(1, 4100), (2, 4110), (3, 4090), (4, 4600)]
            .iter()
            .map(|(d, m)| probe(*d, *m))
            .collect();
        let d = &probe_drifts(&points, &rule)[0];
        assert_eq!((d.reference, d.latest, d.runs), (4100.0, 4600.0, 3));
        assert_eq!(d.run_id, "run04");
        assert_eq!(
            d.describe(|v| show(Nanos(v as i64))),
            "probe median 4.60 µs: +12 % on the week before (4.10 µs, 3 runs)"
        );
        assert!(probe_drifts(&[], &rule).is_empty());
    }

    #[test]
    fn firewall_drifts_look_down_for_sessions_and_up_for_the_setup_rate() {
        let point = |day, npu, rate| FirewallPoint {
            run_id: format!("run{day:02}"),
            started_at: at(day),
            npu_session_count: Some(npu),
            setup_rate: Some(rate),
        };
        let rule = DriftRule::default();
        let week = [point(1, 12, 4), point(2, 12, 5), point(3, 11, 4)];
        let mut bad = week.to_vec();
        bad.push(point(4, 0, 40));
        // 4 to 5 setups per second is +25 %, but one setup is noise (under the floor).
        let mut noise = week.to_vec();
        noise.push(point(4, 12, 5));
        assert!(firewall_drifts(&noise, &rule).is_empty());
        let figures: Vec<String> = firewall_drifts(&bad, &rule)
            .into_iter()
            .map(|d| d.figure)
            .collect();
        assert_eq!(figures, ["npu_session_count", "setup rate"]);
        let mut good = week.to_vec();
        good.push(point(4, 13, 4));
        assert!(firewall_drifts(&good, &rule).is_empty());
    }

    #[test]
    fn points_come_from_the_archived_probe_json() {
        let json = r#"{"median_ns": 45000, "p99_ns": 46000, "steady": {"n": 10, "median_ns": 4100, "p99_ns": 4140}}"#;
        let p = TrendPoint::from_probe_json("r1", at(1), json).unwrap();
        assert_eq!(
            (p.median_ns, p.p99_ns),
            (Some(Nanos(4100)), Some(Nanos(4140)))
        );
        let empty = r#"{"steady": {"n": 0, "median_ns": null, "p99_ns": null}}"#;
        assert_eq!(
            TrendPoint::from_probe_json("r1", at(1), empty)
                .unwrap()
                .median_ns,
            None
        );
        assert!(TrendPoint::from_probe_json("r1", at(1), "% permission denied").is_err());
        assert!(TrendPoint::from_probe_json("r1", at(1), "{}").is_err());
    }

    #[test]
    fn the_last_runs_are_the_latest_by_time() {
        let points: Vec<TrendPoint> = [5, 1, 3, 2, 4].iter().map(|d| probe(*d, 4100)).collect();
        let kept = last(&points, 3, |p| p.started_at);
        let days: Vec<&str> = kept.iter().map(|p| p.run_id.as_str()).collect();
        assert_eq!(days, ["run03", "run04", "run05"]);
    }
}
