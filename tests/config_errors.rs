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
            stderr.contains(
                "a secret reference must be { env: NAME }, { file: PATH } or { command: [PROGRAM, ARG...] }"
            ),
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

/// A bastion entry of site.yaml logging in with a key file.
fn bastion(name: &str, extra: &str) -> String {
    format!(
        "  - name: {name}\n    host: 192.0.2.5\n    user: premarket\n    key_file: /etc/premarket/id_ed25519\n{extra}"
    )
}

/// `bastions:` and `via:` mistakes, each at its place: (what, bastions: items, sw1's `via`,
/// the file and line text the error points at, its words).
#[test]
fn bastion_mistakes_are_named_at_their_place() {
    type Row<'a> = (&'a str, String, &'a str, (&'a str, &'a str), &'a str);
    let cases: &[Row] = &[
        (
            "via an unknown bastion",
            String::new(),
            "b9",
            ("baselines/sw1.yaml", "via: b9"),
            "device sw1: ssh.via names bastion b9, which site.yaml's bastions: does not list (it lists none)",
        ),
        (
            "a hop list through one bastion twice",
            bastion("b1", "") + &bastion("b2", ""),
            "[b1, b2, b1]",
            ("baselines/sw1.yaml", "via: [b1"),
            "device sw1: ssh.via passes through bastion b1 twice (b1 > b2 > b1): a loop",
        ),
        (
            "an empty hop list",
            bastion("b1", ""),
            "[]",
            ("baselines/sw1.yaml", "via: []"),
            "device sw1: ssh.via lists no bastion",
        ),
        (
            "a bastion listed twice",
            bastion("b1", "") + &bastion("b1", "    port: 2222\n"),
            "b1",
            ("baselines/site.yaml", "port: 2222"),
            "bastion b1 is listed twice (first at",
        ),
        (
            "no session allowed",
            bastion("b1", "    max_sessions: 0\n"),
            "b1",
            ("baselines/site.yaml", "max_sessions: 0"),
            "bastion b1: max_sessions must be at least 1",
        ),
        (
            "no way to log in",
            "  - name: b1\n    host: 192.0.2.5\n    user: premarket\n".to_string(),
            "b1",
            ("baselines/site.yaml", "- name: b1"),
            "bastion b1: no login method: set password, key_file or agent: true",
        ),
        (
            "a misspelt key",
            bastion("b1", "    max_session: 4\n"),
            "b1",
            ("baselines/site.yaml", "max_session: 4"),
            "unknown field `max_session`",
        ),
    ];
    for (what, bastions, via, (file, line_with), words) in cases {
        let site = Site::example();
        if !bastions.is_empty() {
            let text = site.read("baselines/site.yaml");
            site.write(
                "baselines/site.yaml",
                &format!("{text}bastions:\n{bastions}"),
            );
        }
        let sw1 = site.read("baselines/sw1.yaml");
        assert!(sw1.contains("\nssh:\n"));
        site.write(
            "baselines/sw1.yaml",
            &sw1.replacen("\nssh:\n", &format!("\nssh:\n  via: {via}\n"), 1),
        );
        let (code, stderr) = validate(&site);
        let changed = site.read(file);
        // The line the error points at, whatever the column.
        let position = format!("{file}:{}:", line_of(&changed, line_with));
        // The second `- name: b1` is the duplicate's line.
        let position = match *what {
            "a bastion listed twice" => format!("{file}:{}:", line_of(&changed, "port: 2222") - 4),
            _ => position,
        };
        assert_eq!(code, 3, "{what}: {stderr}");
        assert!(
            stderr.contains(&position) && stderr.contains(words),
            "{what}: expected {position} and {words:?} in:\n{stderr}"
        );
    }

    // A good one validates, and `plan` shows the path.
    let site = Site::example();
    let text = site.read("baselines/site.yaml");
    site.write(
        "baselines/site.yaml",
        &format!("{text}bastions:\n{}", bastion("b1", "")),
    );
    let sw1 = site.read("baselines/sw1.yaml");
    site.write(
        "baselines/sw1.yaml",
        &sw1.replacen("\nssh:\n", "\nssh:\n  via: b1\n", 1),
    );
    let (code, stderr) = validate(&site);
    assert_eq!(code, 0, "{stderr}");
    let out = Command::cargo_bin("premarket")
        .expect("binary")
        .args(["plan", "--dir"])
        .arg(site.path())
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("\nsw1 via b1 (eos, 127.0.0.1:2201)\n")
            && stdout.contains("fw1 (fortigate,"),
        "{stdout}"
    );
}

/// The line of `stderr` that holds `at` (`file:line:column: `).
fn said_at<'a>(stderr: &'a str, at: &str) -> &'a str {
    stderr
        .lines()
        .find(|l| l.contains(at))
        .unwrap_or_else(|| panic!("expected {at} in:\n{stderr}"))
}

/// Replaces the first `from` in `text` by `to`; the fixture line must be there.
fn edit(text: &str, from: &str, to: &str) -> String {
    assert!(text.contains(from), "fixture text {from:?}");
    text.replacen(from, to, 1)
}

/// The ptp block of sw1 with `max_clock_accuracy` written at the depth of `ptp` itself, above
/// the last key of the block: the YAML parser stops one line further down ("mapping values are
/// not allowed"), at a line that is right.
fn sw1_with_a_key_at_the_wrong_depth(text: &str) -> String {
    let text = edit(text, "    max_clock_accuracy: 0x27\n", "");
    edit(
        &text,
        "    max_sync_age_s: 10\n",
        "  max_clock_accuracy: 0x27\n    max_sync_age_s: 10\n",
    )
}

#[test]
fn validate_lists_every_mistake_of_every_file_in_one_go() {
    let site = Site::example();
    let sw1 = site.read("baselines/sw1.yaml");
    let sw1 = edit(&sw1, "port: 2201", "port: 33573x");
    let sw1 = edit(&sw1, "  lanz: true", "  lanz: treu");
    let sw1 = sw1_with_a_key_at_the_wrong_depth(&sw1);
    site.write("baselines/sw1.yaml", &sw1);
    let fw1 = edit(
        &site.read("baselines/fw1.yaml"),
        "cpu_max_percent: 50",
        "cpu_max_percent: fifty",
    );
    site.write("baselines/fw1.yaml", &fw1);
    let site_yaml = edit(
        &site.read("baselines/site.yaml"),
        "connect_timeout_s: 10",
        "connect_timeout_s: ten",
    );
    site.write("baselines/site.yaml", &site_yaml);
    let (code, stderr) = validate(&site);
    assert_eq!(code, 3, "{stderr}");
    for (file, text, line_with, column, words) in [
        (
            "site.yaml",
            &site_yaml,
            "connect_timeout_s: ten",
            22,
            "ssh.connect_timeout_s: a whole number, not \"ten\"",
        ),
        (
            "sw1.yaml",
            &sw1,
            "port: 33573x",
            9,
            "ssh.port: a port number 1-65535, not \"33573x\"",
        ),
        (
            "sw1.yaml",
            &sw1,
            "  max_clock_accuracy",
            3,
            "`max_clock_accuracy` belongs under `expect.ptp`",
        ),
        (
            "sw1.yaml",
            &sw1,
            "lanz: treu",
            9,
            "expect.lanz: true or false, not \"treu\"",
        ),
        (
            "fw1.yaml",
            &fw1,
            "cpu_max_percent: fifty",
            20,
            "expect.cpu_max_percent: a number such as 80, not \"fifty\"",
        ),
    ] {
        let at = format!("baselines/{file}:{}:{column}: ", line_of(text, line_with));
        let said = said_at(&stderr, &at);
        assert!(said.contains(words), "expected {words:?} in {said}");
    }
    assert!(
        !stderr.contains("mapping values are not allowed"),
        "{stderr}"
    );
}

#[test]
fn a_key_at_the_wrong_depth_is_named_on_its_own_line_with_where_it_belongs() {
    let site = Site::example();
    let dedented = sw1_with_a_key_at_the_wrong_depth(&site.read("baselines/sw1.yaml"));
    // Written valid but under the wrong parent (`expect` itself, after the block): the same.
    let after = edit(
        &dedented,
        "  max_clock_accuracy: 0x27\n    max_sync_age_s: 10\n",
        "    max_sync_age_s: 10\n  max_clock_accuracy: 0x27\n",
    );
    for sw1 in [dedented, after] {
        site.write("baselines/sw1.yaml", &sw1);
        let (code, stderr) = validate(&site);
        assert_eq!(code, 3, "{stderr}");
        let at = format!(
            "baselines/sw1.yaml:{}:3: ",
            line_of(&sw1, "  max_clock_accuracy")
        );
        let said = said_at(&stderr, &at);
        assert!(
            said.contains("`max_clock_accuracy` belongs under `expect.ptp`"),
            "{said}"
        );
        assert_eq!(
            stderr.matches("sw1.yaml:").count(),
            1,
            "one mistake: {stderr}"
        );
    }
}

#[test]
fn a_typo_under_skip_is_pointed_at_with_the_check_it_meant() {
    let site = Site::example();
    let sw1 = format!(
        "{}skip:\n  eos.transceivers.light: no optics in the lab\n  eos.lanz.persistd: the lab's LANZ is not saved\n",
        site.read("baselines/sw1.yaml")
    );
    site.write("baselines/sw1.yaml", &sw1);
    let (code, stderr) = validate(&site);
    assert_eq!(code, 3, "{stderr}");
    let at = format!(
        "baselines/sw1.yaml:{}:3: ",
        line_of(&sw1, "eos.lanz.persistd")
    );
    let said = said_at(&stderr, &at);
    assert!(
        said.contains("eos.lanz.persistd") && said.contains("did you mean eos.lanz.persisted?"),
        "{said}"
    );
}

/// A mistake in one device's baseline makes that device one ERROR block and every other device
/// is still inspected; a mistake in the catalog still stops the run (exit 3).
#[test]
fn one_device_s_baseline_mistake_is_that_device_s_error_and_the_others_are_inspected() {
    let site = Site::example();
    let sw1 = edit(
        &site.read("baselines/sw1.yaml"),
        "  lanz: true",
        "  lanz: treu",
    );
    site.write("baselines/sw1.yaml", &sw1);
    let run = |site: &Site| {
        let out = Command::cargo_bin("premarket")
            .expect("binary")
            .arg("--dir")
            .arg(site.path())
            .args(["run", "--device", "fw1", "--device", "sw1", "--offline"])
            .arg(common::fixture("site/healthy"))
            .env("NO_COLOR", "1")
            .output()
            .expect("run");
        (
            out.status.code(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    };
    let (code, stdout, stderr) = run(&site);
    assert_eq!(code, Some(2), "{stdout}{stderr}");
    let block = format!(
        "ERROR sw1 (device) — baseline invalid: sw1.yaml:{}:9 expect.lanz: true or false, not \"treu\"",
        line_of(&sw1, "lanz: treu")
    );
    let errors: Vec<&str> = stdout.lines().filter(|l| l.starts_with("ERROR")).collect();
    assert_eq!(errors.len(), 2, "{stdout}");
    assert_eq!(errors[0], block, "{stdout}");
    // The site check over sw1's feeds cannot tell either, and says why.
    assert!(
        errors[1].starts_with("ERROR lab site.feeds.independent")
            && errors[1]
                .contains("sw1: premarket did not inspect this device: its baseline has mistakes"),
        "{stdout}"
    );
    assert!(stdout.contains("OK    fw1 fortigate.ha.state"), "{stdout}");
    assert!(!stdout.contains("configuration errors"), "{stdout}");
    assert!(
        stdout.contains("rerun: premarket run --device sw1 --offline"),
        "{stdout}"
    );

    // The catalog is every device's: a mistake there still stops the run.
    let catalog = edit(
        &site.read("checks/eos.yaml"),
        "- id: eos.config.saved",
        "- id: eos.config.savd",
    );
    site.write("checks/eos.yaml", &catalog);
    let (code, stdout, stderr) = run(&site);
    assert_eq!(code, Some(3), "{stdout}{stderr}");
    assert!(
        stderr.contains("unknown check id eos.config.savd"),
        "{stderr}"
    );
    assert!(stderr.contains("expect.lanz: true or false"), "{stderr}");
}
