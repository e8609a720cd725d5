//! Reading one YAML file into a typed structure with serde-saphyr.
//!
//! serde-saphyr replaces the archived serde_yaml: it is pure Rust without `unsafe`, rejects
//! duplicate keys (a duplicated baseline key would otherwise silently win) and reports
//! line:column for every error, which we turn into a [`ConfigError`].

use std::path::Path;

use serde::de::DeserializeOwned;

use super::error::{ConfigError, Position};

/// Reads and deserializes `path`; any problem becomes a `file:line:column` error.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        ConfigError::new(
            Position::file_start(path),
            format!("cannot read the file: {e}"),
        )
    })?;
    parse(path, &text)
}

/// Deserializes `text`, naming `path` in errors.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    serde_saphyr::from_str::<T>(text).map_err(|e| yaml_error(path, &e))
}

fn yaml_error(path: &Path, error: &serde_saphyr::Error) -> ConfigError {
    let position = match error.location() {
        Some(location) => Position::from_location(path, location),
        None => Position::new(path, 0, 0),
    };
    let message = error.without_snippet().to_string();
    // The library prefixes its own "line L column C" which we already print in front.
    let message = strip_location_prefix(&message);
    ConfigError::new(position, message)
}

fn strip_location_prefix(message: &str) -> String {
    let re = regex::Regex::new(r"^(?:error: )?line \d+ column \d+: ?").expect("static regex");
    re.replace(message.trim(), "").into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Sample {
        name: String,
        port: u16,
    }

    #[test]
    fn errors_carry_line_and_column() {
        let cases = [
            ("name: a\nport: 22\nportt: 1\n", 3, "unknown field"),
            ("name: a\nport: x\n", 2, "port"),
            ("name: a\nname: b\nport: 1\n", 2, "duplicate"),
        ];
        for (text, line, needle) in cases {
            let err = parse::<Sample>(Path::new("f.yaml"), text).unwrap_err();
            assert_eq!(err.position.line, line, "{text:?} -> {err}");
            assert!(err.position.column >= 1, "{err}");
            assert!(err.to_string().to_lowercase().contains(needle), "{err}");
        }
    }
}
