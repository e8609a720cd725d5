//! Every secret reference of a loaded site, named by where it is written, for those that read
//! them all: the redactor (every value, so none can leak), `validate` (each one a live run
//! would miss) and the run's report (a secret file others may read).

use std::path::{Path, PathBuf};

use super::Config;
use super::secret::SecretRef;
use premarket_files::private;

/// One secret reference and where it is written (`device sw1 ssh.password`, `email.password`).
pub struct Reference<'a> {
    pub secret: &'a SecretRef,
    pub written: String,
}

impl Config {
    /// The secret references of the devices, the email relay and the notify endpoints.
    pub fn secret_references(&self) -> Vec<Reference<'_>> {
        let mut refs = Vec::new();
        for device in &self.devices {
            let Some(ssh) = device.ssh() else {
                continue;
            };
            for (key, secret) in [
                ("password", &ssh.password),
                ("key_passphrase", &ssh.key_passphrase),
                ("enable_secret", &ssh.enable_secret),
            ] {
                refs.extend(secret.iter().map(|secret| Reference {
                    secret,
                    written: format!("device {} ssh.{key}", device.name),
                }));
            }
        }
        if let Some((_, password)) = self.site.email.as_ref().and_then(|e| e.relay.auth.as_ref()) {
            refs.push(Reference {
                secret: password,
                written: "email.password".into(),
            });
        }
        for endpoint in &self.site.notify {
            for (key, at) in [
                ("url", &endpoint.url),
                ("routing_key", &endpoint.routing_key),
            ] {
                refs.extend(at.iter().map(|at| Reference {
                    secret: &at.secret,
                    written: format!("notify {} {key}", endpoint.name),
                }));
            }
        }
        refs
    }

    /// A line for each secret file (and SSH key file) that exists and that anyone but the
    /// running user may read: not refused (it worked yesterday), but said in `validate` and in
    /// the run's report, with the command that closes it.
    pub fn exposed_secret_files(&self) -> Vec<String> {
        let keys = self
            .devices
            .iter()
            .filter_map(|d| Some((d, d.ssh()?.key_file.as_ref()?)))
            .map(|(d, path)| {
                (
                    "key file",
                    path.clone(),
                    format!("device {} ssh.key_file", d.name),
                )
            });
        let files = self
            .secret_references()
            .into_iter()
            .filter_map(|r| match r.secret {
                SecretRef::File(path) => Some(("secret file", path.clone(), r.written)),
                SecretRef::Env(_) | SecretRef::Command(_) => None,
            });
        let mut seen: Vec<PathBuf> = Vec::new();
        let mut lines = Vec::new();
        for (what, path, written) in files.chain(keys) {
            if seen.contains(&path) {
                continue;
            }
            seen.push(path.clone());
            if let Some(line) = exposed(what, &path, &written) {
                lines.push(line);
            }
        }
        lines
    }
}

fn exposed(what: &str, path: &Path, written: &str) -> Option<String> {
    let metadata = std::fs::metadata(path).ok().filter(|m| m.is_file())?;
    let exposure = private::exposure(&metadata)?;
    Some(format!(
        "the {what} {} {exposure} ({written}): `{}`",
        path.display(),
        exposure.remedy(path)
    ))
}
