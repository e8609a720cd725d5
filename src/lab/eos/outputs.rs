//! Text and JSON an emulated switch prints, rendered from its state. Shapes follow public EOS
//! outputs (ntc-templates, napalm and ANTA fixtures); the values are the lab's own. `show
//! version | json` has the key set of the model's release: EOS 4.2x prints fewer keys (no
//! `uptime`, `mfgName`, `imageOptimization`; a 4.15 and a 4.27 reply bracket it).

use super::super::diff;
use super::json::{J, obj};
use super::model::Release;
use super::state::EosState;

pub fn show_version(s: &EosState, now: f64) -> String {
    let internal = internal_version(&s.version);
    format!(
        "Arista {model}\n\
         Hardware version: 11.02\n\
         Serial number: {serial}\n\
         Hardware MAC address: {mac}\n\
         System MAC address: {mac}\n\
         \n\
         Software image version: {version}\n\
         Architecture: x86_64\n\
         Internal build version: {internal}\n\
         Internal build ID: 5d1c9a7e-3f0b-4c2a-9e8d-7b6a5c4d3e2f\n\
         Image format version: 3.0\n\
         Image optimization: {image}\n\
         \n\
         Uptime: {uptime}\n\
         Total memory: 32562968 kB\n\
         Free memory: 25176420 kB\n\
         \n",
        model = s.model,
        serial = s.serial,
        mac = s.mac,
        version = s.version,
        image = s.spec.image_optimization(),
        uptime = uptime_words(s.uptime(now) as u64),
    )
}

pub fn show_version_json(s: &EosState, now: f64) -> String {
    if s.spec.release == Release::Eos42 {
        return obj! {
            "modelName" => s.model.as_str(),
            "internalVersion" => internal_version(&s.version),
            "systemMacAddress" => colon_mac(&s.mac),
            "serialNumber" => s.serial.as_str(),
            "memTotal" => 3_818_788u64,
            "bootupTimestamp" => s.booted,
            "memFree" => 1_920_440u64,
            "version" => s.version.as_str(),
            "architecture" => "i386",
            "isIntlVersion" => false,
            "internalBuildId" => "0f3b0c2e-8a41-4e1c-9d55-1c2a3b4c5d6e",
            "hardwareRevision" => "01.03",
        }
        .render();
    }
    obj! {
        "mfgName" => "Arista",
        "modelName" => s.model.as_str(),
        "hardwareRevision" => "11.02",
        "serialNumber" => s.serial.as_str(),
        "systemMacAddress" => colon_mac(&s.mac),
        "hwMacAddress" => colon_mac(&s.mac),
        "configMacAddress" => "00:00:00:00:00:00",
        "version" => s.version.as_str(),
        "architecture" => "x86_64",
        "internalVersion" => internal_version(&s.version),
        "internalBuildId" => "5d1c9a7e-3f0b-4c2a-9e8d-7b6a5c4d3e2f",
        "imageFormatVersion" => "3.0",
        "imageOptimization" => s.spec.image_optimization(),
        "bootupTimestamp" => s.booted,
        "uptime" => s.uptime(now),
        "memTotal" => 32_562_968u64,
        "memFree" => 25_176_420u64,
        "isIntlVersion" => false,
    }
    .render()
}

/// `show queue-monitor length status`. No public text sample exists; the first line gives the
/// global state, as the lab's parser and ANTA's `lanzEnabled` read it.
pub fn lanz_status(s: &EosState) -> String {
    if !s.running.lanz {
        return "queue-monitor length disabled\n".to_string();
    }
    "queue-monitor length enabled\n\
     queue-monitor length packet sampling is disabled\n\
     queue-monitor length update interval in micro seconds: 5000\n\
     \n\
     Per-Interface Queue Length Monitoring\n\
     -------------------------------------\n\
     Queue length monitoring is enabled\n\
     Queue length monitoring mode is: fixed\n\
     Maximum queue length in bytes : 524288000\n\
     Port thresholds in bytes:\n\
     Port       High threshold  Low threshold  Warnings  Unreliable  Tx-Latency\n\
     Et1        5242880         2621440        enabled   no          disabled\n\
     Et2        5242880         2621440        enabled   no          disabled\n\
     Et47       5242880         2621440        enabled   no          disabled\n\
     Et48       5242880         2621440        enabled   no          disabled\n"
        .to_string()
}

pub fn lanz_status_json(s: &EosState) -> String {
    obj! {
        "lanzEnabled" => s.running.lanz,
        "platformName" => s.spec.lanz_platform(),
        "bytesPerTxmpSegment" => 512u32,
        "globalHitCount" => 0u32,
        "updateInterval" => 5000u32,
        "queueLengthMode" => "fixed",
        "maxQueueLength" => 524_288_000u64,
    }
    .render()
}

/// With a `! Time:` header, as EOS prints it: it differs on every read (the configuration
/// comparison must drop it).
pub fn show_running_config(s: &EosState) -> String {
    let now = chrono::Utc::now().format("%a %b %e %H:%M:%S %Y");
    format!(
        "! Command: show running-config\n! Time: {now}\n{}",
        s.render(&s.running)
    )
}

pub fn show_startup_config(s: &EosState) -> String {
    format!("! Command: show startup-config\n{}", s.render(&s.startup))
}

pub fn running_config_diffs(s: &EosState) -> String {
    diff::unified(
        &s.render(&s.startup),
        &s.render(&s.running),
        "flash:/startup-config",
        "system:/running-config",
    )
}

pub fn show_clock() -> String {
    let now = chrono::Utc::now().with_timezone(&chrono_tz::Asia::Taipei);
    format!(
        "{}\nTimezone: Asia/Taipei\nClock source: NTP server (192.0.2.123)\n",
        now.format("%a %b %e %H:%M:%S %Y")
    )
}

/// EOS answers `| json` on a command it cannot render as JSON with an error document.
pub fn unconverted_json() -> String {
    obj! { "errors" => J::arr([J::from("This is an unconverted command")]) }.render()
}

/// `4.31.6M-40112345.4316M`: the release, a build number, the release's characters again
/// (`4.22.4M-2GB` gives `4.22.4M-2GB-40112345.4224M`).
fn internal_version(version: &str) -> String {
    let release = version.split('-').next().unwrap_or(version);
    let digits: String = release
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    format!("{version}-40112345.{digits}")
}

fn colon_mac(dotted: &str) -> String {
    let hex: String = dotted.chars().filter(char::is_ascii_hexdigit).collect();
    hex.as_bytes()
        .chunks(2)
        .map(|c| String::from_utf8_lossy(c).into_owned())
        .collect::<Vec<_>>()
        .join(":")
}

/// `3 weeks, 2 days, 4 hours and 12 minutes`.
fn uptime_words(secs: u64) -> String {
    let parts = [
        (secs / 604_800, "week"),
        (secs / 86_400 % 7, "day"),
        (secs / 3_600 % 24, "hour"),
        (secs / 60 % 60, "minute"),
    ];
    let words: Vec<String> = parts
        .iter()
        .filter(|(n, _)| *n > 0)
        .map(|(n, unit)| format!("{n} {unit}{}", if *n == 1 { "" } else { "s" }))
        .collect();
    match words.split_last() {
        None => "0 minutes".to_string(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;
    use premarket_platform::eos;

    /// The project's parser for `command`, as `premarket parse` runs it.
    fn parse_text(
        command: &str,
        raw: &str,
    ) -> Result<serde_json::Value, premarket_parse::ParseError> {
        let query = eos::query_for(command).expect("a listed EOS command");
        (query.parse_json)(&mut premarket_parse::Raw::new(raw))
    }

    #[test]
    fn outputs_parse_with_the_project_parsers() {
        let s = EosState::new("sw1", 1, &Faults::default());
        let now = s.started;
        let v = parse_text("show version", &show_version(&s, now)).unwrap();
        assert!(format!("{v:?}").contains("4.31.6M"));
        let json = show_version_json(&s, now);
        assert!(
            json.starts_with("{\n    \"mfgName\": \"Arista\",\n"),
            "{json}"
        );
        let v = parse_text("show version | json", &json).unwrap();
        assert!(format!("{v:?}").contains("DCS-7280SR3-48YC8"));
        assert!(parse_text("show queue-monitor length status", &lanz_status(&s)).is_ok());
        assert!(
            parse_text(
                "show queue-monitor length status | json",
                &lanz_status_json(&s)
            )
            .is_ok()
        );
        assert!(parse_text("show running-config", &show_running_config(&s)).is_ok());
        assert!(parse_text("show startup-config", &show_startup_config(&s)).is_ok());
        assert_eq!(running_config_diffs(&s), "");
        // Up 12 days at the lab's epoch, and since.
        assert!(s.uptime(now) >= 12.0 * 86_400.0);
        assert!(show_version(&s, now).contains(&uptime_words(s.uptime(now) as u64)));
        assert_eq!(
            uptime_words(2 * 604_800 + 3 * 86_400 + 4 * 3600 + 12 * 60),
            "2 weeks, 3 days, 4 hours and 12 minutes"
        );
        assert_eq!(colon_mac("c0d6.8200.0001"), "c0:d6:82:00:00:01");
    }
}
