//! How a declarative check reads its command's output into the JSON its rule walks.
//!
//! - An EOS command ending in `| json`: the switch's own JSON, read as strictly as the built-in
//!   EOS parsers read it (after the echoed command or prompt line; a key repeated with two
//!   values, an eAPI error or EOS `errors` list is an error), whether or not a built-in parser
//!   reads that command too.
//! - Any other command without `parse:`: the built-in parser's fact, as `premarket parse
//!   PLATFORM COMMAND` prints it.
//! - `parse:` names a generic reader for text output: `regex` (named captures; the first match
//!   as one object, or one object per matching line with `each_line: true`), FortiOS `kv`
//!   (`key=value` and `key: value` into one object) and FortiOS `config` (the
//!   config/edit/set tree as nested objects).
//!
//! The reading is one [`RuleQuery`], filed under its own kind (`rule:<check id>`), so the
//! built-in typed reading of the same command is not disturbed and the command is still sent
//! once; it exists on the models the platform's listing of the command says. Device text is hostile: anything unexpected is a [`ParseError`] with an excerpt.

use std::collections::HashSet;

use regex::Regex;
use serde_json::{Map, Value};

use premarket_core::{Command, Platform};
use premarket_parse::{AnyQuery, Availability, Fact, ParseError, QueryKey, QuerySpec, Raw};
use premarket_platform::{self as platform, eos, fortigate};

/// How the output is turned into JSON.
#[derive(Clone, Debug)]
pub enum Reader {
    /// The device's own JSON (EOS `| json`).
    DeviceJson,
    /// The built-in parser of the command.
    Builtin(&'static QuerySpec),
    Regex {
        re: Regex,
        each_line: bool,
    },
    /// FortiOS `key=value` / `key: value` lines.
    Kv,
    /// A FortiOS configuration (`config` / `edit` / `set`).
    Config,
}

impl Reader {
    /// The reader's name for messages.
    pub fn describe(&self) -> String {
        match self {
            Reader::DeviceJson => "the device's JSON".to_string(),
            Reader::Builtin(spec) => format!("the built-in parser {}", spec.kind),
            Reader::Regex { each_line, .. } => {
                format!(
                    "the regex reader{}",
                    if *each_line { " (each line)" } else { "" }
                )
            }
            Reader::Kv => "the kv reader".to_string(),
            Reader::Config => "the config reader".to_string(),
        }
    }

    /// Whether the output is text a person reads (evidence then quotes the output itself).
    pub fn reads_text(&self) -> bool {
        matches!(self, Reader::Regex { .. } | Reader::Kv | Reader::Config)
    }

    /// The output of `command` as JSON.
    pub fn read(&self, platform: Platform, command: &str, raw: &str) -> Result<Value, ParseError> {
        match self {
            Reader::DeviceJson => eos::json::required::<Value>(raw, command),
            Reader::Builtin(spec) => (spec.parse_json)(&mut Raw::new(raw)),
            Reader::Regex { re, each_line } => {
                let lines = clean(platform, raw)?;
                Ok(if *each_line {
                    Value::Array(
                        lines
                            .iter()
                            .filter_map(|line| re.captures(line))
                            .map(|c| captures(re, &c))
                            .collect(),
                    )
                } else {
                    let text = lines.join("\n");
                    re.captures(&text)
                        .map_or_else(|| Value::Object(Map::new()), |c| captures(re, &c))
                })
            }
            Reader::Kv => key_values(&clean(platform, raw)?, raw),
            Reader::Config => config(raw),
        }
    }
}

/// One declarative check's reading of its command.
#[derive(Clone, Debug)]
pub struct RuleQuery {
    pub command: Command,
    /// `rule:<check id>`.
    pub kind: String,
    pub platform: Platform,
    pub reader: Reader,
    /// The rule compares with the previous run (`increase_at_most`): keep the fact.
    pub archived: bool,
}

impl AnyQuery for RuleQuery {
    fn key(&self) -> QueryKey {
        QueryKey {
            command: self.command.clone(),
            kind: self.kind.clone(),
        }
    }

    fn parse_any(&self, raw: &mut Raw<'_>) -> Result<Box<dyn Fact>, ParseError> {
        let value = self
            .reader
            .read(self.platform, &self.command.text, raw.text()?)?;
        Ok(Box::new(value))
    }

    fn archived(&self) -> bool {
        self.archived
    }

    /// The platform's own listing of the command says on which models it exists, so a YAML
    /// check over a command some families lack is gated as a built-in one is.
    fn availability(&self) -> Option<Availability> {
        platform::query_for(self.platform, &self.command.text).and_then(|q| q.availability)
    }
}

/// How `command` of a `platform` check is read when the entry has no `parse:`; `None` when
/// no built-in parser reads it.
pub fn default_reader(platform: Platform, command: &str) -> Option<Reader> {
    if platform == Platform::Eos && asks_json(command) {
        return Some(Reader::DeviceJson);
    }
    platform::query_for(platform, command).map(Reader::Builtin)
}

/// Whether an EOS command asks for JSON (`| json`, possibly `| json revision 2`).
pub fn asks_json(command: &str) -> bool {
    command
        .split('|')
        .skip(1)
        .any(|filter| filter.split_whitespace().next() == Some("json"))
}

/// The output's lines without echo, prompts and pager remnants; an error line from the
/// device is an error.
fn clean(platform: Platform, raw: &str) -> Result<Vec<String>, ParseError> {
    (platform::spec(platform).text_lines)(raw)
}

/// The named groups of one match; a group that did not take part is absent.
fn captures(re: &Regex, c: &regex::Captures<'_>) -> Value {
    Value::Object(
        re.capture_names()
            .flatten()
            .filter_map(|name| {
                c.name(name)
                    .map(|m| (name.to_string(), Value::String(m.as_str().to_string())))
            })
            .collect(),
    )
}

/// FortiOS `key=value` words (the shared tokenizer) and `key: value` parts. A line is cut at
/// `, ` into parts (`synchronized: yes, ntpsync: enabled`); a part with `=` is read as
/// `key=value` words, any other as one `key: value` (the key may have spaces, the value runs
/// to the end of the part). A key printed more than once with different values becomes the
/// list of its values, in order.
fn key_values(lines: &[String], raw: &str) -> Result<Value, ParseError> {
    let mut object: Map<String, Value> = Map::new();
    // Pairs already kept: a hostile output repeating one key with many values stays linear.
    let mut seen: HashSet<(String, String)> = HashSet::new();
    let mut any = false;
    for line in lines {
        for part in line.split(", ") {
            let pairs: Vec<(&str, &str)> = if part.contains('=') {
                fortigate::kv::pairs(part)
            } else {
                colon_pair(part).into_iter().collect()
            };
            for (key, value) in pairs {
                any = true;
                let value = value.trim().trim_end_matches(',');
                if !seen.insert((key.to_string(), value.to_string())) {
                    continue;
                }
                let value = Value::String(value.to_string());
                match object.get_mut(key) {
                    None => {
                        object.insert(key.to_string(), value);
                    }
                    Some(Value::Array(values)) => values.push(value),
                    Some(first) => {
                        let earlier = first.take();
                        *first = Value::Array(vec![earlier, value]);
                    }
                }
            }
        }
    }
    if !any {
        return Err(ParseError::new(
            "no `key=value` or `key: value` in the output",
            raw,
        ));
    }
    Ok(Value::Object(object))
}

/// `key: value` (a colon followed by white space or the end); `S:1` is not one.
fn colon_pair(part: &str) -> Option<(&str, &str)> {
    let at = part.find(':')?;
    let (key, rest) = (part[..at].trim(), &part[at + 1..]);
    let spaced = rest.is_empty() || rest.starts_with(char::is_whitespace);
    (spaced && !key.is_empty()).then_some((key, rest.trim()))
}

/// A FortiOS configuration as nested objects: a table or entry is an object of its entries
/// and settings, a setting's values are joined by one space (`set srcintf "x1" "x2"` ->
/// `"x1 x2"`), and the `name : value` lines of `get` are settings of the top level.
fn config(raw: &str) -> Result<Value, ParseError> {
    // Every FortiOS configuration read-back shares one parser.
    let tree = fortigate::parse_config(raw)?;
    node_json(&tree.root, raw)
}

fn node_json(node: &fortigate::ConfigNode, raw: &str) -> Result<Value, ParseError> {
    let mut object: Map<String, Value> = node
        .settings
        .iter()
        .map(|(k, v)| (k.clone(), Value::String(v.join(" "))))
        .collect();
    for (name, child) in &node.children {
        if object.contains_key(name) {
            return Err(ParseError::new(
                format!(
                    "`{name}` is both a setting and a table: the config reader cannot tell them apart"
                ),
                raw,
            ));
        }
        object.insert(name.clone(), node_json(child, raw)?);
    }
    Ok(Value::Object(object))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn eos_json_with_echo_envelope_and_errors() {
        let cases = [
            (
                "sw1#show x | json\n{\"a\": {\"b\": 1}}\nsw1#",
                Ok(json!({"a": {"b": 1}})),
            ),
            (
                "{\"jsonrpc\": \"2.0\", \"result\": [{}, {\"c\": 2}]}",
                Ok(json!({"c": 2})),
            ),
            ("% Invalid input at line 1\n", Err("% Invalid input")),
            ("Ethernet1 is up\n", Err("not JSON")),
            ("{\"a\": 1", Err("not JSON")),
            ("{\"a\": }", Err("JSON")),
            // serde_json would keep the last of two values silently.
            ("{\"a\": 1, \"a\": 2}", Err("appears twice")),
        ];
        for (raw, want) in cases {
            match (Reader::DeviceJson.read(Platform::Eos, "x", raw), want) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{raw}"),
                (Err(e), Err(says)) => assert!(e.reason.contains(says), "{raw}: {e}"),
                (got, want) => panic!("{raw}: {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn regex_one_object_or_each_line() {
        let first_word = Reader::Regex {
            re: Regex::new(r"^(?P<state>\S+)").unwrap(),
            each_line: false,
        };
        let cases = [
            (
                "sw1>show ntp status\nsynchronised to NTP server (10.0.0.1) at stratum 3\n",
                json!({"state": "synchronised"}),
            ),
            (
                "unsynchronised\npoll interval unknown\n",
                json!({"state": "unsynchronised"}),
            ),
            ("NTP is disabled.\n", json!({"state": "NTP"})),
            ("\n", json!({})),
        ];
        for (raw, want) in cases {
            assert_eq!(
                first_word.read(Platform::Eos, "x", raw).unwrap(),
                want,
                "{raw}"
            );
        }
        assert!(
            first_word
                .read(Platform::Eos, "x", "% Invalid input\n")
                .is_err()
        );
        let rows = Reader::Regex {
            re: Regex::new(r"^(?P<tally>[*+ ])(?P<remote>\S+)\s+\S+\s+(?P<st>\d+)").unwrap(),
            each_line: true,
        };
        let text = "     remote   refid  st t\n=====\n*10.0.0.1  10.0.0.250  2 u\n 10.0.0.2  .INIT.  16 u\n";
        assert_eq!(
            rows.read(Platform::Eos, "x", text).unwrap(),
            json!([{"tally": "*", "remote": "10.0.0.1", "st": "2"}, {"tally": " ", "remote": "10.0.0.2", "st": "16"}])
        );
    }

    #[test]
    fn kv_reads_both_forms_and_keeps_repeats() {
        let synced = "FW1 # diagnose sys ntp status\nsynchronized: yes, ntpsync: enabled, server-mode: enabled\n\nipv4 server(10.0.0.1) 10.0.0.1 -- reachable(0x1) S:1 T:689 selected\n        server-version=3, stratum=1\n        clock offset is -0.575193 sec, root delay is 0.000000 sec\nipv4 server(10.0.0.2) 10.0.0.2 -- reachable(0xff) S:3 T:54\n        server-version=4, stratum=2\nFW1 # ";
        let got = Reader::Kv.read(Platform::Fortigate, "x", synced).unwrap();
        assert_eq!(got["synchronized"], "yes");
        assert_eq!(got["ntpsync"], "enabled");
        assert_eq!(got["server-mode"], "enabled");
        assert_eq!(got["stratum"], json!(["1", "2"]));
        assert_eq!(got["server-version"], json!(["3", "4"]));
        assert!(got.get("S").is_none(), "{got}");
        let status = "Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)\nVirtual domain configuration: disable\nnpu info: flag=0x81/0x81, offload=9/9\n";
        let got = Reader::Kv.read(Platform::Fortigate, "x", status).unwrap();
        assert_eq!(
            got["Version"],
            "FortiGate-201G v7.6.7,build3651,250606 (GA.M)"
        );
        assert_eq!(got["Virtual domain configuration"], "disable");
        assert_eq!(got["offload"], "9/9");
        let many: String = (0..20_000).map(|i| format!("k={i}\n")).collect();
        let got = Reader::Kv.read(Platform::Fortigate, "x", &many).unwrap();
        assert_eq!(got["k"].as_array().map(Vec::len), Some(20_000));
        for bad in ["Unknown action 0\n", "just words\n", ""] {
            assert!(
                Reader::Kv.read(Platform::Fortigate, "x", bad).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn config_tree_as_nested_objects() {
        let raw = "fw1 # show firewall policy 1\nconfig firewall policy\n    edit 1\n        set srcintf \"x1\" \"x2\"\n        set auto-asic-offload disable\n    next\nend\n";
        assert_eq!(
            Reader::Config.read(Platform::Fortigate, "x", raw).unwrap(),
            json!({"firewall policy": {"1": {"srcintf": "x1 x2", "auto-asic-offload": "disable"}}})
        );
        let get = "udp-idle-timer      : 180\n";
        assert_eq!(
            Reader::Config.read(Platform::Fortigate, "x", get).unwrap(),
            json!({"udp-idle-timer": "180"})
        );
        assert!(
            Reader::Config
                .read(Platform::Fortigate, "x", "config a\n edit 1\n")
                .is_err()
        );
    }

    #[test]
    fn which_commands_ask_for_json() {
        assert!(asks_json("show interfaces counters errors | json"));
        assert!(asks_json("show ptp | json revision 2"));
        assert!(!asks_json("show ntp status"));
        assert!(!asks_json("show running-config | include json"));
        assert!(matches!(
            default_reader(Platform::Eos, "show version | json"),
            Some(Reader::DeviceJson)
        ));
        assert!(matches!(
            default_reader(Platform::Fortigate, "get system status"),
            Some(Reader::Builtin(_))
        ));
        assert!(default_reader(Platform::Eos, "show clock").is_none());
    }
}
