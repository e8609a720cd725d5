//! Device output is hostile input: no parser may panic, whatever the text. Arbitrary strings,
//! and real-looking fixtures cut and spliced at arbitrary points, must parse or fail cleanly.

mod common;

use premarket::core::Platform;
use proptest::prelude::*;

/// Every (platform, command) the checks send, with a fixture to mutate.
const PARSERS: &[(Platform, &str, &str)] = &[
    (
        Platform::Eos,
        "show version | json",
        "eos/show-version/json-4.31.6M.txt",
    ),
    (
        Platform::Eos,
        "show version",
        "eos/show-version/text-new.txt",
    ),
    (
        Platform::Eos,
        "show queue-monitor length status | json",
        "eos/show-queue-monitor-length-status/json-enabled.txt",
    ),
    (
        Platform::Eos,
        "show queue-monitor length status",
        "eos/show-queue-monitor-length-status/text-enabled.txt",
    ),
    (
        Platform::Eos,
        "show startup-config",
        "eos/show-startup-config/lanz-saved.txt",
    ),
    (
        Platform::Eos,
        "show running-config diffs",
        "eos/show-running-config-diffs/unsaved.txt",
    ),
    (
        Platform::Fortigate,
        "get system status",
        "fortigate/get-system-status/v767-standalone.txt",
    ),
    (
        Platform::Fortigate,
        "get system performance status",
        "fortigate/get-system-performance-status/idle.txt",
    ),
    (
        Platform::Fortigate,
        "get system ha status",
        "fortigate/get-system-ha-status/ap-in-sync.txt",
    ),
    (
        Platform::Fortigate,
        "get system global",
        "fortigate/get-system-global/default.txt",
    ),
    (
        Platform::Fortigate,
        "diagnose sys session stat",
        "fortigate/diagnose-sys-session-stat/healthy.txt",
    ),
    (
        Platform::Fortigate,
        "diagnose sys session filter",
        "fortigate/diagnose-sys-session-filter/md-unicast.txt",
    ),
    (
        Platform::Fortigate,
        "diagnose sys session list",
        "fortigate/diagnose-sys-session-list/md-unicast-offloaded.txt",
    ),
    (
        Platform::Fortigate,
        "diagnose sys mcast-session list",
        "fortigate/diagnose-sys-mcast-session-list/md-multicast-offloaded.txt",
    ),
    (
        Platform::Fortigate,
        "show firewall policy 1",
        "fortigate/show-firewall-policy/policy1-offload.txt",
    ),
    (
        Platform::Fortigate,
        "show firewall multicast-policy 1",
        "fortigate/show-firewall-multicast-policy/policy1-offload.txt",
    ),
    (
        Platform::Fortigate,
        "show firewall service custom",
        "fortigate/show-firewall-service-custom/md-udp-600.txt",
    ),
];

fn parse(platform: Platform, command: &str, raw: &str) {
    let query = premarket::platform::query_for(platform, command).expect("a listed command");
    // Either outcome is fine; a panic fails the test.
    let _ = (query.parse_json)(&mut premarket::parse::Raw::new(raw));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn arbitrary_text_never_panics(raw in "\\PC*", bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
        let lossy = String::from_utf8_lossy(&bytes);
        for (platform, command, _) in PARSERS {
            parse(*platform, command, &raw);
            parse(*platform, command, &lossy);
        }
    }

    #[test]
    fn spliced_fixtures_never_panic(cut in 0usize..4096, splice in "[ -~\\r\\n{}\"%:@+-]{0,80}", index in 0usize..64) {
        for (platform, command, fixture) in PARSERS {
            let text = std::fs::read_to_string(common::fixture(fixture)).expect("fixture");
            let mut at = cut.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            parse(*platform, command, &text[..at]);
            let (head, tail) = text.split_at(at);
            parse(*platform, command, &format!("{head}{splice}{tail}"));
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                let i = index % lines.len();
                lines.insert(i, &splice);
                parse(*platform, command, &lines.join("\r\n"));
            }
        }
    }
}
