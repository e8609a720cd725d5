//! Synthetic captures shaped on the lab figures: the analyser recovers the medians within
//! 20 ns, lists the first packets apart and gives each verdict.

use std::path::{Path, PathBuf};

use premarket::probe::analysis::Options;
use premarket::probe::calibration::Calibration;
use premarket::probe::format::Records;
use premarket::probe::offline;
use premarket::probe::record::Endian;
use premarket::probe::stats::{MEDIAN, percentile};
use premarket::probe::synth::{self, Profile, Spec, Truth};
use premarket::probe::units::{Meters, Nanos, NanosPerMeter};
use premarket::probe::verdict::Kind;
use premarket::probe::{pair::Sides, pcapng};

fn generate(dir: &Path, spec: &Spec) -> (PathBuf, Truth) {
    let path = dir.join(format!("{:?}-{}.pcap", spec.profile, spec.seed));
    let truth = synth::generate(spec, std::fs::File::create(&path).unwrap()).unwrap();
    (path, truth)
}

fn truth_median(truth: &Truth) -> Nanos {
    let mut v = truth.latencies.clone();
    v.sort_unstable();
    percentile(&v, MEDIAN).unwrap()
}

#[test]
fn each_profile_gets_its_verdict_and_its_median() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        (Profile::Offloaded, Kind::Offloaded),
        (Profile::Cpu, Kind::CpuPath),
        (Profile::NewSession, Kind::NewSessionPerPacket),
        (Profile::Pause, Kind::IdleExpiry),
        (Profile::Loss, Kind::Loss),
    ];
    for (profile, want) in cases {
        for seed in [1, 2] {
            let spec = Spec::lab(profile, 10_000, seed);
            let (path, truth) = generate(dir.path(), &spec);
            let options = Options {
                calibration: Calibration::fixed(436.8),
                ..Options::default()
            };
            let a = offline::analyze_files(&[path], &options).unwrap();
            assert_eq!(a.verdict, want, "{profile:?} seed {seed}: {}", a.reason);
            let got = a.all.median_ns.unwrap();
            let expected = truth_median(&truth);
            assert!(
                (got.0 - expected.0).abs() <= 20,
                "{profile:?}: median {got} vs truth {expected}"
            );
            assert_eq!(a.pairs, truth.latencies.len());
            assert_eq!(a.lost, truth.dropped);
        }
    }
}

#[test]
fn offloaded_lists_the_first_two_packets_apart() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = generate(dir.path(), &Spec::lab(Profile::Offloaded, 10_000, 3));
    let a = offline::analyze_files(
        &[path],
        &Options {
            calibration: Calibration::fixed(436.8),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(a.first_packets.len(), 2);
    assert!(
        a.first_packets
            .iter()
            .all(|p| p.slow && p.latency_ns.0 >= 38_990 && p.latency_ns.0 <= 49_010)
    );
    assert_eq!(
        a.first_packets.iter().map(|p| p.seq).collect::<Vec<_>>(),
        vec![Some(0), Some(1)]
    );
    assert_eq!((a.slow.steady, a.steady.n), (0, 9_998));
    assert!((a.steady.median_ns.unwrap().0 - 4_100).abs() <= 20);
    assert!(a.steady.p99_ns.unwrap().0 <= 4_200);
    assert!(a.reason.contains("offloaded"));
}

#[test]
fn the_pause_is_found_and_the_packets_after_it_are_slow() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = generate(dir.path(), &Spec::lab(Profile::Pause, 2_000, 4));
    let a = offline::analyze_files(
        std::slice::from_ref(&path),
        &Options {
            calibration: Calibration::fixed(436.8),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(a.pauses.len(), 1);
    let pause = &a.pauses[0];
    assert_eq!(pause.index, 1_000);
    assert!(pause.gap_ns.0 > 199_000_000_000);
    assert_eq!(pause.after_ns.len(), 2);
    assert!(pause.slow_after);
    // With the idle timer longer than the pause the session survives: the packets after the
    // pause are counted as steady state, two of them slow, which is not enough to say CPU path.
    let longer = Options {
        calibration: Calibration::fixed(436.8),
        idle_timer: Nanos::from_secs_f64(300.0),
        ..Options::default()
    };
    let a = offline::analyze_files(&[path], &longer).unwrap();
    assert!(a.pauses.is_empty());
    assert_eq!(a.slow.steady, 2);
    assert_eq!(a.verdict, Kind::Inconclusive, "{}", a.reason);
}

#[test]
fn first_packets_not_slow_means_the_session_was_not_new() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = generate(dir.path(), &Spec::lab(Profile::Offloaded, 3_000, 5));
    // Treat the first 2 packets as steady and the next 2 as "first": the window misses the setup.
    let bytes = std::fs::read(&path).unwrap();
    let records: Vec<_> = Records::open(&bytes)
        .unwrap()
        .map(Result::unwrap)
        .skip(4)
        .collect();
    let mut w = premarket::probe::pcap::Writer::nano(Vec::new()).unwrap();
    for r in &records {
        w.write(r.ts, r.data).unwrap();
    }
    let cut = dir.path().join("cut.pcap");
    std::fs::write(&cut, w.into_inner()).unwrap();
    let a = offline::analyze_files(
        &[cut],
        &Options {
            calibration: Calibration::fixed(436.8),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(a.verdict, Kind::FirstPacketsNotSlow, "{}", a.reason);
    assert!(a.reason.contains("probably not new"));
}

#[test]
fn dac_run_calibrates_to_the_lab_figure() {
    let dir = tempfile::tempdir().unwrap();
    let mut dac = Spec::lab(Profile::Dac, 2_000, 6);
    dac.calibration_ns = 412.0;
    let (dac_path, _) = generate(dir.path(), &dac);
    let c = offline::calibrate_from(
        &dac_path,
        Sides::default(),
        Meters(5.0),
        NanosPerMeter(4.96),
    )
    .unwrap();
    // Both stamps fall on a 6.206 ns grid: the DAC median is within one tick of 412 ns.
    assert!((c.baseline_ns - 412.0).abs() <= 6.3, "{c:?}");
    assert!((c.cable_ns - 24.8).abs() < 1e-9);
    let (path, truth) = generate(dir.path(), &Spec::lab(Profile::Offloaded, 10_000, 6));
    let a = offline::analyze_files(
        &[path],
        &Options {
            calibration: c,
            ..Options::default()
        },
    )
    .unwrap();
    assert!((a.all.median_ns.unwrap().0 - truth_median(&truth).0).abs() <= 20);
    assert_eq!(a.verdict, Kind::Offloaded);
}

#[test]
fn pcapng_with_two_interfaces_gives_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = generate(dir.path(), &Spec::lab(Profile::Cpu, 3_000, 7));
    let bytes = std::fs::read(&path).unwrap();
    let mut w = pcapng::Writer::new(Vec::new(), Endian::Big).unwrap();
    let ns = w.interface(Some(9)).unwrap();
    let binary = w.interface(Some(0x80 | 32)).unwrap();
    for (i, r) in Records::open(&bytes)
        .unwrap()
        .map(Result::unwrap)
        .enumerate()
    {
        w.write(if i % 2 == 0 { ns } else { binary }, r.ts, r.data)
            .unwrap();
    }
    let ng = dir.path().join("x.pcapng");
    std::fs::write(&ng, w.into_inner()).unwrap();
    let options = Options {
        calibration: Calibration::fixed(436.8),
        ..Options::default()
    };
    let a = offline::analyze_files(&[path], &options).unwrap();
    let b = offline::analyze_files(&[ng], &options).unwrap();
    assert_eq!(b.format, "pcapng (units of 10^-9 s, 2^-32 s)");
    assert_eq!((a.pairs, a.verdict), (b.pairs, b.verdict));
    assert!((a.all.median_ns.unwrap().0 - b.all.median_ns.unwrap().0).abs() <= 1);
}

#[test]
fn before_and_after_in_separate_files_pair_across_files() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = generate(dir.path(), &Spec::lab(Profile::Offloaded, 1_000, 8));
    let bytes = std::fs::read(&path).unwrap();
    let mut before = premarket::probe::pcap::Writer::new(
        Vec::new(),
        Endian::Big,
        premarket::probe::pcap::Resolution::Nano,
    )
    .unwrap();
    let mut after = premarket::probe::pcap::Writer::nano(Vec::new()).unwrap();
    for (i, r) in Records::open(&bytes)
        .unwrap()
        .map(Result::unwrap)
        .enumerate()
    {
        if i % 2 == 0 {
            before.write(r.ts, r.data).unwrap()
        } else {
            after.write(r.ts, r.data).unwrap()
        }
    }
    let (b, a) = (dir.path().join("b.pcap"), dir.path().join("a.pcap"));
    std::fs::write(&b, before.into_inner()).unwrap();
    std::fs::write(&a, after.into_inner()).unwrap();
    let x = offline::analyze_files(
        &[a, b],
        &Options {
            calibration: Calibration::fixed(436.8),
            ..Options::default()
        },
    )
    .unwrap();
    assert_eq!(
        (x.pairs, x.verdict, x.vlan_before),
        (1_000, Kind::Offloaded, Some(10))
    );
}

#[test]
fn microsecond_pcap_is_indicative_only() {
    let dir = tempfile::tempdir().unwrap();
    let (path, _) = generate(dir.path(), &Spec::lab(Profile::Offloaded, 1_000, 9));
    let bytes = std::fs::read(&path).unwrap();
    let mut w = premarket::probe::pcap::Writer::new(
        Vec::new(),
        Endian::Little,
        premarket::probe::pcap::Resolution::Micro,
    )
    .unwrap();
    for r in Records::open(&bytes).unwrap().map(Result::unwrap) {
        w.write(r.ts, r.data).unwrap();
    }
    let us = dir.path().join("us.pcap");
    std::fs::write(&us, w.into_inner()).unwrap();
    let a = offline::analyze_files(
        &[us],
        &Options {
            calibration: Calibration::fixed(436.8),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(a.indicative);
    assert_eq!(a.tick_ns, Nanos(1_000));
}
