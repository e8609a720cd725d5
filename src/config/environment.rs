//! Where a `{ env: NAME }` secret is looked up: the process environment, then the site's
//! `environment_file:` (read by premarket itself, in systemd's syntax: [`super::env_file`]).
//! Cron, the systemd unit and a rerun pasted into an on-call shell then see the same secrets,
//! whatever each one's environment holds; where both name a variable, the process wins (an
//! operator can try another value for one run).
//!
//! The file is read once, when the site is loaded, and refused as ssh refuses a private key
//! when anyone but the running user may read it ([`premarket_files::private`]). Its values are
//! held as secrets and never set into the process environment (the run's threads read it at
//! once, and `setenv` under them is undefined behaviour); no message ever shows one.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use secrecy::{ExposeSecret, SecretString};

use super::env_file;
use super::error::{ConfigError, Position};
use premarket_files::{self as files, Kind};

/// The process environment, and the site's environment file when it names one.
#[derive(Clone, Default)]
pub struct Environment {
    file: Option<Arc<EnvironmentFile>>,
}

struct EnvironmentFile {
    path: PathBuf,
    values: HashMap<String, SecretString>,
}

impl Environment {
    /// The process environment alone (a site without `environment_file:`).
    pub fn process() -> Environment {
        Environment::default()
    }

    /// Reads the environment file `path`, named at `named` in `site.yaml`. A file others may
    /// read, or one that is not the user's, is refused at `named` without being read; a line
    /// that does not read is an error at its own line, its text never shown.
    pub fn load(path: &Path, named: &Position) -> Result<Environment, ConfigError> {
        let refused = |why: String| {
            ConfigError::new(
                named.clone(),
                format!("environment_file {}: {why}", path.display()),
            )
        };
        let metadata = std::fs::metadata(path).map_err(|e| refused(e.to_string()))?;
        if let Some(exposure) = metadata
            .is_file()
            .then(|| files::private::exposure(&metadata))
            .flatten()
        {
            return Err(refused(format!(
                "it {exposure}, and it holds the site's secrets: premarket refuses it as ssh \
                 refuses such a private key (`{}`)",
                exposure.remedy(path)
            )));
        }
        let text = files::read_text(path, Kind::ENVIRONMENT).map_err(|e| refused(e.to_string()))?;
        let assignments = env_file::parse(&text).map_err(|e| {
            ConfigError::new(
                Position::new(path, e.line() as u64, 1),
                format!("{e} (systemd EnvironmentFile syntax; environment_file named at {named})"),
            )
        })?;
        let values = assignments
            .into_iter()
            .map(|a| (a.name, SecretString::from(a.value)))
            .collect();
        Ok(Environment {
            file: Some(Arc::new(EnvironmentFile {
                path: path.to_path_buf(),
                values,
            })),
        })
    }

    /// The value of `name`: the process's when it has one, else the file's.
    pub(crate) fn var(&self, name: &str) -> Option<SecretString> {
        if let Ok(value) = std::env::var(name) {
            return Some(SecretString::from(value));
        }
        self.file
            .as_ref()
            .and_then(|f| f.values.get(name))
            .map(|v| SecretString::from(v.expose_secret().to_string()))
    }

    /// The file's variables that the process does not set: what a secret command is given on
    /// top of the process environment (a vault CLI's `VAULT_TOKEN` kept in the file).
    pub(crate) fn file_only(&self) -> Vec<(&str, &SecretString)> {
        self.file.as_ref().map_or_else(Vec::new, |f| {
            f.values
                .iter()
                .filter(|(name, _)| std::env::var_os(name).is_none())
                .map(|(name, value)| (name.as_str(), value))
                .collect()
        })
    }

    /// Whether `name` is set in the process or in the file.
    pub fn is_set(&self, name: &str) -> bool {
        std::env::var_os(name).is_some()
            || self
                .file
                .as_ref()
                .is_some_and(|f| f.values.contains_key(name))
    }

    /// The environment file, when the site names one.
    pub fn file(&self) -> Option<&Path> {
        self.file.as_ref().map(|f| f.path.as_path())
    }
}

/// The path only: the values are secrets.
impl fmt::Debug for Environment {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Environment")
            .field("file", &self.file())
            .finish()
    }
}

/// Two environments are the same when they read the same file (or none).
impl PartialEq for Environment {
    fn eq(&self, other: &Self) -> bool {
        self.file() == other.file()
    }
}

impl Eq for Environment {}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    fn write(dir: &Path, text: &str, mode: u32) -> PathBuf {
        let path = dir.join("secrets.env");
        std::fs::write(&path, text).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        path
    }

    fn named(dir: &Path) -> Position {
        Position::new(&dir.join("site.yaml"), 4, 19)
    }

    #[test]
    fn the_file_is_read_as_written_and_the_process_wins() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(
            dir.path(),
            "PREMARKET_TEST_ENVFILE_DESK=Tr4d3$Desk#1\nPATH=/not/the/path\n",
            0o600,
        );
        let env = Environment::load(&path, &named(dir.path())).unwrap();
        assert_eq!(
            env.var("PREMARKET_TEST_ENVFILE_DESK")
                .map(|s| s.expose_secret().to_string())
                .as_deref(),
            Some("Tr4d3$Desk#1")
        );
        // PATH is set in the process: the process's value wins.
        assert_eq!(
            env.var("PATH").map(|s| s.expose_secret().to_string()),
            std::env::var("PATH").ok()
        );
        assert!(env.is_set("PREMARKET_TEST_ENVFILE_DESK"));
        assert!(!env.is_set("PREMARKET_TEST_ENVFILE_NOWHERE"));
        assert!(!Environment::process().is_set("PREMARKET_TEST_ENVFILE_DESK"));
        assert!(!format!("{env:?}").contains("Tr4d3"));
    }

    #[test]
    fn a_file_others_may_read_is_refused_unread_at_the_line_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        for mode in [0o640, 0o604, 0o660] {
            let path = write(dir.path(), "A=Tr4d3$Desk#1\n", mode);
            let e = Environment::load(&path, &named(dir.path())).err().unwrap();
            assert_eq!(e.position, named(dir.path()));
            assert!(
                e.message.contains(&format!("chmod 600 {}", path.display())),
                "{e}"
            );
            assert!(!e.to_string().contains("Tr4d3"), "{e}");
        }
        let missing = dir.path().join("nowhere.env");
        let e = Environment::load(&missing, &named(dir.path()))
            .err()
            .unwrap();
        assert_eq!(e.position, named(dir.path()));
    }

    #[test]
    fn a_malformed_line_is_an_error_at_that_line_without_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let path = write(dir.path(), "A=1\n# c\nTr4d3$Desk#1\n", 0o600);
        let e = Environment::load(&path, &named(dir.path())).err().unwrap();
        assert_eq!(e.position, Position::new(&path, 3, 1));
        assert!(!e.to_string().contains("Tr4d3"), "{e}");
    }
}
