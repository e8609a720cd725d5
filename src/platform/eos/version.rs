//! `show version`, JSON or text (the old column-padded layout and the new one): the image
//! version, model and serial, and how long the switch has been up (a reboot since the previous
//! run means every running-only setting must be re-verified).

use serde::{Deserialize, Serialize};

use super::json::json;
use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::text::{duration_in_words, quote, set_once};
use premarket_parse::{Model, ParseError, Query, Raw};

/// Longest uptime or latest boot time taken as real: 100 years in seconds. Anything beyond is
/// a garbled number, not a switch.
pub const MAX_SECONDS: f64 = 3_155_760_000.0;

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Version {
    /// The software image version, e.g. `4.31.6M` (an ` (engineering build)` note is dropped).
    pub version: String,
    pub model: String,
    pub serial: String,
    /// Seconds since the switch booted (JSON `uptime`, text `Uptime:`), whole seconds.
    #[serde(default)]
    pub uptime_s: Option<u64>,
    /// When it booted, epoch seconds (JSON `bootupTimestamp`; the text form has none).
    #[serde(default)]
    pub bootup_timestamp_s: Option<u64>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    version: String,
    #[serde(default)]
    model_name: String,
    #[serde(default)]
    serial_number: String,
    #[serde(default)]
    uptime: Option<f64>,
    #[serde(default)]
    bootup_timestamp: Option<f64>,
}

/// `show version | json` (the text form parses too).
pub struct ShowVersion;

impl Query for ShowVersion {
    const KIND: &'static str = "eos.show-version";
    /// The next run compares the boot time (`eos.uptime.stable`, and the counter checks: a reboot restarts counters).
    const ARCHIVED: bool = true;
    type Fact = Version;
    fn command(&self) -> Command {
        Command::new(ShowVersion::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Version, ParseError> {
        parse(raw.text()?)
    }
    /// The switch's identity: the other EOS commands' availability follows its family.
    fn identify(v: &Version) -> Option<Model> {
        (!v.model.is_empty()).then(|| Model::new(v.model.clone(), v.version.clone()))
    }
    fn identify_record(fact: &serde_json::Value) -> Option<Model> {
        serde_json::from_value::<Version>(fact.clone())
            .ok()
            .as_ref()
            .and_then(Self::identify)
    }
}

impl ShowVersion {
    pub const TEXT: &'static str = "show version | json";
}

pub fn parse(raw: &str) -> Result<Version, ParseError> {
    if let Some(parsed) = json::<Json>(raw, "show version") {
        let j = parsed?;
        let seconds = |value: Option<f64>, key: &str| {
            value
                .map(|v| {
                    whole_seconds(v).ok_or_else(|| {
                        ParseError::new(
                            format!("`{key}` is not a real number of seconds: {v}"),
                            raw,
                        )
                    })
                })
                .transpose()
        };
        let mut v = finish(j.version, j.model_name, j.serial_number, raw)?;
        v.uptime_s = seconds(j.uptime, "uptime")?;
        v.bootup_timestamp_s = seconds(j.bootup_timestamp, "bootupTimestamp")?;
        return Ok(v);
    }
    let lines = body(raw);
    device_error(&lines, raw)?;
    let (mut model, mut version, mut serial, mut uptime) = (None, None, None, None);
    for (i, line) in lines.iter().enumerate() {
        let at = |reason: String| ParseError::at_line(reason, &lines.join("\n"), i);
        if let Some(rest) = line.strip_prefix("Arista ") {
            set_once(&mut model, rest.trim().to_string()).map_err(|e| at(format!("model {e}")))?;
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        // Old EOS pads values into a column; new EOS uses one space. Trim covers both.
        let value = value.trim().to_string();
        let key = key.trim();
        let slot = match key {
            "Software image version" => &mut version,
            "Serial number" => &mut serial,
            "Uptime" => {
                let seconds =
                    duration_in_words(&value).map_err(|e| at(format!("`Uptime:` {e}")))?;
                set_once(&mut uptime, seconds).map_err(|e| at(format!("`Uptime:` {e}")))?;
                continue;
            }
            _ => continue,
        };
        set_once(slot, value).map_err(|e| at(format!("`{key}:` {e}")))?;
    }
    let mut v = finish(
        version.unwrap_or_default(),
        model.unwrap_or_default(),
        serial.unwrap_or_default(),
        raw,
    )?;
    v.uptime_s = uptime;
    Ok(v)
}

/// A float number of seconds as whole seconds, when it is one a switch could report.
fn whole_seconds(value: f64) -> Option<u64> {
    (value.is_finite() && (0.0..=MAX_SECONDS).contains(&value)).then_some(value as u64)
}

fn finish(
    version: String,
    model: String,
    serial: String,
    raw: &str,
) -> Result<Version, ParseError> {
    let version = version
        .split_whitespace()
        .next()
        .unwrap_or_default()
        .to_string();
    if version.is_empty() {
        return Err(ParseError::new(
            "no software image version in show version output",
            raw,
        ));
    }
    if !version.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(ParseError::new(
            format!("{} is not an EOS version", quote(&version)),
            raw,
        ));
    }
    Ok(Version {
        version,
        model,
        serial,
        uptime_s: None,
        bootup_timestamp_s: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let old = "sw1>show version\nArista DCS-7150S-64-CL-R\nHardware version:    01.01\nSerial number:       JPE123\nSystem MAC address:  001c.7300.0001\n\nSoftware image version: 4.14.7M\nUptime:                 3 weeks, 6 days, 19 hours and 45 minutes\n";
        let new = "Arista cEOSLab\r\nHardware version: \r\nSerial number: ABC  \r\nSoftware image version: 4.32.2F-38195967.4322F (engineering build)\r\n";
        let json = "sw1#show version | json\n{\"modelName\": \"vEOS-lab\", \"version\": \"4.30.0F\", \"serialNumber\": \"S1\", \"uptime\": 6527.436209201813, \"bootupTimestamp\": 1688840924.7556078}\nsw1#";
        let cases = [
            (
                old,
                "4.14.7M",
                "DCS-7150S-64-CL-R",
                "JPE123",
                Some(2_403_900),
            ),
            (new, "4.32.2F-38195967.4322F", "cEOSLab", "ABC", None),
            (json, "4.30.0F", "vEOS-lab", "S1", Some(6527)),
        ];
        for (raw, version, model, serial, uptime) in cases {
            let v = parse(raw).unwrap();
            assert_eq!(
                (
                    v.version.as_str(),
                    v.model.as_str(),
                    v.serial.as_str(),
                    v.uptime_s
                ),
                (version, model, serial, uptime)
            );
        }
        assert_eq!(parse(json).unwrap().bootup_timestamp_s, Some(1_688_840_924));
    }

    #[test]
    fn errors() {
        for raw in [
            "% Invalid input",
            "nothing here",
            "{\"foo\": 1}",
            "sw1>",
            "{\"version\": \"4.30.0F\", \"uptime\": -5}",
            "{\"version\": \"4.30.0F\", \"uptime\": 1e300}",
            "{\"version\": \"4.30.0F\", \"version\": \"4.31.0F\"}",
            "{\"version\": \"hello\"}",
            "Software image version: 4.14.7M\nSoftware image version: 4.15.0F\n",
            "Software image version: 4.14.7M\nUptime: forever\n",
        ] {
            assert!(parse(raw).is_err(), "{raw}");
        }
    }
}
