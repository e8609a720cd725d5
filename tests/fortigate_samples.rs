//! The published FortiOS outputs in the shared research folder (`../shared/samples/fortios`)
//! all parse, with the right offload decisions. The samples are not part of the repository; the
//! test reads them at run time and skips, saying why, when the folder is absent.

use std::path::PathBuf;

use premarket::Platform;
use premarket::parse::{Query, Raw};
use premarket::platform::fortigate::{
    DiagMcastSessions, GetHaStatus, ListSessions, OffloadBasis, SessionList, Ttl, session_list,
};
use premarket::platform::parse_json;

fn samples() -> Option<PathBuf> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let candidates = [
        std::env::var_os("PREMARKET_FORTIOS_SAMPLES").map(PathBuf::from),
        Some(root.join("../shared/samples/fortios")),
        Some(root.join("../../shared/samples/fortios")),
    ];
    candidates.into_iter().flatten().find(|p| p.is_dir())
}

/// The sample without its `#!` provenance header.
fn read(name: &str) -> Option<String> {
    let Some(dir) = samples() else {
        eprintln!(
            "skipped: no shared samples folder (../shared/samples/fortios or PREMARKET_FORTIOS_SAMPLES)"
        );
        return None;
    };
    let path = dir.join(name);
    let Ok(text) = std::fs::read_to_string(&path) else {
        eprintln!("skipped {name}: not in {}", dir.display());
        return None;
    };
    Some(
        text.lines()
            .filter(|l| !l.starts_with("#!"))
            .collect::<Vec<_>>()
            .join("\n"),
    )
}

/// Every session of a sample, and the pipeline's bounded summary of the same list agreeing
/// with it.
fn sessions(name: &str) -> Option<SessionList> {
    let raw = read(name)?;
    let list = session_list::parse(&raw).unwrap_or_else(|e| panic!("{name}: {e}\n{}", e.excerpt));
    let summary = ListSessions::parse(&mut Raw::new(&raw))
        .unwrap_or_else(|e| panic!("{name}: {e}\n{}", e.excerpt));
    assert_eq!(summary.sessions, list.sessions.len() as u64, "{name}");
    assert_eq!(
        summary.offloaded,
        list.sessions.iter().filter(|s| s.offloaded()).count() as u64,
        "{name}"
    );
    Some(list)
}

/// (sample, sessions, offloaded org/reply for every session, basis, reasons of the first)
type Expected = (
    &'static str,
    usize,
    (bool, bool),
    OffloadBasis,
    &'static [&'static str],
);

#[test]
fn session_lists_have_the_right_offload_decisions() {
    let cases: [Expected; 7] = [
        (
            "session-list-v5x-np4-offload-4-flag-kb.txt",
            1,
            (true, true),
            OffloadBasis::NpuInfo,
            &[],
        ),
        (
            "session-list-v6x-ftp-helper-shaper-offload-denied.txt",
            1,
            (false, false),
            OffloadBasis::NpuState,
            &["offload-denied", "helper"],
        ),
        (
            "session-list-v7-np7-bgp-offload-9-kb.txt",
            1,
            (true, true),
            OffloadBasis::Labels,
            &[],
        ),
        (
            "session-list-v7-tcp-shaper-redir-to-ips-denied-by-nturbo.txt",
            1,
            (false, false),
            OffloadBasis::NpuState,
            &["redir-to-ips", "denied-by-nturbo"],
        ),
        (
            "session-list-v7-tp-mode-reflect-npu-flag-off-cn.txt",
            1,
            (false, false),
            OffloadBasis::NpuState,
            &["npu-flag-off"],
        ),
        (
            "session-list-v70-tcp-sdwan-np6-offloaded-two-sessions-cn.txt",
            2,
            (true, true),
            OffloadBasis::NpuState,
            &[],
        ),
        (
            "session-list-v743-three-sessions-udp-tcp-icmp-no-npu.txt",
            3,
            (false, false),
            OffloadBasis::NpuState,
            &[],
        ),
    ];
    for (name, count, offload, basis, reasons) in cases {
        let Some(list) = sessions(name) else { continue };
        assert_eq!(list.sessions.len(), count, "{name}");
        for s in &list.sessions {
            assert_eq!((s.offload_org, s.offload_reply), offload, "{name}");
            assert_eq!(s.offload_basis, basis, "{name}");
            assert!(
                s.src.is_some() && s.dport.is_some() && s.policy_id.is_some() && s.expire.is_some(),
                "{name}: {s:?}"
            );
        }
        assert_eq!(list.sessions[0].no_ofld_reason, reasons, "{name}");
    }
    if let Some(list) = sessions("session-list-v743-three-sessions-udp-tcp-icmp-no-npu.txt") {
        let udp = &list.sessions[0];
        assert_eq!(
            (udp.proto, udp.dport, udp.timeout, udp.expire),
            (
                Some(17),
                Some(53),
                Some(Ttl::Seconds(0)),
                Some(Ttl::Seconds(176))
            )
        );
        assert_eq!(
            udp.src,
            Some("192.168.0.10".parse().expect("ip")),
            "pre-NAT source from the org hook"
        );
    }
}

#[test]
fn the_other_samples_parse() {
    let cases = [
        (
            "get system status",
            "system-status-v623-vm64-kvm-netcontrol.txt",
            "\"version\":\"6.2.3\"",
        ),
        (
            "get system status",
            "system-status-v703-vm-kvm-eval-lab.txt",
            "\"build\":237",
        ),
        (
            "get system performance status",
            "system-performance-status-v5x-fgt30d-dollar-prompt.txt",
            "\"memory_used_percent\":21.0",
        ),
        (
            "get system performance status",
            "system-performance-status-v7x-maximal-npu-lines-kb.txt",
            "\"memory_used_percent\":47.4",
        ),
        (
            "diagnose sys session stat",
            "session-stat-v7-fg101f-highmem-kb.txt",
            "\"npu_session_count\":0",
        ),
        (
            "diagnose sys session stat",
            "session-stat-v5x-before-after-clear-flush-kb.txt",
            "\"session_count\":30",
        ),
        (
            "diagnose sys session filter",
            "session-filter-readback-v6-empty-kb.txt",
            "\"dest port\":\"any\"",
        ),
        (
            "diagnose sys mcast-session list",
            "mcast-session-list-tp-mode-rip-ospf-eigrp-cn.txt",
            "\"total\":6",
        ),
        (
            "show firewall multicast-policy",
            "multicast-policy-show-tp-mode-default-cn.txt",
            "\"srcintf\":[\"any\"]",
        ),
        (
            "get system ha status",
            "ha-status-v74-fg1800f-ap-primary-doc.txt",
            "\"mode\":\"a-p\"",
        ),
    ];
    for (command, name, needle) in cases {
        let Some(raw) = read(name) else { continue };
        let fact = parse_json(Platform::Fortigate, command, &raw)
            .unwrap_or_else(|e| panic!("{name}: {e}\n{}", e.excerpt));
        let json = fact.to_string();
        assert!(json.contains(needle), "{name}: {needle} not in {json}");
    }
    if let Some(raw) = read("ha-status-v74-fg1800f-ap-primary-doc.txt") {
        let ha = GetHaStatus::parse(&mut Raw::new(&raw)).expect("ha parses");
        let members: Vec<(Option<&str>, Option<bool>)> = ha
            .members
            .iter()
            .map(|m| (m.role.as_deref(), m.in_sync))
            .collect();
        assert_eq!(
            members,
            vec![
                (Some("primary"), Some(true)),
                (Some("secondary"), Some(true))
            ]
        );
        // The heartbeat (ha1, ha2) and monitored (port5, port6) links of both members, all up
        // and clean; the secondary's monitored ports transmit nothing (A-P).
        let links = &ha.links.links;
        assert_eq!(links.len(), 8, "{links:?}");
        assert!(ha.links.unread.is_empty() && links.iter().all(|l| l.is_up()));
        let port6 = links
            .iter()
            .find(|l| l.port == "port6" && l.serial == "FG180FTK*******2")
            .expect("the secondary's port6");
        assert_eq!(
            (port6.rx.packets, port6.tx.packets, port6.speed.as_str()),
            (448, 0, "1000full")
        );
    }
    if let Some(raw) = read("mcast-session-list-tp-mode-rip-ospf-eigrp-cn.txt") {
        let list = DiagMcastSessions::parse(&mut Raw::new(&raw)).expect("mcast parses");
        assert_eq!(list.sessions.len(), 6);
        assert!(
            list.sessions
                .iter()
                .all(|s| s.offloaded.is_none() && s.group.is_some_and(|g| g.is_multicast()))
        );
    }
}
