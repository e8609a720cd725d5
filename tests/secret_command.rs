//! A login password printed by a command (`password: { command: [PROGRAM, ARG...] }`), through
//! the binary over real SSH: a real program (a shell script in a temp dir) gives the switch's
//! password, which the switch then prints back; the program runs once for the whole run
//! although the redactors and the login each read the reference; and a program that fails
//! with the password on its stderr, hangs or prints 10 MB makes the switch one ERROR that names
//! the program and what happened, in bounded time. In every case the password appears in no
//! output: terminal, `-vv` and trace logs, archive, outbox, the email written to a file.
//! `validate` looks each program up and never runs it: one not found is a warning, one that is
//! there but not executable is a mistake at the reference's file:line:column.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::Site;
use crate::secrets_canary::{assert_no_canary, every_file, premarket, site_with_password, switch};
use crate::ssh_common::CANARY;
use crate::ssh_common::device::Device;

/// An executable shell script `name` in `dir` with `body`.
fn script(dir: &Path, name: &str, body: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    path
}

/// Runs `premarket run` with JSON and the email to a file; returns the report, and every output
/// and file written (the inputs, which hold the canaries, left out).
fn run_and_collect(root: &Path, inputs: &[&str]) -> (serde_json::Value, Vec<(String, String)>) {
    let mail = root.join("mail.eml");
    let (stdout, stderr) = premarket(
        root,
        &[
            "run",
            "--format",
            "json",
            "--email-to-file",
            mail.to_str().unwrap(),
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&stdout)
        .unwrap_or_else(|e| panic!("a JSON report ({e}):\n{stdout}\n{stderr}"));
    let mut files = Vec::new();
    every_file(root, &mut files);
    let mut written: Vec<(String, String)> = files
        .into_iter()
        .filter(|(name, _)| !inputs.iter().any(|i| name.contains(i)))
        .collect();
    written.push(("run: stdout".into(), stdout));
    written.push(("run: -vv trace logs".into(), stderr));
    (report, written)
}

fn results(report: &serde_json::Value) -> Vec<(String, String, String)> {
    report["results"]
        .as_array()
        .expect("results")
        .iter()
        .map(|r| {
            let text = |k: &str| r[k].as_str().unwrap_or_default().to_string();
            (text("check"), text("status"), text("summary"))
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn a_password_from_a_command_logs_in_runs_once_and_reaches_no_output() {
    let dev = Device::start(switch()).await;
    let dir = tempfile::tempdir().unwrap();
    let runs = dir.path().join("runs");
    let program = script(
        dir.path(),
        "getpw",
        &format!(
            "echo \"$1\" >> {}\nprintf '%s\\n' '{CANARY}'",
            runs.display()
        ),
    );
    site_with_password(
        dir.path(),
        &dev,
        &format!("{{ command: [{}, sw1] }}", program.display()),
    );
    let root = dir.path().to_path_buf();
    let (report, written) = tokio::task::spawn_blocking(move || {
        run_and_collect(
            &root,
            &["/getpw", "/runs", "/enable", "/baselines/", "/checks/"],
        )
    })
    .await
    .unwrap();
    let results = results(&report);
    // Logged in with the command's password: the version was read and judged.
    assert!(
        results
            .iter()
            .any(|(check, status, _)| check == "eos.version.pinned" && status == "OK"),
        "{results:#?}"
    );
    // The archive's redactor, the inspection's and the login read the reference: one run.
    assert_eq!(std::fs::read_to_string(&runs).unwrap(), "sw1\n");
    assert!(
        written
            .iter()
            .any(|(_, text)| text.contains("snmp-server location")),
        "the unsaved diff that carries the password was kept"
    );
    assert_no_canary(written.iter());
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_that_fails_hangs_or_floods_is_an_error_naming_it() {
    let dev = Device::start(switch()).await;
    let cases: &[(&str, String, &str, &str)] = &[
        (
            "vault-get",
            format!(
                "echo \"Error: permission denied for token; password was {CANARY}\" >&2\nexit 1"
            ),
            "",
            "exited with status 1; its stderr (",
        ),
        (
            "stuck",
            format!("echo '{CANARY}' >&2\nsleep 300 &\nwait"),
            ", timeout_s: 1",
            "did not finish within 1 s: it was stopped (its process group killed)",
        ),
        (
            "flood",
            format!("yes '{CANARY}' | head -c 10000000"),
            "",
            "printed more than 64 KiB: that is not a secret; it was stopped",
        ),
    ];
    for (name, body, timeout, said) in cases {
        let dir = tempfile::tempdir().unwrap();
        let program = script(dir.path(), name, body);
        site_with_password(
            dir.path(),
            &dev,
            &format!(
                "{{ command: [{}, -field=password, secret/net/sw1]{timeout} }}",
                program.display()
            ),
        );
        let root = dir.path().to_path_buf();
        let started = Instant::now();
        let input = format!("/{name}");
        let (report, written) = tokio::task::spawn_blocking(move || {
            run_and_collect(&root, &[&input, "/enable", "/baselines/", "/checks/"])
        })
        .await
        .unwrap();
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "{name}: {:?}",
            started.elapsed()
        );
        assert_eq!(report["status"], "ERROR", "{name}: {report:#}");
        let results = results(&report);
        for (check, status, summary) in results.iter().filter(|(_, s, _)| s != "SKIP") {
            assert_eq!(status, "ERROR", "{name}: {check}: {summary}");
            assert!(
                summary.contains(&format!("{name} {said}"))
                    || summary.contains(&format!("/{name} {said}")),
                "{name}: {check}: {summary}"
            );
        }
        assert!(!results.is_empty(), "{name}: {report:#}");
        assert_no_canary(written.iter());
    }
}

/// `premarket validate` on the example site with its switch's password from `sw1` and its
/// firewall's from `fw1` (both `{ command: ... }` lists): exit code and stderr, with no
/// `PREMARKET_` variable of the caller's.
fn validate_with_commands(sw1: &str, fw1: &str) -> (Site, i32, String) {
    let site = Site::example();
    for (device, command) in [("sw1", sw1), ("fw1", fw1)] {
        let file = format!("baselines/{device}.yaml");
        let env = format!("{{ env: PREMARKET_{}_PASSWORD }}", device.to_uppercase());
        let text = site.read(&file);
        assert!(text.contains(&env), "{file} refers to {env}");
        site.write(
            &file,
            &text.replace(&env, &format!("{{ command: {command} }}")),
        );
    }
    let mut command = assert_cmd::Command::cargo_bin("premarket").unwrap();
    for (name, _) in std::env::vars().filter(|(n, _)| n.starts_with("PREMARKET_")) {
        command.env_remove(name);
    }
    let out = command
        .arg("--dir")
        .arg(site.path())
        .arg("validate")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (site, out.status.code().unwrap_or(-1), stderr)
}

#[test]
fn validate_looks_a_secret_command_up_without_running_it() {
    let dir = tempfile::tempdir().unwrap();
    let ran = dir.path().join("ran");
    let getpw = script(
        dir.path(),
        "getpw",
        &format!("touch {}\nprintf '%s\\n' '{CANARY}'", ran.display()),
    );
    // There and executable: nothing to say, and it is not run.
    let (_site, code, stderr) = validate_with_commands(
        &format!("[{}, sw1]", getpw.display()),
        &format!("[{}, fw1]", getpw.display()),
    );
    assert_eq!(code, 0, "{stderr}");
    assert!(!stderr.contains("getpw"), "{stderr}");
    assert!(!ran.exists(), "validate ran the secret command");
    assert!(!stderr.contains(CANARY), "{stderr}");

    // Not found, on PATH or at its absolute path: a warning each (as for a variable not set),
    // naming the program and what a run would miss; the site still validates.
    let gone = dir.path().join("gone");
    let (_site, code, stderr) = validate_with_commands(
        "[no-such-vault-cli, kv, get, -field=password, secret/net/sw1]",
        &format!("[{}, fw1]", gone.display()),
    );
    assert_eq!(code, 0, "{stderr}");
    for said in [
        "warning: the secret command's program no-such-vault-cli is not found on PATH: a live \
         run would not log in to sw1 (ssh.password)"
            .to_string(),
        format!(
            "warning: the secret command's program {} is not found: a live run would not log \
             in to fw1 (ssh.password)",
            gone.display()
        ),
    ] {
        assert!(stderr.contains(&said), "{said}\n{stderr}");
    }

    // There but not executable: a mistake at the reference's place, and nothing ran.
    let plain = dir.path().join("plain");
    std::fs::write(&plain, format!("#!/bin/sh\ntouch {}\n", ran.display())).unwrap();
    let (site, code, stderr) = validate_with_commands(
        &format!("[{}, sw1]", getpw.display()),
        &format!("[{}, fw1]", plain.display()),
    );
    assert_eq!(code, 3, "{stderr}");
    let line = site
        .read("baselines/fw1.yaml")
        .lines()
        .position(|l| l.contains("command:"))
        .unwrap()
        + 1;
    let said = format!(
        "fw1.yaml:{line}:3: device fw1: ssh.password: the secret command's program {} is not an \
         executable file",
        plain.display()
    );
    assert!(stderr.contains(&said), "{said}\n{stderr}");
    assert!(!ran.exists(), "validate ran a secret command");
}
