//! Reading one YAML file into a typed structure with serde-saphyr.
//!
//! serde-saphyr replaces the archived serde_yaml: it is pure Rust without `unsafe`, rejects
//! duplicate keys (a duplicated baseline key would otherwise silently win) and reports
//! line:column for every error, which we turn into a [`ConfigError`].

use std::path::Path;

use serde::de::DeserializeOwned;

use super::error::{ConfigError, Position};
use premarket_files::{self as file, Kind};

/// Reads and deserializes `path`; any problem becomes a `file:line:column` error.
pub fn read<T: DeserializeOwned>(path: &Path) -> Result<T, ConfigError> {
    parse(path, &read_text(path)?)
}

/// The text of a configuration file: a regular file of at most [`Kind::CONFIG`]'s cap (a FIFO
/// or `/dev/zero` named in its place is refused at once, not read).
pub fn read_text(path: &Path) -> Result<String, ConfigError> {
    file::read_text(path, Kind::CONFIG)
        .map_err(|e| ConfigError::new(Position::file_start(path), e.to_string()))
}

/// Deserializes `text`, naming `path` in errors.
pub fn parse<T: DeserializeOwned>(path: &Path, text: &str) -> Result<T, ConfigError> {
    serde_saphyr::from_str::<T>(text).map_err(|e| {
        let mut error = yaml_error(path, &e);
        error.message = super::yaml_words::explain(
            &error.message,
            text,
            usize::try_from(error.position.line).unwrap_or(0),
        );
        error
    })
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
    let prefix = regex::Regex::new(r"^(?:error: )?line \d+,? column \d+: ?").expect("static regex");
    let suffix = regex::Regex::new(r",? at line \d+,? column \d+$").expect("static regex");
    let message = prefix.replace(message.trim(), "");
    suffix.replace(&message, "").into_owned()
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
            (
                "name: a\nport: x\n",
                2,
                "port: a port number 1-65535, not \"x\"",
            ),
            ("name: a\nname: b\nport: 1\n", 2, "`name` appears twice"),
            (
                "name: a\nport: 22a\n",
                2,
                "port: a port number 1-65535, not \"22a\"",
            ),
        ];
        for (text, line, needle) in cases {
            let err = parse::<Sample>(Path::new("f.yaml"), text).unwrap_err();
            assert_eq!(err.position.line, line, "{text:?} -> {err}");
            assert!(err.position.column >= 1, "{err}");
            assert!(err.to_string().to_lowercase().contains(needle), "{err}");
            assert!(
                !err.message.contains("line"),
                "location printed twice: {err}"
            );
        }
    }
}
