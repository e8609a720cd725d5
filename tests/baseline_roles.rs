//! Shared baselines: the example switch split into a role file (`extends:`) holding most of
//! its keys, written with another indentation, and a device file holding its own. The split
//! site is judged exactly as the whole one; every mistake in an inherited value is reported
//! at the role file's own line and column; a loop is refused naming it; `show-baseline`
//! prints the merged baseline with each line's origin.

use crate::common::{self, Site};

use assert_cmd::Command;

const ROLE: &str = "baselines/arista-leaf.yaml";

/// The example site with sw1 split into `arista-leaf.yaml` and its own file.
fn split_site() -> Site {
    let site = Site::example();
    let whole = site.read("baselines/sw1.yaml");
    // The role: everything but the address, indented two more columns under each top-level
    // key (where the device file has two), and two values the device overrides (one of them
    // nested in `ptp:`).
    let role: String = whole
        .lines()
        .filter(|l| !l.contains("host:") && !l.contains("port: 2201"))
        .map(|l| {
            let spaces = l.len() - l.trim_start().len();
            let l = l
                .replace("slave_port: Ethernet1", "slave_port: Ethernet7")
                .replace("max_in_errors: 10", "max_in_errors: 99");
            let more = if spaces > 0 { "  " } else { "" };
            format!("{more}{l}\n")
        })
        .collect();
    site.write(
        ROLE,
        &format!("# The switches of the market-data path.\n{role}"),
    );
    site.write(
        "baselines/sw1.yaml",
        "# sw1: what is its own; the rest is its role's.\nextends: arista-leaf.yaml\nssh:\n  host: 127.0.0.1\n  port: 2201\nexpect:\n  ptp:\n    slave_port: Ethernet1\n  max_in_errors: 10\n",
    );
    site
}

fn premarket(site: &Site, args: &[&str]) -> (i32, String, String) {
    let out = Command::cargo_bin("premarket")
        .expect("binary")
        .arg("--dir")
        .arg(site.path())
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each result's check, device, status, summary, expected and actual.
fn verdicts(site: &Site, saved: &str) -> Vec<[String; 6]> {
    let saved = common::fixture(&format!("site/{saved}"));
    let (code, report, stderr) = common::offline_report(site.path(), &saved);
    assert!(code != 3, "{stderr}");
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            ["check", "device", "status", "summary", "expected", "actual"]
                .map(|k| r[k].as_str().unwrap_or_default().to_string())
        })
        .collect()
}

/// The 1-based number of the first line of `text` holding `needle`, and its column.
fn place(text: &str, needle: &str) -> (usize, usize) {
    text.lines()
        .enumerate()
        .find_map(|(i, l)| l.find(needle).map(|c| (i + 1, c + 1)))
        .unwrap_or_else(|| panic!("{needle:?} in\n{text}"))
}

#[test]
fn a_device_that_extends_a_role_is_judged_as_if_written_whole() {
    let (whole, split) = (Site::example(), split_site());
    for saved in ["healthy", "lanz-incident", "crc-errors"] {
        let want = verdicts(&whole, saved);
        assert!(want.iter().any(|v| v[1] == "sw1"), "{saved}: {want:?}");
        assert_eq!(verdicts(&split, saved), want, "{saved}");
    }
    let (code, _, stderr) = premarket(&split, &["validate"]);
    assert_eq!(code, 0, "{stderr}");
}

#[test]
fn a_mistake_in_an_inherited_value_is_reported_at_the_role_file() {
    // A built-in check's input, a key no check reads, a declarative rule's baseline value (the
    // device's own value left out, so that the role's is read).
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "lanz: true",
            "lanz: treu",
            "treu",
            "expect.lanz: true or false, not \"treu\"",
        ),
        (
            "lanz: true",
            "lanzz: true",
            "lanzz",
            "unknown key `expect.lanzz`",
        ),
        (
            "max_in_errors: 99",
            "max_in_errors: lots",
            "lots",
            "`expect.max_in_errors`, read by check eos.ports.errors-absent",
        ),
    ];
    for (from, to, at, words) in cases {
        let site = split_site();
        let role = site.read(ROLE).replacen(from, to, 1);
        site.write(ROLE, &role);
        let device = site
            .read("baselines/sw1.yaml")
            .replace("  max_in_errors: 10\n", "");
        site.write("baselines/sw1.yaml", &device);
        let (line, column) = place(&role, at);
        let (code, _, stderr) = premarket(&site, &["validate"]);
        assert_eq!(code, 3, "{to}: {stderr}");
        let want = format!("arista-leaf.yaml:{line}:{column}: ");
        assert!(
            stderr
                .lines()
                .any(|l| l.contains(&want) && l.contains(words)),
            "{to}: no error at {want} saying {words:?}:\n{stderr}"
        );
    }
    // A value the device overrides is its own: a mistake in it is reported at the device file.
    let site = split_site();
    let device = site
        .read("baselines/sw1.yaml")
        .replace("max_in_errors: 10", "max_in_errors: lots");
    site.write("baselines/sw1.yaml", &device);
    let (line, column) = place(&device, "lots");
    let (code, _, stderr) = premarket(&site, &["validate"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(&format!("sw1.yaml:{line}:{column}:")),
        "{stderr}"
    );
}

#[test]
fn a_loop_of_roles_is_refused_naming_it() {
    let site = split_site();
    let role = site.read(ROLE);
    site.write(ROLE, &format!("extends: base.yaml\n{role}"));
    site.write("baselines/base.yaml", "extends: arista-leaf.yaml\n");
    let (code, _, stderr) = premarket(&site, &["validate"]);
    assert_eq!(code, 3, "{stderr}");
    assert!(
        stderr.contains(
            "base.yaml:1:10: extends: arista-leaf.yaml makes a loop: arista-leaf.yaml -> base.yaml -> arista-leaf.yaml"
        ),
        "{stderr}"
    );
}

#[test]
fn show_baseline_prints_the_merged_baseline_with_each_line_s_origin() {
    let site = split_site();
    let (code, stdout, stderr) = premarket(&site, &["show-baseline", "--device", "sw1"]);
    assert_eq!(code, 0, "{stderr}");
    let role = site.read(ROLE);
    let device = site.read("baselines/sw1.yaml");
    assert!(
        stdout.starts_with("# sw1 (sw1.yaml, extends arista-leaf.yaml)"),
        "{stdout}"
    );
    let line_of = |needle: &str| {
        stdout
            .lines()
            .find(|l| l.contains(needle))
            .unwrap_or_else(|| panic!("{needle:?} in\n{stdout}"))
            .to_string()
    };
    // The device's own values, its role's, and the merged `ptp:` holding both.
    let own = line_of("slave_port");
    assert!(
        own.starts_with(&format!("sw1.yaml:{} ", place(&device, "slave_port").0)),
        "{own}"
    );
    assert!(own.ends_with("    slave_port: Ethernet1"), "{own}");
    let inherited = line_of("max_offset_ns");
    assert!(
        inherited.starts_with(&format!(
            "arista-leaf.yaml:{} ",
            place(&role, "max_offset_ns").0
        )),
        "{inherited}"
    );
    assert!(inherited.ends_with("    max_offset_ns: 100"), "{inherited}");
    assert!(line_of("user: premarket").starts_with("arista-leaf.yaml:"));
    assert!(line_of("host: 127.0.0.1").starts_with("sw1.yaml:4 "));
    assert!(!stdout.contains("Ethernet7") && !stdout.contains("max_in_errors: 99"));
    assert!(!stdout.contains("extends:"), "{stdout}");
    // A device that extends nothing: its own file.
    let (code, stdout, _) = premarket(&site, &["show-baseline", "--device", "fw1"]);
    assert_eq!(code, 0);
    assert!(stdout.starts_with("# fw1 (fw1.yaml): "), "{stdout}");
    assert!(
        stdout
            .lines()
            .nth(1)
            .is_some_and(|l| l.starts_with("fw1.yaml:1 ")),
        "{stdout}"
    );
}
