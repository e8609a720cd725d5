//! ABBA rounds on one chart: each round's steady-state percentile curve, offload on in blue
//! and off in orange (the second round of a setting dashed), with the effect and the drift
//! written above; below, each round's median in run order, so drift shows as a slope between
//! the two rounds of a setting.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, VPos};

use super::axes::{self, latency_label, show};
use super::canvas::{self, CURVE, ChartError, Drawing, Entry, Swatch, WIDTH, draw_err, palette};
use super::latency::{
    FLOOR_US, Line, References, latency_range, line_entries, percentile_chart, reference_lines,
};
use super::series::{self, us};
use crate::analysis::{Analysis, Class};
use crate::rounds::Abba;
use crate::units::Nanos;

pub struct RoundsChart<'a> {
    pub rounds: &'a [(String, &'a Analysis)],
    pub abba: &'a Abba,
    pub refs: &'a References,
}

const HEIGHT: u32 = 1240;
const PERCENTILE_PANEL: u32 = 540;

/// A setting's colour: on blue, off orange, anything else grey.
fn color(label: &str) -> RGBColor {
    match label {
        "on" => palette::BLUE,
        "off" => palette::ORANGE,
        _ => palette::GREY,
    }
}

/// Whether this round repeats an earlier round's setting (drawn dashed).
fn repeat(rounds: &[(String, &Analysis)], i: usize) -> bool {
    rounds
        .iter()
        .take(i)
        .filter(|(l, _)| rounds.get(i).is_some_and(|(m, _)| m == l))
        .count()
        % 2
        == 1
}

fn signed(ns: f64) -> String {
    let sign = if ns > 0.0 {
        "+"
    } else if ns < 0.0 {
        "−"
    } else {
        ""
    };
    format!("{sign}{}", show(Nanos(ns.abs().round() as i64)))
}

fn heading(abba: &Abba) -> Vec<(String, RGBColor)> {
    let drift = |d: Option<i64>| d.map_or("-".to_string(), |d| signed(d as f64));
    let mut lines = vec![
        ("ABBA rounds: offload on / off".to_string(), palette::TEXT),
        (
            format!(
                "effect on − off: {}",
                abba.effect_ns.map_or("-".to_string(), signed)
            ),
            palette::TEXT,
        ),
    ];
    let drifts = format!(
        "drift: on {}, off {} (limit {})",
        drift(abba.drift_on_ns),
        drift(abba.drift_off_ns),
        show(Nanos(abba.drift_limit_ns.round() as i64))
    );
    match &abba.warning {
        Some(_) => lines.push((format!("{drifts}: TOO LARGE"), palette::VERMILLION)),
        None => lines.push((drifts, palette::GREEN)),
    }
    lines
}

impl Drawing for RoundsChart<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        let body = canvas::heading(root, &heading(self.abba))?;
        let drawn: Vec<&(String, &Analysis)> = self
            .rounds
            .iter()
            .filter(|(_, a)| a.samples.count(Class::Steady) > 0)
            .collect();
        let Some((_, first)) = drawn.first() else {
            return canvas::note(&body, &["no round has steady-state packets to chart"]);
        };
        let lines = self.refs.lines(first.slow.threshold_ns);
        let extremes: Vec<f64> = drawn
            .iter()
            .flat_map(|(_, a)| [a.steady.min_ns, a.steady.max_ns])
            .map(|v| v.map_or(f64::NAN, us))
            .collect();
        let range = latency_range(&extremes, &lines);
        let mut entries: Vec<Entry> = self
            .rounds
            .iter()
            .enumerate()
            .map(|(i, (label, a))| {
                let (color, width) = (color(label), CURVE);
                Entry {
                    swatch: if repeat(self.rounds, i) {
                        Swatch::Dashed { color, width }
                    } else {
                        Swatch::Line { color, width }
                    },
                    label: format!(
                        "{i} {label}: median {}",
                        a.steady.median_ns.map_or("-".to_string(), show)
                    ),
                }
            })
            .collect();
        entries.extend(line_entries(&lines));
        let body = canvas::legend(&body, &entries)?;
        let (top, bottom) = body.split_vertically(PERCENTILE_PANEL);
        self.curves(&top, &lines, range)?;
        self.medians(&bottom, range)
    }
}

impl RoundsChart<'_> {
    fn curves<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        lines: &[Line],
        (lo, hi): (f64, f64),
    ) -> Result<(), ChartError> {
        let n = self
            .rounds
            .iter()
            .map(|(_, a)| a.samples.count(Class::Steady))
            .max()
            .unwrap_or(1);
        let x_max = (n as f64).log10().max(1.0) + 0.15;
        let mut chart = percentile_chart(area, x_max, (lo, hi), "percentile of the steady state")?;
        reference_lines(&mut chart, lines, (0.0, x_max), (lo, hi))?;
        for (i, (label, a)) in self.rounds.iter().enumerate() {
            let points = series::curve(&a.samples, Some(Class::Steady), FLOOR_US);
            let style = color(label).stroke_width(CURVE);
            if repeat(self.rounds, i) {
                chart.draw_series(DashedLineSeries::new(points, 18, 10, style))
            } else {
                chart.draw_series(LineSeries::new(points, style))
            }
            .map_err(draw_err)?;
        }
        Ok(())
    }

    fn medians<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        (lo, hi): (f64, f64),
    ) -> Result<(), ChartError> {
        let k = self.rounds.len();
        let labels: Vec<String> = self
            .rounds
            .iter()
            .enumerate()
            .map(|(i, (l, _))| format!("{i} {l}"))
            .collect();
        let mut chart = canvas::panel(area)
            .build_cartesian_2d(
                axes::Ticked {
                    range: -0.5..k as f64 - 0.5,
                    ticks: (0..k).map(|i| i as f64).collect(),
                },
                axes::latency_axis(lo, hi),
            )
            .map_err(draw_err)?;
        let label_of = |x: &f64| {
            labels
                .get(x.round().max(0.0) as usize)
                .cloned()
                .unwrap_or_default()
        };
        canvas::mesh(&mut chart)
            .x_label_formatter(&label_of)
            .y_label_formatter(&|y| latency_label(*y))
            .x_desc("steady-state median of each round, in run order")
            .draw()
            .map_err(draw_err)?;
        let points: Vec<(usize, &str, f64, Nanos)> = self
            .rounds
            .iter()
            .enumerate()
            .filter_map(|(i, (l, a))| a.steady.median_ns.map(|m| (i, l.as_str(), us(m), m)))
            .collect();
        // The rounds of one setting joined: a slope between them is drift.
        for setting in ["on", "off"] {
            let same: Vec<(f64, f64)> = points
                .iter()
                .filter(|(_, l, _, _)| *l == setting)
                .map(|(i, _, y, _)| (*i as f64, y.max(FLOOR_US)))
                .collect();
            chart
                .draw_series(DashedLineSeries::new(
                    same,
                    12,
                    8,
                    color(setting).stroke_width(canvas::LINE),
                ))
                .map_err(draw_err)?;
        }
        let above = canvas::anchored(palette::TEXT, HPos::Center, VPos::Bottom);
        chart
            .draw_series(points.iter().map(|(i, label, y, median)| {
                EmptyElement::at((*i as f64, y.max(FLOOR_US)))
                    + Circle::new((0, 0), 10, color(label).filled())
                    + Text::new(show(*median), (0, -16), above.clone())
            }))
            .map_err(draw_err)?;
        Ok(())
    }
}
