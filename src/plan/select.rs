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
