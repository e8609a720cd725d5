//! Shared by the chart tests: read a rendered PNG back as pixels, count the pixels of one
//! palette colour, and keep the images for a person to look at (`PREMARKET_CHART_DIR=DIR`).
#![allow(dead_code)]

use std::path::Path;

use plotters::style::RGBColor;

/// Width, height and RGB pixels of a PNG.
pub fn decode(png: &[u8]) -> (u32, u32, Vec<u8>) {
    let mut reader = png::Decoder::new(png).read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgb);
    buf.truncate(info.buffer_size());
    (info.width, info.height, buf)
}

/// How many pixels have exactly this colour: the charts draw each mark in its own palette
/// colour, so a count says whether a mark is there.
pub fn pixels_of(rgb: &[u8], color: RGBColor) -> usize {
    rgb.chunks_exact(3)
        .filter(|p| (p[0], p[1], p[2]) == (color.0, color.1, color.2))
        .count()
}

/// Writes the image to `$PREMARKET_CHART_DIR/name` when that is set.
pub fn keep(name: &str, bytes: &[u8]) {
    if let Some(dir) = std::env::var_os("PREMARKET_CHART_DIR") {
        std::fs::write(Path::new(&dir).join(name), bytes).unwrap();
    }
}
