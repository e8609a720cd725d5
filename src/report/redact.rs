//! The last line of defence before anything is written down (evidence, archive, email):
//! each platform's secret rules, PEM private keys, and the literal values of every secret the
//! configuration refers to, should a device echo one back.

use secrecy::ExposeSecret;

use premarket_config::{Config, SecretRef};
use premarket_core::Platform;

/// Known secret values shorter than this are not searched for: they would shred ordinary text.
const MIN_SECRET_LEN: usize = 4;

/// Redacts text before it leaves premarket's memory.
#[derive(Clone, Default)]
pub struct Redactor {
    known: Vec<String>,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} known secrets)", self.known.len())
    }
}

impl Redactor {
    /// Resolves every secret reference in `config` (unresolvable ones are skipped: they cannot
    /// leak what premarket never read).
    pub fn from_config(config: &Config) -> Self {
        let mut refs: Vec<&SecretRef> = Vec::new();
        for ssh in config.devices.iter().filter_map(|d| d.ssh()) {
            refs.extend(&ssh.password);
            refs.extend(&ssh.key_passphrase);
            refs.extend(&ssh.enable_secret);
        }
        if let Some((_, password)) = config
            .site
            .email
            .as_ref()
            .and_then(|e| e.relay.auth.as_ref())
        {
            refs.push(password);
        }
        let mut redactor = Redactor::default();
        for r in refs {
            if let Ok(secret) = r.resolve() {
                redactor.add(secret.expose_secret());
            }
        }
        redactor
    }

    /// Also removes this literal value wherever it appears.
    pub fn add(&mut self, secret: &str) {
        if secret.len() >= MIN_SECRET_LEN && !self.known.iter().any(|k| k == secret) {
            self.known.push(secret.to_string());
            // Longest first, so a secret containing another is replaced whole.
            self.known.sort_by_key(|k| std::cmp::Reverse(k.len()));
        }
    }

    /// `text` from a device of `platform`, safe to write down.
    pub fn redact(&self, platform: Platform, text: &str) -> String {
        let text = pem_keys(&premarket_platform::redact(platform, text));
        self.literals(&text)
    }

    /// Only the known literal values (for text that is not device output).
    pub fn literals(&self, text: &str) -> String {
        let mut out = text.to_string();
        for secret in &self.known {
            if out.contains(secret.as_str()) {
                out = out.replace(secret.as_str(), "<redacted>");
            }
        }
        out
    }
}

/// Replaces the body of every `-----BEGIN ... PRIVATE KEY-----` block.
fn pem_keys(text: &str) -> String {
    // Most outputs hold no key: no need to take them apart line by line.
    if !text.contains("PRIVATE KEY-----") {
        return text.to_string();
    }
    let mut kept: Vec<&str> = Vec::new();
    let mut inside = false;
    for line in text.split('\n') {
        let is_begin = line.contains("-----BEGIN") && line.contains("PRIVATE KEY-----");
        let is_end = line.contains("-----END") && line.contains("PRIVATE KEY-----");
        if is_begin {
            inside = !is_end;
            kept.push("-----BEGIN PRIVATE KEY----- <redacted>");
        } else if inside && is_end {
            inside = false;
            kept.push("-----END PRIVATE KEY-----");
        } else if !inside {
            kept.push(line);
        }
    }
    kept.join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn literals_platform_rules_and_pem_blocks() {
        let mut r = Redactor::default();
        r.add("hunter2-canary");
        r.add("abc"); // too short to search for
        let raw = "banner hunter2-canary\nusername a secret 0 plain\n-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\nabc";
        let out = r.redact(Platform::Eos, raw);
        assert!(!out.contains("hunter2-canary"), "{out}");
        assert!(!out.contains("plain"), "{out}");
        assert!(!out.contains("MIIEow"), "{out}");
        assert!(out.ends_with("abc"), "{out}");
    }
}
