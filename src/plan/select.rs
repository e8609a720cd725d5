//! Which checks and devices the operator asked for (`--check`, `--device`, `--tag`).

use premarket_config::Entry;

/// An empty list means "all". `checks` holds ids or globs (`eos.lanz.*`).
#[derive(Clone, Debug, Default)]
pub struct Selection {
    pub checks: Vec<String>,
    pub devices: Vec<String>,
    pub tags: Vec<String>,
}

impl Selection {
    pub fn wants(&self, entry: &Entry) -> bool {
        let by_id = self.checks.is_empty() || self.checks.iter().any(|p| matches(p, &entry.id));
        let by_tag = self.tags.is_empty() || self.tags.iter().any(|t| entry.tags.contains(t));
        by_id && by_tag
    }

    pub fn wants_device(&self, name: &str) -> bool {
        self.devices.is_empty() || self.devices.iter().any(|d| d == name)
    }

    /// The selection with the checks that the selected ones explain (catalog `explains:`)
    /// added, and the ids added. A cause is rechecked after a fix; the checks it explains read
    /// the same state, and left out they would stand as the earlier run's FAIL.
    pub fn and_explained(&self, catalog: &[Entry]) -> (Selection, Vec<String>) {
        let mut out = self.clone();
        let mut added = Vec::new();
        if self.checks.is_empty() {
            return (out, added);
        }
        for entry in catalog.iter().filter(|e| self.wants(e)) {
            for (id, _) in &entry.explains {
                let selected = self.checks.iter().any(|p| matches(p, id));
                if !selected && !added.contains(id) {
                    added.push(id.clone());
                }
            }
        }
        out.checks.extend(added.iter().cloned());
        (out, added)
    }
}

fn matches(pattern: &str, id: &str) -> bool {
    match glob::Pattern::new(pattern) {
        Ok(p) => p.matches(id),
        Err(_) => pattern == id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_globs() {
        assert!(matches("eos.lanz.*", "eos.lanz.persisted"));
        assert!(matches("eos.lanz.persisted", "eos.lanz.persisted"));
        assert!(!matches("eos.lanz", "eos.lanz.persisted"));
        assert!(matches("*.version.pinned", "fortigate.version.pinned"));
    }
}
