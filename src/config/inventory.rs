//! An Ansible inventory as `ansible-inventory --list` prints it (JSON), read for `premarket
//! import ansible`: where a site's device list usually lives already.
//!
//! Only what a baseline needs is read from each host's variables (`_meta.hostvars`, where
//! `ansible-inventory` has already merged group and host vars): `ansible_network_os`,
//! `ansible_host`, `ansible_port`, `ansible_user`, the private key file, and whether it
//! `become`s. A variable that holds a secret (`ansible_password`, `ansible_become_password`,
//! anything named like a password, secret or token) is noted by name only: its value is never
//! read into anything premarket keeps or prints. A host's role is its first group: the first
//! group, walking the group tree from `all` in the inventory's order, that lists the host itself.

use std::collections::HashSet;

use serde_json::{Map, Value};

/// One host of the inventory, as far as premarket uses it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct InventoryHost {
    /// The inventory name (`inventory_hostname`).
    pub name: String,
    pub network_os: Option<String>,
    /// `ansible_host`, else the inventory name (as Ansible connects).
    pub host: String,
    pub port: Option<u16>,
    pub user: Option<String>,
    pub key_file: Option<String>,
    /// `ansible_become` is set, or a become password is: the switch asks for `enable`'s.
    pub becomes: bool,
    /// The first group that lists the host (not `all`, not `ungrouped`).
    pub role: Option<String>,
    /// Variables set for it that hold secrets: their names (never their values).
    pub secrets: Vec<String>,
    /// Variables premarket reads that hold something it cannot use (a vault-encrypted
    /// `ansible_host`, a port that is not a number): their names and why.
    pub unreadable: Vec<String>,
}

#[derive(Debug, thiserror::Error)]
pub enum InventoryError {
    /// The position only: the text may hold secrets.
    #[error(
        "not the JSON `ansible-inventory --list` prints (line {line}, column {column}: {kind})"
    )]
    Json {
        line: usize,
        column: usize,
        kind: &'static str,
    },
    #[error("not an inventory: {0}")]
    Shape(&'static str),
}

/// The hosts of `json`, in the inventory's order.
pub fn read(json: &str) -> Result<Vec<InventoryHost>, InventoryError> {
    let root: Value = serde_json::from_str(json).map_err(|e| InventoryError::Json {
        line: e.line(),
        column: e.column(),
        kind: match e.classify() {
            serde_json::error::Category::Io => "cannot read",
            serde_json::error::Category::Syntax => "not JSON",
            serde_json::error::Category::Data => "unexpected value",
            serde_json::error::Category::Eof => "it ends too early",
        },
    })?;
    let groups = root.as_object().ok_or(InventoryError::Shape(
        "the top level is not an object of groups",
    ))?;
    let hostvars = groups
        .get("_meta")
        .and_then(|m| m.get("hostvars"))
        .and_then(Value::as_object);
    let mut order: Vec<(String, Option<String>)> = Vec::new();
    let mut visited = HashSet::new();
    walk("all", groups, &mut visited, &mut order);
    // Groups `all` does not reach (a hand-written file), in the file's order.
    for name in groups.keys() {
        walk(name, groups, &mut visited, &mut order);
    }
    if let Some(vars) = hostvars {
        for name in vars.keys() {
            if !order.iter().any(|(h, _)| h == name) {
                order.push((name.clone(), None));
            }
        }
    }
    if order.is_empty() {
        return Err(InventoryError::Shape("it lists no host"));
    }
    let empty = Map::new();
    Ok(order
        .into_iter()
        .map(|(name, role)| {
            let vars = hostvars
                .and_then(|v| v.get(&name))
                .and_then(Value::as_object)
                .unwrap_or(&empty);
            host(name, role, vars)
        })
        .collect())
}

/// Depth first from `group`: each host with the first group that lists it.
fn walk(
    group: &str,
    groups: &Map<String, Value>,
    visited: &mut HashSet<String>,
    order: &mut Vec<(String, Option<String>)>,
) {
    if group == "_meta" || !visited.insert(group.to_string()) {
        return;
    }
    let Some(entry) = groups.get(group) else {
        return;
    };
    let names = |key: &str| -> Vec<String> {
        entry
            .get(key)
            .and_then(Value::as_array)
            .map(|list| {
                list.iter()
                    .filter_map(Value::as_str)
                    .map(str::to_string)
                    .collect()
            })
            .unwrap_or_default()
    };
    let role = (!["all", "ungrouped"].contains(&group)).then(|| group.to_string());
    for host in names("hosts") {
        match order.iter_mut().find(|(h, _)| *h == host) {
            Some((_, first @ None)) => *first = role.clone(),
            Some(_) => {}
            None => order.push((host, role.clone())),
        }
    }
    for child in names("children") {
        walk(&child, groups, visited, order);
    }
}

fn host(name: String, role: Option<String>, vars: &Map<String, Value>) -> InventoryHost {
    let mut unreadable = Vec::new();
    let mut text = |key: &str| match vars.get(key) {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) if !s.trim().is_empty() => Some(s.trim().to_string()),
        Some(Value::Number(n)) => Some(n.to_string()),
        Some(_) => {
            unreadable.push(format!("{key} (not plain text: vault-encrypted?)"));
            None
        }
    };
    let network_os = text("ansible_network_os");
    let address = text("ansible_host");
    let user = text("ansible_user").or_else(|| text("ansible_ssh_user"));
    let key_file =
        text("ansible_ssh_private_key_file").or_else(|| text("ansible_private_key_file"));
    let port = text("ansible_port").or_else(|| text("ansible_ssh_port"));
    let port = port.and_then(|p| match p.parse::<u16>() {
        Ok(port) if port > 0 => Some(port),
        _ => {
            unreadable.push(format!("ansible_port ({p:?} is not a port number)"));
            None
        }
    });
    let truthy = |v: &Value| match v {
        Value::Bool(b) => *b,
        Value::String(s) => ["yes", "true", "1", "on"].contains(&s.to_ascii_lowercase().as_str()),
        Value::Number(n) => n.as_u64() == Some(1),
        _ => false,
    };
    let mut secrets: Vec<String> = vars
        .keys()
        .filter(|k| {
            let k = k.to_ascii_lowercase();
            ["pass", "secret", "token"].iter().any(|s| k.contains(s))
        })
        .cloned()
        .collect();
    secrets.sort();
    let becomes = vars.get("ansible_become").is_some_and(truthy)
        || secrets.iter().any(|k| k.starts_with("ansible_become_pass"));
    InventoryHost {
        host: address.unwrap_or_else(|| name.clone()),
        name,
        network_os,
        port,
        user,
        key_file,
        becomes,
        role,
        secrets,
        unreadable,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_come_in_inventory_order_with_their_first_group_and_no_secret_value() {
        let json = r#"{
            "_meta": {"hostvars": {
                "fw1": {"ansible_host": "10.9.0.1", "ansible_network_os": "fortinet.fortios.fortios", "ansible_user": "fwadmin"},
                "sw1": {"ansible_host": "10.0.0.1", "ansible_network_os": "eos"},
                "sw7": {"ansible_become_password": "Hunter2-enable", "ansible_host": "10.1.2.7",
                        "ansible_network_os": "arista.eos.eos", "ansible_port": 2222, "ansible_user": "netops"},
                "sw8": {"ansible_host": {"__ansible_vault": "$ANSIBLE_VAULT;1.1;AES256\n3961"},
                        "ansible_password": "Hunter2-login", "ansible_port": "22x", "ansible_network_os": "eos"},
                "web1": {"ansible_host": "10.5.0.1"}
            }},
            "all": {"children": ["ungrouped", "firewalls", "dc1", "servers"]},
            "dc1": {"children": ["spine", "leaf"]},
            "firewalls": {"hosts": ["fw1"]},
            "leaf": {"hosts": ["sw7", "sw8"]},
            "servers": {"hosts": ["web1"]},
            "spine": {"hosts": ["sw1", "sw7"]},
            "ungrouped": {"hosts": ["lonely"]}
        }"#;
        let hosts = read(json).unwrap();
        let summary: Vec<(&str, Option<&str>)> = hosts
            .iter()
            .map(|h| (h.name.as_str(), h.role.as_deref()))
            .collect();
        assert_eq!(
            summary,
            [
                ("lonely", None),
                ("fw1", Some("firewalls")),
                ("sw1", Some("spine")),
                ("sw7", Some("spine")),
                ("sw8", Some("leaf")),
                ("web1", Some("servers")),
            ]
        );
        let sw7 = &hosts[3];
        assert_eq!(
            (
                sw7.host.as_str(),
                sw7.port,
                sw7.user.as_deref(),
                sw7.becomes
            ),
            ("10.1.2.7", Some(2222), Some("netops"), true)
        );
        assert_eq!(sw7.secrets, ["ansible_become_password"]);
        let sw8 = &hosts[4];
        assert_eq!(
            sw8.host, "sw8",
            "an unreadable address falls back to the name"
        );
        assert_eq!(sw8.port, None);
        assert_eq!(sw8.unreadable.len(), 2, "{:?}", sw8.unreadable);
        assert!(!sw8.becomes);
        assert_eq!(hosts[0].network_os, None);
        let everything = format!("{hosts:?}");
        assert!(
            !everything.contains("Hunter2") && !everything.contains("3961"),
            "{everything}"
        );
    }

    #[test]
    fn what_is_not_an_inventory_is_refused_without_quoting_it() {
        for (json, said) in [
            ("{\"all\": Hunter2", "line 1, column 9: not JSON"),
            ("[1, 2]", "the top level is not an object"),
            ("{\"all\": {\"children\": []}}", "it lists no host"),
        ] {
            let e = read(json).unwrap_err().to_string();
            assert!(e.contains(said), "{json}: {e}");
            assert!(!e.contains("Hunter2"), "{e}");
        }
    }
}
