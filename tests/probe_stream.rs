//! The streaming analyser (`offline::analyze_files`) against pairing everything in memory
//! first (`offline::pair_files` + `analysis::analyze`): the same figures to the nanosecond for
//! every synthetic profile, for the two sides captured to two files, for a capture whose
//! first thousand requests put the VLANs the other way round, and for records written slightly
//! out of order. And the memory: a capture larger than the analyser may use is analysed in
//! less than its own size.

use std::path::{Path, PathBuf};

use premarket::probe::analysis::{self, Analysis, Options};
use premarket::probe::calibration::Calibration;
use premarket::probe::format::Records;
use premarket::probe::frame::{self, FrameSpec, Payload};
use premarket::probe::offline;
use premarket::probe::pcap;
use premarket::probe::synth::{self, Profile, Spec};
use premarket::probe::units::{Nanos, Vlan};
use premarket::probe::verdict::Kind;

fn options() -> Options {
    Options {
        calibration: Calibration::fixed(436.8),
        ..Options::default()
    }
}

fn synth(dir: &Path, profile: Profile, count: usize, seed: u64) -> PathBuf {
    let path = dir.join(format!("{profile:?}-{count}-{seed}.pcap"));
    let spec = Spec::lab(profile, count, seed);
    synth::generate(&spec, std::fs::File::create(&path).unwrap()).unwrap();
    path
}

fn in_memory(paths: &[PathBuf], options: &Options) -> Analysis {
    let (pairing, format, tick, notes) = offline::pair_files(paths, options.sides).unwrap();
    let files = paths.iter().map(|p| p.display().to_string()).collect();
    let mut a = analysis::analyze(pairing, files, format, tick, options);
    a.notes.extend(notes);
    a
}

/// Both ways give the same JSON and the same samples.
fn assert_same(streamed: &Analysis, memory: &Analysis, what: &str) {
    assert_eq!(
        serde_json::to_value(streamed).unwrap(),
        serde_json::to_value(memory).unwrap(),
        "{what}"
    );
    assert!(
        streamed.samples.iter().eq(memory.samples.iter()),
        "{what}: samples differ"
    );
}

#[test]
fn every_profile_gives_what_pairing_in_memory_gives() {
    let dir = tempfile::tempdir().unwrap();
    let profiles = [
        Profile::Offloaded,
        Profile::Cpu,
        Profile::NewSession,
        Profile::Pause,
        Profile::Loss,
        Profile::Dac,
    ];
    for profile in profiles {
        let path = [synth(dir.path(), profile, 5_000, 3)];
        let streamed = offline::analyze_files(&path, &options()).unwrap();
        assert_same(
            &streamed,
            &in_memory(&path, &options()),
            &format!("{profile:?}"),
        );
        assert_eq!(streamed.pairs + streamed.lost, 5_000, "{profile:?}");
    }
}

/// Writes `frames` (time, bytes) as nanosecond pcap.
fn write_pcap(path: &Path, frames: &[(Nanos, Vec<u8>)]) {
    let mut w = pcap::Writer::nano(Vec::new()).unwrap();
    for (ts, data) in frames {
        w.write(*ts, data).unwrap();
    }
    std::fs::write(path, w.into_inner()).unwrap();
}

fn frames_of(path: &Path) -> Vec<(Nanos, Vec<u8>)> {
    let bytes = std::fs::read(path).unwrap();
    Records::open(&bytes)
        .unwrap()
        .map(|r| r.map(|r| (r.ts, r.data.to_vec())).unwrap())
        .collect()
}

#[test]
fn the_two_sides_in_two_files_give_the_figures_of_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let one = synth(dir.path(), Profile::Cpu, 4_000, 5);
    let frames = frames_of(&one);
    let (before, after): (Vec<_>, Vec<_>) = frames
        .into_iter()
        .enumerate()
        .partition(|(i, _)| i % 2 == 0);
    let strip = |v: Vec<(usize, (Nanos, Vec<u8>))>| -> Vec<(Nanos, Vec<u8>)> {
        v.into_iter().map(|(_, f)| f).collect()
    };
    let (b, a) = (dir.path().join("b.pcap"), dir.path().join("a.pcap"));
    write_pcap(&b, &strip(before));
    write_pcap(&a, &strip(after));
    let split = offline::analyze_files(&[a, b], &options()).unwrap();
    let whole = in_memory(std::slice::from_ref(&one), &options());
    assert_eq!(
        (split.pairs, split.all, split.steady, split.verdict),
        (whole.pairs, whole.all, whole.steady, whole.verdict)
    );
}

#[test]
fn a_capture_whose_first_requests_vote_the_other_way_is_read_again() {
    let dir = tempfile::tempdir().unwrap();
    let mut frames = Vec::new();
    for seq in 0..4_000u64 {
        let payload = Payload {
            run: 1,
            round: 0,
            flags: 0,
            seq,
        };
        let tagged = |vlan: u16| {
            let spec = FrameSpec {
                vlans: [Some(Vlan(vlan)), None],
                ..FrameSpec::default()
            };
            frame::build(&spec, &payload)
        };
        // The first 1,100 requests come back on VLAN 10 *after* VLAN 20: the provisional
        // decision says 20 is "before"; the whole capture says 10.
        let (first, second) = if seq < 1_100 { (20, 10) } else { (10, 20) };
        let t = 1_000_000 * seq as i64;
        frames.push((Nanos(t), tagged(first)));
        frames.push((Nanos(t + 4_537), tagged(second)));
    }
    let path = [dir.path().join("flip.pcap")];
    write_pcap(&path[0], &frames);
    let streamed = offline::analyze_files(&path, &options()).unwrap();
    assert_eq!(streamed.vlan_before, Some(10));
    assert_eq!((streamed.pairs, streamed.negative), (2_900, 1_100));
    assert_same(&streamed, &in_memory(&path, &options()), "flip");
}

#[test]
fn records_slightly_out_of_order_give_the_same_figures() {
    let dir = tempfile::tempdir().unwrap();
    let path = synth(dir.path(), Profile::Pause, 3_000, 9);
    let mut frames = frames_of(&path);
    // Swap neighbours here and there, as a multi-queue capture writes them.
    for i in (0..frames.len() - 1).step_by(7) {
        frames.swap(i, i + 1);
    }
    let shuffled = [dir.path().join("shuffled.pcap")];
    write_pcap(&shuffled[0], &frames);
    let streamed = offline::analyze_files(&shuffled, &options()).unwrap();
    assert_eq!(streamed.verdict, Kind::IdleExpiry);
    assert_same(&streamed, &in_memory(&shuffled, &options()), "shuffled");
    assert!(
        !streamed
            .notes
            .iter()
            .any(|n| n.contains("out of time order")),
        "{:?}",
        streamed.notes
    );
}

/// The child's peak resident set, from `wait4` (this process's own other children do not
/// count, unlike `RUSAGE_CHILDREN`).
fn peak_rss_kb(mut command: std::process::Command) -> (i64, std::process::ExitStatus) {
    use std::os::unix::process::ExitStatusExt;
    // Waited for below with wait4, which std's Child cannot do.
    #[allow(clippy::zombie_processes)]
    let child = command.stdout(std::process::Stdio::null()).spawn().unwrap();
    let pid = child.id() as libc::pid_t;
    let mut status = 0;
    // SAFETY: an all-zero rusage is a valid value, and wait4 writes only into it and status.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: pid is our own child, not yet waited for; the pointers are valid for the call.
    let got = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(got, pid, "wait4: {}", std::io::Error::last_os_error());
    (usage.ru_maxrss, std::process::ExitStatus::from_raw(status))
}

#[test]
fn a_capture_is_analysed_in_less_memory_than_its_own_size() {
    let dir = tempfile::tempdir().unwrap();
    let path = synth(dir.path(), Profile::Offloaded, 400_000, 1);
    let size_kb = std::fs::metadata(&path).unwrap().len() as i64 / 1024;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_premarket"));
    command
        .args(["probe", "analyze", "--format", "json"])
        .arg(&path);
    let (peak_kb, status) = peak_rss_kb(command);
    assert_eq!(status.code(), Some(0));
    // Reading the file whole would take its 64 MB; streaming keeps 8 bytes per pair (3 MB)
    // and what the program needs anyway (measured: 28 MB in a debug build).
    assert!(
        peak_kb < 48 * 1024 && peak_kb < size_kb * 3 / 4,
        "peak {peak_kb} kB for a {size_kb} kB capture"
    );
}
