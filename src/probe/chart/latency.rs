//! The chart of one measurement: a percentile plot (all packets and the steady state, the
//! first packets of each session and the packets after a pause marked on it, the lab's
//! figures and the slow threshold drawn across) over a histogram with a log count axis, so
//! two slow packets show beside twelve thousand fast ones.

use plotters::coord::Shift;
use plotters::coord::combinators::{BindKeyPoints, IntoLogRange, LogCoord, WithKeyPoints};
use plotters::prelude::*;

use super::axes::{self, count_label, latency_label, pct_label, pct_ticks, show};
use super::canvas::{
    self, CURVE, ChartError, Drawing, Entry, LINE, Swatch, WIDTH, draw_err, palette,
};
use super::series::{self, us};
use crate::analysis::{Analysis, Class};
use crate::units::Nanos;
use crate::verdict::Kind;

/// The lines drawn across for comparison: what "good" and "bad" look like.
#[derive(Clone, Debug, PartialEq)]
pub struct References {
    /// The lab's offloaded median (FortiGate 201G, NP7Lite: 4.1 µs).
    pub offloaded: Option<Nanos>,
    /// The lab's CPU-path median (18.5 µs).
    pub cpu_path: Option<Nanos>,
    /// The baseline's steady-state limits (`median_max_ns`, `p99_max_ns`).
    pub median_max: Option<Nanos>,
    pub p99_max: Option<Nanos>,
}

impl Default for References {
    fn default() -> Self {
        References {
            offloaded: Some(Nanos(4_100)),
            cpu_path: Some(Nanos(18_500)),
            median_max: None,
            p99_max: None,
        }
    }
}

/// A line drawn across a latency axis: each its own colour and dash, so the legend tells
/// them apart on a phone and in grey print.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Line {
    pub value: Nanos,
    pub label: String,
    pub color: RGBColor,
    /// Dash and gap in pixels; `None`: solid.
    pub dash: Option<(u32, u32)>,
    /// The slow threshold's zone above it (the first line only).
    pub zone: Option<RGBColor>,
}

impl References {
    /// The lines: the slow threshold (solid dark, the slow zone above it), the lab's
    /// offloaded figure (green, short dashes) and CPU-path figure (orange, long dashes), the
    /// baseline's limits (grey: median solid, p99 dotted).
    pub(super) fn lines(&self, threshold: Nanos) -> Vec<Line> {
        let line = |value: Nanos, label: String, color, dash| Line {
            value,
            label,
            color,
            dash,
            zone: None,
        };
        let mut lines = vec![Line {
            zone: Some(palette::SLOW_ZONE),
            ..line(
                threshold,
                format!("slow: above {}", latency_label(us(threshold))),
                // Dark, not vermillion: vermillion marks slow packets, the line only bounds them.
                palette::TEXT,
                None,
            )
        }];
        let refs = [
            (
                self.offloaded,
                "lab offloaded",
                palette::GREEN,
                Some((8, 8)),
            ),
            (
                self.cpu_path,
                "lab CPU path",
                palette::ORANGE,
                Some((22, 8)),
            ),
            (self.median_max, "limit: median", palette::GREY, None),
            (self.p99_max, "limit: p99", palette::GREY, Some((3, 7))),
        ];
        for (value, what, color, dash) in refs {
            if let Some(v) = value {
                let label = format!("{what} {}", latency_label(us(v)));
                lines.push(line(v, label, color, dash));
            }
        }
        lines.retain(|l| l.value.0 > 0);
        lines
    }
}

/// The legend entries of the reference lines, each drawn as the chart draws it.
pub(super) fn line_entries(lines: &[Line]) -> Vec<Entry> {
    lines
        .iter()
        .map(|l| Entry {
            swatch: match (l.zone, l.dash) {
                (Some(zone), _) => Swatch::Threshold {
                    zone,
                    line: l.color,
                },
                (None, Some((dash, gap))) => Swatch::Dashes {
                    color: l.color,
                    width: LINE,
                    dash,
                    gap,
                },
                (None, None) => Swatch::Line {
                    color: l.color,
                    width: LINE,
                },
            },
            label: l.label.clone(),
        })
        .collect()
}

/// Whether a measurement is as it should be: then its slow zone and its sessions' first
/// packets are drawn calm, not as an alarm.
pub(super) fn calm(kind: Kind) -> bool {
    matches!(kind, Kind::Offloaded | Kind::FirstPacketsNotSlow)
}

/// Latencies at or below this are drawn at it (a log axis has no zero).
pub(super) const FLOOR_US: f64 = 0.01;

pub struct LatencyChart<'a> {
    pub analysis: &'a Analysis,
    pub refs: &'a References,
}

const HEIGHT: u32 = 1240;
const PERCENTILE_PANEL: u32 = 540;

/// The verdict in the colour of its meaning.
pub(super) fn verdict_color(kind: Kind) -> RGBColor {
    match kind {
        Kind::Offloaded | Kind::FirstPacketsNotSlow => palette::GREEN,
        Kind::Inconclusive => palette::GREY,
        Kind::CpuPath | Kind::NewSessionPerPacket | Kind::IdleExpiry | Kind::Loss => {
            palette::VERMILLION
        }
    }
}

/// The latency axis (µs) that holds the values and the reference lines.
pub(super) fn latency_range(values: &[f64], lines: &[Line]) -> (f64, f64) {
    let all = values
        .iter()
        .copied()
        .chain(lines.iter().map(|l| us(l.value)))
        .filter(|v| v.is_finite() && *v > 0.0);
    let (lo, hi) = all.fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        return (1.0, 100.0);
    }
    // From the 1-2-5 tick below the fastest to the one above the slowest, so the fastest
    // values sit between two labelled ticks (4.1 µs between 2 and 5).
    let lo = axes::tick_below(lo.max(FLOOR_US) / 1.15);
    let hi = axes::tick_above((hi * 1.15).max(lo * 10.0));
    (lo, hi)
}

impl Drawing for LatencyChart<'_> {
    fn size(&self) -> (u32, u32) {
        (WIDTH, HEIGHT)
    }

    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), ChartError> {
        let a = self.analysis;
        let body = canvas::heading(root, &heading(a))?;
        if a.samples.is_empty() {
            let why = a.problem.as_deref().unwrap_or(a.reason.as_str());
            let wrapped = wrap(why, 52);
            let mut text: Vec<&str> = vec!["no pairs to chart"];
            text.extend(wrapped.iter().map(String::as_str).take(4));
            return canvas::note(&body, &text);
        }
        let mut lines = self.refs.lines(a.slow.threshold_ns);
        if calm(a.verdict) {
            for line in lines.iter_mut().filter(|l| l.zone.is_some()) {
                line.zone = Some(palette::CALM_ZONE);
            }
        }
        let extremes = [a.all.min_ns, a.all.max_ns].map(|v| v.map_or(f64::NAN, us));
        let range = latency_range(&extremes, &lines);
        let marks = Marks::of(a);
        let mut entries = marks.entries(a);
        entries.extend(line_entries(&lines));
        let body = canvas::legend(&body, &entries)?;
        let (top, bottom) = body.split_vertically(PERCENTILE_PANEL);
        percentile_panel(&top, a, &marks, &lines, range)?;
        histogram_panel(&bottom, a, &lines, range)
    }
}

/// The marked packets, computed once for the plot and its legend.
struct Marks {
    first: Vec<(f64, f64)>,
    first_total: usize,
    after: Vec<(f64, f64)>,
    after_total: usize,
}

impl Marks {
    fn of(a: &Analysis) -> Self {
        let (first, first_total) = series::marks(&a.samples, Class::First, FLOOR_US);
        let (after, after_total) = series::marks(&a.samples, Class::AfterPause, FLOOR_US);
        Marks {
            first,
            first_total,
            after,
            after_total,
        }
    }

    fn entries(&self, a: &Analysis) -> Vec<Entry> {
        let mut entries = vec![Entry {
            swatch: Swatch::Line {
                color: palette::BLUE,
                width: CURVE + 3,
            },
            label: format!("all packets ({})", count_label(a.pairs as f64)),
        }];
        let steady = a.samples.count(Class::Steady);
        if steady > 0 {
            entries.push(Entry {
                swatch: Swatch::Line {
                    color: palette::GREEN,
                    width: CURVE,
                },
                label: format!("steady state ({})", count_label(steady as f64)),
            });
        }
        if self.first_total > 0 {
            entries.push(Entry {
                swatch: Swatch::Triangle(first_color(a)),
                label: format!(
                    "first {} of a session ({}){}",
                    a.first_k,
                    count_label(self.first_total as f64),
                    if calm(a.verdict) {
                        ": slow, as expected"
                    } else {
                        ""
                    }
                ),
            });
        }
        if self.after_total > 0 {
            entries.push(Entry {
                swatch: Swatch::Square(palette::PURPLE),
                label: format!(
                    "after a pause > {} ({})",
                    show(a.idle_timer_ns),
                    count_label(self.after_total as f64)
                ),
            });
        }
        entries
    }
}

/// The first packets of each session: an alarm when they are the problem, grey when their
/// setup on the CPU is all there is.
fn first_color(a: &Analysis) -> RGBColor {
    if calm(a.verdict) {
        palette::FIRST_CALM
    } else {
        palette::VERMILLION
    }
}

/// Splits `text` into lines of at most `width` characters at spaces.
pub fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split_whitespace() {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

fn heading(a: &Analysis) -> Vec<(String, RGBColor)> {
    let verdict = format!(
        "firewall latency: {}{}",
        a.verdict.to_string().replace('_', " "),
        if a.indicative { " (indicative)" } else { "" }
    );
    let mut lines = vec![(verdict, verdict_color(a.verdict))];
    if calm(a.verdict) && a.samples.count(Class::First) > 0 {
        lines.push((
            "as expected: only each session's first packets are slow".to_string(),
            palette::GREEN,
        ));
    }
    let (Some(median), Some(p99), Some(max)) = (a.all.median_ns, a.all.p99_ns, a.all.max_ns) else {
        return lines;
    };
    lines.push((
        format!(
            "all {}: median {}, p99 {}, max {}",
            count_label(a.pairs as f64),
            show(median),
            show(p99),
            show(max)
        ),
        palette::BLUE,
    ));
    lines.push(match (a.steady.median_ns, a.steady.p99_ns) {
        (Some(median), Some(p99)) => (
            format!(
                "steady {}: median {}, p99 {}",
                count_label(a.steady.n as f64),
                show(median),
                show(p99)
            ),
            palette::GREEN,
        ),
        _ => (
            format!(
                "no steady state: every packet among the first {} of its session",
                a.first_k
            ),
            palette::GREY,
        ),
    });
    lines
}

/// Draws the slow zone and the reference lines across a chart whose y is latency.
pub(super) fn reference_lines<DB: DrawingBackend, X: Ranged<ValueType = f64>>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, impl Ranged<ValueType = f64>>>,
    lines: &[Line],
    (x0, x1): (f64, f64),
    (_, hi): (f64, f64),
) -> Result<(), ChartError> {
    for line in lines {
        if let Some(zone) = line.zone {
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(x0, us(line.value)), (x1, hi)],
                    zone.filled(),
                )))
                .map_err(draw_err)?;
        }
    }
    for line in lines {
        let y = us(line.value);
        draw_line(chart, line, [(x0, y), (x1, y)])?;
    }
    Ok(())
}

/// One reference line between `ends`, in its own style.
fn draw_line<DB: DrawingBackend, X, Y>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<X, Y>>,
    line: &Line,
    ends: [(f64, f64); 2],
) -> Result<(), ChartError>
where
    X: Ranged<ValueType = f64>,
    Y: Ranged<ValueType = f64>,
{
    let style = line.color.stroke_width(LINE);
    match line.dash {
        Some((dash, gap)) => chart
            .draw_series(DashedLineSeries::new(ends, dash, gap, style))
            .map(|_| ()),
        None => chart.draw_series(LineSeries::new(ends, style)).map(|_| ()),
    }
    .map_err(draw_err)
}

/// A chart of latency (log µs) against percentile.
pub(super) type PercentileChart<'a, DB> =
    ChartContext<'a, DB, Cartesian2d<axes::Ticked, WithKeyPoints<LogCoord<f64>>>>;

/// The percentile plot's axes, drawn: percentile on a scale where 90 %, 99 % and 99.9 % are evenly spaced, up to `x_max`,
/// latency on a log scale.
pub(super) fn percentile_chart<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    x_max: f64,
    (lo, hi): (f64, f64),
    x_desc: &str,
) -> Result<PercentileChart<'a, DB>, ChartError> {
    let mut chart = canvas::panel(area)
        .build_cartesian_2d(
            axes::Ticked {
                range: 0.0..x_max,
                ticks: pct_ticks(x_max),
            },
            axes::latency_axis(lo, hi),
        )
        .map_err(draw_err)?;
    canvas::mesh(&mut chart)
        .x_label_formatter(&|x| pct_label(*x))
        .y_label_formatter(&|y| latency_label(*y))
        .x_desc(x_desc)
        .draw()
        .map_err(draw_err)?;
    Ok(chart)
}

fn percentile_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    a: &Analysis,
    marks: &Marks,
    lines: &[Line],
    (lo, hi): (f64, f64),
) -> Result<(), ChartError> {
    let n = a.samples.len();
    let x_max = (n as f64).log10().max(1.0) + 0.15;
    let mut chart = percentile_chart(
        area,
        x_max,
        (lo, hi),
        "percentile (each step to the right: 10 times rarer)",
    )?;
    reference_lines(&mut chart, lines, (0.0, x_max), (lo, hi))?;
    // All packets wide underneath, the steady state on top: where they part, the first
    // packets (or the pauses) made the difference.
    let all = series::curve(&a.samples, None, FLOOR_US);
    chart
        .draw_series(LineSeries::new(all, palette::BLUE.stroke_width(CURVE + 3)))
        .map_err(draw_err)?;
    let steady = series::curve(&a.samples, Some(Class::Steady), FLOOR_US);
    chart
        .draw_series(LineSeries::new(
            steady,
            palette::GREEN.stroke_width(CURVE - 1),
        ))
        .map_err(draw_err)?;
    chart
        .draw_series(
            marks
                .first
                .iter()
                .map(|p| TriangleMarker::new(*p, 11, first_color(a).filled())),
        )
        .map_err(draw_err)?;
    chart
        .draw_series(marks.after.iter().map(|(x, y)| {
            EmptyElement::at((*x, *y))
                + Rectangle::new([(-9, -9), (9, 9)], palette::PURPLE.filled())
        }))
        .map_err(draw_err)?;
    Ok(())
}

fn histogram_panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    a: &Analysis,
    lines: &[Line],
    (lo, hi): (f64, f64),
) -> Result<(), ChartError> {
    let bars = series::bars(&a.samples, lo, hi, 8);
    let peak = bars.iter().map(|b| b.all).max().unwrap_or(1).max(1) as f64;
    let mut chart = canvas::panel(area)
        .build_cartesian_2d(
            axes::latency_axis(lo, hi),
            (0.6..peak * 2.5)
                .log_scale()
                .with_key_points(axes::count_ticks(peak * 2.5)),
        )
        .map_err(draw_err)?;
    canvas::mesh(&mut chart)
        .x_label_formatter(&|x| latency_label(*x))
        .y_label_formatter(&|y| count_label(*y))
        .x_desc("latency (8 bins per doubling)")
        .y_desc("packets")
        .draw()
        .map_err(draw_err)?;
    chart
        .draw_series(
            bars.iter().filter(|b| b.all > 0).map(|b| {
                Rectangle::new([(b.lo, 0.6), (b.hi, b.all as f64)], palette::BLUE.filled())
            }),
        )
        .map_err(draw_err)?;
    // The packets set up by the CPU in front of the bars they belong to: first packets in
    // the left half, packets after a pause in the right.
    let halves = |b: &series::Bar| {
        let (edge, mid) = ((b.hi / b.lo).powf(0.125), (b.hi * b.lo).sqrt());
        ((b.lo * edge, mid), (mid, b.hi / edge))
    };
    chart
        .draw_series(bars.iter().filter(|b| b.first > 0).map(|b| {
            let ((x0, x1), _) = halves(b);
            Rectangle::new([(x0, 0.6), (x1, b.first as f64)], first_color(a).filled())
        }))
        .map_err(draw_err)?;
    chart
        .draw_series(bars.iter().filter(|b| b.after_pause > 0).map(|b| {
            let (_, (x0, x1)) = halves(b);
            Rectangle::new(
                [(x0, 0.6), (x1, b.after_pause as f64)],
                palette::PURPLE.filled(),
            )
        }))
        .map_err(draw_err)?;
    for line in lines {
        let x = us(line.value);
        draw_line(&mut chart, line, [(x, 0.6), (x, peak * 2.5)])?;
    }
    Ok(())
}
