//! LANZ records: `show queue-monitor length | json` (shape from a real 7280-class capture in
//! goeapi's fixtures) and its text form. A healthy switch keeps two small records, one recent
//! and one from before the morning's maintenance anchor; `microburst` adds a 3 MiB record on
//! Ethernet4 seconds before the lab started. Records live in memory: LANZ off or a reboot
//! leaves none.

use super::super::clock;
use super::super::scenario::Fault;
use super::json::{J, obj};
use super::state::EosState;

/// One polling record.
#[derive(Clone, Debug, PartialEq)]
pub struct Record {
    pub interface: &'static str,
    pub traffic_class: u32,
    /// Bytes.
    pub queue_length: u64,
    pub duration_us: u64,
    /// Epoch seconds.
    pub entry_time: f64,
    pub ingress: &'static [&'static str],
}

/// The records the switch holds, newest first.
pub fn records(s: &EosState) -> Vec<Record> {
    if !s.running.lanz || s.rebooted() {
        return Vec::new();
    }
    let mut out = Vec::new();
    if s.faults.has(Fault::Microburst) {
        out.push(Record {
            interface: "Ethernet4",
            traffic_class: 0,
            queue_length: 3 * 1024 * 1024,
            duration_us: 1_840,
            entry_time: s.started - 4.0 + 0.218_734,
            ingress: &["Ethernet3"],
        });
    }
    out.push(Record {
        interface: "Ethernet2",
        traffic_class: 0,
        queue_length: 5_120,
        duration_us: 310,
        entry_time: s.started - 600.0 + 0.517_201,
        ingress: &["Ethernet1"],
    });
    out.push(Record {
        interface: "Ethernet4",
        traffic_class: 0,
        queue_length: 23_552,
        duration_us: 920,
        entry_time: clock::day_anchor(s.started) - 2.0 * 3600.0 + 0.061_002,
        ingress: &["Ethernet3"],
    });
    out
}

/// `show queue-monitor length | json`.
pub fn length_json(s: &EosState, now: f64) -> String {
    let entries = records(s).into_iter().map(|r| {
        obj! {
            "entryType" => "P",
            "interface" => r.interface,
            "trafficClass" => r.traffic_class,
            "queueLength" => r.queue_length,
            "duration" => r.duration_us / 1_000_000,
            "durationUsecs" => r.duration_us,
            "entryTime" => r.entry_time,
            "entryTimeUsecs" => (r.entry_time * 1e6).round() as u64,
            "globalProtectionModeEnabled" => true,
            "ingressPortSet" => J::arr(r.ingress.iter().map(|p| J::from(*p))),
        }
    });
    obj! {
        "reportTime" => now,
        "bytesPerTxmpSegment" => 512u32,
        "globalHitCount" => records(s).len(),
        "lanzEnabled" => s.running.lanz,
        "platformName" => "Sand",
        "entryList" => J::arr(entries),
    }
    .render()
}

/// `show queue-monitor length` (text; one real row quoted in goeapi, the rest inferred).
pub fn length_text(s: &EosState, now: f64) -> String {
    if !s.running.lanz {
        return "% LANZ is not enabled\n".to_string();
    }
    let mut out = String::from(
        "Report generated at 0:00:00.00000 ago\n\
         Type       Time                    Intf(TC)           Queue         Duration      Ingress\n\
         \x20                                                  Length                      Port-set\n\
         \x20                                                  (bytes)       (usecs)\n\
         ---------- ----------------------- ------------------ ------------- ------------- -------\n",
    );
    for r in records(s) {
        let ago = (now - r.entry_time).max(0.0);
        let (h, m, sec) = (
            (ago / 3600.0).floor(),
            (ago % 3600.0 / 60.0).floor(),
            ago % 60.0,
        );
        let intf = format!(
            "Et{}({})",
            r.interface.trim_start_matches("Ethernet"),
            r.traffic_class
        );
        let ingress: Vec<String> = r
            .ingress
            .iter()
            .map(|p| p.trim_start_matches("Ethernet").to_string())
            .collect();
        out.push_str(&format!(
            "P          {h}:{m:02}:{sec:08.5} ago{pad}{intf:<18} {:<13} {:<13} Et{}\n",
            r.queue_length,
            r.duration_us,
            ingress.join(","),
            pad = " ".repeat(8),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn microburst_adds_a_fresh_large_record() {
        let healthy = EosState::new("sw1", 1, &Faults::default());
        let now = healthy.started + 1.0;
        assert!(records(&healthy).iter().all(|r| r.queue_length < 100_000));
        let burst = EosState::new("sw1", 1, &Faults::only(Fault::Microburst));
        let v: serde_json::Value =
            serde_json::from_str(&length_json(&burst, burst.started + 1.0)).unwrap();
        let first = &v["entryList"][0];
        assert_eq!(first["interface"], "Ethernet4");
        assert_eq!(first["queueLength"], 3_145_728);
        assert!(burst.started + 1.0 - first["entryTime"].as_f64().unwrap() < 10.0);
        assert!(length_text(&healthy, now).contains("Et4(0)"));
        let off = EosState::new("sw1", 1, &Faults::only(Fault::LanzOff));
        assert!(records(&off).is_empty());
    }
}
