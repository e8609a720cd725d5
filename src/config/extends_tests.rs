//! The merge of a device file with its role files: values, positions, chains and loops.

use serde_json::json;

use super::*;

/// Writes each `(name, text)` into a temp dir; returns it.
fn files(list: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in list {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn assembled(dir: &Path, device: &str) -> Result<Option<Assembled>, Vec<ConfigError>> {
    let path = dir.join(device);
    assemble(&path, &std::fs::read_to_string(&path).unwrap())
}

fn values(a: &Assembled) -> Value {
    serde_saphyr::from_str::<Tree>(&a.text)
        .unwrap()
        .value
        .to_json()
}

/// The errors with the temp dir left out of their paths.
fn said(dir: &Path, errors: Vec<ConfigError>) -> Vec<String> {
    let prefix = format!("{}/", dir.display());
    errors
        .iter()
        .map(|e| e.to_string().replace(&prefix, ""))
        .collect()
}

const LEAF: &str = "\
# Role: leaf switches.
platform: eos
ssh:
    user: netops
    password: { command: [vault, kv, get, -field=password, secret/net/leaf] }
expect:
    version: { allowed: [4.31.6M] }
    lanz: true
    trading_ports:
      - Ethernet1
      - Ethernet2
";

const SW7: &str = "\
extends: leaf.yaml
ssh:
  host: 10.1.2.7
  password: { env: SW7_PASSWORD }
expect:
  trading_ports: [Ethernet9]
  max_in_errors: 5
";

#[test]
fn maps_merge_key_by_key_and_the_device_wins_lists_and_secrets_whole() {
    let dir = files(&[("leaf.yaml", LEAF), ("sw7.yaml", SW7)]);
    let a = assembled(dir.path(), "sw7.yaml")
        .unwrap()
        .expect("it extends");
    assert_eq!(
        values(&a),
        json!({
            "platform": "eos",
            "ssh": {"host": "10.1.2.7", "password": {"env": "SW7_PASSWORD"}, "user": "netops"},
            "expect": {
                "trading_ports": ["Ethernet9"],
                "max_in_errors": 5,
                "version": {"allowed": ["4.31.6M"]},
                "lanz": true,
            },
        })
    );
    assert!(!a.text.contains("extends"), "{}", a.text);
    // A device that extends nothing is its own text.
    let plain = files(&[("sw1.yaml", "platform: eos\n")]);
    assert!(assembled(plain.path(), "sw1.yaml").unwrap().is_none());
}

#[test]
fn a_value_points_back_at_the_file_line_and_column_it_was_written_at() {
    let leaf = LEAF.replace("lanz: true", "lanz: treu");
    let dir = files(&[("leaf.yaml", &leaf), ("sw7.yaml", SW7)]);
    let a = assembled(dir.path(), "sw7.yaml").unwrap().unwrap();
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Lanz {
        expect: LanzOnly,
    }
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct LanzOnly {
        lanz: bool,
        max_in_errors: u32,
    }
    let device = dir.path().join("sw7.yaml");
    let e = yaml::parse::<Lanz>(&device, &a.text).unwrap_err();
    let at = a.origins.translate(e.position.clone());
    assert_eq!(
        at.to_string()
            .replace(&format!("{}/", dir.path().display()), ""),
        "leaf.yaml:8:11",
        "{e}"
    );
    // Every line of the assembled text names its own: the device's host, the role's user.
    let line_of = |needle: &str| {
        let i = a.text.lines().position(|l| l.contains(needle)).unwrap();
        let (file, line) = a.origins.line(i as u64 + 1);
        format!("{}:{line}", short(file))
    };
    assert_eq!(line_of("host:"), "sw7.yaml:3");
    assert_eq!(line_of("user:"), "leaf.yaml:4");
    assert_eq!(line_of("Ethernet9"), "sw7.yaml:6");
    assert_eq!(line_of("max_in_errors"), "sw7.yaml:7");
}

#[test]
fn a_chain_reaches_every_role_and_a_loop_is_refused_naming_it() {
    let base = "expect:\n  ntp_servers: [10.0.0.1]\n  lanz: false\n";
    let leaf = format!("extends: base.yaml\n{LEAF}");
    let dir = files(&[("base.yaml", base), ("leaf.yaml", &leaf), ("sw7.yaml", SW7)]);
    let a = assembled(dir.path(), "sw7.yaml").unwrap().unwrap();
    let v = values(&a);
    assert_eq!(v["expect"]["ntp_servers"], json!(["10.0.0.1"]));
    assert_eq!(v["expect"]["lanz"], json!(true), "the nearer role wins");
    assert_eq!(a.origins.files().len(), 3);

    let looping = format!("extends: leaf.yaml\n{base}");
    std::fs::write(dir.path().join("base.yaml"), looping).unwrap();
    let e = assembled(dir.path(), "sw7.yaml").unwrap_err();
    assert_eq!(
        said(dir.path(), e),
        [
            "base.yaml:1:10: extends: leaf.yaml makes a loop: leaf.yaml -> base.yaml -> leaf.yaml \
          (a role file cannot extend, directly or not, a file that extends it)"
        ]
    );
    std::fs::write(dir.path().join("sw7.yaml"), "extends: sw7.yaml\n").unwrap();
    let e = assembled(dir.path(), "sw7.yaml").unwrap_err();
    assert!(said(dir.path(), e)[0].contains("makes a loop: sw7.yaml -> sw7.yaml"));
}

#[test]
fn mistakes_of_the_chain_are_errors_at_their_place() {
    let cases: &[(&[(&str, &str)], &str)] = &[
        (
            &[("sw7.yaml", "platform: eos\nextends: spine.yaml\n")],
            "sw7.yaml:2:10: extends: spine.yaml: there is no such file",
        ),
        (
            &[("sw7.yaml", "extends: /etc/hostname\n")],
            "sw7.yaml:1:10: extends: /etc/hostname: a role file is a file of baselines/",
        ),
        (
            &[("sw7.yaml", "extends: ../leaf.yaml\n")],
            "sw7.yaml:1:10: extends: ../leaf.yaml: a role file is a file of baselines/",
        ),
        (
            &[("sw7.yaml", "extends: [a.yaml]\n")],
            "sw7.yaml:1:10: extends: the name of a role file",
        ),
        (
            &[("sw7.yaml", "extends: leaf.yaml\n"), ("leaf.yaml", "- a\n")],
            "leaf.yaml:1:1: a baseline holds keys (platform:, ssh:, expect: ...), not a list",
        ),
        (
            &[
                ("sw7.yaml", "extends: leaf.yaml\n"),
                ("leaf.yaml", "expect:\n  lanz: [\n"),
            ],
            "leaf.yaml:",
        ),
        (
            &[
                ("sw7.yaml", "extends: leaf.yaml\nexpect: { lanz: true }\n"),
                ("leaf.yaml", "expect:\n  version: { allowed: [4.31.6M] }\n"),
            ],
            "sw7.yaml:2:1: `expect` is a map here and in ",
        ),
        (
            // The anchor is in the part the device replaces: the alias would read nothing.
            &[
                ("sw7.yaml", "extends: leaf.yaml\nssh:\n  host: a\n"),
                ("leaf.yaml", "ssh: &s\n  user: u\nexpect:\n  copy: *s\n"),
            ],
            "an alias or anchor does not carry over",
        ),
    ];
    for (list, want) in cases {
        let dir = files(list);
        let got = said(dir.path(), assembled(dir.path(), "sw7.yaml").unwrap_err());
        assert!(got.iter().any(|e| e.contains(want)), "{list:?}: {got:?}");
    }
}

#[test]
fn an_empty_role_or_an_empty_key_takes_what_the_other_side_has() {
    let role = "# Role leaf: keys every leaf switch shares.\n";
    let device = "extends: leaf.yaml\nplatform: eos\nexpect: {}\n";
    let dir = files(&[("leaf.yaml", role), ("sw7.yaml", device)]);
    let a = assembled(dir.path(), "sw7.yaml").unwrap().unwrap();
    assert_eq!(values(&a), json!({"platform": "eos", "expect": {}}));
    std::fs::write(dir.path().join("leaf.yaml"), LEAF).unwrap();
    let a = assembled(dir.path(), "sw7.yaml").unwrap().unwrap();
    assert_eq!(values(&a)["expect"]["lanz"], json!(true));
}
