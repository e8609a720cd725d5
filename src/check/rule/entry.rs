//! The command and `parse:` of a declarative catalog entry: is the command one the platform's
//! allowlist lets through, and which reader turns its output into the JSON the rule walks.
//! Every mistake is an error at its `file:line:column`.

use super::readers::{self, Reader};
use premarket_config::{ConfigError, Declared, Entry, Position, TreeValue};
use premarket_core::Platform;
use premarket_platform::NotReadOnly;

/// The platform's read-only allowlist: the same function the SSH guard applies.
pub fn allowed(platform: Platform, command: &str) -> Result<(), NotReadOnly> {
    (premarket_platform::spec(platform).allowlist)(command)
}

/// The reader of the entry's output: `parse:` as written, or the default for the command.
pub fn reader(
    entry: &Entry,
    command: &str,
    command_at: &Position,
    declared: &Declared,
    errors: &mut Vec<ConfigError>,
) -> Option<Reader> {
    let file = &entry.position.file;
    let Some(parse) = &declared.parse else {
        let found = readers::default_reader(entry.platform, command);
        if found.is_none() {
            errors.push(ConfigError::new(
                command_at.clone(),
                format!(
                    "check {}: no built-in parser reads `{command}`: add `parse:` (regex{}){}",
                    entry.id,
                    if entry.platform == Platform::Fortigate {
                        ", kv or config"
                    } else {
                        ""
                    },
                    if entry.platform == Platform::Eos {
                        ", or ask the switch for JSON with `| json`"
                    } else {
                        ""
                    },
                ),
            ));
        }
        return found;
    };
    let at = Position::from_location(file, parse.referenced);
    let mut refuse = |message: String| {
        errors.push(ConfigError::new(
            at.clone(),
            format!("check {}: {message}", entry.id),
        ));
        None
    };
    if entry.platform == Platform::Eos && readers::asks_json(command) {
        return refuse(format!(
            "`parse:` reads text output, and `{command}` is read as the switch's JSON: drop one of them"
        ));
    }
    let fortios_only = |name: &str| {
        format!(
            "parse: {name} reads FortiOS output; this check is for {}",
            entry.platform
        )
    };
    let fortios_text = premarket_platform::spec(entry.platform).fortios_text;
    match &parse.value {
        TreeValue::String(name) if name == "kv" => match fortios_text {
            true => Some(Reader::Kv),
            false => refuse(fortios_only("kv")),
        },
        TreeValue::String(name) if name == "config" => match fortios_text {
            true => Some(Reader::Config),
            false => refuse(fortios_only("config")),
        },
        TreeValue::Map(entries) => {
            let mut pattern = None;
            let mut each_line = false;
            for (key, value) in entries {
                let key_at = Position::from_location(file, key.referenced);
                match (key.value.as_str(), &value.value) {
                    ("regex", TreeValue::String(p)) => pattern = Some((p.clone(), value)),
                    ("each_line", TreeValue::Bool(b)) => each_line = *b,
                    ("regex" | "each_line", other) => errors.push(ConfigError::new(
                        Position::from_location(file, value.referenced),
                        format!(
                            "check {}: parse: {} takes {}, not {}",
                            entry.id,
                            key.value,
                            if key.value == "regex" {
                                "a regex (a string)"
                            } else {
                                "true or false"
                            },
                            other.kind()
                        ),
                    )),
                    (other, _) => errors.push(ConfigError::new(
                        key_at,
                        format!(
                            "check {}: unknown key `{other}` in parse: (readers: `kv`, `config`, \
                             `{{ regex: PATTERN, each_line: true|false }}`)",
                            entry.id
                        ),
                    )),
                }
            }
            let (pattern, value) = pattern?;
            let value_at = Position::from_location(file, value.referenced);
            match regex::RegexBuilder::new(&pattern)
                .size_limit(1 << 20)
                .build()
            {
                Ok(re) if re.capture_names().flatten().next().is_some() => {
                    Some(Reader::Regex { re, each_line })
                }
                Ok(_) => {
                    errors.push(ConfigError::new(
                        value_at,
                        format!(
                            "check {}: the regex has no named group: name what it reads, e.g. `^(?P<state>\\S+)`",
                            entry.id
                        ),
                    ));
                    None
                }
                Err(e) => {
                    errors.push(ConfigError::new(
                        value_at,
                        format!("check {}: `{pattern}` is not a regex: {e}", entry.id),
                    ));
                    None
                }
            }
        }
        other => refuse(format!(
            "unknown reader {}: parse: is `kv`, `config` or `{{ regex: PATTERN, each_line: true|false }}`",
            match other {
                TreeValue::String(s) => format!("`{s}`"),
                _ => other.kind().to_string(),
            }
        )),
    }
}
