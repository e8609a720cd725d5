//! Every configuration mistake is a clear message with file:line:column and exit code 3, and
//! `premarket validate` reports them all at once.

mod common;

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
        words: "invalid",
    },
    Case {
        what: "duplicate key",
        file: "baselines/sw1.yaml",
        from: "  lanz: true",
        to: "  lanz: true\n  lanz: false",
        line_with: "lanz: false",
        column: 3,
        words: "duplicate",
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
        line_with: "  version:",
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
