//! FortiOS configuration as printed by `show ...`: one generic `config/edit/set/next/end` tree,
//! so each check reads the settings it needs instead of every table having its own parser.
//!
//! ```text
//! config firewall policy          -> root.children["firewall policy"]
//!     edit 1                      ->   .children["1"]
//!         set action accept       ->     .settings["action"] = ["accept"]
//!         set srcintf "x1" "x2"   ->     .settings["srcintf"] = ["x1", "x2"]
//!     next
//! end
//! ```
//! `get system global` prints `name : value` lines instead; they become settings of the root.
//! `show` prints only values that differ from the default, so an absent setting means "default".
//! Output that ends inside an open `config` or `edit` was cut and is an error: a setting that
//! disables offload could be in the part that is missing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::text::{body, device_error, joined};
use premarket_parse::ParseError;
use premarket_parse::text::quote;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigNode {
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub children: BTreeMap<String, ConfigNode>,
}

impl ConfigNode {
    /// The node at `path` (`["firewall policy", "1"]`).
    pub fn at(&self, path: &[&str]) -> Option<&ConfigNode> {
        path.iter()
            .try_fold(self, |node, name| node.children.get(*name))
    }

    /// A setting's values joined by one space (`set action accept` -> `accept`).
    pub fn get(&self, key: &str) -> Option<String> {
        self.settings.get(key).map(|v| v.join(" "))
    }
}

/// A parsed configuration output.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigTree {
    pub root: ConfigNode,
}

impl ConfigTree {
    /// An entry of a table: `entry("firewall policy", "1")`.
    pub fn entry(&self, table: &str, name: &str) -> Option<&ConfigNode> {
        self.root.at(&[table, name])
    }

    /// Whether the output had `config <table>` at all (an empty table still counts).
    pub fn has_table(&self, table: &str) -> bool {
        self.root.children.contains_key(table)
    }
}

/// Deepest `config`/`edit` nesting taken as real. FortiOS trees are a handful of levels deep
/// (`config vdom` > `edit root` > `config router bgp` > `config neighbor` > `edit ...`); a limit
/// keeps everything that walks the tree afterwards (drop, compare, serialise) shallow whatever
/// the input, so a hostile output cannot overflow the stack.
pub const MAX_DEPTH: usize = 64;

/// Most lines of configuration read into a tree. The commands premarket sends print one
/// policy, one service or one settings table (tens to a few thousand lines; a whole FortiGate
/// configuration is rarely above 100,000). A tree costs several hundred bytes per line, so an
/// output past this is refused before it is built (10^6 `edit` entries took 0.9 GB).
pub const MAX_LINES: usize = 200_000;

pub fn parse(raw: &str) -> Result<ConfigTree, ParseError> {
    let count = memchr::memchr_iter(b'\n', raw.as_bytes()).count();
    if count > MAX_LINES {
        return Err(ParseError::new(
            format!(
                "the output has {count} lines, more than the {MAX_LINES} this command could print"
            ),
            raw,
        ));
    }
    let lines = body(raw);
    device_error(&lines)?;
    let mut stack: Vec<(String, ConfigNode)> = Vec::new();
    let mut root = ConfigNode::default();
    let mut any = false;
    for (i, line) in lines.iter().enumerate() {
        let at = |reason: String| ParseError::at_line(reason, &joined(&lines), i);
        let line = line.trim();
        if line.starts_with('#') {
            continue; // `#config-version=...` header of full configurations
        }
        let words = split_words(line).map_err(at)?;
        let Some(keyword) = words.first() else {
            continue;
        };
        let open = !stack.is_empty();
        match keyword.as_str() {
            "config" | "edit" if stack.len() >= MAX_DEPTH => {
                return Err(at(format!(
                    "configuration nested deeper than {MAX_DEPTH} levels: not FortiOS output"
                )));
            }
            "config" if words.len() >= 2 => {
                stack.push((words[1..].join(" "), ConfigNode::default()));
                any = true;
            }
            "edit" if words.len() == 2 && open => {
                stack.push((words[1].clone(), ConfigNode::default()))
            }
            "set" if words.len() >= 2 && open => {
                if let Some((_, node)) = stack.last_mut() {
                    set(&mut node.settings, &words[1], words[2..].to_vec())
                        .map_err(|e| at(e.to_string()))?;
                }
            }
            "unset" | "append" | "select" if open => {}
            "next" | "end" if open => {
                if let Some((name, node)) = stack.pop() {
                    let parent = match stack.last_mut() {
                        Some((_, node)) => node,
                        None => &mut root,
                    };
                    parent.adopt(name, node).map_err(|e| at(e.to_string()))?;
                }
            }
            _ if !open => match line.split_once(':') {
                // `get` form: `udp-idle-timer      : 180`
                Some((key, value)) if is_setting_name(key.trim()) => {
                    set(
                        &mut root.settings,
                        key.trim(),
                        vec![value.trim().to_string()],
                    )
                    .map_err(|e| at(e.to_string()))?;
                    any = true;
                }
                _ => {
                    return Err(at("unexpected line outside any `config` block".to_string()));
                }
            },
            _ => {
                return Err(at(format!(
                    "unexpected line inside `config {}`",
                    quote(&stack[0].0)
                )));
            }
        }
    }
    if let Some((name, _)) = stack.last() {
        return Err(ParseError::new(
            format!(
                "the configuration ends inside {} (output cut?)",
                quote(name)
            ),
            &joined(&lines),
        ));
    }
    if !any {
        return Err(ParseError::new(
            "no `config` block and no `name : value` line: not a FortiOS configuration",
            raw,
        ));
    }
    Ok(ConfigTree { root })
}

/// The one `config <table>` block that `show <table>` prints (`system npu`); a missing block,
/// or anything beside it, is another command's output.
pub fn single_table(raw: &str, table: &str) -> Result<ConfigNode, ParseError> {
    let mut root = parse(raw)?.root;
    let node = root.children.remove(table).ok_or_else(|| {
        ParseError::new(
            format!("no `config {table}` block: not show {table} output"),
            raw,
        )
    })?;
    if !root.children.is_empty() || !root.settings.is_empty() {
        return Err(ParseError::new(
            format!("more than `config {table}` in the output: another command's output mixed in"),
            raw,
        ));
    }
    Ok(node)
}

/// A `get` setting name: `udp-idle-timer`, `admin-port`, `gui-ipv6` ... (FortiOS names its
/// settings in lower case with hyphens; `np7lite_0:` or `Version:` are other outputs).
fn is_setting_name(key: &str) -> bool {
    key.starts_with(|c: char| c.is_ascii_lowercase())
        && key
            .bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

/// One key set twice with two values in the same block (which one applies?).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "`set {}` printed twice with different values ({} and {})",
    quote(.key),
    quote(.old),
    quote(.new)
)]
struct SetTwice {
    key: String,
    old: String,
    new: String,
}

/// Stores a setting; printing one key twice with two values is an error (which one applies?).
fn set(
    settings: &mut BTreeMap<String, Vec<String>>,
    key: &str,
    values: Vec<String>,
) -> Result<(), SetTwice> {
    match settings.get(key) {
        Some(old) if *old != values => Err(SetTwice {
            key: key.to_string(),
            old: old.join(" "),
            new: values.join(" "),
        }),
        Some(_) => Ok(()),
        None => {
            settings.insert(key.to_string(), values);
            Ok(())
        }
    }
}

impl ConfigNode {
    /// Adds a finished block under `name`: moved in whole when new (constant work, so a deep or
    /// long output costs linear time), merged when the output opened the same block twice.
    fn adopt(&mut self, name: String, node: ConfigNode) -> Result<(), SetTwice> {
        match self.children.entry(name) {
            std::collections::btree_map::Entry::Vacant(slot) => {
                slot.insert(node);
                Ok(())
            }
            std::collections::btree_map::Entry::Occupied(mut slot) => slot.get_mut().merge(node),
        }
    }

    /// Recursion here is bounded by [`MAX_DEPTH`].
    fn merge(&mut self, other: ConfigNode) -> Result<(), SetTwice> {
        for (key, values) in other.settings {
            set(&mut self.settings, &key, values)?;
        }
        for (name, child) in other.children {
            self.adopt(name, child)?;
        }
        Ok(())
    }
}

/// Words of a configuration line; `"quoted values"` keep their spaces, `\"` and `\\` escape.
fn split_words(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut chars = line.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_whitespace() {
            chars.next();
            continue;
        }
        let mut word = String::new();
        if c == '"' {
            chars.next();
            let mut closed = false;
            while let Some(c) = chars.next() {
                match c {
                    '\\' => word.extend(chars.next()),
                    '"' => {
                        closed = true;
                        break;
                    }
                    c => word.push(c),
                }
            }
            if !closed {
                return Err("unterminated quoted value".to_string());
            }
        } else {
            while let Some(&c) = chars.peek() {
                if c.is_whitespace() {
                    break;
                }
                word.push(c);
                chars.next();
            }
        }
        words.push(word);
    }
    Ok(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_tables_and_quotes() {
        let raw = "fw1 # show firewall policy 1\r\nconfig firewall policy\r\n    edit 1\r\n        set name \"md feed\"\r\n        set srcintf \"x1\" \"x2\"\r\n        set auto-asic-offload disable\r\n        config sub\r\n            edit \"a\"\r\n                set k v\r\n            next\r\n        end\r\n    next\r\nend\r\nfw1 # ";
        let t = parse(raw).unwrap();
        let p = t.entry("firewall policy", "1").unwrap();
        assert_eq!(p.get("name").as_deref(), Some("md feed"));
        assert_eq!(p.settings["srcintf"], vec!["x1", "x2"]);
        assert_eq!(p.get("auto-asic-offload").as_deref(), Some("disable"));
        assert_eq!(
            p.at(&["sub", "a"]).and_then(|n| n.get("k")).as_deref(),
            Some("v")
        );
        let flat = parse(&raw.replace("    ", "")).unwrap();
        assert_eq!(t, flat);
    }

    #[test]
    fn get_form_empty_tables_and_errors() {
        let get = parse(
            "fw1 # get system global\nadmin-port          : 80\nudp-idle-timer      : 180\nfw1 # ",
        )
        .unwrap();
        assert_eq!(get.root.get("udp-idle-timer").as_deref(), Some("180"));
        let empty = parse("config firewall policy\nend\n").unwrap();
        assert!(
            empty.has_table("firewall policy") && empty.entry("firewall policy", "1").is_none()
        );
        assert!(parse("config firewall policy\n    edit 1\n        set action accept\n").is_err());
        assert!(
            parse("config firewall policy\n    edit 1\n    bogus line\n    next\nend").is_err()
        );
        assert!(parse("").is_err());
        assert!(parse("set x \"unterminated\nend").is_err());
        assert!(parse("entry not found in datasource").is_err());
    }

    #[test]
    fn an_output_longer_than_any_configuration_is_refused_before_the_tree() {
        let mut text = String::from("config firewall policy\n");
        for i in 0..MAX_LINES {
            text.push_str(&format!("    edit {i}\n    next\n"));
        }
        text.push_str("end\n");
        let e = parse(&text).expect_err("too long");
        assert!(e.to_string().contains("more than the 200000"), "{e}");
        let short = "config firewall policy\n    edit 1\n        set name \"a\"\n    next\nend\n";
        assert!(parse(short).is_ok());
    }

    #[test]
    fn deep_nesting_is_an_error_not_a_crash() {
        let deep = |n: usize| format!("{}{}", "config a\n".repeat(n), "end\n".repeat(n));
        assert!(parse(&deep(MAX_DEPTH)).is_ok());
        let e = parse(&deep(100_000)).unwrap_err();
        assert!(e.reason.contains("deeper"), "{}", e.reason);
        let edits = format!(
            "config t\n{}{}end\n",
            "edit x\nconfig u\n".repeat(50_000),
            "end\nnext\n".repeat(50_000)
        );
        assert!(parse(&edits).is_err());
    }

    #[test]
    fn repeated_settings_must_agree() {
        let twice = "config system npu\n    set max-session-timeout 40\n    set max-session-timeout 40\nend\n";
        assert!(parse(twice).is_ok());
        for bad in [
            "config system npu\n    set max-session-timeout 40\n    set max-session-timeout 60\nend\n",
            "config firewall policy\n    edit 1\n        set action accept\n    next\n    edit 1\n        set action deny\n    next\nend\n",
            "udp-idle-timer : 180\nudp-idle-timer : 60\n",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(e.reason.contains("different values"), "{bad}: {}", e.reason);
        }
        let reopened = parse("config firewall policy\n    edit 1\n        set action accept\n    next\nend\nconfig firewall policy\n    edit 2\n        set action deny\n    next\nend\n").unwrap();
        assert!(
            reopened.entry("firewall policy", "1").is_some()
                && reopened.entry("firewall policy", "2").is_some()
        );
    }
}
