//! Adding devices to `site.yaml`'s `devices:` list as a person would: the new entries after the
//! last one, in the file's own indentation, every comment and other line left as written
//! (`premarket import` lists the devices it wrote).

use serde::Deserialize;

/// The names already listed in `site.yaml`'s text (nothing when it does not read).
pub fn listed(text: &str) -> Vec<String> {
    #[derive(Deserialize)]
    struct Listed {
        #[serde(default)]
        devices: Vec<Entry>,
    }
    #[derive(Deserialize)]
    struct Entry {
        name: String,
    }
    serde_saphyr::from_str::<Listed>(text)
        .map(|l| l.devices.into_iter().map(|e| e.name).collect())
        .unwrap_or_default()
}

/// Why the entries could not be added as a person would (the operator then adds them).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ListError {
    #[error(
        "site.yaml lists its devices inline (devices: [...]); write them as a block list (one \
         `- name:` a line)"
    )]
    Inline,
    #[error(
        "site.yaml's devices: list could not be added to (it does not read as a list of \
         name/baseline entries after the edit)"
    )]
    Unreadable,
}

/// `text` with `devices` (name, baseline file) added to its `devices:` list.
pub fn add(text: &str, devices: &[(String, String)]) -> Result<String, ListError> {
    if devices.is_empty() {
        return Ok(text.to_string());
    }
    let lines: Vec<&str> = text.lines().collect();
    let top = |l: &str| !l.is_empty() && !l.starts_with([' ', '\t', '#', '-']);
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    // `key`: the columns from the dash to the entry's keys (`- name` is 2).
    let entry = |dash: &str, key: usize, (name, file): &(String, String)| {
        [
            format!(
                "{dash}-{}name: {name}",
                " ".repeat(key.saturating_sub(1).max(1))
            ),
            format!("{dash}{}baseline: {file}", " ".repeat(key.max(2))),
        ]
    };
    match lines.iter().position(|l| l.starts_with("devices:")) {
        None => {
            out.push("devices:".into());
            out.extend(devices.iter().flat_map(|d| entry("  ", 2, d)));
        }
        Some(at) => {
            let rest = lines[at]["devices:".len()..]
                .split(" #")
                .next()
                .unwrap_or("")
                .trim();
            let end = (at + 1..lines.len())
                .find(|&i| top(lines[i]))
                .unwrap_or(lines.len());
            let block = &lines[at + 1..end];
            match rest {
                "" => {}
                "[]" => out[at] = "devices:".into(),
                _ => return Err(ListError::Inline),
            }
            // The indentation of the first entry's dash and of its keys.
            let (dash, key) = block
                .iter()
                .find_map(|l| {
                    let dash = l.len() - l.trim_start().len();
                    let after = l.trim_start().strip_prefix('-')?;
                    let key = after.len() - after.trim_start().len();
                    Some((" ".repeat(dash), key + 1))
                })
                .unwrap_or_else(|| ("  ".into(), 2));
            // After the last line of the list itself (comments and blank lines that follow it
            // belong to what comes next).
            let last = block
                .iter()
                .rposition(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .map_or(at + 1, |i| at + 1 + i + 1);
            let new: Vec<String> = devices.iter().flat_map(|d| entry(&dash, key, d)).collect();
            out.splice(last..last, new);
        }
    }
    let mut result = out.join("\n");
    result.push('\n');
    let now = listed(&result);
    match devices.iter().all(|(name, _)| now.contains(name)) {
        true => Ok(result),
        false => Err(ListError::Unreadable),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two() -> Vec<(String, String)> {
        ["sw7", "fw2"]
            .map(|n| (n.to_string(), format!("{n}.yaml")))
            .to_vec()
    }

    #[test]
    fn entries_go_after_the_last_in_the_file_s_own_indentation() {
        let text = "site: x\ndevices:\n    -   name: fw1\n        baseline: fw1.yaml\n  # the switches\n\nssh:\n  known_hosts: k\n";
        let got = add(text, &two()).unwrap();
        assert_eq!(
            got,
            "site: x\ndevices:\n    -   name: fw1\n        baseline: fw1.yaml\n    -   name: sw7\n        baseline: sw7.yaml\n    -   name: fw2\n        baseline: fw2.yaml\n  # the switches\n\nssh:\n  known_hosts: k\n"
        );
        assert_eq!(listed(&got), ["fw1", "sw7", "fw2"]);
        let flush = "devices:\n- name: a\n  baseline: a.yaml\n";
        assert_eq!(listed(&add(flush, &two()).unwrap()), ["a", "sw7", "fw2"]);
        let empty = "site: x\ndevices: []  # none yet\ntimezone: UTC\n";
        assert_eq!(listed(&add(empty, &two()).unwrap()), ["sw7", "fw2"]);
        assert_eq!(listed(&add("site: x\n", &two()).unwrap()), ["sw7", "fw2"]);
        assert!(add("devices: [{ name: a, baseline: a.yaml }]\n", &two()).is_err());
    }
}
