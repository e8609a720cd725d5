//! `environment_file:` in site.yaml: the secrets' environment, read by premarket itself, so that
//! cron, the systemd unit and a rerun pasted into an on-call shell see the same secrets. The real
//! binary runs with a cleared environment against the lab over SSH; the file is refused as ssh
//! refuses a private key when others may read it; the process environment wins where both set a
//! name; no value is ever printed.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use assert_cmd::Command;
use premarket::lab::{Lab, topology};

use crate::email_support::{bin, text};

/// The running lab, its site's baselines pointing at environment variables (as a real site's
/// do) instead of the lab's secret files, and no deadline (the lab's 08:45 would cut a run).
struct EnvSite {
    lab: Lab,
    rt: tokio::runtime::Runtime,
}

impl EnvSite {
    fn start() -> EnvSite {
        let rt = tokio::runtime::Runtime::new().expect("runtime");
        let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
        let baselines = lab.site_dir.join("baselines");
        for (device, password, enable) in [
            ("fw1", "PREMARKET_FW1_PASSWORD", None),
            (
                "sw1",
                "PREMARKET_SW1_PASSWORD",
                Some("PREMARKET_SW1_ENABLE"),
            ),
        ] {
            let file = baselines.join(format!("{device}.yaml"));
            let before = std::fs::read_to_string(&file).expect("baseline");
            let after: String = before
                .lines()
                .map(|l| match l.trim_start() {
                    t if t.starts_with("password:") => {
                        format!("  password: {{ env: {password} }}\n")
                    }
                    t if t.starts_with("enable_secret:") => format!(
                        "  enable_secret: {{ env: {} }}\n",
                        enable.expect("only sw1 has an enable secret")
                    ),
                    _ => format!("{l}\n"),
                })
                .collect();
            assert_ne!(before, after, "{device}: the lab's secret lines");
            std::fs::write(&file, after).expect("write baseline");
        }
        std::fs::remove_dir_all(lab.site_dir.join("secrets")).expect("no secret files");
        let site = EnvSite { lab, rt };
        site.edit_site(|s| {
            s.lines()
                .filter(|l| !l.starts_with("deadline:"))
                .map(|l| format!("{l}\n"))
                .collect()
        });
        site
    }

    fn dir(&self) -> &Path {
        &self.lab.site_dir
    }

    fn edit_site(&self, edit: impl Fn(&str) -> String) {
        let file = self.dir().join("baselines/site.yaml");
        let text = std::fs::read_to_string(&file).expect("site.yaml");
        std::fs::write(&file, edit(&text)).expect("write site.yaml");
    }

    /// Writes `lines` as the site's environment file with `mode`, named in site.yaml.
    fn environment_file(&self, lines: &str, mode: u32) -> PathBuf {
        let path = self.dir().join("secrets.env");
        std::fs::write(&path, lines).expect("write secrets.env");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).expect("chmod");
        self.edit_site(|s| {
            if s.contains("environment_file:") {
                s.to_string()
            } else {
                s.replacen(
                    "timezone:",
                    "# The secrets, read by premarket itself (cron, systemd and a pasted rerun alike).\nenvironment_file: secrets.env\ntimezone:",
                    1,
                )
            }
        });
        path
    }

    /// premarket as a shell without the cron environment runs it: nothing but `vars`.
    fn premarket(&self, vars: &[(&str, &str)], args: &[&str]) -> (Option<i32>, String) {
        let mut cmd = Command::new(bin());
        cmd.env_clear().env("NO_COLOR", "1");
        for (name, value) in vars {
            cmd.env(name, value);
        }
        let out = cmd
            .arg("--dir")
            .arg(self.dir())
            .args(args)
            .timeout(Duration::from_secs(120))
            .output()
            .expect("premarket");
        (
            out.status.code(),
            format!("{}{}", text(&out.stdout), text(&out.stderr)),
        )
    }

    fn stop(self) {
        let EnvSite { lab, rt } = self;
        rt.block_on(lab.shutdown());
    }
}

/// The lab's secrets as a site's `secrets.env` holds them, quoted as systemd reads them.
fn secrets_env(sw1_password: &str) -> String {
    format!(
        "# premarket's secrets (systemd EnvironmentFile syntax: no shell expansion)\n\
         PREMARKET_FW1_PASSWORD={}\n\
         ; the switch\n\
         PREMARKET_SW1_PASSWORD='{sw1_password}'\n\
         PREMARKET_SW1_ENABLE=\"{}\"\n",
        topology::FORTIGATE_PASSWORD,
        topology::EOS_ENABLE_SECRET,
    )
}

const RERUN: &[&str] = &[
    "check",
    "eos.lanz.persisted",
    "--device",
    "sw1",
    "--no-email",
];

#[test]
fn a_rerun_pasted_into_a_shell_without_the_cron_environment_reads_the_site_s_secrets() {
    let site = EnvSite::start();
    // Without the file, the shell's missing variable is what stops it (nothing is sent).
    let (code, said) = site.premarket(&[], RERUN);
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("secret not available"), "{said}");

    site.environment_file(&secrets_env(topology::EOS_PASSWORD), 0o600);
    let (code, said) = site.premarket(&[], RERUN);
    assert_eq!(code, Some(0), "{said}");
    assert!(said.contains("OK    sw1 eos.lanz.persisted"), "{said}");
    let (code, said) = site.premarket(
        &[],
        &[
            "check",
            "fortigate.ha.state",
            "--device",
            "fw1",
            "--no-email",
        ],
    );
    assert_eq!(code, Some(0), "{said}");
    // `validate` finds every device secret in the file (the lab has no SMTP password).
    let (code, said) = site.premarket(&[], &["validate"]);
    assert_eq!(code, Some(0), "{said}");
    for name in ["FW1_PASSWORD", "SW1_PASSWORD", "SW1_ENABLE"] {
        assert!(!said.contains(&format!("{name} is not set")), "{said}");
    }
    for secret in [topology::EOS_PASSWORD, topology::EOS_ENABLE_SECRET] {
        assert!(!said.contains(secret), "{said}");
    }
    site.stop();
}

#[test]
fn the_process_environment_wins_where_both_name_a_secret() {
    let site = EnvSite::start();
    site.environment_file(&secrets_env("not-the-Passw0rd"), 0o600);
    let (code, said) = site.premarket(&[("PREMARKET_SW1_PASSWORD", topology::EOS_PASSWORD)], RERUN);
    assert_eq!(code, Some(0), "the process's value logs in: {said}");

    site.environment_file(&secrets_env(topology::EOS_PASSWORD), 0o600);
    let (code, said) = site.premarket(&[("PREMARKET_SW1_PASSWORD", "not-the-Passw0rd")], RERUN);
    assert_eq!(code, Some(2), "the process's wrong value is used: {said}");
    assert!(said.contains("login refused"), "{said}");
    assert!(!said.contains("not-the-Passw0rd"), "{said}");
    site.stop();
}

#[test]
fn an_environment_file_others_may_read_is_refused_at_the_line_naming_it() {
    let site = EnvSite::start();
    let path = site.environment_file(&secrets_env(topology::EOS_PASSWORD), 0o640);
    let site_yaml = std::fs::read_to_string(site.dir().join("baselines/site.yaml")).unwrap();
    let line = site_yaml
        .lines()
        .position(|l| l.starts_with("environment_file:"))
        .expect("named")
        + 1;
    let at = format!("site.yaml:{line}:");
    for args in [&["validate"][..], RERUN] {
        let (code, said) = site.premarket(&[], args);
        assert_eq!(code, Some(3), "{args:?}: {said}");
        assert!(said.contains(&at), "{args:?}: expected {at} in {said}");
        assert!(said.contains("chmod 600"), "{said}");
        assert!(!said.contains(topology::EOS_PASSWORD), "{said}");
    }
    // Owned by another user: refused as well, whatever its mode (when this test may chown).
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
    if std::os::unix::fs::chown(&path, Some(65534), None).is_ok() {
        let (code, said) = site.premarket(&[], &["validate"]);
        assert_eq!(code, Some(3), "{said}");
        assert!(said.contains(&at) && said.contains("uid 65534"), "{said}");
    }
    site.stop();
}

#[test]
fn a_malformed_line_is_named_by_its_number_and_never_shown() {
    let site = EnvSite::start();
    site.environment_file(
        &format!(
            "{}PREMARKET_SW1_BACKUP Tr4d3$Desk#1\n",
            secrets_env(topology::EOS_PASSWORD)
        ),
        0o600,
    );
    let (code, said) = site.premarket(&[], &["validate"]);
    assert_eq!(code, Some(3), "{said}");
    assert!(said.contains("secrets.env:6"), "{said}");
    assert!(!said.contains("Tr4d3"), "{said}");
    assert!(!said.contains("BACKUP"), "{said}");
    site.stop();
}

/// A secret file (`password: { file: ... }`) others may read is not refused (it worked before),
/// but `validate` and the run's report say so.
#[test]
fn a_secret_file_others_may_read_is_a_warning_in_validate_and_a_problem_in_the_run() {
    let site = EnvSite::start();
    site.environment_file(&secrets_env(topology::EOS_PASSWORD), 0o600);
    let secret = site.dir().join("sw1.enable");
    std::fs::write(&secret, format!("{}\n", topology::EOS_ENABLE_SECRET)).unwrap();
    std::fs::set_permissions(&secret, std::fs::Permissions::from_mode(0o644)).unwrap();
    let sw1 = site.dir().join("baselines/sw1.yaml");
    let text = std::fs::read_to_string(&sw1).unwrap().replace(
        "enable_secret: { env: PREMARKET_SW1_ENABLE }",
        &format!("enable_secret: {{ file: {} }}", secret.display()),
    );
    std::fs::write(&sw1, text).unwrap();
    let (code, said) = site.premarket(&[], &["validate"]);
    assert_eq!(code, Some(0), "{said}");
    let warning = format!("warning: the secret file {} is readable", secret.display());
    assert!(said.contains(&warning), "{said}");
    let (code, said) = site.premarket(&[], RERUN);
    assert_eq!(code, Some(0), "{said}");
    assert!(
        said.contains(&format!(
            "problem: the secret file {} is readable",
            secret.display()
        )),
        "{said}"
    );
    site.stop();
}
