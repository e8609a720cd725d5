//! The trading checks' commands (the command contract of issue 12) against the lab over real
//! SSH: each answers healthy by default with the example site's values, each scenario shows
//! its fault, counters that must "grow since the previous run" grow from a healthy lab's
//! values to the fault lab's, and no test makes the lab record a configuration line.

use crate::lab_support;

use std::collections::HashSet;
use std::time::{Duration, Instant};

use lab_support::*;
use premarket::lab::Lab;
use russh::ChannelMsg;
use serde_json::Value;

fn now() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

fn f(v: &Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

fn no_config_lines(lab: &Lab) {
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
}

const TRADING_PORTS: [&str; 4] = ["Ethernet1", "Ethernet2", "Ethernet3", "Ethernet4"];

#[tokio::test]
async fn eos_answers_every_trading_command_healthy() {
    let lab = lab_with(&[]).await;
    let (_h, mut t) = eos_ready(&lab).await;

    let raw = t.cmd("show interfaces | json").await;
    // Real EOS indents `| json` by four spaces and keeps the model's key order.
    assert!(
        body(&raw).starts_with("{\n    \"interfaces\": {\n        \"Ethernet1\": {\n            \"lastStatusChangeTimestamp\": "),
        "{raw}"
    );
    let v = json_of(&raw);
    for port in TRADING_PORTS {
        let p = &v["interfaces"][port];
        assert_eq!(
            (
                p["interfaceStatus"].as_str(),
                p["lineProtocolStatus"].as_str()
            ),
            (Some("connected"), Some("up")),
            "{port}"
        );
        assert_eq!(p["bandwidth"], 10_000_000_000u64, "{port}");
    }
    for port in ["Ethernet5", "Ethernet6", "Ethernet7", "Ethernet8"] {
        assert_eq!(v["interfaces"][port]["interfaceStatus"], "notconnect");
    }
    assert!(v["interfaces"]["Management1"].is_object());
    let et1 = &v["interfaces"]["Ethernet1"]["interfaceCounters"];
    assert_eq!(et1["totalInErrors"], 3);
    assert_eq!(et1["inputErrorsDetail"]["fcsErrors"], 3);

    let errors = json_of(&t.cmd("show interfaces counters errors | json").await);
    assert_eq!(
        errors["interfaceErrorCounters"]["Ethernet1"]["fcsErrors"],
        3
    );
    assert_eq!(errors["interfaceErrorCounters"]["Ethernet3"]["inErrors"], 0);

    for (cmd, nested) in [
        ("show ptp | json revision 2", true),
        ("show ptp | json", false),
    ] {
        let ptp = json_of(&t.cmd(cmd).await);
        let c = &ptp["ptpClockSummary"];
        assert_eq!(ptp["ptpMode"], "ptpBoundaryClock", "{cmd}");
        assert_eq!(c["gmClockIdentity"], "0xec:46:70:ff:fe:00:ff:a8", "{cmd}");
        assert_eq!(c["slavePort"], "Ethernet1");
        assert!(f(&c["offsetFromMaster"]).abs() <= 50.0);
        let (sync, current) = (f(&c["lastSyncTime"]), f(&c["currentPtpSystemTime"]));
        assert!(
            current - sync <= 5.0 && (current - now()).abs() < 5.0,
            "{c}"
        );
        let slave = if nested {
            &ptp["ptpIntfSummaries"]["Ethernet1"]["ptpIntfVlanSummaries"][0]["portState"]
        } else {
            &ptp["ptpIntfSummaries"]["Ethernet1"]["portState"]
        };
        assert_eq!(slave, "psSlave", "{cmd}");
    }

    let snooping = json_of(&t.cmd("show ip igmp snooping | json").await);
    assert_eq!(snooping["igmpSnoopingState"], "enabled");
    assert_eq!(snooping["vlans"]["100"]["igmpSnoopingState"], "enabled");
    let querier = json_of(&t.cmd("show ip igmp snooping querier | json").await);
    assert_eq!(querier["vlans"]["100"]["querierAddress"], "10.100.0.1");
    assert_eq!(querier["vlans"]["100"]["interface"], "Ethernet1");
    let groups = json_of(&t.cmd("show ip igmp snooping groups | json").await);
    assert_eq!(
        groups["vlans"]["100"]["groups"]["239.1.1.1"]["interfaces"],
        serde_json::json!(["Ethernet4"])
    );

    let lanz = json_of(&t.cmd("show queue-monitor length | json").await);
    let entries = lanz["entryList"].as_array().unwrap();
    assert!(!entries.is_empty(), "a healthy switch keeps small records");
    for e in entries {
        let recent = now() - f(&e["entryTime"]) < 3600.0;
        assert!(
            !(recent && f(&e["queueLength"]) > 100_000.0),
            "no large recent record: {e}"
        );
    }
    let drops = json_of(&t.cmd("show interfaces counters queue drops | json").await);
    let tc0 = &drops["interfaces"]["Ethernet4"]["trafficClasses"]["TC0"];
    assert_eq!(
        tc0["ingressVoqCounters"]["countersSum"]["droppedPackets"],
        57
    );

    let version = json_of(&t.cmd("show version | json").await);
    let uptime = f(&version["uptime"]);
    // Up 12 days at the lab's epoch (2026-11-01), and since.
    assert!(uptime >= 12.0 * 86_400.0, "{uptime}");
    assert!((f(&version["bootupTimestamp"]) + uptime - now()).abs() < 5.0);
    let cause = json_of(&t.cmd("show reload cause | json").await);
    assert_eq!(
        cause["resetCauses"][0]["description"],
        "Reload requested by the user."
    );

    let dom = json_of(
        &t.cmd("show interfaces transceiver dom thresholds | json")
            .await,
    );
    for port in TRADING_PORTS {
        let p = &dom["interfaces"][port];
        assert_eq!(p["mediaType"], "10GBASE-SR", "{port}");
        let rx = &p["parameters"]["rxPower"];
        let tx = &p["parameters"]["txPower"];
        assert!((f(&rx["channels"]["1"]) + 2.4).abs() < 0.2, "{rx}");
        assert!((f(&tx["channels"]["1"]) + 2.2).abs() < 0.2, "{tx}");
        assert!((f(&rx["threshold"]["lowAlarm"]) + 12.5).abs() < 0.01);
        assert!((f(&rx["threshold"]["lowWarn"]) + 9.5).abs() < 0.01);
        assert!((f(&rx["threshold"]["highWarn"]) - 1.0).abs() < 0.01);
        assert!((f(&rx["threshold"]["highAlarm"]) - 2.0).abs() < 0.01);
    }

    let ntp = body(&t.cmd("show ntp status").await);
    assert!(
        ntp.starts_with("synchronised to NTP server (10.0.0.1) at stratum 3\n"),
        "{ntp}"
    );
    let assoc = json_of(&t.cmd("show ntp associations | json").await);
    let peer = &assoc["peers"]["10.0.0.1"];
    assert_eq!(
        (peer["condition"].as_str(), peer["stratumLevel"].as_u64()),
        (Some("sys.peer"), Some(2))
    );
    no_config_lines(&lab);
    lab.shutdown().await;
}

/// Values a check compares with the previous run must not move between two healthy labs.
#[tokio::test]
async fn eos_history_is_constant_across_healthy_labs() {
    let mut seen: Vec<(Value, Value, i64)> = Vec::new();
    for _ in 0..2 {
        let lab = lab_with(&[]).await;
        let (_h, mut t) = eos_ready(&lab).await;
        let errors = json_of(&t.cmd("show interfaces counters errors | json").await);
        let drops = json_of(&t.cmd("show interfaces counters queue drops | json").await);
        let boot = f(&json_of(&t.cmd("show version | json").await)["bootupTimestamp"]);
        seen.push((errors, drops, boot.round() as i64));
        no_config_lines(&lab);
        lab.shutdown().await;
    }
    assert_eq!(seen[0], seen[1]);
}

/// A value read from a healthy switch and from one with `scenario`.
async fn before_after(scenario: &str, cmd: &str) -> (Value, Value) {
    let mut out = Vec::new();
    for scenarios in [&[][..], &[scenario][..]] {
        let lab = lab_with(scenarios).await;
        let (_h, mut t) = eos_ready(&lab).await;
        out.push(json_of(&t.cmd(cmd).await));
        no_config_lines(&lab);
        lab.shutdown().await;
    }
    let after = out.pop().unwrap();
    (out.pop().unwrap(), after)
}

#[tokio::test]
async fn eos_counter_scenarios_grow_from_a_healthy_run() {
    let (before, after) = before_after("crc-errors", "show interfaces | json").await;
    let (b, a) = (
        &before["interfaces"]["Ethernet3"]["interfaceCounters"],
        &after["interfaces"]["Ethernet3"]["interfaceCounters"],
    );
    assert!(f(&a["inputErrorsDetail"]["fcsErrors"]) > f(&b["inputErrorsDetail"]["fcsErrors"]));
    assert!(f(&a["totalInErrors"]) >= f(&b["totalInErrors"]) + 1000.0);
    assert_eq!(f(&a["linkStatusChanges"]), f(&b["linkStatusChanges"]) + 2.0);
    let (b1, a1) = (
        &before["interfaces"]["Ethernet1"]["interfaceCounters"],
        &after["interfaces"]["Ethernet1"]["interfaceCounters"],
    );
    assert_eq!(
        b1["totalInErrors"], a1["totalInErrors"],
        "other ports keep their history"
    );

    let (before, after) =
        before_after("microburst", "show interfaces counters queue drops | json").await;
    let path = |v: &Value| {
        f(
            &v["interfaces"]["Ethernet4"]["trafficClasses"]["TC0"]["ingressVoqCounters"]["countersSum"]
                ["droppedPackets"],
        )
    };
    let grown = path(&after) - path(&before);
    assert!((1_100.0..1_300.0).contains(&grown), "{grown}");
    let (_, lanz) = before_after("microburst", "show queue-monitor length | json").await;
    let newest = &lanz["entryList"][0];
    assert_eq!(newest["interface"], "Ethernet4");
    assert_eq!(newest["queueLength"], 3_145_728);
    assert!(now() - f(&newest["entryTime"]) < 30.0, "{newest}");
}

#[tokio::test]
async fn eos_state_scenarios_show_their_fault() {
    // ptp-unlocked: the switch is its own grandmaster and its last sync is old.
    let (_, ptp) = before_after("ptp-unlocked", "show ptp | json revision 2").await;
    let c = &ptp["ptpClockSummary"];
    assert_eq!(c["gmClockIdentity"], "0x00:1c:73:ff:ff:0a:00:01");
    assert_eq!(c["clockIdentity"], c["gmClockIdentity"]);
    assert_eq!(
        (c["stepsRemoved"].as_u64(), c["numberOfSlavePorts"].as_u64()),
        (Some(0), Some(0))
    );
    assert!(f(&c["currentPtpSystemTime"]) - f(&c["lastSyncTime"]) >= 157.0);

    // no-querier: no querier and no member on the feed VLAN, which floods.
    let (_, querier) = before_after("no-querier", "show ip igmp snooping querier | json").await;
    assert!(querier["vlans"].get("100").is_none(), "{querier}");
    let (_, groups) = before_after("no-querier", "show ip igmp snooping groups | json").await;
    assert!(groups["vlans"].get("100").is_none(), "{groups}");
    let (_, snooping) = before_after("no-querier", "show ip igmp snooping | json").await;
    assert_eq!(snooping["vlans"]["100"]["floodingTraffic"], true);

    // low-light: Ethernet3 between its low alarm and low warning.
    let (_, dom) = before_after(
        "low-light",
        "show interfaces transceiver dom thresholds | json",
    )
    .await;
    let rx = &dom["interfaces"]["Ethernet3"]["parameters"]["rxPower"];
    let level = f(&rx["channels"]["1"]);
    assert_eq!(level, -11.2);
    assert!(level > f(&rx["threshold"]["lowAlarm"]) && level < f(&rx["threshold"]["lowWarn"]));

    // rebooted: seconds of uptime, a later boot, the power loss as the cause.
    let (before, after) = before_after("rebooted", "show version | json").await;
    assert!(f(&after["uptime"]) < 120.0, "{after}");
    assert!(f(&after["bootupTimestamp"]) > f(&before["bootupTimestamp"]) + 86_400.0);
    let (_, cause) = before_after("rebooted", "show reload cause | json").await;
    assert_eq!(
        cause["resetCauses"][0]["description"],
        "The system rebooted due to a Power Loss"
    );
    let (before, after) = before_after("rebooted", "show interfaces | json").await;
    let count =
        |v: &Value| f(&v["interfaces"]["Ethernet1"]["interfaceCounters"]["inMulticastPkts"]);
    assert!(count(&after) < count(&before), "counters restart at boot");

    // ntp-unsynchronised.
    let lab = lab_with(&["ntp-unsynchronised"]).await;
    let (_h, mut t) = eos_ready(&lab).await;
    assert!(body(&t.cmd("show ntp status").await).starts_with("unsynchronised\n"));
    let assoc = json_of(&t.cmd("show ntp associations | json").await);
    assert!(
        assoc["peers"]
            .as_object()
            .unwrap()
            .values()
            .all(|p| p["condition"] != "sys.peer")
    );
    no_config_lines(&lab);
    lab.shutdown().await;
}

#[tokio::test]
async fn fortigate_answers_every_trading_command_healthy() {
    let lab = lab_with(&[]).await;
    let (_h, mut t) = fortigate_ready(&lab).await;
    let perf = body(&t.cmd("get system performance status").await);
    // Up 30 days at the lab's epoch (2026-11-01), and since.
    let days = perf
        .split_once("\nUptime: ")
        .and_then(|(_, rest)| rest.split_once(" days, "))
        .and_then(|(days, _)| days.parse::<u64>().ok());
    assert!(days.is_some_and(|d| d >= 30), "{perf}");
    for cpu in 0..4 {
        assert!(
            perf.contains(&format!("\nCPU{cpu} states: ")) && perf.contains("% softirq\n"),
            "{perf}"
        );
    }
    let status = body(&t.cmd("get system status").await);
    assert!(status.contains("\nLast reboot reason: warm reboot\n"));
    assert!(status.contains("\nVirtual domain configuration: disable\n"));

    let interfaces = body(&t.cmd("get system interface").await);
    for port in ["x1", "x2"] {
        let line = interfaces
            .lines()
            .find(|l| l.starts_with(&format!("name: {port} ")))
            .unwrap_or_else(|| panic!("{port}: {interfaces}"));
        assert!(line.contains(" sflow-sampler: disable "), "{line}");
    }
    assert!(!interfaces.contains("sflow-sampler: enable"));

    assert_eq!(
        body(&t.cmd("show system npu").await),
        "config system npu\nend\n\n"
    );
    assert!(
        body(&t.cmd("show full-configuration system npu").await)
            .contains("    set max-session-timeout 40\n")
    );
    assert_eq!(
        body(&t.cmd("show system session-ttl").await),
        "config system session-ttl\nend\n\n"
    );
    let ports = body(&t.cmd("diagnose npu np7lite port-list").await);
    for port in ["x1", "x2"] {
        assert!(
            ports
                .lines()
                .any(|l| l.starts_with(&format!("{port} ")) && l.contains("NP#0")),
            "{ports}"
        );
    }
    assert!(
        body(&t.cmd("diagnose npu np7 port-list").await)
            .starts_with("command parse error before 'np7'")
    );

    let ntp = body(&t.cmd("diagnose sys ntp status").await);
    assert!(
        ntp.starts_with("synchronized: yes, ntpsync: enabled, "),
        "{ntp}"
    );
    let selected: Vec<&str> = ntp.lines().filter(|l| l.ends_with(" selected")).collect();
    assert_eq!(selected.len(), 1, "{ntp}");
    assert!(selected[0].starts_with("ipv4 server(10.0.0.1) 10.0.0.1 -- reachable("));
    let block = ntp.split(selected[0]).nth(1).unwrap();
    assert!(block.contains("stratum=2"));
    let offset: f64 = block
        .split("clock offset is ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap();
    assert!(offset.abs() < 0.005, "{offset}");

    // The market-data feed is one-way UDP: proto_state 00, offloaded in one direction.
    feed_filter(&mut t).await;
    let list = body(&t.cmd("diagnose sys session list").await);
    assert!(
        list.starts_with("session info: proto=17 proto_state=00 ") && list.contains("ofld-O"),
        "{list}"
    );
    t.cmd("diagnose sys session filter clear").await;
    no_config_lines(&lab);
    lab.shutdown().await;
}

#[tokio::test]
async fn fortigate_without_vdoms_refuses_vdom_commands() {
    let lab = lab_with(&[]).await;
    let (_h, mut t) = fortigate_ready(&lab).await;
    for (line, word) in [
        ("config vdom", "vdom"),
        ("config global", "global"),
        ("sudo global get system status", "global"),
        ("sudo root get system status", "root"),
    ] {
        let out = t.cmd(line).await;
        assert!(
            out.contains(&format!(
                "command parse error before '{word}'\r\nCommand fail. Return code -61\r\n"
            )) && out.ends_with("\r\nfw1 # "),
            "{line}: {out:?}"
        );
    }
    for line in ["edit root", "end"] {
        let out = t.cmd(line).await;
        assert!(
            out.contains("8309: Unknown action 0\r\nCommand fail. Return code -1\r\n"),
            "{line}: {out:?}"
        );
    }
    let vds = body(&t.cmd("diagnose sys vd list").await);
    let names: Vec<&str> = vds
        .lines()
        .filter_map(|l| l.strip_prefix("name="))
        .filter_map(|l| l.split('/').next())
        .collect();
    assert_eq!(names, ["root", "vsys_ha", "vsys_fgfm"]);
    no_config_lines(&lab);
    lab.shutdown().await;
}

#[tokio::test]
async fn fortigate_scenarios_show_their_fault() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "sflow-enabled",
            "get system interface | grep \"name: x1 \"",
            &[" sflow-sampler: enable "],
        ),
        (
            "sflow-enabled",
            "show system interface x1",
            &["        set sflow-sampler enable\n"],
        ),
        (
            "sflow-enabled",
            "diagnose sys session list | grep no_ofld_reason",
            &["no_ofld_reason:  sflow\n"],
        ),
        (
            "rebooted",
            "get system performance status | grep Uptime",
            &["Uptime: 0 days, 0 hours, 1 minutes\n"],
        ),
        (
            "rebooted",
            "get system status | grep reboot",
            &["Last reboot reason: power cycle\n"],
        ),
        (
            "ntp-unsynchronised",
            "diagnose sys ntp status",
            &["synchronized: no, ntpsync: enabled", "unreachable(0x0)"],
        ),
        (
            "new-source-port",
            "diagnose sys session stat | grep setup_rate",
            &["setup_rate=1000 "],
        ),
    ];
    for (scenario, cmd, expect) in cases {
        let lab = lab_with(&[scenario]).await;
        let (_h, mut t) = fortigate_ready(&lab).await;
        t.cmd("diagnose sys session filter dport 5000").await;
        let out = body(&t.cmd(cmd).await);
        for e in *expect {
            assert!(out.contains(e), "{scenario}: {cmd}: {out}");
        }
        no_config_lines(&lab);
        lab.shutdown().await;
    }
}

/// What a paged read saw.
#[derive(Debug, Default)]
struct Paged {
    /// Lines per page, the last page included.
    pages: Vec<usize>,
    sessions: usize,
    sports: HashSet<u16>,
    tail: String,
}

/// Reads a command's output through the FortiOS pager (space at each `--More--`), counting
/// sessions without keeping the text; after `max_pages` pages answers `q`.
async fn read_paged(t: &mut Term, cmd: &str, max_pages: usize, limit: Duration) -> Paged {
    t.send(cmd).await;
    let deadline = Instant::now() + limit;
    let mut seen = Paged::default();
    let mut partial = String::new();
    let mut in_page = 0usize;
    let mut echo = true;
    loop {
        let msg = tokio::time::timeout_at(deadline.into(), t.channel.wait())
            .await
            .unwrap_or_else(|_| panic!("{cmd}: no prompt in {limit:?}; {seen:?}"));
        let Some(ChannelMsg::Data { data }) = msg else {
            match msg {
                Some(_) => continue,
                None => panic!("{cmd}: closed"),
            }
        };
        partial.push_str(&String::from_utf8_lossy(&data));
        while let Some(at) = partial.find("\r\n") {
            let line: String = partial.drain(..at + 2).collect();
            let line = line
                .trim_end_matches("\r\n")
                .trim_start_matches(['\r', ' ']);
            if std::mem::take(&mut echo) {
                continue;
            }
            in_page += 1;
            if let Some(rest) = line.strip_prefix("hook=pre dir=org act=noop ") {
                let sport: Option<u16> = rest
                    .split("->")
                    .next()
                    .and_then(|a| a.rsplit(':').next())
                    .and_then(|p| p.parse().ok());
                seen.sports.extend(sport);
            }
            if line.starts_with("session info:") {
                seen.sessions += 1;
            }
            if line.starts_with("total session") {
                seen.tail = line.to_string();
            }
        }
        if partial.ends_with("--More-- ") {
            seen.pages.push(in_page);
            in_page = 0;
            partial.clear();
            let key: &[u8] = if seen.pages.len() >= max_pages {
                b"q"
            } else {
                b" "
            };
            t.channel.data(key).await.unwrap();
        } else if partial.ends_with("fw1 # ") {
            seen.pages.push(in_page);
            return seen;
        }
    }
}

async fn feed_filter(t: &mut Term) {
    for line in [
        "diagnose sys session filter clear",
        "diagnose sys session filter proto 17",
        "diagnose sys session filter src 10.10.1.10",
        "diagnose sys session filter dst 10.20.1.20",
        "diagnose sys session filter dport 5000",
    ] {
        t.cmd(line).await;
    }
}

#[tokio::test]
async fn new_source_port_lists_ten_thousand_sessions_through_the_pager() {
    let lab = lab_with(&["new-source-port"]).await;
    let (_h, mut t) = fortigate_ready(&lab).await;
    feed_filter(&mut t).await;
    let count = body(
        &t.cmd("diagnose sys session list | grep -c \"session info\"")
            .await,
    );
    assert_eq!(count, "10000\n\n");
    let seen = read_paged(
        &mut t,
        "diagnose sys session list",
        usize::MAX,
        Duration::from_secs(120),
    )
    .await;
    assert_eq!(seen.sessions, 10_000);
    assert_eq!(
        seen.sports.len(),
        10_000,
        "each session from another source port"
    );
    assert_eq!(seen.tail, "total session 10000");
    // Pages of the terminal height less one line (999 at premarket's 1000 rows).
    let (last, full) = seen.pages.split_last().unwrap();
    assert!(
        full.len() > 100 && full.iter().all(|n| *n == 999),
        "{:?}",
        &seen.pages[..5]
    );
    assert!(*last <= 1000);
    no_config_lines(&lab);
    lab.shutdown().await;
}

#[tokio::test]
async fn huge_session_list_is_counted_lazily_and_stops_at_q() {
    let lab = lab_with(&["huge-session-list"]).await;
    let (_h, mut t) = fortigate_ready(&lab).await;
    feed_filter(&mut t).await;
    let start = Instant::now();
    let count = body(
        &t.cmd("diagnose sys session list | grep -c \"session info\"")
            .await,
    );
    assert_eq!(count, "200001\n\n");
    eprintln!("grep -c over 200,001 sessions: {:?}", start.elapsed());
    // Three pages, then `q`: the prompt comes back at once, the rest is never made.
    let start = Instant::now();
    let seen = read_paged(
        &mut t,
        "diagnose sys session list",
        3,
        Duration::from_secs(30),
    )
    .await;
    assert_eq!(&seen.pages[..3], &[999, 999, 999]);
    assert!(seen.sessions < 200 && seen.tail.is_empty(), "{seen:?}");
    assert!(
        start.elapsed() < Duration::from_secs(10),
        "{:?}",
        start.elapsed()
    );
    let stat = body(
        &t.cmd("diagnose sys session stat | grep session_count")
            .await,
    );
    assert!(stat.contains("session_count=200004 "), "{stat}");
    no_config_lines(&lab);
    lab.shutdown().await;
}

/// The whole 200,000-session list through the pager at 1000 rows, as premarket would read it:
/// a release-build benchmark, not a debug test.
/// `cargo test --release --test integration lab_trading::huge_session_list_full -- --ignored --nocapture`
#[tokio::test(flavor = "multi_thread")]
#[ignore = "benchmark; run with --release --ignored --nocapture"]
async fn huge_session_list_full_read() {
    let lab = lab_with(&["huge-session-list"]).await;
    let (_h, mut t) = fortigate_ready(&lab).await;
    feed_filter(&mut t).await;
    // The lab's own cost: every session made and matched, one number sent.
    let start = Instant::now();
    let count = body(
        &t.cmd("diagnose sys session list | grep -c \"session info\"")
            .await,
    );
    eprintln!("grep -c: {} in {:?}", count.trim(), start.elapsed());
    // The same bytes without the pager (a piped command does not page).
    let start = Instant::now();
    let unpaged = read_paged(
        &mut t,
        "diagnose sys session list | grep .",
        usize::MAX,
        Duration::from_secs(600),
    )
    .await;
    eprintln!(
        "| grep .: {} sessions in {:?}",
        unpaged.sessions,
        start.elapsed()
    );
    let start = Instant::now();
    let seen = read_paged(
        &mut t,
        "diagnose sys session list",
        usize::MAX,
        Duration::from_secs(600),
    )
    .await;
    let took = start.elapsed();
    assert_eq!(seen.sessions, 200_001);
    assert_eq!(seen.tail, "total session 200001");
    let hwm = std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .map(str::to_string)
        })
        .unwrap_or_default();
    eprintln!(
        "200,001 sessions, {} pages, in {took:?}; lab and client in one process, {hwm}",
        seen.pages.len()
    );
    no_config_lines(&lab);
    lab.shutdown().await;
}
