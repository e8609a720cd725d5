//! Every configuration mistake is a clear message with file:line:column and exit code 3, and
//! `premarket validate` reports them all at once.

use crate::common;

use assert_cmd::Command;
use common::Site;

fn validate(site: &Site) -> (i32, String) {
    let out = Command::cargo_bin("premarket")
        .expect("binary")
        .args(["validate", "--dir"])
        .arg(site.path())
        .output()
        .expect("run");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

struct Case {
    what: &'static str,
    file: &'static str,
    from: &'static str,
    to: &'static str,
    /// The error must point at the (first) line containing this text, at this column.
    line_with: &'static str,
    column: usize,
    words: &'static str,
}

const CASES: &[Case] = &[
    Case {
        what: "config_ignore regex that does not compile",
        file: "baselines/sw1.yaml",
        from: "  lanz: true",
        to: "  lanz: true\n  config_ignore: ['ok', '(unclosed']",
        line_with: "config_ignore",
        column: 25,
        words: "`config_ignore` entry `(unclosed` is not a regex",
    },
    Case {
        what: "unknown key",
        file: "baselines/site.yaml",
        from: "market_open:",
        to: "market_opn:",
        line_with: "market_opn",
        column: 1,
        words: "unknown field `market_opn`",
    },
    Case {
        what: "wrong type",
        file: "baselines/sw1.yaml",
        from: "port: 2201",
        to: "port: twenty",
        line_with: "port: twenty",
        column: 9,
        words: "ssh.port: a port number 1-65535, not \"twenty\"",
    },
    Case {
        what: "duplicate key",
        file: "baselines/sw1.yaml",
        from: "  lanz: true",
        to: "  lanz: true\n  lanz: false",
        line_with: "lanz: false",
        column: 3,
        words: "`lanz` appears twice",
    },
    Case {
        what: "missing device file",
        file: "baselines/site.yaml",
        from: "baseline: sw1.yaml",
        to: "baseline: sw9.yaml",
        line_with: "sw9.yaml",
        column: 15,
        words: "sw9.yaml does not exist",
    },
    Case {
        what: "duplicated check id",
        file: "checks/eos.yaml",
        from: "- id: eos.config.saved",
        to: "- id: eos.config.saved\n  title: again\n  platform: eos\n  remedy: x\n- id: eos.config.saved # the second one",
        line_with: "# the second one",
        column: 7,
        words: "defined twice (first at",
    },
    Case {
        what: "unknown check id",
        file: "checks/eos.yaml",
        from: "- id: eos.config.saved",
        to: "- id: eos.config.savd",
        line_with: "eos.config.savd",
        column: 7,
        words: "unknown check id eos.config.savd",
    },
    Case {
        what: "missing baseline value",
        file: "baselines/sw1.yaml",
        from: "  lanz: true\n",
        to: "",
        // serde-saphyr reports a missing field at the last entry of the mapping.
        line_with: "  flow_control:",
        column: 3,
        words: "needs `expect.lanz`",
    },
    Case {
        what: "wrong platform",
        file: "baselines/sw1.yaml",
        from: "platform: eos",
        to: "platform: cisco",
        line_with: "platform: cisco",
        column: 11,
        words: "unknown variant",
    },
    Case {
        what: "bad time zone",
        file: "baselines/site.yaml",
        from: "Asia/Taipei",
        to: "Asia/Taipie",
        line_with: "Asia/Taipie",
        column: 11,
        words: "unknown time zone",
    },
    Case {
        what: "inline secret",
        file: "baselines/sw1.yaml",
        from: "password: { env: PREMARKET_SW1_PASSWORD }",
        to: "password: hunter2",
        line_with: "hunter2",
        column: 13,
        words: "",
    },
    Case {
        what: "a device name that is not one plain path component",
        file: "baselines/site.yaml",
        from: "  - name: sw1",
        to: "  - name: ../sw1",
        line_with: "../sw1",
        column: 11,
        words: "device name \"../sw1\" is not allowed",
    },
    Case {
        what: "a password sent in clear to a relay that is not on loopback",
        file: "baselines/site.yaml",
        from: "  tls: starttls",
        to: "  tls: none",
        line_with: "host: smtp.example.net",
        column: 9,
        words: "would send the password in clear to smtp.example.net",
    },
    // Declarative checks (checks/*.yaml with `command` and `rule`).
    Case {
        what: "declarative: a command the EOS allowlist refuses",
        file: "checks/eos.yaml",
        from: "command: show queue-monitor length status | json",
        to: "command: show queue-monitor length status | redirect flash:lanz.txt",
        line_with: "redirect flash",
        column: 12,
        words: "the eos allowlist refuses `show queue-monitor length status | redirect flash:lanz.txt`",
    },
    Case {
        what: "declarative: an unknown operator",
        file: "checks/eos.yaml",
        from: "{ path: $.inErrors, increase_at_most:",
        to: "{ path: $.inErrors, increase_at_mst:",
        line_with: "increase_at_mst",
        column: 29,
        words: "unknown operator or key `increase_at_mst`",
    },
    Case {
        what: "declarative: a JSONPath that does not parse",
        file: "checks/eos.yaml",
        from: "each: $.interfaceErrorCounters.*",
        to: "each: $.interfaceErrorCounters.*[",
        line_with: "interfaceErrorCounters.*[",
        column: 11,
        words: "is not an RFC 9535 JSONPath",
    },
    Case {
        what: "declarative: a regex that does not compile (matches)",
        file: "checks/eos.yaml",
        from: "{ path: $.lanzEnabled, equals: { baseline: lanz } }",
        to: "{ path: $.lanzEnabled, matches: '^tru(' }",
        line_with: "matches:",
        column: 41,
        words: "is not a regex",
    },
    Case {
        what: "declarative: a baseline value of the wrong kind",
        file: "baselines/sw1.yaml",
        from: "max_in_errors: 10",
        to: "max_in_errors: ten",
        line_with: "max_in_errors: ten",
        column: 18,
        words: "`expect.max_in_errors`, read by check eos.ports.errors-absent as increase_at_most: increase_at_most needs a number",
    },
    Case {
        what: "declarative: rule without a command",
        file: "checks/eos.yaml",
        from: "  command: show queue-monitor length status | json\n",
        to: "",
        line_with: "- id: eos.lanz.running",
        column: 7,
        words: "needs both `command` and `rule`; `command` is missing",
    },
];

/// 1-based number of the first line of `text` containing `needle`.
fn line_of(text: &str, needle: &str) -> usize {
    text.lines()
        .position(|l| l.contains(needle))
        .map(|i| i + 1)
        .expect("marker line")
}

#[test]
fn each_mistake_names_file_line_column_and_exits_3() {
    for case in CASES {
        let site = Site::example();
        let text = site.read(case.file);
        assert!(
            text.contains(case.from),
            "{}: fixture text {:?} not in {}",
            case.what,
            case.from,
            case.file
        );
        let changed = text.replacen(case.from, case.to, 1);
        site.write(case.file, &changed);
        let (code, stderr) = validate(&site);
        let position = format!(
            "{}:{}:{}",
            case.file,
            line_of(&changed, case.line_with),
            case.column
        );
        assert_eq!(code, 3, "{}: {stderr}", case.what);
        assert!(
            stderr.contains(&position),
            "{}: expected {position} in:\n{stderr}",
            case.what
        );
        assert!(
            stderr.contains(case.words),
            "{}: expected {:?} in:\n{stderr}",
            case.what,
            case.words
        );
    }
}

/// A secret reference written wrongly is refused at its position, and whatever was written there
/// (it may be the password itself) never appears in the message.
#[test]
fn a_wrong_secret_reference_is_never_echoed() {
    for wrong in [
        "{s3cret}",
        "{ s3cret: x }",
        "[s3cret]",
        "{ env: [s3cret] }",
        "{ file: { s3cret: 1 } }",
        "{ 7: s3cret }",
    ] {
        let site = Site::example();
        let text = site.read("baselines/sw1.yaml");
        let changed = text.replacen(
            "password: { env: PREMARKET_SW1_PASSWORD }",
            &format!("password: {wrong}"),
            1,
        );
        site.write("baselines/sw1.yaml", &changed);
        let (code, stderr) = validate(&site);
        let position = format!("baselines/sw1.yaml:{}:13", line_of(&changed, "s3cret"));
        assert_eq!(code, 3, "{wrong}: {stderr}");
        assert!(
            stderr.contains(&position),
            "{wrong}: expected {position} in:\n{stderr}"
        );
        assert!(
            stderr.contains("a secret reference must be { env: NAME } or { file: PATH }"),
            "{wrong}: {stderr}"
        );
        assert!(!stderr.contains("s3cret"), "{wrong}: echoed in:\n{stderr}");
    }
}

#[test]
fn validate_reports_every_problem_at_once() {
    let site = Site::example();
    site.write(
        "baselines/sw1.yaml",
        &site
            .read("baselines/sw1.yaml")
            .replace("  lanz: true\n", ""),
    );
    site.write(
        "checks/eos.yaml",
        &site
            .read("checks/eos.yaml")
            .replace("- id: eos.config.saved", "- id: eos.config.savd"),
    );
    site.write(
        "baselines/fw1.yaml",
        &site
            .read("baselines/fw1.yaml")
            .replace("platform: fortigate", "platform: fortigate\ncolour: red"),
    );
    let (code, stderr) = validate(&site);
    assert_eq!(code, 3, "{stderr}");
    for needle in [
        "unknown check id eos.config.savd",
        "baselines/fw1.yaml:3:1",
        "colour",
        "needs `expect.lanz`",
    ] {
        assert!(stderr.contains(needle), "expected {needle:?} in:\n{stderr}");
    }
}

#[test]
fn clean_configuration_validates() {
    let site = Site::example();
    let (code, stderr) = validate(&site);
    assert_eq!(code, 0, "{stderr}");
}

/// A `{ baseline: KEY }` that a device the check applies to does not define: the error points
/// at the reference in the catalog and names the device file.
#[test]
fn a_missing_baseline_reference_points_at_the_catalog_and_names_the_device_file() {
    let site = Site::example();
    let baseline = site.read("baselines/sw1.yaml");
    let without = baseline.replacen("  max_in_errors: 10\n", "", 1);
    assert_ne!(baseline, without, "fixture line");
    site.write("baselines/sw1.yaml", &without);
    let catalog = site.read("checks/eos.yaml");
    let (code, stderr) = validate(&site);
    assert_eq!(code, 3, "{stderr}");
    let reference = format!(
        "checks/eos.yaml:{}:47: check eos.ports.errors-absent: device sw1 (",
        line_of(&catalog, "increase_at_most: { baseline: max_in_errors }")
    );
    assert!(
        stderr.contains(&reference),
        "expected {reference:?} in:\n{stderr}"
    );
    assert!(
        stderr.contains("baselines/sw1.yaml) has no `expect.max_in_errors`"),
        "{stderr}"
    );
    // A device that skips the check does not need the key.
    site.write(
        "baselines/sw1.yaml",
        &format!(
            "{without}skip:\n  eos.ports.errors-absent: no trading ports on this lab switch\n"
        ),
    );
    let (code, stderr) = validate(&site);
    assert_eq!(code, 0, "{stderr}");
}
