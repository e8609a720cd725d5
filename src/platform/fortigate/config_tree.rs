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

use serde::Serialize;

use super::text::{body, device_error, joined};
use crate::parse::ParseError;

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ConfigNode {
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub settings: BTreeMap<String, Vec<String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
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
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
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

pub fn parse(raw: &str) -> Result<ConfigTree, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let mut stack: Vec<(String, ConfigNode)> = Vec::new();
    let mut root = ConfigNode::default();
    let mut any = false;
    for (i, line) in lines.iter().enumerate() {
        let line = line.trim();
        if line.starts_with('#') {
            continue; // `#config-version=...` header of full configurations
        }
        let words =
            split_words(line).map_err(|reason| ParseError::at_line(reason, &joined(&lines), i))?;
        let Some(keyword) = words.first() else {
            continue;
        };
        let open = !stack.is_empty();
        match keyword.as_str() {
            "config" if words.len() >= 2 => {
                stack.push((words[1..].join(" "), ConfigNode::default()));
                any = true;
            }
            "edit" if words.len() == 2 && open => {
                stack.push((words[1].clone(), ConfigNode::default()))
            }
            "set" if words.len() >= 2 && open => {
                if let Some((_, node)) = stack.last_mut() {
                    node.settings.insert(words[1].clone(), words[2..].to_vec());
                }
            }
            "unset" | "append" | "select" if open => {}
            "next" | "end" if open => {
                if let Some((name, node)) = stack.pop() {
                    let parent = match stack.last_mut() {
                        Some((_, node)) => node,
                        None => &mut root,
                    };
                    parent.children.entry(name).or_default().merge(node);
                }
            }
            _ if !open => match line.split_once(':') {
                // `get` form: `udp-idle-timer      : 180`
                Some((key, value)) if !key.trim().is_empty() && !key.trim().contains(' ') => {
                    root.settings
                        .insert(key.trim().to_string(), vec![value.trim().to_string()]);
                    any = true;
                }
                _ => {
                    return Err(ParseError::at_line(
                        "unexpected line outside any `config` block",
                        &joined(&lines),
                        i,
                    ));
                }
            },
            _ => {
                return Err(ParseError::at_line(
                    format!("unexpected line inside `config {}`", stack[0].0),
                    &joined(&lines),
                    i,
                ));
            }
        }
    }
    if let Some((name, _)) = stack.last() {
        return Err(ParseError::new(
            format!("the configuration ends inside `{name}` (output cut?)"),
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

impl ConfigNode {
    fn merge(&mut self, other: ConfigNode) {
        self.settings.extend(other.settings);
        for (name, child) in other.children {
            self.children.entry(name).or_default().merge(child);
        }
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
}
