//! Every output parser premarket has, old and new, in one table the parser test files share
//! (`parse_props.rs`, `hostile_parse.rs`, `eos_parse.rs`, `fortigate_parse.rs`): the command,
//! its fixture folder, a fixture to mutate, and the parser returning its fact as JSON plus
//! whether the fact reads back from that JSON unchanged (facts are archived as JSON and read
//! back by the next run).

#![allow(dead_code)]

use std::path::PathBuf;

use premarket::Platform;
use premarket::parse::{ParseError, Query, Raw};
use premarket::platform::{eos, fortigate};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// A parsed output: the fact as JSON, and whether JSON -> fact gives the same fact back.
pub struct Parsed {
    pub json: Value,
    pub round_trips: bool,
}

pub struct Parser {
    pub platform: Platform,
    /// The command line as premarket sends it.
    pub command: &'static str,
    /// `tests/fixtures/<dir>`.
    pub dir: &'static str,
    /// A fixture in `dir` that parses (what the property tests mutate).
    pub sample: &'static str,
    pub parse: fn(&str) -> Result<Parsed, ParseError>,
}

impl Parser {
    pub fn sample_text(&self) -> String {
        read(&format!("{}/{}", self.dir, self.sample))
    }

    /// Every fixture of this command: (file name, text).
    pub fn fixtures(&self) -> Vec<(String, String)> {
        let mut out: Vec<(String, String)> = std::fs::read_dir(fixtures().join(self.dir))
            .unwrap_or_else(|e| panic!("{}: {e}", self.dir))
            .map(|e| e.expect("entry").path())
            .filter(|p| p.extension().is_some_and(|x| x == "txt"))
            .map(|p| {
                let name = p.file_name().expect("name").to_string_lossy().into_owned();
                let text = std::fs::read_to_string(&p).expect("fixture");
                (name, text)
            })
            .collect();
        out.sort();
        out
    }
}

pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

pub fn read(path: &str) -> String {
    std::fs::read_to_string(fixtures().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A new parser called directly.
fn typed<T: Serialize + DeserializeOwned + PartialEq>(
    fact: Result<T, ParseError>,
) -> Result<Parsed, ParseError> {
    let fact = fact?;
    let text = serde_json::to_string(&fact).expect("a fact serialises");
    let round_trips = serde_json::from_str::<T>(&text).is_ok_and(|back| back == fact);
    Ok(Parsed {
        json: serde_json::from_str(&text).expect("JSON"),
        round_trips,
    })
}

/// An existing parser reached through its query (what the pipeline runs).
fn queried<Q: Query>(raw: &str) -> Result<Parsed, ParseError>
where
    Q::Fact: DeserializeOwned + PartialEq,
{
    typed(Q::parse(&mut Raw::new(raw)))
}

macro_rules! old {
    ($platform:expr, $command:literal, $dir:literal, $sample:literal, $query:ty) => {
        Parser {
            platform: $platform,
            command: $command,
            dir: $dir,
            sample: $sample,
            parse: |raw| queried::<$query>(raw),
        }
    };
}

macro_rules! new {
    ($platform:expr, $command:literal, $dir:literal, $sample:literal, $f:path) => {
        Parser {
            platform: $platform,
            command: $command,
            dir: $dir,
            sample: $sample,
            parse: |raw| typed($f(raw)),
        }
    };
}

use Platform::{Eos, Fortigate};

pub const PARSERS: &[Parser] = &[
    // EOS, existing
    old!(
        Eos,
        "show version | json",
        "eos/show-version",
        "json-4.32.2F-up-12-days.txt",
        eos::ShowVersion
    ),
    old!(
        Eos,
        "show queue-monitor length status | json",
        "eos/show-queue-monitor-length-status",
        "json-enabled.txt",
        eos::ShowLanzStatus
    ),
    old!(
        Eos,
        "show startup-config",
        "eos/show-startup-config",
        "lanz-saved.txt",
        eos::ShowStartupConfig
    ),
    old!(
        Eos,
        "show running-config diffs",
        "eos/show-running-config-diffs",
        "unsaved.txt",
        eos::ShowRunningConfigDiffs
    ),
    // EOS, trading checks
    new!(
        Eos,
        "show interfaces | json",
        "eos/show-interfaces",
        "healthy.txt",
        eos::interfaces::parse
    ),
    new!(
        Eos,
        "show interfaces counters errors | json",
        "eos/show-interfaces-counters-errors",
        "healthy.txt",
        eos::interface_errors::parse
    ),
    new!(
        Eos,
        "show ptp | json",
        "eos/show-ptp",
        "locked-rev2.txt",
        eos::ptp::parse
    ),
    new!(
        Eos,
        "show ip igmp snooping | json",
        "eos/show-ip-igmp-snooping",
        "healthy.txt",
        eos::igmp_snooping::parse
    ),
    new!(
        Eos,
        "show ip igmp snooping querier | json",
        "eos/show-ip-igmp-snooping-querier",
        "healthy.txt",
        eos::igmp_querier::parse
    ),
    new!(
        Eos,
        "show ip igmp snooping groups | json",
        "eos/show-ip-igmp-snooping-groups",
        "healthy.txt",
        eos::igmp_groups::parse
    ),
    new!(
        Eos,
        "show queue-monitor length | json",
        "eos/show-queue-monitor-length",
        "microburst.txt",
        eos::lanz_records::parse
    ),
    new!(
        Eos,
        "show interfaces counters queue drops | json",
        "eos/show-interfaces-counters-queue-drops",
        "healthy.txt",
        eos::queue_drops::parse
    ),
    // EOS, the drop sources of non-VOQ families (issue 18)
    new!(
        Eos,
        "show interfaces counters queue detail | json",
        "eos/show-interfaces-counters-queue-detail",
        "healthy-7050x.txt",
        eos::queue_detail::parse
    ),
    new!(
        Eos,
        "show interfaces counters discards | json",
        "eos/show-interfaces-counters-discards",
        "healthy.txt",
        eos::discards::parse
    ),
    new!(
        Eos,
        "show reload cause | json",
        "eos/show-reload-cause",
        "json-user.txt",
        eos::reload_cause::parse
    ),
    new!(
        Eos,
        "show interfaces transceiver dom thresholds | json",
        "eos/show-interfaces-transceiver-dom-thresholds",
        "healthy.txt",
        eos::transceivers::parse
    ),
    new!(
        Eos,
        "show ntp status",
        "eos/show-ntp-status",
        "synchronised.txt",
        eos::ntp_status::parse
    ),
    new!(
        Eos,
        "show ntp associations | json",
        "eos/show-ntp-associations",
        "healthy.txt",
        eos::ntp_associations::parse
    ),
    // EOS, the exchange hand-off (issue 35)
    new!(
        Eos,
        "show ip bgp summary vrf all | json",
        "eos/show-ip-bgp-summary-vrf-all",
        "healthy.txt",
        eos::bgp::parse
    ),
    new!(
        Eos,
        "show bfd peers | json",
        "eos/show-bfd-peers",
        "healthy.txt",
        eos::bfd::parse
    ),
    new!(
        Eos,
        "show ip pim neighbor | json",
        "eos/show-ip-pim-neighbor",
        "healthy.txt",
        eos::pim::parse
    ),
    new!(
        Eos,
        "show ip mroute | json",
        "eos/show-ip-mroute",
        "healthy.txt",
        eos::mroute::parse
    ),
    new!(
        Eos,
        "show ip mroute count | json",
        "eos/show-ip-mroute-count",
        "sample-1.txt",
        eos::mroute_count::parse
    ),
    new!(
        Eos,
        "show mlag | json",
        "eos/show-mlag",
        "active.txt",
        eos::mlag::parse
    ),
    new!(
        Eos,
        "show mlag config-sanity | json",
        "eos/show-mlag-config-sanity",
        "trunk-native-vlan-mismatch.txt",
        eos::mlag_sanity::parse
    ),
    new!(
        Eos,
        "show hardware counter drop | json",
        "eos/show-hardware-counter-drop",
        "healthy.txt",
        eos::hardware_drops::parse
    ),
    new!(
        Eos,
        "show interfaces flow-control | json",
        "eos/show-interfaces-flow-control",
        "off.txt",
        eos::flow_control::parse
    ),
    new!(
        Eos,
        "show lldp neighbors | json",
        "eos/show-lldp-neighbors",
        "healthy.txt",
        eos::lldp::parse
    ),
    // FortiGate, existing
    old!(
        Fortigate,
        "get system status",
        "fortigate/get-system-status",
        "v767-standalone.txt",
        fortigate::GetSystemStatus
    ),
    old!(
        Fortigate,
        "get system performance status",
        "fortigate/get-system-performance-status",
        "idle.txt",
        fortigate::GetPerformanceStatus
    ),
    old!(
        Fortigate,
        "get system ha status",
        "fortigate/get-system-ha-status",
        "ap-in-sync.txt",
        fortigate::GetHaStatus
    ),
    old!(
        Fortigate,
        "get system global",
        "fortigate/get-system-global",
        "default.txt",
        fortigate::GetSystemGlobal
    ),
    old!(
        Fortigate,
        "diagnose sys session stat",
        "fortigate/diagnose-sys-session-stat",
        "healthy.txt",
        fortigate::DiagSessionStat
    ),
    old!(
        Fortigate,
        "diagnose sys session filter",
        "fortigate/diagnose-sys-session-filter",
        "md-unicast.txt",
        fortigate::FilterReadback
    ),
    old!(
        Fortigate,
        "diagnose sys session list",
        "fortigate/diagnose-sys-session-list",
        "md-unicast-offloaded.txt",
        fortigate::ListSessions
    ),
    old!(
        Fortigate,
        "diagnose sys mcast-session list",
        "fortigate/diagnose-sys-mcast-session-list",
        "md-multicast-offloaded.txt",
        fortigate::DiagMcastSessions
    ),
    old!(
        Fortigate,
        "show firewall policy 1",
        "fortigate/show-firewall-policy",
        "policy1-offload.txt",
        fortigate::ShowPolicy
    ),
    old!(
        Fortigate,
        "show firewall multicast-policy 1",
        "fortigate/show-firewall-multicast-policy",
        "policy1-offload.txt",
        fortigate::ShowMulticastPolicy
    ),
    old!(
        Fortigate,
        "show firewall service custom",
        "fortigate/show-firewall-service-custom",
        "md-udp-600.txt",
        fortigate::ShowService
    ),
    // FortiGate, trading checks
    new!(
        Fortigate,
        "get system interface",
        "fortigate/get-system-interface",
        "healthy.txt",
        fortigate::system_interface::parse
    ),
    new!(
        Fortigate,
        "show system npu",
        "fortigate/show-system-npu",
        "max-session-timeout-120.txt",
        fortigate::npu::parse
    ),
    new!(
        Fortigate,
        "show system session-ttl",
        "fortigate/show-system-session-ttl",
        "md-udp-never.txt",
        fortigate::session_ttl::parse
    ),
    new!(
        Fortigate,
        "diagnose npu np7lite port-list",
        "fortigate/diagnose-npu-np7lite-port-list",
        "healthy-inferred.txt",
        fortigate::npu_port_list::parse
    ),
    new!(
        Fortigate,
        "diagnose npu np7 port-list",
        "fortigate/diagnose-npu-np7-port-list",
        "601f-np-group.txt",
        fortigate::npu_port_list::parse
    ),
    new!(
        Fortigate,
        "diagnose npu np6 port-list",
        "fortigate/diagnose-npu-np6-port-list",
        "600e-two-chips.txt",
        fortigate::npu_port_list::parse
    ),
    old!(
        Fortigate,
        "show system interface",
        "fortigate/show-system-interface",
        "v76-vlan-no-type-on-aggregate.txt",
        fortigate::ShowSystemInterface
    ),
    old!(
        Fortigate,
        "show system virtual-switch",
        "fortigate/show-system-virtual-switch",
        "lan-port1-port2.txt",
        fortigate::ShowVirtualSwitch
    ),
    new!(
        Fortigate,
        "diagnose sys ntp status",
        "fortigate/diagnose-sys-ntp-status",
        "synchronized.txt",
        fortigate::ntp_status::parse
    ),
    // FortiGate, the firewall's data path (issue 35)
    new!(
        Fortigate,
        "diagnose hardware deviceinfo nic x1",
        "fortigate/diagnose-hardware-deviceinfo-nic",
        "x1-v76-healthy.txt",
        fortigate::nic::parse
    ),
    new!(
        Fortigate,
        "get router info bgp summary",
        "fortigate/get-router-info-bgp-summary",
        "v76-two-peers-established.txt",
        fortigate::bgp_summary::parse
    ),
    new!(
        Fortigate,
        "diagnose sys ha checksum cluster",
        "fortigate/diagnose-sys-ha-checksum-cluster",
        "ap-in-sync.txt",
        fortigate::ha_checksum::parse
    ),
    new!(
        Fortigate,
        "diagnose npu np6xlite npu-feature",
        "fortigate/diagnose-npu-npu-feature",
        "np6xlite-100f-default.txt",
        fortigate::npu_feature::parse_features
    ),
    new!(
        Fortigate,
        "diagnose npu np6lite npu-feature",
        "fortigate/diagnose-npu-npu-feature",
        "np6lite-200e-two-chips.txt",
        fortigate::npu_feature::parse_features
    ),
    old!(
        Fortigate,
        "show system np6xlite",
        "fortigate/show-system-np6xlite",
        "100f-default.txt",
        fortigate::ShowSystemNp6xlite
    ),
];

/// The parser of `command`.
pub fn parser(command: &str) -> &'static Parser {
    PARSERS
        .iter()
        .find(|p| p.command == command)
        .unwrap_or_else(|| panic!("no parser for {command}"))
}

/// Values a fact must hold: (JSON pointer into the fact as `premarket parse` prints it, value).
pub type Values = &'static [(&'static str, fn() -> Value)];

/// What a fixture must give: values at JSON pointers, or words of the error.
#[derive(Clone, Copy)]
pub enum Want {
    Facts(Values),
    Error(&'static [&'static str]),
}

/// A JSON value for a [`Want::Facts`] row: `v!("connected")`, `v!(null)`.
#[allow(unused_macros)]
macro_rules! v {
    ($($t:tt)*) => {
        || serde_json::json!($($t)*)
    };
}
#[allow(unused_imports)]
pub(crate) use v;

/// Checks each (command, fixture file, expectation) row against the command's parser.
pub fn check_rows(rows: &[(&str, &str, Want)]) {
    for (command, file, want) in rows {
        let p = parser(command);
        let raw = read(&format!("{}/{file}", p.dir));
        match (want, (p.parse)(&raw)) {
            (Want::Facts(values), Ok(parsed)) => {
                for (pointer, value) in *values {
                    assert_eq!(
                        parsed.json.pointer(pointer).cloned().unwrap_or(Value::Null),
                        value(),
                        "{command} {file} {pointer} in {}",
                        parsed.json
                    );
                }
            }
            (Want::Error(words), Err(e)) => {
                for w in *words {
                    assert!(
                        e.reason.contains(w) || e.excerpt.contains(w),
                        "{command} {file}: {:?} lacks {w:?}",
                        e.reason
                    );
                }
                assert!(!e.excerpt.is_empty(), "{command} {file}: no excerpt");
            }
            (Want::Facts(_), Err(e)) => panic!("{command} {file}: {e}\n{}", e.excerpt),
            (Want::Error(_), Ok(parsed)) => panic!("{command} {file}: parsed as {}", parsed.json),
        }
    }
}

/// Checks the top-level keys of each command's fact (its sample's), as `premarket parse` prints
/// them: the contract the query registry and the README rely on.
pub fn check_keys(contract: &[(&str, &[&str])]) {
    for (command, want) in contract {
        let p = parser(command);
        let json = (p.parse)(&p.sample_text()).expect("sample parses").json;
        let mut got: Vec<&str> = json
            .as_object()
            .expect("object")
            .keys()
            .map(String::as_str)
            .collect();
        let mut want = want.to_vec();
        got.sort();
        want.sort();
        assert_eq!(got, want, "{command}");
    }
}

/// Pairs of commands whose outputs share one grammar, so each may read the other's output:
/// every FortiOS configuration `show`/`get` is one tree; a startup and a running config are one
/// format; the LANZ records carry the same `lanzEnabled` as the status.
pub fn same_format(a: &str, b: &str) -> bool {
    let tree = [
        "get system global",
        "show firewall policy 1",
        "show firewall multicast-policy 1",
        "show firewall service custom",
        // Read as a plain configuration tree: any `config ... end` output is one.
        "show system interface",
        "show system virtual-switch",
    ];
    let npu_ttl = [
        "show system npu",
        "show system session-ttl",
        "show system np6xlite",
    ];
    // One parser reads every NP generation's port list (by its header).
    let port_lists = [
        "diagnose npu np7lite port-list",
        "diagnose npu np7 port-list",
        "diagnose npu np6 port-list",
    ];
    // One parser reads every NP6-generation feature table.
    let features = [
        "diagnose npu np6xlite npu-feature",
        "diagnose npu np6lite npu-feature",
    ];
    (tree.contains(&a) && (tree.contains(&b) || npu_ttl.contains(&b)))
        || (port_lists.contains(&a) && port_lists.contains(&b))
        || (features.contains(&a) && features.contains(&b))
        || (a == "show queue-monitor length status | json"
            && b == "show queue-monitor length | json")
}
