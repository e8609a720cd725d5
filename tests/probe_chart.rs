//! The probe's charts rendered for fixed synthetic captures, checked the way a person would:
//! the size of the image, the marks of the first packets and of the packets after a pause
//! present (counted as pixels of their colour), the ABBA rounds in their two colours, and a
//! note instead of a failure when there is nothing to draw. Set PREMARKET_CHART_DIR to keep
//! the images for looking at them.

use crate::chart_support;

use std::path::Path;

use chart_support::{decode, keep, pixels_of};
use premarket::probe::analysis::{Analysis, Options};
use premarket::probe::calibration::Calibration;
use premarket::probe::chart::canvas::{WIDTH, palette};
use premarket::probe::chart::{self, References};
use premarket::probe::offline;
use premarket::probe::rounds;
use premarket::probe::synth::{self, Profile, Spec};
use premarket::probe::units::Nanos;

fn analyse(dir: &Path, profile: Profile, count: usize, seed: u64) -> Analysis {
    let path = dir.join(format!("{profile:?}-{seed}.pcap"));
    let spec = Spec::lab(profile, count, seed);
    synth::generate(&spec, std::fs::File::create(&path).unwrap()).unwrap();
    let options = Options {
        calibration: Calibration::fixed(436.8),
        ..Options::default()
    };
    offline::analyze_files(&[path], &options).unwrap()
}

/// The legend's swatches of a colour (one triangle or square, drawn once).
const LEGEND_SWATCH_MAX: usize = 400;

#[test]
fn the_offloaded_chart_marks_its_two_slow_first_packets() {
    let dir = tempfile::tempdir().unwrap();
    let a = analyse(dir.path(), Profile::Offloaded, 20_000, 1);
    assert_eq!(a.first_packets_total, 2);
    let png = chart::png(&a).unwrap();
    keep("offloaded.png", &png);
    let (w, h, rgb) = decode(&png);
    assert_eq!(w, WIDTH);
    assert!(h > w, "a phone reads a tall chart: {w}x{h}");
    // Two triangles on the curve and two bars in the histogram, beyond the legend's swatch,
    // drawn calm: slow first packets are what an offloaded flow should show, not an alarm.
    assert_eq!(pixels_of(&rgb, palette::VERMILLION), 0, "nothing alarming");
    let first = pixels_of(&rgb, palette::FIRST_CALM);
    assert!(
        first > LEGEND_SWATCH_MAX + 2 * 60,
        "first-packet pixels: {first}"
    );
    // No pause, so no after-pause mark anywhere (not even in the legend).
    assert_eq!(pixels_of(&rgb, palette::PURPLE), 0);
    assert!(pixels_of(&rgb, palette::BLUE) > 5_000);
    assert!(pixels_of(&rgb, palette::GREEN) > 2_000);
}

#[test]
fn without_first_packets_there_is_no_first_packet_mark() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.pcap");
    synth::generate(
        &Spec::lab(Profile::Offloaded, 5_000, 2),
        std::fs::File::create(&path).unwrap(),
    )
    .unwrap();
    let options = Options {
        calibration: Calibration::fixed(436.8),
        first_k: 0,
        ..Options::default()
    };
    let a = offline::analyze_files(&[path], &options).unwrap();
    let (_, _, rgb) = decode(&chart::png(&a).unwrap());
    assert_eq!(pixels_of(&rgb, palette::VERMILLION), 0);
}

#[test]
fn the_packets_after_a_pause_are_marked_apart() {
    let dir = tempfile::tempdir().unwrap();
    let a = analyse(dir.path(), Profile::Pause, 10_000, 3);
    assert_eq!(a.pauses.len(), 1);
    let png = chart::png(&a).unwrap();
    keep("pause.png", &png);
    let (_, _, rgb) = decode(&png);
    let after = pixels_of(&rgb, palette::PURPLE);
    assert!(
        after > LEGEND_SWATCH_MAX + 2 * 100,
        "after-pause pixels: {after}"
    );
    assert!(pixels_of(&rgb, palette::VERMILLION) > LEGEND_SWATCH_MAX);
}

#[test]
fn cpu_path_and_new_session_charts_render_their_marks() {
    let dir = tempfile::tempdir().unwrap();
    for (profile, name) in [
        (Profile::Cpu, "cpu.png"),
        (Profile::NewSession, "new-session.png"),
    ] {
        let a = analyse(dir.path(), profile, 20_000, 4);
        let png = chart::png(&a).unwrap();
        keep(name, &png);
        let (w, _, rgb) = decode(&png);
        assert_eq!(w, WIDTH);
        let first = pixels_of(&rgb, palette::VERMILLION);
        assert!(
            first > LEGEND_SWATCH_MAX,
            "{name}: first-packet pixels {first}"
        );
        let svg = chart::svg_with(&a, &References::default()).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("percentile"));
        keep(&name.replace(".png", ".svg"), svg.as_bytes());
    }
}

#[test]
fn abba_rounds_overlay_in_two_colours_with_effect_and_drift() {
    let dir = tempfile::tempdir().unwrap();
    let plan = [
        ("on", Profile::Offloaded, 11),
        ("off", Profile::Cpu, 12),
        ("off", Profile::Cpu, 13),
        ("on", Profile::Offloaded, 14),
    ];
    let analyses: Vec<(String, Analysis)> = plan
        .iter()
        .map(|(label, profile, seed)| {
            (
                label.to_string(),
                analyse(dir.path(), *profile, 10_000, *seed),
            )
        })
        .collect();
    let medians: Vec<(String, Option<Nanos>)> = analyses
        .iter()
        .map(|(l, a)| (l.clone(), a.steady.median_ns))
        .collect();
    let abba = rounds::abba(&medians);
    let effect = abba.effect_ns.unwrap();
    assert!((-16_000.0..-13_000.0).contains(&effect), "effect {effect}");
    let borrowed: Vec<(String, &Analysis)> = analyses.iter().map(|(l, a)| (l.clone(), a)).collect();
    let png = chart::rounds_png(&borrowed, &abba, &References::default()).unwrap();
    keep("abba.png", &png);
    let (w, _, rgb) = decode(&png);
    assert_eq!(w, WIDTH);
    assert!(pixels_of(&rgb, palette::BLUE) > 3_000);
    assert!(pixels_of(&rgb, palette::ORANGE) > 3_000);
    let svg = chart::rounds_svg(&borrowed, &abba, &References::default()).unwrap();
    assert!(svg.contains("effect on"));
    assert!(svg.contains("drift"));
    keep("abba.svg", svg.as_bytes());
}

#[test]
fn nothing_to_draw_gives_a_chart_with_a_note() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.pcap");
    std::fs::write(
        &path,
        premarket::probe::pcap::Writer::nano(Vec::new())
            .unwrap()
            .into_inner(),
    )
    .unwrap();
    let a = offline::analyze_files(&[path], &Options::default()).unwrap();
    assert_eq!(a.pairs, 0);
    let png = chart::png(&a).unwrap();
    keep("empty.png", &png);
    let (w, _, rgb) = decode(&png);
    assert_eq!(w, WIDTH);
    // The heading's summary line is blue text; a curve would be thousands of pixels.
    assert!(pixels_of(&rgb, palette::BLUE) < 1_000);
    let svg = chart::svg_with(&a, &References::default()).unwrap();
    assert!(svg.contains("no pairs to chart"), "{svg}");
    // One pair is a curve of one point, still drawn.
    let one = analyse(dir.path(), Profile::Offloaded, 1, 5);
    assert_eq!(one.pairs, 1);
    let (_, _, rgb) = decode(&chart::png(&one).unwrap());
    assert!(pixels_of(&rgb, palette::VERMILLION) > LEGEND_SWATCH_MAX);
    let rounds_none = chart::rounds_svg(&[], &rounds::abba(&[]), &References::default()).unwrap();
    assert!(rounds_none.contains("no round"));
}
