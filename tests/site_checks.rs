//! The site scope (issue 35): a check over several devices' facts, planned once per run, its
//! verdict under the site. `site.feeds.independent` over two switches, offline: feed A on sw1,
//! feed B on sw2 (the site requires all three levels by default), OK, FAIL at each level,
//! ERROR naming a switch that could not be inspected, the baseline's `uplink:` where LLDP
//! shows nothing; its keys' mistakes at their `file:line:column`; and `--device` leaving it
//! unjudged.

use crate::common;

use std::path::Path;
use std::sync::Arc;

use premarket::Status;
use premarket::collect::offline::Offline;
use premarket::config::Config;
use premarket::inspect::{Limits, inspect};
use premarket::plan::{Plan, Selection};

const SIDE_A: &str = "    - name: exchange-md\n      a: { group: 239.1.1.1, source: 10.10.1.10, port: Ethernet1, vlan: 100, outgoing: [Ethernet4] }\n";
const SIDE_B: &str = "    - name: exchange-md\n      b: { group: 239.2.1.1, source: 10.10.2.10, port: Ethernet9, vlan: 100, outgoing: [Ethernet4] }\n";

/// The example site with a second switch: sw1 takes `sw1_feeds`, sw2 `sw2_feeds` (the
/// `market_feeds:` lists), and `site.yaml`'s `feed_independence` line replaced by `levels`
/// (none: the default, every level).
fn two_switches(sw1_feeds: &str, sw2_feeds: &str, levels: Option<&str>) -> common::Site {
    let site = common::Site::example();
    let sw1 = site.read("baselines/sw1.yaml");
    let feeds = |text: &str, list: &str| {
        let start = text.find("  market_feeds:\n").expect("market_feeds");
        let end = start + text[start..].find("  feed_sample_gap_s").expect("gap");
        let list = if list.is_empty() {
            " []\n"
        } else {
            &format!("\n{list}")
        };
        format!("{}  market_feeds:{list}{}", &text[..start], &text[end..])
    };
    site.write("baselines/sw1.yaml", &feeds(&sw1, sw1_feeds));
    site.write(
        "baselines/sw2.yaml",
        &feeds(&sw1, sw2_feeds).replace("port: 2201", "port: 2203"),
    );
    let text = site.read("baselines/site.yaml");
    let text = text.replace(
        "  - name: sw1\n    baseline: sw1.yaml\n",
        "  - name: sw1\n    baseline: sw1.yaml\n  - name: sw2\n    baseline: sw2.yaml\n",
    );
    let text = match levels {
        Some(levels) => text.replace(
            "  feed_independence: [port, uplink]",
            &format!("  feed_independence: {levels}"),
        ),
        None => text.replace("  feed_independence: [port, uplink]\n", ""),
    };
    site.write("baselines/site.yaml", &text);
    site
}

/// Saved outputs: both switches answer as the healthy sw1 does, with `replace` (device, file in
/// the offline layout, fixture under tests/fixtures/eos, or `None` to leave it out).
fn outputs(replace: &[(&str, &str, Option<&str>)], without: &[&str]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for device in ["sw1", "sw2"] {
        if without.contains(&device) {
            continue;
        }
        common::copy_dir(
            &common::fixture("site/healthy/sw1"),
            &dir.path().join(device),
        );
        for (d, file, fixture) in replace.iter().filter(|(d, ..)| *d == device) {
            let to = dir.path().join(d).join(file);
            match fixture {
                Some(f) => {
                    std::fs::copy(common::fixture(&format!("eos/{f}")), &to).expect("fixture");
                }
                None => std::fs::remove_file(&to).expect("remove"),
            }
        }
    }
    dir
}

const LLDP: &str = "show-lldp-neighbors-json.txt";

/// The site check's one result (under the site's name) over `outputs`.
async fn judge(site: &common::Site, outputs: &Path) -> premarket::report::CheckResult {
    let config = Config::load(site.path()).expect("the site loads");
    let selection = Selection {
        checks: vec!["site.feeds.independent".into()],
        ..Selection::default()
    };
    let plan = Plan::new(&config, &selection).expect("plan");
    let report = inspect(
        &config,
        plan,
        Arc::new(Offline::new(outputs)),
        &Limits::from_config(&config),
    )
    .await;
    assert_eq!(report.results.len(), 1, "{report:#?}");
    let result = report.results[0].clone();
    assert_eq!(result.device, "lab", "the verdict stands under the site");
    result
}

#[tokio::test]
async fn feed_sides_on_two_switches_at_every_level() {
    let apart = two_switches(SIDE_A, SIDE_B, None);
    // (case, site, outputs, status, words of the summary)
    let healthy = outputs(&[], &[]);
    let shared = outputs(
        &[("sw2", LLDP, Some("show-lldp-neighbors/shared-uplink.txt"))],
        &[],
    );
    let silent = outputs(
        &[(
            "sw2",
            LLDP,
            Some("show-lldp-neighbors/ethernet9-no-neighbor.txt"),
        )],
        &[],
    );
    let sw2_down = outputs(&[], &["sw2"]);
    let together = two_switches(
        &format!("{SIDE_A}{}", &SIDE_B[SIDE_B.find("      b:").unwrap()..]),
        "",
        None,
    );
    let cases: Vec<(&str, &common::Site, &Path, Status, &str)> = vec![
        (
            "apart",
            &apart,
            healthy.path(),
            Status::Ok,
            "exchange-md: side A and side B independent",
        ),
        (
            "one carrier behind both",
            &apart,
            shared.path(),
            Status::Fail,
            "exchange-md: side A (sw1 Ethernet1) and side B (sw2 Ethernet9) share an uplink: both arrive from carrier-a-pe1",
        ),
        (
            "no LLDP on side B's port",
            &apart,
            silent.path(),
            Status::Error,
            "sw2: no LLDP neighbour on sw2 Ethernet9 and no `uplink:` for the side",
        ),
        (
            "sw2 not inspected",
            &apart,
            sw2_down.path(),
            Status::Error,
            "sw2: `show lldp neighbors | json` was not collected",
        ),
        (
            "both sides on sw1",
            &together,
            healthy.path(),
            Status::Fail,
            "exchange-md: side A (sw1 Ethernet1) and side B (sw1 Ethernet9) are on one switch, sw1",
        ),
    ];
    for (case, site, outputs, status, words) in cases {
        let result = judge(site, outputs).await;
        assert_eq!(result.status, status, "{case}: {result:#?}");
        assert!(
            result.summary.contains(words),
            "{case}: {:?} lacks {words:?}",
            result.summary
        );
        if status != Status::Ok {
            assert!(!result.remedy.is_empty(), "{case}: no remedy");
        }
    }
    // A far end that sends no LLDP: the side's `uplink:` says where it arrives from.
    let named = two_switches(
        SIDE_A,
        &SIDE_B.replace(
            "outgoing: [Ethernet4] }",
            "outgoing: [Ethernet4], uplink: carrier-b-pe1 }",
        ),
        None,
    );
    let result = judge(&named, silent.path()).await;
    assert_eq!(result.status, Status::Ok, "{result:#?}");
    assert!(
        result
            .evidence
            .contains("carrier-b-pe1 (per the baseline's `uplink:`)"),
        "{}",
        result.evidence
    );
    let same = two_switches(
        SIDE_A,
        &SIDE_B.replace(
            "outgoing: [Ethernet4] }",
            "outgoing: [Ethernet4], uplink: carrier-a-pe1 }",
        ),
        None,
    );
    let result = judge(&same, silent.path()).await;
    assert_eq!(result.status, Status::Fail, "{result:#?}");
    // A feed with one side listed has nothing to be independent of: said, not judged.
    let one = two_switches(SIDE_A, "", None);
    let result = judge(&one, healthy.path()).await;
    assert_eq!(result.status, Status::Skip, "{result:#?}");
    assert!(
        result
            .summary
            .contains("only side A is listed (sw1 Ethernet1)"),
        "{}",
        result.summary
    );
}

#[test]
fn the_site_keys_mistakes_are_at_their_place_and_device_selection_leaves_it_unjudged() {
    for (levels, words) in [
        ("[rack]", "unknown variant `rack`"),
        ("[]", "lists no level"),
    ] {
        let site = two_switches(SIDE_A, SIDE_B, Some(levels));
        let errors = Config::load(site.path())
            .map_err(|e| e.to_string())
            .and_then(|config| {
                Plan::new(&config, &Selection::default())
                    .map(|_| ())
                    .map_err(|e| e.to_string())
            })
            .expect_err(levels);
        assert!(
            errors.contains("site.yaml:") && errors.contains(words),
            "{levels}: {errors}"
        );
    }
    let site = two_switches(SIDE_A, SIDE_B, None);
    let text = site.read("baselines/site.yaml");
    site.write(
        "baselines/site.yaml",
        &text.replace("expect:\n", "expect:\n  feed_independance: [port]\n"),
    );
    let config = Config::load(site.path()).expect("loads");
    let errors = Plan::new(&config, &Selection::default())
        .err()
        .expect("a typo")
        .to_string();
    assert!(
        errors.contains("site.yaml:") && errors.contains("unknown key `expect.feed_independance`"),
        "{errors}"
    );
    // `--device sw1`: the site check's devices are not all inspected; it is not judged, its
    // query still goes to sw1 (a capture holds it).
    let site = two_switches(SIDE_A, SIDE_B, None);
    let config = Config::load(site.path()).expect("loads");
    let selection = Selection {
        devices: vec!["sw1".into()],
        ..Selection::default()
    };
    let plan = Plan::new(&config, &selection).expect("plan");
    let check = &plan.site[0];
    assert!(!check.judged() && check.left_out == ["sw2"]);
    assert!(
        plan.devices[0]
            .commands
            .iter()
            .any(|c| c.text == "show lldp neighbors | json")
    );
    assert!(!plan.site_reads("sw1"));
}

/// A switch set aside for a mistake in its baseline (a run inspects the others) is named by the
/// site check, never judged as if the selection had left it out; a mistake in its feeds plans
/// the check over the other switch (that mistake stays sw2's), and it still cannot say OK.
#[tokio::test]
async fn a_switch_set_aside_for_its_baseline_s_mistakes_is_named_by_the_site_check() {
    let run = |site: &common::Site| {
        let config = Config::load(site.path()).expect("the site loads");
        let plan = Plan::sparing(&config, &Selection::default()).expect("a plan sparing sw2");
        assert_eq!(plan.invalid.len(), 1, "sw2 is set aside");
        assert_eq!(plan.invalid[0].name.as_str(), "sw2");
        assert_eq!(plan.site.len(), 1, "the site check is planned");
        let healthy = outputs(&[], &[]);
        let limits = Limits::from_config(&config);
        async move {
            let offline = Arc::new(Offline::new(healthy.path()));
            let report = inspect(&config, plan, offline, &limits).await;
            let site = report.results.iter().find(|r| r.device == "lab");
            site.expect("the site check's verdict").clone()
        }
    };
    let typo = two_switches(SIDE_A, SIDE_B, None);
    let sw2 = typo.read("baselines/sw2.yaml");
    typo.write(
        "baselines/sw2.yaml",
        &sw2.replace("  max_in_errors: 10\n", "  max_in_errorz: 10\n"),
    );
    let result = run(&typo).await;
    assert_eq!(result.status, Status::Error, "{result:#?}");
    assert!(
        result
            .summary
            .contains("sw2: premarket did not inspect this device: its baseline has mistakes"),
        "{}",
        result.summary
    );
    let feeds = two_switches(SIDE_A, &SIDE_B.replace("vlan: 100", "vlan: hundred"), None);
    let result = run(&feeds).await;
    assert_eq!(result.status, Status::Error, "{result:#?}");
    assert!(
        result
            .summary
            .contains("sw2: premarket did not inspect this device: its baseline has mistakes"),
        "{}",
        result.summary
    );
}
