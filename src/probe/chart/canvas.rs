//! The surface every chart is drawn on: size, fonts, palette, and the two encodings (PNG for
//! the email, SVG for a desk).
//!
//! Sized for a phone. An email shows an image about 390 px wide on a phone, so charts are
//! drawn 780 px wide (twice that, sharp on a high-density screen) with text of at least 22 px
//! and lines of at least 3 px: scaled to 390 px, text is 11 px and no line is thinner than
//! 1.5 px. The DejaVu font is compiled in (the `dejavu` crate, through plotters' ab_glyph
//! backend), so a cron host without fonts draws the same PNG; the SVG names the font and lets
//! the viewer draw the text.

use std::sync::OnceLock;

use plotters::chart::MeshStyle;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{Ranged, ValueFormatter};
use plotters::prelude::*;
use plotters::style::FontStyle;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// Every chart's width in pixels (twice the 390 px an email shows on a phone).
pub const WIDTH: u32 = 780;
pub const FONT: &str = "sans-serif";
/// Text sizes in pixels at [`WIDTH`]; halve them for what a phone shows.
pub const TITLE: u32 = 30;
pub const TEXT: u32 = 22;
/// Stroke widths in pixels at [`WIDTH`].
pub const CURVE: u32 = 5;
pub const LINE: u32 = 3;

/// The Okabe-Ito palette: told apart by colour-blind readers too. Each colour has one
/// meaning across the charts (tests count pixels of a colour to find a mark).
pub mod palette {
    use plotters::style::RGBColor;

    /// All packets; offload on in ABBA rounds; the probe's median in the trend.
    pub const BLUE: RGBColor = RGBColor(0x00, 0x72, 0xb2);
    /// The steady state; npu sessions in the trend.
    pub const GREEN: RGBColor = RGBColor(0x00, 0x9e, 0x73);
    /// First packets of a session (set up by the firewall's CPU).
    pub const VERMILLION: RGBColor = RGBColor(0xd5, 0x5e, 0x00);
    /// Packets after a pause longer than the idle timer.
    pub const PURPLE: RGBColor = RGBColor(0xcc, 0x79, 0xa7);
    /// Offload off in ABBA rounds; the probe's p99 and the setup rate in the trend.
    pub const ORANGE: RGBColor = RGBColor(0xe6, 0x9f, 0x00);
    /// Reference lines (the lab's figures, the baseline's limits).
    pub const GREY: RGBColor = RGBColor(0x55, 0x55, 0x55);
    /// Grid lines.
    pub const GRID: RGBColor = RGBColor(0xdd, 0xdd, 0xdd);
    /// The slow zone above the threshold.
    pub const SLOW_ZONE: RGBColor = RGBColor(0xfb, 0xe8, 0xe0);
    /// The slow zone of a measurement that is as it should be: there, but not alarming.
    pub const CALM_ZONE: RGBColor = RGBColor(0xf4, 0xf4, 0xf4);
    /// First packets of a session in a measurement that is as it should be (offloaded):
    /// slow as expected, drawn without alarm.
    pub const FIRST_CALM: RGBColor = RGBColor(0x99, 0x99, 0x99);
    pub const TEXT: RGBColor = RGBColor(0x22, 0x22, 0x22);
}

#[derive(Clone, Debug, thiserror::Error)]
pub enum ChartError {
    #[error("cannot draw the chart: {0}")]
    Draw(String),
    #[error("cannot encode the chart: {0}")]
    Encode(String),
}

pub fn draw_err<E: std::fmt::Debug>(e: E) -> ChartError {
    ChartError::Draw(format!("{e:?}"))
}

fn register_fonts() -> Result<(), ChartError> {
    static DONE: OnceLock<Result<(), ChartError>> = OnceLock::new();
    let invalid = |_| ChartError::Draw("invalid font".to_string());
    DONE.get_or_init(|| {
        plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular())
            .map_err(invalid)?;
        plotters::style::register_font(FONT, FontStyle::Bold, dejavu::sans::bold()).map_err(invalid)
    })
    .clone()
}

/// A chart that can be drawn on any backend.
pub trait Drawing {
    /// Width and height in pixels.
    fn size(&self) -> (u32, u32);
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> Result<(), ChartError>;
}

/// Draws as PNG bytes.
pub fn png(chart: &impl Drawing) -> Result<Vec<u8>, ChartError> {
    register_fonts()?;
    let (width, height) = chart.size();
    let mut rgb = vec![255u8; width as usize * height as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (width, height)).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        chart.draw(&root)?;
        root.present().map_err(draw_err)?;
    }
    let mut out = Vec::new();
    let mut encoder = png::Encoder::new(&mut out, width, height);
    encoder.set_color(png::ColorType::Rgb);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder
        .write_header()
        .map_err(|e| ChartError::Encode(e.to_string()))?;
    writer
        .write_image_data(&rgb)
        .map_err(|e| ChartError::Encode(e.to_string()))?;
    writer
        .finish()
        .map_err(|e| ChartError::Encode(e.to_string()))?;
    Ok(out)
}

/// Draws as an SVG document.
pub fn svg(chart: &impl Drawing) -> Result<String, ChartError> {
    register_fonts()?;
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, chart.size()).into_drawing_area();
        root.fill(&WHITE).map_err(draw_err)?;
        chart.draw(&root)?;
        root.present().map_err(draw_err)?;
    }
    Ok(out)
}

/// A text style of `size` px in `color`.
pub fn text(size: u32, color: RGBColor) -> TextStyle<'static> {
    (FONT, size).into_font().color(&color)
}

/// Text of [`TEXT`] size anchored at its `h`orizontal and `v`ertical side.
pub fn anchored(color: RGBColor, h: HPos, v: VPos) -> TextStyle<'static> {
    text(TEXT, color).pos(Pos::new(h, v))
}

pub fn bold(size: u32, color: RGBColor) -> TextStyle<'static> {
    (FONT, size)
        .into_font()
        .style(FontStyle::Bold)
        .color(&color)
}

/// Writes `lines` from the top left of `area` (title first, in bold when `first_bold`), and
/// returns the area below them.
pub fn heading<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[(String, RGBColor)],
) -> Result<DrawingArea<DB, Shift>, ChartError> {
    let mut y = 12;
    for (i, (line, color)) in lines.iter().enumerate() {
        let (style, size) = if i == 0 {
            (bold(TITLE, *color), TITLE)
        } else {
            (text(TEXT, *color), TEXT)
        };
        area.draw(&Text::new(line.as_str(), (16, y), style))
            .map_err(draw_err)?;
        y += size as i32 + 8;
    }
    let (_, below) = area.split_vertically(y + 4);
    Ok(below)
}

/// Writes a note in the middle of `area` (a chart with nothing to draw says why).
pub fn note<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    lines: &[&str],
) -> Result<(), ChartError> {
    let (w, h) = area.dim_in_pixel();
    let style = anchored(palette::GREY, HPos::Center, VPos::Center);
    let step = TEXT as i32 + 10;
    let top = h as i32 / 2 - step * (lines.len() as i32 - 1) / 2;
    for (i, line) in lines.iter().enumerate() {
        area.draw(&Text::new(
            *line,
            (w as i32 / 2, top + step * i as i32),
            style.clone(),
        ))
        .map_err(draw_err)?;
    }
    area.draw(&Rectangle::new(
        [(8, 8), (w as i32 - 8, h as i32 - 8)],
        palette::GRID.stroke_width(LINE),
    ))
    .map_err(draw_err)
}

/// How a legend entry is drawn.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    Line {
        color: RGBColor,
        width: u32,
    },
    Dashed {
        color: RGBColor,
        width: u32,
    },
    /// A line of dashes this long with gaps this long (px), as the chart draws it.
    Dashes {
        color: RGBColor,
        width: u32,
        dash: u32,
        gap: u32,
    },
    /// A zone with the line that bounds it (the slow threshold and the slow zone above it).
    Threshold {
        zone: RGBColor,
        line: RGBColor,
    },
    Triangle(RGBColor),
    Square(RGBColor),
    Circle(RGBColor),
    Band(RGBColor),
}

/// A legend entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub swatch: Swatch,
    pub label: String,
}

/// Draws `entries` in two columns at the top of `area` (never over the data, which on a phone
/// leaves no corner free), and returns the area below.
pub fn legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
) -> Result<DrawingArea<DB, Shift>, ChartError> {
    let row = TEXT as i32 + 12;
    let rows = entries.len().div_ceil(2) as i32;
    let (w, _) = area.dim_in_pixel();
    let column = (w as i32 - 32) / 2;
    for (i, entry) in entries.iter().enumerate() {
        let (col, line) = ((i as i32) / rows.max(1), (i as i32) % rows.max(1));
        let x = 16 + col * column;
        let y = 8 + line * row + row / 2;
        swatch(area, entry.swatch, (x, y))?;
        let style = anchored(palette::TEXT, HPos::Left, VPos::Center);
        area.draw(&Text::new(entry.label.as_str(), (x + 48, y), style))
            .map_err(draw_err)?;
    }
    let (_, below) = area.split_vertically(8 + rows * row + 8);
    Ok(below)
}

fn swatch<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    swatch: Swatch,
    (x, y): (i32, i32),
) -> Result<(), ChartError> {
    let r = match swatch {
        Swatch::Line { color, width } => area.draw(&PathElement::new(
            [(x, y), (x + 36, y)],
            color.stroke_width(width),
        )),
        Swatch::Dashed { color, width } => {
            for start in [x, x + 22] {
                area.draw(&PathElement::new(
                    [(start, y), (start + 14, y)],
                    color.stroke_width(width),
                ))
                .map_err(draw_err)?;
            }
            Ok(())
        }
        Swatch::Dashes {
            color,
            width,
            dash,
            gap,
        } => {
            let (dash, step) = (dash as i32, (dash + gap).max(1) as i32);
            let mut start = x;
            while start < x + 36 {
                area.draw(&PathElement::new(
                    [(start, y), ((start + dash).min(x + 36), y)],
                    color.stroke_width(width),
                ))
                .map_err(draw_err)?;
                start += step;
            }
            Ok(())
        }
        Swatch::Threshold { zone, line } => {
            area.draw(&Rectangle::new(
                [(x, y - 12), (x + 36, y + 4)],
                zone.filled(),
            ))
            .map_err(draw_err)?;
            area.draw(&PathElement::new(
                [(x, y + 4), (x + 36, y + 4)],
                line.stroke_width(LINE),
            ))
        }
        Swatch::Triangle(color) => area.draw(&TriangleMarker::new((x + 18, y), 11, color.filled())),
        Swatch::Square(color) => area.draw(&Rectangle::new(
            [(x + 9, y - 9), (x + 27, y + 9)],
            color.filled(),
        )),
        Swatch::Circle(color) => area.draw(&Circle::new((x + 18, y), 10, color.filled())),
        Swatch::Band(color) => area.draw(&Rectangle::new(
            [(x, y - 10), (x + 36, y + 10)],
            color.filled(),
        )),
    };
    r.map_err(draw_err)
}

/// A panel's chart builder: the margins and label areas every panel uses (labels of 22 px
/// need 110 px beside the y axis and 70 px under the x axis).
pub fn panel<'a, 'b, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
) -> ChartBuilder<'a, 'b, DB> {
    let mut builder = ChartBuilder::on(area);
    builder
        .margin_left(12)
        .margin_right(44)
        .margin_top(16)
        .x_label_area_size(70)
        .y_label_area_size(110);
    builder
}

/// A panel's grid, axes and tick labels at phone size; the caller adds formatters and
/// descriptions, then draws.
pub fn mesh<'a, 'b, XT, YT, X, Y, DB>(
    chart: &'b mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
) -> MeshStyle<'a, 'b, X, Y, DB>
where
    DB: DrawingBackend,
    X: Ranged<ValueType = XT> + ValueFormatter<XT>,
    Y: Ranged<ValueType = YT> + ValueFormatter<YT>,
{
    let mut mesh = chart.configure_mesh();
    mesh.label_style(text(TEXT, palette::TEXT))
        .axis_desc_style(text(TEXT, palette::TEXT))
        .bold_line_style(palette::GRID.stroke_width(2))
        .light_line_style(palette::GRID.stroke_width(1))
        .axis_style(palette::TEXT.stroke_width(2));
    mesh
}
