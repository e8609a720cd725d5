//! The probe's charts, drawn for a latency engineer reading an email on a phone: the latency
//! of one measurement (percentile plot over a histogram), and ABBA rounds overlaid. Each is
//! PNG bytes (the email attaches them; `--chart FILE` writes them) or an SVG document (for
//! the archive, at a desk).
//!
//! [`canvas`] holds what every chart shares (size, fonts, palette, encodings) and [`axes`] the
//! axes; `report::trend` draws the trend over mornings with them.

pub mod axes;
pub mod canvas;
pub mod latency;
pub mod rounds;
pub mod series;

pub use canvas::ChartError;
pub use latency::References;

use super::analysis::Analysis;
use super::rounds::Abba;
use latency::LatencyChart;
use rounds::RoundsChart;

/// The chart of one measurement as PNG, with the lab's figures as references.
pub fn png(a: &Analysis) -> Result<Vec<u8>, ChartError> {
    png_with(a, &References::default())
}

/// The chart of one measurement as PNG, with the given references.
pub fn png_with(a: &Analysis, refs: &References) -> Result<Vec<u8>, ChartError> {
    canvas::png(&LatencyChart { analysis: a, refs })
}

/// The chart of one measurement as SVG, with the lab's figures as references.
pub fn svg(a: &Analysis) -> Result<String, ChartError> {
    svg_with(a, &References::default())
}

/// The chart of one measurement as SVG, with the given references.
pub fn svg_with(a: &Analysis, refs: &References) -> Result<String, ChartError> {
    canvas::svg(&LatencyChart { analysis: a, refs })
}

/// ABBA rounds (label, analysis) overlaid, with the effect and drift, as PNG.
pub fn rounds_png(
    rounds: &[(String, &Analysis)],
    abba: &Abba,
    refs: &References,
) -> Result<Vec<u8>, ChartError> {
    canvas::png(&RoundsChart { rounds, abba, refs })
}

/// The same as SVG.
pub fn rounds_svg(
    rounds: &[(String, &Analysis)],
    abba: &Abba,
    refs: &References,
) -> Result<String, ChartError> {
    canvas::svg(&RoundsChart { rounds, abba, refs })
}
