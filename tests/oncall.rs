//! What the on-call engineer does from the phone (issue 20): paste a rerun line from another
//! directory, read the demo's history, make a typo or forget a secret, run an installed
//! binary whose source tree is gone.

use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;

use crate::common;

fn bin() -> PathBuf {
    std::env::var_os("PREMARKET_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| assert_cmd::cargo::cargo_bin("premarket"))
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

/// `cmd` (premarket, its directory and environment set) running sw1 over the saved outputs of
/// the LANZ incident: its report, which FAILs.
fn offline_lanz_incident(mut cmd: Command) -> String {
    let out = cmd
        .args(["run", "--device", "sw1", "--offline"])
        .arg(common::fixture("site/lanz-incident"))
        .output()
        .expect("run");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}{}", text(&out.stderr));
    stdout
}

/// The rerun lines of a text report.
fn reruns(stdout: &str) -> Vec<&str> {
    stdout
        .lines()
        .filter_map(|l| l.trim().strip_prefix("rerun: "))
        .collect()
}

/// `line` (a command the report printed, starting with `premarket`), run by `sh` in `cwd`
/// as a person pasting it would: the binary in place of the word `premarket`.
fn paste(line: &str, cwd: &Path) -> std::process::Output {
    let command = line.replacen(
        "premarket",
        &format!("'{}'", bin().to_string_lossy().replace('\'', r"'\''")),
        1,
    );
    std::process::Command::new("sh")
        .args(["-c", &command])
        .current_dir(cwd)
        .env_remove("PREMARKET_DIR")
        .env("NO_COLOR", "1")
        .output()
        .expect("sh")
}

/// The site's `baselines/` and `checks/` copied into `dir/name`.
fn copy_site(dir: &Path, name: &str) -> PathBuf {
    let site = dir.join(name);
    for sub in ["baselines", "checks"] {
        std::fs::create_dir_all(site.join(sub)).expect("mkdir");
        for entry in std::fs::read_dir(common::repo().join(sub)).expect("read site") {
            let entry = entry.expect("entry");
            std::fs::copy(entry.path(), site.join(sub).join(entry.file_name())).expect("copy");
        }
    }
    site
}

#[test]
fn reruns_of_a_run_with_dir_and_offline_work_when_pasted_elsewhere() {
    let root = tempfile::tempdir().expect("tempdir");
    copy_site(root.path(), "my site");
    let saved = common::fixture("site/lanz-incident");
    // --dir given relative, and PREMARKET_DIR: both must come out absolute in the rerun.
    for via_env in [false, true] {
        let mut cmd = Command::new(bin());
        cmd.current_dir(root.path())
            .env("NO_COLOR", "1")
            .env_remove("PREMARKET_DIR");
        if via_env {
            cmd.env("PREMARKET_DIR", "my site");
        } else {
            cmd.args(["--dir", "my site"]);
        }
        let stdout = offline_lanz_incident(cmd);
        let lanz = reruns(&stdout)
            .into_iter()
            .find(|l| l.contains("eos.lanz.persisted"))
            .unwrap_or_else(|| panic!("no rerun line for the cause:\n{stdout}"));
        let site = root.path().join("my site");
        assert_eq!(
            lanz,
            format!(
                "premarket check eos.lanz.persisted --device sw1 --offline {} --dir '{}'",
                saved.display(),
                site.display()
            ),
            "{stdout}"
        );
        // Remedies point at the rerun line instead of repeating an incomplete command.
        assert!(
            !stdout.contains("`premarket check eos.lanz.persisted`"),
            "{stdout}"
        );
        let elsewhere = tempfile::tempdir().expect("tempdir");
        let again = paste(lanz, elsewhere.path());
        let said = text(&again.stdout);
        assert_eq!(
            again.status.code(),
            Some(1),
            "{lanz}\n{said}{}",
            text(&again.stderr)
        );
        assert!(said.contains("FAIL sw1 eos.lanz.persisted"), "{said}");
    }
}

#[test]
fn the_host_key_remedy_is_a_command_that_parses() {
    // `premarket trust sw1` (the old remedy) is a usage error; the remedy's form is accepted.
    let site = tempfile::tempdir().expect("tempdir");
    let dir = copy_site(site.path(), "s");
    let out = Command::new(bin())
        .args(["trust", "sw1", "--dir"])
        .arg(&dir)
        .output()
        .expect("trust");
    assert_eq!(out.status.code(), Some(3));
    let remedy =
        std::fs::read_to_string(common::repo().join("src/inspect/down.rs")).expect("down.rs");
    assert!(remedy.contains("`premarket trust --device {device}`"));
}

#[test]
fn validate_names_each_secret_a_live_run_would_miss_without_reading_it() {
    let root = tempfile::tempdir().expect("tempdir");
    let site = copy_site(root.path(), "site");
    let mut cmd = without_secrets();
    let out = cmd
        .arg("--dir")
        .arg(&site)
        .arg("validate")
        .output()
        .expect("validate");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(
            "warning: PREMARKET_SW1_PASSWORD is not set: a live run would not log in to sw1 (ssh.password)"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("PREMARKET_FW1_PASSWORD is not set"),
        "{stderr}"
    );
}

#[test]
fn an_unset_secret_is_its_own_headline_and_nothing_is_sent() {
    let root = tempfile::tempdir().expect("tempdir");
    let site = copy_site(root.path(), "site");
    let mut cmd = without_secrets();
    let out = cmd
        .arg("--dir")
        .arg(&site)
        .args(["run", "--device", "sw1", "--no-email", "--format", "text"])
        .env("NO_COLOR", "1")
        .timeout(Duration::from_secs(60))
        .output()
        .expect("run");
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{stdout}{}", text(&out.stderr));
    assert!(stdout.contains("secret not available"), "{stdout}");
    assert!(stdout.contains("PREMARKET_SW1_"), "{stdout}");
    assert!(!stdout.contains("login refused"), "{stdout}");
    assert!(!stdout.contains("account"), "{stdout}");
}

#[test]
fn an_installed_binary_runs_the_demo_and_reads_its_history_without_the_source_tree() {
    // The binary copied away from the build, run with the build path pointing nowhere: the
    // example site is the copy compiled into it.
    let install = tempfile::tempdir().expect("tempdir");
    let copy = install.path().join("premarket");
    // Copied by `cp`, not here: a file this process held open for writing could be inherited
    // by another test thread's fork, and exec of it then fails with "Text file busy".
    let copied = std::process::Command::new("cp")
        .arg(bin())
        .arg(&copy)
        .status()
        .expect("cp");
    assert!(copied.success(), "copy the binary");
    let home = install.path().join("demo home");
    let run = |args: &[&str]| {
        let out = Command::new(&copy)
            .args(args)
            .current_dir(install.path())
            .env("CARGO_MANIFEST_DIR", "/nonexistent/premarket-source")
            .env("NO_COLOR", "1")
            .env_remove("PREMARKET_DIR")
            .timeout(Duration::from_secs(180))
            .output()
            .expect("run the copy");
        (out.status.code(), text(&out.stdout), text(&out.stderr))
    };
    let home_arg = home.to_str().expect("utf-8");
    let (code, stdout, stderr) = run(&["demo", "--scenario", "microburst", "--home", home_arg]);
    assert_eq!(code, Some(1), "{stdout}{stderr}");
    assert!(stdout.contains("FAIL sw1 eos.lanz.congestion"), "{stdout}");
    // No colour codes when stderr is not a terminal.
    assert!(!stderr.contains('\u{1b}'), "{stderr:?}");
    // The microburst says when (site time) and where (port, queue).
    assert!(
        stdout.contains("microburst on Ethernet") && stdout.contains("(queue TC"),
        "{stdout}"
    );
    // The demo's history: its runs and its trend, from the same home.
    let (code, listing, stderr) = run(&["history", "--demo", "--home", home_arg]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(listing.contains("FAIL"), "{listing}");
    let chart = install.path().join("trend.png");
    let (code, said, stderr) = run(&[
        "history",
        "--demo",
        "--home",
        home_arg,
        "--chart",
        chart.to_str().expect("utf-8"),
    ]);
    assert_eq!(code, Some(0), "{said}{stderr}");
    let png = std::fs::read(&chart).expect("trend written");
    assert!(png.starts_with(b"\x89PNG"), "a PNG");
}

#[test]
fn restarts_together_are_said_once_in_the_site_s_time() {
    let home = tempfile::tempdir().expect("tempdir");
    let demo = |scenario: Option<&str>| {
        let mut cmd = Command::new(bin());
        cmd.arg("demo");
        if let Some(s) = scenario {
            cmd.args(["--scenario", s]);
        }
        cmd.arg("--home")
            .arg(home.path())
            .env("NO_COLOR", "1")
            .timeout(Duration::from_secs(180))
            .output()
            .expect("demo")
    };
    // A reboot is judged against the previous run's boot: a healthy run first.
    assert_eq!(demo(None).status.code(), Some(0));
    let out = demo(Some("rebooted"));
    let stdout = text(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{stdout}");
    assert_eq!(
        stdout.matches("both restarted around").count(),
        1,
        "{stdout}"
    );
    // Boot times in the site's zone (+08), not UTC, in what people read.
    let reboot = stdout
        .lines()
        .find(|l| l.starts_with("FAIL fw1 fortigate.uptime.stable"))
        .unwrap_or_else(|| panic!("{stdout}"));
    assert!(
        reboot.contains("+08") && !reboot.contains("UTC"),
        "{reboot}"
    );
    assert!(!stdout.contains(" UTC"), "{stdout}");
    // Run ids are not times: the previous run is named by its time.
    assert!(stdout.contains("since the previous run ("), "{stdout}");
    assert!(
        !stdout
            .lines()
            .filter(|l| !l.starts_with("run "))
            .any(|l| l.contains("previous run (2026")),
        "{stdout}"
    );
}

/// premarket with none of the caller's `PREMARKET_*` variables: every secret unset.
fn without_secrets() -> Command {
    let mut cmd = Command::new(bin());
    for (name, _) in std::env::vars() {
        if name.starts_with("PREMARKET_") {
            cmd.env_remove(name);
        }
    }
    cmd
}

/// A run started inside the site directory, as cron's `cd /etc/premarket/site && premarket run`
/// does: every command it prints names the site (absolute), so on-call can paste it from `~`.
/// With an absolute `PREMARKET_DIR` naming the site, the shell that has the variable needs no
/// `--dir`, and none is printed.
#[test]
fn printed_commands_name_the_site_when_the_run_was_started_inside_it() {
    let root = tempfile::tempdir().expect("tempdir");
    let site = copy_site(root.path(), "site");
    let run = |premarket_dir: Option<&Path>| {
        let mut cmd = Command::new(bin());
        cmd.current_dir(&site)
            .env("NO_COLOR", "1")
            .env_remove("PREMARKET_DIR");
        if let Some(dir) = premarket_dir {
            cmd.env("PREMARKET_DIR", dir);
        }
        offline_lanz_incident(cmd)
    };
    let stdout = run(None);
    let reruns = reruns(&stdout);
    assert!(!reruns.is_empty(), "{stdout}");
    let named = format!("--dir {}", site.display());
    for rerun in &reruns {
        assert!(rerun.ends_with(&named), "{rerun}\n{stdout}");
    }
    // Every `premarket ...` a remedy names is complete too.
    for command in stdout.split('`').skip(1).step_by(2) {
        if command.starts_with("premarket ") {
            assert!(command.contains(&named), "{command}\n{stdout}");
        }
    }
    let elsewhere = tempfile::tempdir().expect("tempdir");
    let again = paste(reruns[0], elsewhere.path());
    assert_eq!(
        again.status.code(),
        Some(1),
        "{}\n{}{}",
        reruns[0],
        text(&again.stdout),
        text(&again.stderr)
    );

    let stdout = run(Some(&site));
    assert!(stdout.contains("rerun: premarket check"), "{stdout}");
    assert!(!stdout.contains("--dir"), "{stdout}");

    // The hint of `--last-failed` with nothing archived yet is complete as well.
    let out = Command::new(bin())
        .current_dir(&site)
        .env_remove("PREMARKET_DIR")
        .args(["run", "--last-failed", "--no-email"])
        .output()
        .expect("run --last-failed");
    let stderr = text(&out.stderr);
    assert_eq!(out.status.code(), Some(3), "{stderr}");
    assert!(
        stderr.contains(&format!("`premarket run {named}`")),
        "{stderr}"
    );
}
