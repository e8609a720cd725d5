//! References to secrets. A baseline names *where* a password is (an environment variable, a
//! file, or a command that prints it: [`secret_command`](super::secret_command)), never the
//! password itself, so baselines can sit in git and in the run archive.
//!
//! A secret is refused when it is read if it is not one line or is shorter than
//! [`MIN_CHARS`]: the redactor masks a secret wherever it appears, and a value of a few
//! characters appears in ordinary text. Every secret read is also remembered for the process
//! ([`mask_read_so_far`]), so that the log writer masks it in any log line, at any level.

use std::fmt;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, RwLock};

use secrecy::{ExposeSecret, SecretString};
use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, Visitor};

use super::environment::Environment;
use super::secret_command::{self, CommandError, SecretCommand};
use premarket_ssh::redact::Redactor;

/// `{ env: NAME }`, `{ file: /path }` or `{ command: [PROGRAM, ARG...] }` (with an optional
/// `timeout_s:`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SecretRef {
    Env(String),
    File(PathBuf),
    Command(SecretCommand),
}

/// Written as `{ env: NAME }` or `{ file: PATH }` (hand-written, as its `Deserialize` is).
impl schemars::JsonSchema for SecretRef {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "SecretRef".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "object",
            "description": "a secret reference, never the secret: `{ env: NAME }` (an environment variable) or `{ file: PATH }` (a file of one line)",
            "properties": {
                "env": { "type": "string", "description": "the environment variable holding the secret" },
                "file": { "type": "string", "description": "the file holding the secret (one line)" }
            }
        })
    }
}

/// Most bytes read from a secret file. A password or passphrase is one short line; a path to
/// `/dev/zero` or a log file must not exhaust memory (found while fuzzing the configuration).
const MAX_SECRET_FILE: u64 = 64 * 1024;

/// Shortest secret accepted (spaces around it not counted): masking a shorter value wherever
/// it appears would mangle the output around it, and leaving it would leak it.
pub const MIN_CHARS: usize = 8;

/// Every secret read by this process, for the log writer.
static READ: LazyLock<RwLock<Redactor>> = LazyLock::new(Default::default);

const INLINE: &str = "a secret is never written in a baseline: use { env: VARIABLE }, \
     { file: /path } or { command: [PROGRAM, ARG...] }";

/// Said for any other shape, without quoting what was written (it may be the secret itself).
const REFERENCE: &str = "a secret reference must be { env: NAME }, { file: PATH } or \
     { command: [PROGRAM, ARG...] } (with timeout_s: SECONDS if the program needs more than 15)";

/// A key of a secret reference: `env`, `file`, `command`, `timeout_s` or anything else (never
/// kept, never shown).
enum Key {
    Env,
    File,
    Command,
    TimeoutS,
    Other,
}

impl<'de> Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct KeyVisitor;
        impl<'de> Visitor<'de> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("env, file or command")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "env" => Key::Env,
                    "file" => Key::File,
                    "command" => Key::Command,
                    "timeout_s" => Key::TimeoutS,
                    _ => Key::Other,
                })
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Key, E> {
                Ok(Key::Other)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Key, E> {
                Ok(Key::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Key, E> {
                Ok(Key::Other)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Key, E> {
                Ok(Key::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Key, E> {
                Ok(Key::Other)
            }
        }
        deserializer.deserialize_any(KeyVisitor)
    }
}

/// Hand-written so that a value written inline by mistake is refused *without* echoing it
/// (serde's own message would quote the password).
impl<'de> Deserialize<'de> for SecretRef {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct RefVisitor;
        impl<'de> Visitor<'de> for RefVisitor {
            type Value = SecretRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("{ env: VARIABLE }, { file: /path } or { command: [PROGRAM, ARG...] }")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<SecretRef, A::Error> {
                let (mut env, mut file, mut command, mut timeout) = (None, None, None, None);
                // Nothing written here is quoted back: `{s3cret}` may be the password itself.
                let reference = |_| de::Error::custom(REFERENCE);
                while let Some(key) = map.next_key::<Key>().map_err(reference)? {
                    match key {
                        Key::Env => env = Some(map.next_value::<String>().map_err(reference)?),
                        Key::File => file = Some(map.next_value::<PathBuf>().map_err(reference)?),
                        Key::Command => {
                            command = Some(map.next_value::<Vec<String>>().map_err(reference)?)
                        }
                        Key::TimeoutS => {
                            timeout = Some(map.next_value::<u64>().map_err(|_| {
                                de::Error::custom("timeout_s: a whole number of seconds, 1 or more")
                            })?)
                        }
                        Key::Other => return Err(de::Error::custom(REFERENCE)),
                    }
                }
                match (env, file, command) {
                    (Some(env), None, None) if timeout.is_none() => Ok(SecretRef::Env(env)),
                    (None, Some(file), None) if timeout.is_none() => Ok(SecretRef::File(file)),
                    (None, None, Some(argv)) => {
                        command_ref(argv, timeout).map_err(de::Error::custom)
                    }
                    (_, _, None) if timeout.is_some() => Err(de::Error::custom(
                        "timeout_s: is for a secret command only ({ command: [PROGRAM, ARG...], timeout_s: SECONDS })",
                    )),
                    _ => Err(de::Error::custom(format!(
                        "give exactly one of env:, file: or command: ({REFERENCE})"
                    ))),
                }
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, _: A) -> Result<SecretRef, A::Error> {
                Err(de::Error::custom(REFERENCE))
            }
            fn visit_unit<E: de::Error>(self) -> Result<SecretRef, E> {
                Err(E::custom(REFERENCE))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<SecretRef, E> {
                Err(E::custom(INLINE))
            }
        }
        deserializer.deserialize_any(RefVisitor)
    }
}

/// Why a `{ command: ... }` reference is refused.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct BadCommand(String);

/// `{ command: ARGV, timeout_s: N }` checked: a program to find as the run will (a bare name on
/// `PATH`, or an absolute path; a relative path would depend on where cron starts premarket).
fn command_ref(argv: Vec<String>, timeout: Option<u64>) -> Result<SecretRef, BadCommand> {
    let Some(program) = argv.first() else {
        return Err(BadCommand(
            "command: the list is empty; it starts with the program, e.g. \
             { command: [vault, kv, get, -field=password, secret/net/fw1] }"
                .into(),
        ));
    };
    if program.is_empty() || (program.contains('/') && !program.starts_with('/')) {
        return Err(BadCommand(format!(
            "command: the program {program:?} is neither a name looked up on PATH nor an \
             absolute path (a relative path would depend on the directory cron starts in)"
        )));
    }
    let timeout = match timeout {
        None => secret_command::DEFAULT_TIMEOUT,
        Some(0) => {
            return Err(BadCommand(
                "timeout_s: a whole number of seconds, 1 or more".into(),
            ));
        }
        Some(s) => std::time::Duration::from_secs(s),
    };
    Ok(SecretRef::Command(SecretCommand { argv, timeout }))
}

#[derive(Debug, thiserror::Error)]
pub enum SecretError {
    /// `file`: the site's environment file, which does not set it either.
    #[error(
        "environment variable {name} is not set (it should hold the secret){}",
        file.as_ref().map(|f| format!(", neither here nor in the environment file {}", f.display())).unwrap_or_default()
    )]
    EnvMissing { name: String, file: Option<PathBuf> },
    /// The value is never shown, only where it is.
    #[error(
        "secret {0} holds a line break or another control character: a secret is one line (typed at a prompt, its later lines would run as commands)"
    )]
    NotOneLine(String),
    /// The value is never shown, only where it is.
    #[error(
        "secret {0} is shorter than {MIN_CHARS} characters: a value that short cannot be kept out of the output without masking ordinary text around it; use a longer one"
    )]
    TooShort(String),
    #[error("cannot read secret file {path}: {source}")]
    File {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("secret command {0}")]
    Command(#[from] CommandError),
}

impl SecretRef {
    /// Reads the secret, a variable from `env` (the process's, else the site's environment
    /// file); the value is never logged. A file's one final line ending is dropped; any other
    /// control character (CR, LF, ESC, ...) refuses the secret.
    pub fn resolve(&self, env: &Environment) -> Result<SecretString, SecretError> {
        let value = match self {
            SecretRef::Env(name) => env
                .var(name)
                .ok_or_else(|| SecretError::EnvMissing {
                    name: name.clone(),
                    file: env.file().map(Path::to_path_buf),
                })?
                .expose_secret()
                .to_string(),
            SecretRef::File(path) => {
                let text = read_secret_file(path).map_err(|source| SecretError::File {
                    path: path.clone(),
                    source,
                })?;
                without_line_ending(text)
            }
            SecretRef::Command(command) => {
                without_line_ending(command.output(env)?.expose_secret().to_string())
            }
        };
        if value.chars().any(char::is_control) {
            return Err(SecretError::NotOneLine(self.to_string()));
        }
        if value.trim_matches(' ').chars().count() < MIN_CHARS {
            return Err(SecretError::TooShort(self.to_string()));
        }
        READ.write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .add(&value);
        Ok(SecretString::from(value))
    }

    /// Whether the secret is there to read (the variable is set in `env`, the file exists,
    /// the program is found): `validate` reads only those, since offline work needs no
    /// secrets. A command's program is looked up, never run.
    pub fn is_present(&self, env: &Environment) -> bool {
        match self {
            SecretRef::Env(name) => env.is_set(name),
            SecretRef::File(path) => path.exists(),
            SecretRef::Command(command) => {
                !matches!(command.find(), secret_command::Found::Missing(_))
            }
        }
    }
}

/// `text` without one final line ending (`\n` or `\r\n`), as a file or a program ends a line.
fn without_line_ending(mut text: String) -> String {
    if text.ends_with('\n') {
        text.pop();
        if text.ends_with('\r') {
            text.pop();
        }
    }
    text
}

/// Masks `value` in every log line from now on, like a secret read: a part of one that a
/// library may log alone (a webhook URL's path, in a request line without its host). Values
/// shorter than [`MIN_CHARS`] are not taken (they would mask ordinary text).
pub(crate) fn remember(value: &str) {
    if value.trim_matches(' ').chars().count() >= MIN_CHARS {
        READ.write()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .add(value);
    }
}

/// `text` with every secret this process has read so far masked (the log writer's, for each
/// line: read in place, not cloned, since a run reads a secret or more per device).
pub fn mask_read_so_far(text: &str) -> String {
    READ.read()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .literals(text)
}

/// The text of a secret file: a regular file (a FIFO would block the run for ever, a device
/// never ends) of at most [`MAX_SECRET_FILE`] bytes.
fn read_secret_file(path: &Path) -> std::io::Result<String> {
    if !std::fs::metadata(path)?.is_file() {
        return Err(std::io::Error::other("not a regular file"));
    }
    let mut text = String::new();
    std::fs::File::open(path)?
        .take(MAX_SECRET_FILE + 1)
        .read_to_string(&mut text)?;
    if text.len() as u64 > MAX_SECRET_FILE {
        return Err(std::io::Error::other(format!(
            "longer than {} KiB: not a secret",
            MAX_SECRET_FILE / 1024
        )));
    }
    Ok(text)
}

impl fmt::Display for SecretRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SecretRef::Env(name) => write!(f, "env:{name}"),
            SecretRef::File(path) => write!(f, "file:{}", path.display()),
            SecretRef::Command(command) => write!(f, "command:{command}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_secret_is_one_line_and_the_refusal_names_only_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        let cases: &[(&str, Option<&str>)] = &[
            ("Pw-Q7zV9\n", Some("Pw-Q7zV9")),
            ("Pw-Q7zV9\r\n", Some("Pw-Q7zV9")),
            ("Pw-Q7zV9", Some("Pw-Q7zV9")),
            (
                "with space; and semicolon\n",
                Some("with space; and semicolon"),
            ),
            ("Pw-Q7zV9\nconfigure terminal\nwrite memory\n", None),
            ("Pw-Q7zV9\n\n", None),
            ("Pw-Q7\rzV9\n", None),
            ("Pw-Q7zV9\u{1b}[2J\n", None),
            ("Pw-Q7zV9\t\n", None),
        ];
        for (i, (content, want)) in cases.iter().enumerate() {
            let path = dir.path().join(format!("secret{i}"));
            std::fs::write(&path, content).unwrap();
            let reference = SecretRef::File(path.clone());
            match (reference.resolve(&Environment::process()), want) {
                (Ok(value), Some(want)) => assert_eq!(value.expose_secret(), *want),
                (Err(e), None) => {
                    let message = e.to_string();
                    assert!(message.contains(&path.display().to_string()), "{message}");
                    assert!(
                        !message.contains("Pw-Q7") && !message.contains("configure"),
                        "{message}"
                    );
                }
                (got, _) => panic!("{content:?}: {:?}", got.map(|_| "a value")),
            }
        }
    }

    #[test]
    fn a_command_reference_is_an_argv_whose_program_cron_can_find() {
        let read =
            |text: &str| serde_saphyr::from_str::<SecretRef>(text).map_err(|e| e.to_string());
        assert_eq!(
            read("{ command: [vault, kv, get, -field=password, secret/net/fw1] }"),
            Ok(SecretRef::Command(SecretCommand {
                argv: ["vault", "kv", "get", "-field=password", "secret/net/fw1"]
                    .map(String::from)
                    .to_vec(),
                timeout: secret_command::DEFAULT_TIMEOUT,
            }))
        );
        let two = read("{ command: [/usr/local/bin/getpw, fw1], timeout_s: 2 }").unwrap();
        assert_eq!(two.to_string(), "command:/usr/local/bin/getpw fw1");
        assert!(matches!(two, SecretRef::Command(c) if c.timeout.as_secs() == 2));
        for (text, said) in [
            ("{ command: [] }", "the list is empty"),
            (
                "{ command: [bin/getpw] }",
                "neither a name looked up on PATH nor an absolute path",
            ),
            ("{ command: [getpw], timeout_s: 0 }", "1 or more"),
            ("{ env: PW, timeout_s: 5 }", "for a secret command only"),
            (
                "{ env: PW, command: [getpw] }",
                "exactly one of env:, file: or command:",
            ),
            ("{ command: Hunter2-Q7zV9 }", "a secret reference must be"),
            (
                "{ command: [getpw], Hunter2-Q7zV9: 1 }",
                "a secret reference must be",
            ),
        ] {
            let e = read(text).unwrap_err();
            assert!(e.contains(said), "{text}: {e}");
            assert!(!e.contains("Hunter2"), "{text}: {e}");
        }
    }

    #[test]
    fn a_secret_file_is_a_short_regular_file() {
        let dir = tempfile::tempdir().unwrap();
        let long = dir.path().join("long");
        std::fs::write(&long, "x".repeat(64 * 1024 + 1)).unwrap();
        let longest = dir.path().join("longest");
        std::fs::write(&longest, "x".repeat(64 * 1024)).unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo").arg(&fifo).status();
        let mut cases: Vec<(PathBuf, Option<&str>)> = vec![
            (PathBuf::from("/dev/zero"), Some("not a regular file")),
            (dir.path().to_path_buf(), Some("not a regular file")),
            (long, Some("longer than 64 KiB")),
            (longest, None),
        ];
        if made.is_ok_and(|s| s.success()) {
            cases.push((fifo, Some("not a regular file")));
        }
        for (path, refused) in cases {
            let started = std::time::Instant::now();
            let got = SecretRef::File(path.clone()).resolve(&Environment::process());
            assert!(started.elapsed().as_secs() < 5, "{}", path.display());
            match (got, refused) {
                (Ok(_), None) => {}
                (Err(e), Some(why)) => assert!(e.to_string().contains(why), "{e}"),
                (got, _) => panic!("{}: {:?}", path.display(), got.map(|_| "a value")),
            }
        }
    }

    #[test]
    fn a_secret_shorter_than_8_characters_is_refused_naming_only_the_reference() {
        let dir = tempfile::tempdir().unwrap();
        for (value, ok) in [
            ("Q", false),
            ("Qz7", false),
            ("Pw-Q7zV", false),
            ("  Pw-Q7zV  ", false),
            ("Pw-Q7zV9", true),
            ("pw with space", true),
        ] {
            let path = dir.path().join("secret");
            std::fs::write(&path, format!("{value}\n")).unwrap();
            match (
                SecretRef::File(path.clone()).resolve(&Environment::process()),
                ok,
            ) {
                (Ok(secret), true) => assert_eq!(secret.expose_secret(), value),
                (Err(e), false) => {
                    let message = e.to_string();
                    assert!(
                        message.contains(&format!("file:{}", path.display()))
                            && message.contains("shorter than 8 characters"),
                        "{message}"
                    );
                    let said = message.replace(&path.display().to_string(), "");
                    assert!(!said.contains(value.trim()), "{message}");
                }
                (got, _) => panic!("{value:?}: {:?}", got.map(|_| "a value")),
            }
        }
    }
}
