//! "Adding a check" (src/check/README.md), followed as a user would: the declarative entry is
//! taken from that README itself (so the README cannot drift from the code), added to a copy of the example
//! site, validated, planned, and run offline on a saved output that passes and one that fails.
//! A scenario directory holding only the new output and `based-on` shows that the new command
//! costs nothing in the other scenarios.

use std::process::Command;

use crate::common::{self, Site};

fn premarket(site: &Site, args: &[&str]) -> (i32, String) {
    let out = Command::new(assert_cmd::cargo::cargo_bin("premarket"))
        .current_dir(site.path())
        .env_remove("PREMARKET_DIR")
        .args(args)
        .output()
        .expect("run premarket");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.code().unwrap_or(-1), text)
}

/// The YAML block of the check crate's README, section "A declarative check", without its
/// comment line.
fn readme_entry() -> String {
    let readme =
        std::fs::read_to_string(common::repo().join("src/check/README.md")).expect("README");
    let section = readme
        .split("### A declarative check")
        .nth(1)
        .expect("the README has the section");
    let block = section
        .split("```yaml\n")
        .nth(1)
        .and_then(|b| b.split("```").next())
        .expect("a yaml block in the section");
    block
        .lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

const ARP: &str = "fw1 # get system arp
Address           Age(min)   Hardware Addr      Interface
10.20.1.1         0          00:09:0f:09:00:12 port2
10.10.1.10        1          00:09:0f:09:00:13 port1

fw1 # ";

#[test]
fn the_readme_declarative_check_validates_plans_and_judges_saved_output() {
    let site = Site::example();
    let entry = readme_entry();
    assert!(entry.contains("command: get system arp"), "{entry}");
    let catalog = site.read("checks/fortigate.yaml");
    site.write(
        "checks/fortigate.yaml",
        &format!("{}\n\n{entry}\n", catalog.trim_end()),
    );

    let (code, text) = premarket(&site, &["validate", "--dir", "."]);
    assert_eq!(code, 0, "{text}");
    let (code, text) = premarket(
        &site,
        &["plan", "--dir", ".", "--check", "fortigate.arp.gateway"],
    );
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("get system arp"),
        "plan shows the new command: {text}"
    );

    // The rerun the report prints for the new check, over a saved scenario.
    let check_offline = |scenario: &str| {
        premarket(
            &site,
            &[
                "check",
                "fortigate.arp.gateway",
                "--dir",
                ".",
                "--offline",
                scenario,
            ],
        )
    };

    // A scenario that holds only the new output; the rest comes from the healthy day.
    let healthy = common::fixture("site/healthy");
    site.write("ok/fw1/get-system-arp.txt", ARP);
    site.write("ok/based-on", &format!("{}\n", healthy.display()));
    let (code, text) = check_offline("ok");
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("OK    fw1 fortigate.arp.gateway"), "{text}");

    site.write(
        "gone/fw1/get-system-arp.txt",
        &ARP.replace("10.20.1.1 ", "10.20.1.9 "),
    );
    site.write("gone/based-on", "../ok\n");
    let (code, text) = check_offline("gone");
    assert_eq!(code, 1, "{text}");
    assert!(text.contains("FAIL fw1 fortigate.arp.gateway"), "{text}");
}

#[test]
fn a_fortios_command_on_no_list_is_refused_at_its_line() {
    let site = Site::example();
    let entry = readme_entry().replace("get system arp", "diagnose sys session clear");
    let catalog = site.read("checks/fortigate.yaml");
    // A blank line, then the entry: `command:` is its seventh line.
    let line = catalog.trim_end().lines().count() + 8;
    site.write(
        "checks/fortigate.yaml",
        &format!("{}\n\n{entry}\n", catalog.trim_end()),
    );
    let (code, text) = premarket(&site, &["validate", "--dir", "."]);
    assert_eq!(code, 3, "{text}");
    assert!(
        text.contains(&format!("checks/fortigate.yaml:{line}:12:"))
            && text.contains("allowlist refuses `diagnose sys session clear`"),
        "{text}"
    );
}
