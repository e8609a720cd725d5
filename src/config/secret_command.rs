//! `{ command: [vault, kv, get, -field=password, secret/net/fw1] }`: a secret printed by a
//! program (Vault, a CyberArk or 1Password CLI, `pass`, a site's own script), for sites whose
//! credentials live in a vault rather than in files on the inspection host.
//!
//! The list is the program's argv: no shell reads it, so nothing in it is expanded or split.
//! The program runs with stdin closed (`/dev/null`: one that prompts cannot wait for an answer),
//! in a process group of its own, so that a timeout kills what it started as well (a wrapper
//! script's `vault` child). Its stdout, one trailing line ending removed, is the secret; at most
//! [`MAX_OUTPUT`] bytes of it are read, and more is refused. Its stderr may hold the secret (a
//! tool that echoes its input when it fails), so it is counted and never kept or shown: a
//! failure says the exit status and how long the stderr was.
//!
//! It runs with the process environment and the variables the site's `environment_file:` sets
//! (a vault CLI's `VAULT_ADDR` and `VAULT_TOKEN` kept there reach it as they reach `{ env: }`).
//!
//! Each command runs once per process: the redactor, each device's login and the email read the
//! same reference, and share the first result, failure included (a vault that refused once is
//! not asked forty times in one morning).

use std::collections::HashMap;
use std::fmt;
use std::io::Read;
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::sync::mpsc;
use std::sync::{Arc, LazyLock, Mutex, OnceLock};
use std::time::{Duration, Instant};

use secrecy::{ExposeSecret, SecretString};

use super::environment::Environment;

use premarket_files::Size;

/// A program and its arguments, and how long it may take.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct SecretCommand {
    /// The program (a name looked up on `PATH`, or an absolute path) and its arguments.
    pub argv: Vec<String>,
    pub timeout: Duration,
}

/// How long a secret command may run unless its reference says `timeout_s:`. A vault answers
/// in well under a second; a command that takes this long is stuck (a login prompt, a network
/// that drops packets) and the morning's run cannot wait for it.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(15);

/// Most bytes of stdout taken as a secret, as for a secret file: more is not a password.
pub const MAX_OUTPUT: u64 = 64 * 1024;

/// Why a secret command gave no secret. Nothing the program printed is ever part of it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CommandError {
    #[error("cannot start {program}: {why}")]
    Start { program: String, why: String },
    #[error(
        "{program} {ended}; its stderr ({}) is not shown: it may hold the secret",
        Size(*stderr)
    )]
    Failed {
        program: String,
        /// `exited with status 1`, `was ended by signal 9`.
        ended: String,
        stderr: u64,
    },
    #[error(
        "{program} did not finish within {} s: it was stopped (its process group killed)",
        timeout.as_secs_f32()
    )]
    TimedOut { program: String, timeout: Duration },
    #[error(
        "{program} printed more than {}: that is not a secret; it was stopped",
        Size(MAX_OUTPUT)
    )]
    TooLong { program: String },
    #[error("{program} printed something that is not UTF-8 text")]
    NotText { program: String },
}

/// What `validate` can say of a command without running it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Found {
    /// The program that would run.
    Executable(PathBuf),
    /// No such program (on `PATH`, or at that absolute path).
    Missing(String),
    /// There, but not a file this user may run.
    NotExecutable(PathBuf),
}

impl SecretCommand {
    /// The program as written (its name or absolute path).
    pub fn program(&self) -> &str {
        self.argv.first().map_or("", String::as_str)
    }

    /// Where the program is, looked up as the run would (`PATH` for a bare name), without
    /// running it.
    pub fn find(&self) -> Found {
        let program = self.program();
        if program.starts_with('/') {
            return check(Path::new(program)).unwrap_or_else(|| Found::Missing(program.into()));
        }
        let path = std::env::var_os("PATH").unwrap_or_default();
        std::env::split_paths(&path)
            .filter(|dir| dir.is_absolute())
            .find_map(|dir| check(&dir.join(program)))
            .unwrap_or_else(|| Found::Missing(program.into()))
    }

    /// The secret, from this process's first run of the command (run now if it is the first),
    /// with the process environment and the variables only `env`'s file sets.
    pub(crate) fn output(&self, env: &Environment) -> Result<SecretString, CommandError> {
        static RAN: LazyLock<Mutex<HashMap<SecretCommand, Arc<OnceLock<Outcome>>>>> =
            LazyLock::new(Default::default);
        let cell = RAN
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .entry(self.clone())
            .or_default()
            .clone();
        // Those who ask while it runs wait for its result (the lock above is not held).
        cell.get_or_init(|| run(self, env).map(SecretString::from))
            .clone()
    }
}

type Outcome = Result<SecretString, CommandError>;

/// `Some` when `path` exists: whether it is a file this user may run.
fn check(path: &Path) -> Option<Found> {
    let metadata = std::fs::metadata(path).ok()?;
    let runnable = metadata.is_file() && metadata.permissions().mode() & 0o111 != 0;
    Some(if runnable {
        Found::Executable(path.to_path_buf())
    } else {
        Found::NotExecutable(path.to_path_buf())
    })
}

impl fmt::Display for SecretCommand {
    /// The argv as one line, an argument with spaces or quotes quoted: it is configuration,
    /// never the secret.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, arg) in self.argv.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            if arg.is_empty() || arg.contains(|c: char| c.is_whitespace() || "'\"\\".contains(c)) {
                write!(f, "{arg:?}")?;
            } else {
                f.write_str(arg)?;
            }
        }
        Ok(())
    }
}

/// What the threads watching a running command report.
enum Event {
    /// Stdout up to its end, or cut at one byte past the cap.
    Stdout(std::io::Result<Vec<u8>>),
    /// How many bytes of stderr were read (and dropped).
    Stderr(u64),
    Exited(std::io::Result<ExitStatus>),
}

/// Runs `command` once: bounded in time and in what it may print.
fn run(command: &SecretCommand, env: &Environment) -> Result<String, CommandError> {
    let program = command.program().to_string();
    let mut child = Command::new(&program)
        .args(&command.argv[1..])
        .envs(
            env.file_only()
                .into_iter()
                .map(|(name, value)| (name, value.expose_secret())),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .spawn()
        .map_err(|e| CommandError::Start {
            program: program.clone(),
            why: e.to_string(),
        })?;
    let group = child.id();
    let (tx, rx) = mpsc::channel();
    if let Some(stdout) = child.stdout.take() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let read = stdout.take(MAX_OUTPUT + 1).read_to_end(&mut bytes);
            let _ = tx.send(Event::Stdout(read.map(|_| bytes)));
        });
    }
    if let Some(mut stderr) = child.stderr.take() {
        let tx = tx.clone();
        std::thread::spawn(move || {
            let counted = std::io::copy(&mut stderr, &mut std::io::sink()).unwrap_or(0);
            let _ = tx.send(Event::Stderr(counted));
        });
    }
    std::thread::spawn(move || {
        let _ = tx.send(Event::Exited(child.wait()));
    });

    let deadline = Instant::now() + command.timeout;
    let (mut stdout, mut stderr, mut status) = (None, None, None);
    let stop = |why: CommandError, rx: &mpsc::Receiver<Event>| {
        premarket_files::os::kill_process_group(group);
        // Reaped by its thread; waiting a moment keeps no zombie behind a killed child.
        let until = Instant::now() + Duration::from_secs(1);
        while let Ok(event) = rx.recv_timeout(until.saturating_duration_since(Instant::now())) {
            if matches!(event, Event::Exited(_)) {
                break;
            }
        }
        Err(why)
    };
    // Until the program has exited and both its outputs have ended (a child it left behind
    // may hold them open: the timeout ends that too).
    let (stdout, stderr, status) = loop {
        if let (Some(_), Some(_), Some(_)) = (&stdout, &stderr, &status) {
            break (stdout, stderr, status);
        }
        let left = deadline.saturating_duration_since(Instant::now());
        match rx.recv_timeout(left) {
            Ok(Event::Stdout(Ok(bytes))) if bytes.len() as u64 > MAX_OUTPUT => {
                return stop(CommandError::TooLong { program }, &rx);
            }
            Ok(Event::Stdout(read)) => stdout = Some(read),
            Ok(Event::Stderr(counted)) => stderr = Some(counted),
            Ok(Event::Exited(exited)) => status = Some(exited),
            Err(_) => {
                let timeout = command.timeout;
                return stop(CommandError::TimedOut { program, timeout }, &rx);
            }
        }
    };
    let (Some(stdout), Some(stderr), Some(status)) = (stdout, stderr, status) else {
        let timeout = command.timeout;
        return stop(CommandError::TimedOut { program, timeout }, &rx);
    };
    let failed = |ended: String| CommandError::Failed {
        program: program.clone(),
        ended,
        stderr,
    };
    let status = status.map_err(|e| failed(format!("could not be waited for ({e})")))?;
    if !status.success() {
        use std::os::unix::process::ExitStatusExt;
        let ended = match (status.code(), status.signal()) {
            (Some(code), _) => format!("exited with status {code}"),
            (None, Some(signal)) => format!("was ended by signal {signal}"),
            (None, None) => format!("ended with {status}"),
        };
        return Err(failed(ended));
    }
    let stdout =
        stdout.map_err(|e| failed(format!("exited, but its output could not be read ({e})")))?;
    String::from_utf8(stdout).map_err(|_| CommandError::NotText { program })
}

#[cfg(test)]
mod tests {
    use secrecy::ExposeSecret;

    use super::*;
    use crate::error::Position;

    /// An executable shell script `name` in `dir` with `body`.
    fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    fn command(program: &Path, timeout: Duration) -> SecretCommand {
        SecretCommand {
            argv: vec![program.display().to_string()],
            timeout,
        }
    }

    #[test]
    fn stdout_is_the_secret_and_the_command_runs_once_per_process() {
        let dir = tempfile::tempdir().unwrap();
        let runs = dir.path().join("runs");
        let program = script(
            dir.path(),
            "get",
            &format!(
                "echo ran >> {}\ncat\nprintf '%s\\n' \"$1-Q7zV9\"",
                runs.display()
            ),
        );
        let mut command = command(&program, Duration::from_secs(10));
        command.argv.push("Pw word".into());
        let started = Instant::now();
        // `cat` ends at once: stdin is /dev/null, not the test's terminal.
        let secret = command.output(&Environment::process()).unwrap();
        assert_eq!(secret.expose_secret(), "Pw word-Q7zV9\n");
        assert!(started.elapsed() < Duration::from_secs(5));
        assert_eq!(
            command
                .output(&Environment::process())
                .unwrap()
                .expose_secret(),
            "Pw word-Q7zV9\n"
        );
        assert_eq!(std::fs::read_to_string(&runs).unwrap(), "ran\n");
        assert_eq!(
            command.to_string(),
            format!("{} \"Pw word\"", program.display())
        );
    }

    #[test]
    fn the_site_s_environment_file_reaches_the_command() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("environment");
        std::fs::write(
            &file,
            "PREMARKET_TEST_VAULT_TOKEN=token-Q7zV9-from-the-file\n",
        )
        .unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
        let env = Environment::load(&file, &Position::file_start(&file)).unwrap();
        let program = script(
            dir.path(),
            "token",
            "printf '%s\\n' \"$PREMARKET_TEST_VAULT_TOKEN\"",
        );
        let secret = command(&program, Duration::from_secs(10))
            .output(&env)
            .unwrap();
        assert_eq!(secret.expose_secret(), "token-Q7zV9-from-the-file\n");
    }

    #[test]
    fn a_failure_says_the_status_and_the_stderr_s_length_never_its_text() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(
            dir.path(),
            "fail",
            "echo 'CANARY-stderr-Q7zV9 permission denied' >&2\necho CANARY-stdout\nexit 3",
        );
        let e = command(&program, Duration::from_secs(10))
            .output(&Environment::process())
            .unwrap_err();
        let said = e.to_string();
        assert!(said.contains("exited with status 3"), "{said}");
        assert!(said.contains("(38 bytes)"), "{said}");
        assert!(!said.contains("CANARY"), "{said}");
    }

    #[test]
    fn a_command_that_hangs_is_stopped_with_what_it_started() {
        let dir = tempfile::tempdir().unwrap();
        let pid = dir.path().join("pid");
        // The child the script starts holds stdout open: only killing the group ends it.
        let program = script(
            dir.path(),
            "hang",
            &format!("sleep 300 &\necho $! > {}\nwait", pid.display()),
        );
        let started = Instant::now();
        let e = command(&program, Duration::from_millis(500))
            .output(&Environment::process())
            .unwrap_err();
        assert!(
            started.elapsed() < Duration::from_secs(4),
            "{:?}",
            started.elapsed()
        );
        assert!(matches!(e, CommandError::TimedOut { .. }), "{e}");
        assert!(e.to_string().contains("within 0.5 s"), "{e}");
        let grandchild = std::fs::read_to_string(&pid).unwrap();
        let stat = format!("/proc/{}/stat", grandchild.trim());
        let until = Instant::now() + Duration::from_secs(3);
        // Gone, or a zombie waiting for init to reap it: not running either way.
        while std::fs::read_to_string(&stat).is_ok_and(|s| !s.contains(") Z ")) {
            assert!(Instant::now() < until, "the grandchild still runs: {stat}");
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    #[test]
    fn ten_megabytes_of_output_are_cut_at_the_cap_and_refused() {
        let dir = tempfile::tempdir().unwrap();
        for (name, body) in [
            ("ten", "head -c 10000000 /dev/zero | tr '\\0' x"),
            ("endless", "yes Pw-Q7zV9"),
        ] {
            let program = script(dir.path(), name, body);
            let started = Instant::now();
            let e = command(&program, Duration::from_secs(20))
                .output(&Environment::process())
                .unwrap_err();
            assert!(matches!(e, CommandError::TooLong { .. }), "{name}: {e}");
            assert!(e.to_string().contains("more than 64 KiB"), "{e}");
            assert!(started.elapsed() < Duration::from_secs(5), "{name}");
        }
        let longest = script(
            dir.path(),
            "longest",
            "head -c 65536 /dev/zero | tr '\\0' x",
        );
        assert_eq!(
            command(&longest, Duration::from_secs(20))
                .output(&Environment::process())
                .unwrap()
                .expose_secret()
                .len(),
            65536
        );
    }

    #[test]
    fn a_program_is_found_as_the_run_would_find_it() {
        let dir = tempfile::tempdir().unwrap();
        let program = script(dir.path(), "get", "echo x");
        let plain = dir.path().join("plain");
        std::fs::write(&plain, "echo x\n").unwrap();
        let find = |argv0: &str| {
            SecretCommand {
                argv: vec![argv0.into()],
                timeout: DEFAULT_TIMEOUT,
            }
            .find()
        };
        assert_eq!(
            find(&program.display().to_string()),
            Found::Executable(program.clone())
        );
        assert!(matches!(find("sh"), Found::Executable(p) if p.ends_with("sh")));
        assert_eq!(
            find(&plain.display().to_string()),
            Found::NotExecutable(plain.clone())
        );
        assert_eq!(
            find("/nonexistent/vault"),
            Found::Missing("/nonexistent/vault".into())
        );
        assert_eq!(
            find("premarket-no-such-program"),
            Found::Missing("premarket-no-such-program".into())
        );
        let e = SecretCommand {
            argv: vec!["/nonexistent/vault".into()],
            timeout: DEFAULT_TIMEOUT,
        }
        .output(&Environment::process())
        .unwrap_err();
        assert!(
            e.to_string().starts_with("cannot start /nonexistent/vault"),
            "{e}"
        );
    }
}
