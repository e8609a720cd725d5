//! What to say when a selection matches nothing: the closest check id or device name by edit
//! distance (`did you mean eos.lanz.persisted?`), or, for a check that exists but not where it
//! was asked for, which platform it runs on and which devices have it. A typo should cost one
//! glance, not a scan of every id on one line.

use premarket_config::Config;
pub use premarket_core::{closest, distance};

use crate::Selection;

/// Why `selection` selects nothing, one sentence per cause.
pub fn nothing_selected(config: &Config, selection: &Selection) -> String {
    let mut reasons = Vec::new();
    let on_devices: Vec<&premarket_config::Device> = config
        .devices
        .iter()
        .filter(|d| selection.wants_device(&d.name))
        .collect();
    for pattern in &selection.checks {
        let matching: Vec<&premarket_config::Entry> = config
            .catalog
            .iter()
            .filter(|e| {
                Selection {
                    checks: vec![pattern.clone()],
                    ..Selection::default()
                }
                .wants(e)
            })
            .collect();
        let Some(entry) = matching.first() else {
            let ids = config.catalog.iter().map(|e| e.id.as_str());
            reasons.push(match closest(pattern, ids) {
                Some(id) => format!("no check is named {pattern}; did you mean {id}?"),
                None => format!("no check matches {pattern} (`premarket list` shows them all)"),
            });
            continue;
        };
        if matching
            .iter()
            .any(|e| on_devices.iter().any(|d| d.platform == e.platform))
        {
            continue;
        }
        let platform = entry.platform;
        let have: Vec<&str> = config
            .devices
            .iter()
            .filter(|d| d.platform == platform)
            .map(|d| d.name.as_str())
            .collect();
        let what = if matching.len() == 1 {
            format!("{} is a {platform} check", entry.id)
        } else {
            format!("{pattern} matches {platform} checks")
        };
        reasons.push(match (have.is_empty(), selection.devices.is_empty()) {
            (true, _) => format!("{what}, and the site has no {platform} device"),
            (false, false) => format!(
                "{what}, and {} {} not a {platform} device ({platform}: {})",
                selection.devices.join(", "),
                if selection.devices.len() == 1 {
                    "is"
                } else {
                    "are"
                },
                have.join(", ")
            ),
            (false, true) => format!("{what}, and no selected device is a {platform} device"),
        });
    }
    for tag in &selection.tags {
        if !config.catalog.iter().any(|e| e.tags.contains(tag)) {
            let mut tags: Vec<&str> = config
                .catalog
                .iter()
                .flat_map(|e| e.tags.iter().map(String::as_str))
                .collect();
            tags.sort_unstable();
            tags.dedup();
            reasons.push(match closest(tag, tags) {
                Some(t) => format!("no check has the tag {tag}; did you mean {t}?"),
                None => format!("no check has the tag {tag}"),
            });
        }
    }
    if reasons.is_empty() {
        reasons.push("the selection matches no check on the selected devices".to_string());
    }
    reasons.join("; ")
}

/// What to say about a device name that is not in the site.
pub fn unknown_device(config: &Config, name: &str) -> String {
    let names: Vec<&str> = config.devices.iter().map(|d| d.name.as_str()).collect();
    match closest(name, names.iter().copied()) {
        Some(d) => format!("no device is named {name}; did you mean {d}?"),
        None => format!("no device is named {name} (devices: {})", names.join(", ")),
    }
}
