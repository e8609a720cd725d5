//! The exchange hand-off's EOS checks over fixtures (issue 35), run by [`crate::eos_checks`]'s
//! row runner: OK, FAIL and ERROR for BGP, BFD, PIM, each feed's multicast route, MLAG, the
//! hardware drop counters with flow control, and the site check over the switches' feeds and
//! LLDP neighbours (the example site's one switch takes part; `site_checks` has two).

use crate::eos_checks::{
    BFD, BGP, DROPS, FLOW_CONTROL, LLDP, MLAG, MLAG_SANITY, MROUTE, MROUTE_COUNT, MROUTE_COUNT_2,
    PIM, Row,
};

use premarket::Status;

const fn row(
    check: &'static str,
    outputs: crate::eos_checks::Outputs,
    status: Status,
    summary: &'static str,
) -> Row {
    Row {
        check,
        outputs,
        previous: None,
        status,
        summary,
    }
}

pub(crate) const ROWS: &[Row] = &[
    // eos.bgp.peers
    row(
        "eos.bgp.peers",
        &[],
        Status::Ok,
        "all 3 BGP peers as expected (first run",
    ),
    Row {
        previous: Some(&[]),
        ..row(
            "eos.bgp.peers",
            &[],
            Status::Ok,
            "all 3 BGP peers as expected",
        )
    },
    row(
        "eos.bgp.peers",
        &[(
            BGP,
            Some("show-ip-bgp-summary-vrf-all/newer-shape-per-family.txt"),
        )],
        Status::Ok,
        "all 3 BGP peers as expected",
    ),
    row(
        "eos.bgp.peers",
        &[(
            BGP,
            Some("show-ip-bgp-summary-vrf-all/text-4.27-three-peers.txt"),
        )],
        Status::Ok,
        "all 3 BGP peers as expected",
    ),
    row(
        "eos.bgp.peers",
        &[(
            BGP,
            Some("show-ip-bgp-summary-vrf-all/exchange-a-active.txt"),
        )],
        Status::Fail,
        "exchange-a (10.1.1.1, VRF default): Active, not Established",
    ),
    row(
        "eos.bgp.peers",
        &[(BGP, Some("show-ip-bgp-summary-vrf-all/text-idle-noif.txt"))],
        Status::Fail,
        "exchange-a (10.1.1.1, VRF default): Idle (NoIf), not Established",
    ),
    row(
        "eos.bgp.peers",
        &[(
            BGP,
            Some("show-ip-bgp-summary-vrf-all/exchange-a-1-prefix.txt"),
        )],
        Status::Fail,
        "exchange-a (10.1.1.1, VRF default): 1 prefix accepted, at least 10 expected",
    ),
    row(
        "eos.bgp.peers",
        &[(BGP, Some("show-ip-bgp-summary-vrf-all/broker-wrong-as.txt"))],
        Status::Fail,
        "broker (10.30.0.1, VRF ORDERS): AS 65099, the baseline says 65030",
    ),
    Row {
        previous: Some(&[]),
        ..row(
            "eos.bgp.peers",
            &[(
                BGP,
                Some("show-ip-bgp-summary-vrf-all/exchange-a-reset.txt"),
            )],
            Status::Fail,
            "exchange-a (10.1.1.1, VRF default): reset since the reference run (20261130T081500.000)",
        )
    },
    row(
        "eos.bgp.peers",
        &[(BGP, Some("show-ip-bgp-summary-vrf-all/inactive.txt"))],
        Status::Fail,
        "BGP is not running on the switch (`% BGP inactive`)",
    ),
    row(
        "eos.bgp.peers",
        &[(BGP, Some("show-ip-bgp-summary-vrf-all/garbage.txt"))],
        Status::Error,
        "cannot read",
    ),
    row("eos.bgp.peers", &[(BGP, None)], Status::Error, "missing"),
    // eos.bfd.peers
    row(
        "eos.bfd.peers",
        &[],
        Status::Ok,
        "all 2 BFD sessions as expected",
    ),
    row(
        "eos.bfd.peers",
        &[(BFD, Some("show-bfd-peers/text-two-blocks.txt"))],
        Status::Ok,
        "all 2 BFD sessions as expected",
    ),
    row(
        "eos.bfd.peers",
        &[(BFD, Some("show-bfd-peers/exchange-b-down.txt"))],
        Status::Fail,
        "10.1.9.1 (VRF default) on Ethernet9: down",
    ),
    row(
        "eos.bfd.peers",
        &[(BFD, Some("show-bfd-peers/up-remote-disc-0.txt"))],
        Status::Fail,
        "up, but the peer's discriminator is 0: it never answered",
    ),
    row(
        "eos.bfd.peers",
        &[(BFD, Some("show-bfd-peers/garbage.txt"))],
        Status::Error,
        "cannot read",
    ),
    // eos.pim.neighbors
    row(
        "eos.pim.neighbors",
        &[],
        Status::Ok,
        "all 2 hand-off interfaces as expected",
    ),
    row(
        "eos.pim.neighbors",
        &[(
            PIM,
            Some("show-ip-pim-neighbor/text-7280sr-one-neighbor.txt"),
        )],
        Status::Ok,
        "all 2 hand-off interfaces as expected",
    ),
    row(
        "eos.pim.neighbors",
        &[(PIM, Some("show-ip-pim-neighbor/ethernet9-no-neighbor.txt"))],
        Status::Fail,
        "Ethernet9: PIM neighbour 10.1.9.1 expected, no PIM neighbour at all",
    ),
    row(
        "eos.pim.neighbors",
        &[(PIM, Some("show-ip-pim-neighbor/unknown-shape.txt"))],
        Status::Error,
        "modelled",
    ),
    // eos.multicast.routes
    row(
        "eos.multicast.routes",
        &[],
        Status::Ok,
        "all 2 feed sides as expected",
    ),
    row(
        "eos.multicast.routes",
        &[(MROUTE, Some("show-ip-mroute/text-detail.txt"))],
        Status::Ok,
        "all 2 feed sides as expected",
    ),
    row(
        "eos.multicast.routes",
        &[(MROUTE, Some("show-ip-mroute/side-a-rpf-ethernet9.txt"))],
        Status::Fail,
        "arrives on Ethernet9 (its RPF interface), the baseline says Ethernet1 for side A",
    ),
    row(
        "eos.multicast.routes",
        &[(MROUTE, Some("show-ip-mroute/side-b-no-oil.txt"))],
        Status::Fail,
        "does not forward to Ethernet4",
    ),
    row(
        "eos.multicast.routes",
        &[(MROUTE, Some("show-ip-mroute/side-b-missing.txt"))],
        Status::Fail,
        "no multicast route for 239.2.1.1",
    ),
    row(
        "eos.multicast.routes",
        &[
            (
                MROUTE_COUNT,
                Some("show-ip-mroute-count/stalled-sample-1.txt"),
            ),
            (
                MROUTE_COUNT_2,
                Some("show-ip-mroute-count/stalled-sample-2.txt"),
            ),
        ],
        Status::Fail,
        "the route (10.10.2.10, 239.2.1.1) forwarded no packet in 2 s",
    ),
    row(
        "eos.multicast.routes",
        &[(MROUTE, Some("show-ip-mroute/unknown-shape.txt"))],
        Status::Error,
        "modelled",
    ),
    row(
        "eos.multicast.routes",
        &[(
            MROUTE_COUNT_2,
            Some("show-ip-mroute-count/unknown-shape.txt"),
        )],
        Status::Error,
        "modelled",
    ),
    // eos.mlag.healthy
    row(
        "eos.mlag.healthy",
        &[],
        Status::Ok,
        "md-pair: active, connected to 169.254.1.1",
    ),
    row(
        "eos.mlag.healthy",
        &[(MLAG, Some("show-mlag/disabled.txt"))],
        Status::Skip,
        "MLAG is not configured on this switch (state: disabled)",
    ),
    row(
        "eos.mlag.healthy",
        &[
            (MLAG, Some("show-mlag/active-partial-inconsistent.txt")),
            (
                MLAG_SANITY,
                Some("show-mlag-config-sanity/trunk-native-vlan-mismatch.txt"),
            ),
        ],
        Status::Fail,
        "config-sanity inconsistent (Port-Channel30 trunk-native-vlan mlag30: 123 here, 3700 on the peer); 3 MLAG port(s) inactive; 4 MLAG port(s) active on one peer only",
    ),
    row(
        "eos.mlag.healthy",
        &[(MLAG, Some("show-mlag/text-inactive.txt"))],
        Status::Fail,
        "state inactive, not active; negotiation connecting, not connected",
    ),
    row(
        "eos.mlag.healthy",
        &[(MLAG, Some("show-mlag/garbage.txt"))],
        Status::Error,
        "cannot read",
    ),
    // eos.hardware.drops
    row(
        "eos.hardware.drops",
        &[],
        Status::Ok,
        "hardware drop counters: no adverse drop (2 adverse in total since boot); first run",
    ),
    Row {
        previous: Some(&[]),
        ..row(
            "eos.hardware.drops",
            &[(DROPS, Some("show-hardware-counter-drop/adverse-grew.txt"))],
            Status::Fail,
            "+1312 ingressParityError on Jericho2/0 since the previous run",
        )
    },
    row(
        "eos.hardware.drops",
        &[(DROPS, Some("show-hardware-counter-drop/adverse-grew.txt"))],
        Status::Fail,
        "+1312 ingressParityError on Jericho2/0 in the last ten minutes",
    ),
    row(
        "eos.hardware.drops",
        &[(
            FLOW_CONTROL,
            Some("show-interfaces-flow-control/ethernet4-on.txt"),
        )],
        Status::Fail,
        "Ethernet4: flow control send and receive on (send on/on, receive on/desired), the baseline says off",
    ),
    row(
        "eos.hardware.drops",
        &[(DROPS, Some("show-hardware-counter-drop/excerpt-elided.txt"))],
        Status::Error,
        "hardware drop counters: `show hardware counter drop | json` returned output premarket cannot read",
    ),
    row(
        "eos.hardware.drops",
        &[(
            FLOW_CONTROL,
            Some("show-interfaces-flow-control/ethernet3-missing.txt"),
        )],
        Status::Error,
        "Ethernet3: not in `show interfaces flow-control`",
    ),
    // site.feeds.independent over the example site's one switch (`feed_independence: [port,
    // uplink]`): its verdict stands under the site, `lab`.
    row(
        "site.feeds.independent",
        &[],
        Status::Ok,
        "exchange-md: side A and side B independent",
    ),
    row(
        "site.feeds.independent",
        &[(LLDP, Some("show-lldp-neighbors/text-ruled.txt"))],
        Status::Ok,
        "exchange-md: side A and side B independent",
    ),
    row(
        "site.feeds.independent",
        &[(LLDP, Some("show-lldp-neighbors/shared-uplink.txt"))],
        Status::Fail,
        "exchange-md: side A (sw1 Ethernet1) and side B (sw1 Ethernet9) share an uplink: both arrive from carrier-a-pe1",
    ),
    row(
        "site.feeds.independent",
        &[(LLDP, Some("show-lldp-neighbors/ethernet9-no-neighbor.txt"))],
        Status::Error,
        "sw1: no LLDP neighbour on sw1 Ethernet9 and no `uplink:` for the side",
    ),
    row(
        "site.feeds.independent",
        &[(LLDP, None)],
        Status::Error,
        "sw1: `show lldp neighbors | json` was not collected",
    ),
];

/// A switch without BGP, BFD or PIM (most leaves): its baseline leaves the key out, or lists
/// nothing. Each check SKIPs saying so, and its command is never sent (the plan holds none).
#[tokio::test]
async fn a_switch_without_the_hand_off_key_skips_and_sends_nothing() {
    const CASES: &[(&str, &str, &str)] = &[
        (
            "eos.bgp.peers",
            "bgp_peers",
            "names no BGP peer (`expect.bgp_peers`)",
        ),
        (
            "eos.bfd.peers",
            "bfd_peers",
            "names no BFD session (`expect.bfd_peers`)",
        ),
        (
            "eos.pim.neighbors",
            "pim_neighbors",
            "names no PIM neighbour (`expect.pim_neighbors`)",
        ),
    ];
    let mut failures = Vec::new();
    for (check, key, words) in CASES {
        for empty in [false, true] {
            let case = format!(
                "{check} with {}",
                if empty { "an empty list" } else { "no key" }
            );
            if let Err(why) = without_key(check, key, empty, words).await {
                failures.push(format!("{case}: {why}"));
            }
        }
    }
    assert!(failures.is_empty(), "\n{}", failures.join("\n"));
}

/// `check` on sw1 of the example site whose `expect.KEY` is left out (or `[]` when `empty`),
/// with no saved output at all: a check that wanted one would be an ERROR.
async fn without_key(check: &str, key: &str, empty: bool, words: &str) -> Result<(), String> {
    use premarket::collect::offline::Offline;
    use premarket::config::Config;
    use premarket::inspect::{Limits, inspect};
    use premarket::plan::{Plan, Selection};
    use std::sync::Arc;

    let site = crate::common::Site::example();
    let sw1 = site.read("baselines/sw1.yaml");
    let head = format!("  {key}:\n");
    let start = sw1.find(&head).expect("sw1.yaml has the key");
    let rest = &sw1[start + head.len()..];
    let block: usize = rest
        .lines()
        .take_while(|l| l.starts_with("    "))
        .map(|l| l.len() + 1)
        .sum();
    let instead = if empty {
        format!("  {key}: []\n")
    } else {
        String::new()
    };
    site.write(
        "baselines/sw1.yaml",
        &format!("{}{instead}{}", &sw1[..start], &rest[block..]),
    );
    let config = Config::load(site.path()).map_err(|e| e.to_string())?;
    let selection = Selection {
        checks: vec![check.into()],
        devices: vec!["sw1".into()],
        tags: vec![],
    };
    let plan = Plan::new(&config, &selection).map_err(|e| e.to_string())?;
    if !plan.invalid.is_empty() || plan.devices.len() != 1 {
        return Err(format!(
            "planned {} device(s), invalid {:?}",
            plan.devices.len(),
            plan.invalid
        ));
    }
    if !plan.devices[0].commands.is_empty() {
        return Err(format!("sends {:?}", plan.devices[0].commands));
    }
    let outputs = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(outputs.path().join("sw1")).expect("mkdir");
    let report = inspect(
        &config,
        plan.clone(),
        Arc::new(Offline::new(outputs.path())),
        &Limits::from_config(&config),
    )
    .await;
    let [result] = report.results.as_slice() else {
        return Err(format!("{} results", report.results.len()));
    };
    if result.status != Status::Skip || !result.summary.contains(words) {
        return Err(format!("{} {:?}", result.status, result.summary));
    }
    crate::subjects::assert_about(result);
    Ok(())
}
