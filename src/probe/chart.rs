//! The latency chart: a histogram and a CDF over a log time axis, as PNG bytes (the email
//! attaches them; `--chart FILE` writes them). Fonts come from the `dejavu` crate, registered
//! with plotters' ab_glyph backend, so no system font is needed.

use std::sync::OnceLock;

use plotters::coord::combinators::IntoLogRange;
use plotters::prelude::*;
use plotters::style::FontStyle;

use super::analysis::Analysis;
use super::stats::log_histogram;

const WIDTH: u32 = 1000;
const HEIGHT: u32 = 700;
const FONT: &str = "sans-serif";

#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("no pairs to chart")]
    Empty,
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    #[error("cannot encode the chart: {0}")]
    Encode(String),
}

fn register_fonts() -> Result<(), ChartError> {
    static DONE: OnceLock<Result<(), String>> = OnceLock::new();
    DONE.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
            .map_err(|_| "invalid font".to_string())?;
        plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold())
            .map_err(|_| "invalid font".to_string())
    })
    .clone()
    .map_err(ChartError::Draw)
}

fn draw_err<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError::Draw(format!("{e:?}"))
}

/// Renders the chart as PNG bytes.
pub fn png(a: &Analysis) -> Result<Vec<u8>, ChartError> {
    if a.samples.is_empty() {
        return Err(ChartError::Empty);
    }
    register_fonts()?;
    let mut rgb = vec![255u8; (WIDTH * HEIGHT * 3) as usize];
    draw(a, &mut rgb)?;
    let mut out = Vec::new();
    {
        let mut encoder = png::Encoder::new(&mut out, WIDTH, HEIGHT);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder
            .write_header()
            .map_err(|e| ChartError::Encode(e.to_string()))?;
        writer
            .write_image_data(&rgb)
            .map_err(|e| ChartError::Encode(e.to_string()))?;
    }
    Ok(out)
}

fn draw(a: &Analysis, rgb: &mut [u8]) -> Result<(), ChartError> {
    let root = BitMapBackend::with_buffer(rgb, (WIDTH, HEIGHT)).into_drawing_area();
    root.fill(&WHITE).map_err(draw_err)?;
    let latencies: Vec<crate::probe::Nanos> = a.samples.latencies().collect();
    let us: Vec<f64> = latencies
        .iter()
        .map(|v| (v.0 as f64 / 1e3).max(0.001))
        .collect();
    let lo = us.first().copied().unwrap_or(0.001) / 1.2;
    let hi = us.last().copied().unwrap_or(1.0) * 1.2;
    let title = format!(
        "firewall latency: n={}, median {}, p99 {}, verdict {}{}",
        a.pairs,
        a.all.median_ns.map_or("-".into(), |v| v.to_string()),
        a.all.p99_ns.map_or("-".into(), |v| v.to_string()),
        a.verdict,
        if a.indicative { " (indicative)" } else { "" }
    );
    let root = root
        .titled(&title, (FONT, 20).into_font())
        .map_err(draw_err)?;
    let (top, bottom) = root.split_vertically(HEIGHT / 2 - 20);
    let threshold = a.slow.threshold_ns.as_micros_f64();

    let bins = log_histogram(&latencies, 16);
    let peak = bins.iter().map(|b| b.count).max().unwrap_or(1) as f64;
    let mut hist = ChartBuilder::on(&top)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption("histogram (16 bins per octave)", (FONT, 15))
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..peak * 1.1)
        .map_err(draw_err)?;
    hist.configure_mesh()
        .x_desc("latency (us, log)")
        .y_desc("packets")
        .label_style((FONT, 12))
        .draw()
        .map_err(draw_err)?;
    hist.draw_series(bins.iter().filter(|b| b.count > 0).map(|b| {
        let x0 = (b.lo_ns.0 as f64 / 1e3).max(lo);
        let x1 = (b.hi_ns.0 as f64 / 1e3).min(hi);
        Rectangle::new([(x0, 0.0), (x1, b.count as f64)], BLUE.mix(0.6).filled())
    }))
    .map_err(draw_err)?;
    if threshold > lo && threshold < hi {
        hist.draw_series(LineSeries::new(
            [(threshold, 0.0), (threshold, peak * 1.1)],
            RED.stroke_width(1),
        ))
        .map_err(draw_err)?
        .label(format!("slow threshold {}", a.slow.threshold_ns))
        .legend(|(x, y)| PathElement::new([(x, y), (x + 15, y)], RED));
        hist.configure_series_labels()
            .label_font((FONT, 12))
            .background_style(WHITE.mix(0.8))
            .draw()
            .map_err(draw_err)?;
    }

    let mut cdf = ChartBuilder::on(&bottom)
        .margin(10)
        .x_label_area_size(35)
        .y_label_area_size(60)
        .caption("cumulative distribution", (FONT, 15))
        .build_cartesian_2d((lo..hi).log_scale(), 0.0..1.0)
        .map_err(draw_err)?;
    cdf.configure_mesh()
        .x_desc("latency (us, log)")
        .y_desc("fraction <= x")
        .label_style((FONT, 12))
        .draw()
        .map_err(draw_err)?;
    let n = us.len();
    let step = (n / 2000).max(1);
    let points = (0..n)
        .step_by(step)
        .chain(std::iter::once(n - 1))
        .map(|i| (us[i], (i + 1) as f64 / n as f64));
    cdf.draw_series(LineSeries::new(points, BLUE.stroke_width(2)))
        .map_err(draw_err)?;
    if threshold > lo && threshold < hi {
        cdf.draw_series(LineSeries::new(
            [(threshold, 0.0), (threshold, 1.0)],
            RED.stroke_width(1),
        ))
        .map_err(draw_err)?;
    }
    root.present().map_err(draw_err)?;
    Ok(())
}
