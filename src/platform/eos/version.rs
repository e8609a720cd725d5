//! `show version`, JSON or text (the old column-padded layout and the new one).

use serde::{Deserialize, Serialize};

use super::text::{body, device_error, json};
use crate::core::Command;
use crate::parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Version {
    /// The software image version, e.g. `4.31.6M` (an ` (engineering build)` note is dropped).
    pub version: String,
    pub model: String,
    pub serial: String,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct Json {
    version: String,
    #[serde(default)]
    model_name: String,
    #[serde(default)]
    serial_number: String,
}

/// `show version | json` (the text form parses too).
pub struct ShowVersion;

impl Query for ShowVersion {
    const KIND: &'static str = "eos.show-version";
    type Fact = Version;
    fn command(&self) -> Command {
        Command::new(ShowVersion::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Version, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowVersion {
    pub const TEXT: &'static str = "show version | json";
}

pub fn parse(raw: &str) -> Result<Version, ParseError> {
    if let Some(parsed) = json::<Json>(raw, "show version") {
        let parsed = parsed?;
        return finish(parsed.version, parsed.model_name, parsed.serial_number, raw);
    }
    let lines = body(raw);
    device_error(&lines, raw)?;
    let mut model = String::new();
    let (mut version, mut serial) = (String::new(), String::new());
    for line in &lines {
        if let Some(rest) = line.strip_prefix("Arista ") {
            model = rest.trim().to_string();
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        // Old EOS pads values into a column; new EOS uses one space. Trim covers both.
        match key.trim() {
            "Software image version" => version = value.trim().to_string(),
            "Serial number" => serial = value.trim().to_string(),
            _ => {}
        }
    }
    finish(version, model, serial, raw)
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
    Ok(Version {
        version,
        model,
        serial,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layouts() {
        let old = "sw1>show version\nArista DCS-7150S-64-CL-R\nHardware version:    01.01\nSerial number:       JPE123\nSystem MAC address:  001c.7300.0001\n\nSoftware image version: 4.14.7M\n";
        let new = "Arista cEOSLab\r\nHardware version: \r\nSerial number: ABC  \r\nSoftware image version: 4.32.2F-38195967.4322F (engineering build)\r\n";
        let json = "sw1#show version | json\n{\"modelName\": \"vEOS-lab\", \"version\": \"4.30.0F\", \"serialNumber\": \"S1\"}\nsw1#";
        let cases = [
            (old, "4.14.7M", "DCS-7150S-64-CL-R", "JPE123"),
            (new, "4.32.2F-38195967.4322F", "cEOSLab", "ABC"),
            (json, "4.30.0F", "vEOS-lab", "S1"),
        ];
        for (raw, version, model, serial) in cases {
            let v = parse(raw).unwrap();
            assert_eq!(
                (v.version.as_str(), v.model.as_str(), v.serial.as_str()),
                (version, model, serial)
            );
        }
    }

    #[test]
    fn errors() {
        for raw in ["% Invalid input", "nothing here", "{\"foo\": 1}", "sw1>"] {
            assert!(parse(raw).is_err(), "{raw}");
        }
    }
}
