//! OpenSSH certificates made with `ssh-keygen -s`, on a real sshd as the bastion. Its host
//! certificate is trusted through an `@cert-authority` line alone (no key of it in
//! known_hosts) and refused when expired, for another principal, or signed by another CA, and
//! `@revoked` (the CA or the key) wins: `premarket trust --bastion` and `ssh` itself decide
//! the same on every row, and a run reaches the lab's devices through the bastion a CA vouches
//! for. A user certificate logs in where the bastion trusts only its CA (`TrustedUserCAKeys`,
//! no authorized key); without it the login is refused, naming the bastion.
//!
//! Mandatory when PREMARKET_REQUIRE_OPENSSH=1 (CI); skipped with the reason otherwise.

use std::path::Path;

use crate::bastion_support::*;
use crate::common::sshd::{self, SSHD, keygen, openssh_available, public};
use premarket::lab::Lab;

fn available() -> bool {
    openssh_available(&[SSHD, "ssh", "ssh-keygen"])
}

/// (case, how `ssh-keygen -s` signs the host key, known_hosts ({N} the bastion's name, {CA}
/// the CA, {KEY} its host key), `premarket trust`'s exit code, a fragment of what it says).
type Row = (
    &'static str,
    &'static [&'static str],
    &'static str,
    i32,
    &'static str,
);

const ROWS: &[Row] = &[
    (
        "signed by the CA, only a CA line",
        &["-s", "ca", "-h", "-n", "127.0.0.1", "-V", "-5m:+1h"],
        "@cert-authority {N} {CA}\n",
        0,
        "its host certificate is signed by a @cert-authority of known_hosts",
    ),
    (
        "expired",
        &[
            "-s",
            "ca",
            "-h",
            "-n",
            "127.0.0.1",
            "-V",
            "20200101:20200102",
        ],
        "@cert-authority {N} {CA}\n",
        3,
        "its host certificate was refused: it expired at 2020-01-02 00:00:00 UTC",
    ),
    (
        "for another principal",
        &["-s", "ca", "-h", "-n", "10.9.9.9", "-V", "-5m:+1h"],
        "@cert-authority {N} {CA}\n",
        3,
        "its host certificate was refused: it is for 10.9.9.9, not 127.0.0.1",
    ),
    (
        "signed by another CA",
        &["-s", "other_ca", "-h", "-n", "127.0.0.1", "-V", "-5m:+1h"],
        "@cert-authority {N} {CA}\n",
        3,
        "its host certificate was refused: it is signed by SHA256:",
    ),
    (
        "the CA revoked",
        &["-s", "ca", "-h", "-n", "127.0.0.1", "-V", "-5m:+1h"],
        "@cert-authority {N} {CA}\n@revoked * {CA}\n",
        3,
        "an authority REVOKED in known_hosts",
    ),
    (
        "the certified key revoked",
        &["-s", "ca", "-h", "-n", "127.0.0.1", "-V", "-5m:+1h"],
        "@cert-authority {N} {CA}\n@revoked {N} {KEY}\n",
        3,
        "is REVOKED in known_hosts",
    ),
];

/// A bastion whose host key `sign` certified (CA keys `ca` and `other_ca` in its directory).
fn certified(sign_args: &'static [&'static str]) -> Bastion {
    let prepare = move |d: &Path| {
        keygen(&d.join("ca"), "ed25519", "");
        keygen(&d.join("other_ca"), "ed25519", "");
        let (signer, rest) = (sign_args[1], &sign_args[2..]);
        sign(d, signer, rest, "host.pub");
    };
    Bastion::start(Options {
        config: "HostCertificate {dir}/host-cert.pub\n",
        prepare: Some(&prepare),
    })
}

#[test]
fn a_bastions_host_certificate_is_trusted_by_its_ca_as_ssh_trusts_it() {
    if !available() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
    let mut wrong = Vec::new();
    for (i, (case, sign_args, template, code, fragment)) in ROWS.iter().enumerate() {
        let bastion = certified(sign_args);
        let known_hosts = template
            .replace("{N}", &format!("[127.0.0.1]:{}", bastion.port()))
            .replace("{CA}", &public(&bastion.path("ca.pub")))
            .replace("{KEY}", &public(&bastion.path("host.pub")));
        let dir = tempfile::tempdir().unwrap();
        let site = dir.path().join("site");
        copy_site(&lab.site_dir, &site);
        through(&site, &[bastion.entry("b1", "")], &[], |_| {
            Some("b1".into())
        });
        let kh = site.join("baselines/known_hosts");
        let mut text = std::fs::read_to_string(&kh).unwrap();
        text.push_str(&known_hosts);
        std::fs::write(&kh, text).unwrap();

        let ssh = sshd::ssh_accepts(
            bastion.port(),
            &kh,
            &bastion.path("client"),
            "ssh-ed25519-cert-v01@openssh.com,ssh-ed25519",
        );
        let (got, said) = trust(&site, &["--bastion", "b1"]);
        if ssh != (*code == 0) {
            wrong.push(format!("{i} {case}: ssh accepts = {ssh}"));
        }
        if got != *code || !said.contains(fragment) {
            wrong.push(format!("{i} {case}: trust exited {got}: {said}"));
        }
        // Where the CA vouches, a run reaches the devices through it; elsewhere each device
        // is the bastion's ERROR.
        if i == 0 || i == 1 {
            let (report, _, _) = run_site(&site, &["--check", "eos.version.pinned"]);
            let down = report.devices_not_inspected.len();
            match (i, down) {
                (0, 0) | (1, 1) => {}
                _ => wrong.push(format!(
                    "{i} {case}: run left {down} device(s) not inspected: {:?}",
                    report.devices_not_inspected
                )),
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    rt.block_on(lab.shutdown());
}

#[test]
fn a_user_certificate_logs_in_where_the_bastion_trusts_only_its_ca() {
    if !available() {
        return;
    }
    let rt = tokio::runtime::Runtime::new().unwrap();
    let lab = rt.block_on(Lab::start(&[], 2)).expect("lab");
    let prepare = |d: &Path| {
        keygen(&d.join("user_ca"), "ed25519", "");
        let user = sshd::user();
        sign(d, "user_ca", &["-n", &user, "-V", "-5m:+1h"], "client.pub");
        // No authorized key: only the CA lets anyone in.
        std::fs::remove_file(d.join("authorized_keys")).unwrap();
    };
    let bastion = Bastion::start(Options {
        config: "TrustedUserCAKeys {dir}/user_ca.pub\n",
        prepare: Some(&prepare),
    });
    let cert = bastion.path("client-cert.pub");
    let dir = tempfile::tempdir().unwrap();
    let (with, without) = (dir.path().join("with"), dir.path().join("without"));
    for (site, extra) in [
        (
            &with,
            format!("    cert_file: {:?}\n", cert.display().to_string()),
        ),
        (&without, String::new()),
    ] {
        copy_site(&lab.site_dir, site);
        through(
            site,
            &[bastion.entry("b1", &extra)],
            &[bastion.known_host()],
            |_| Some("b1".into()),
        );
    }

    let (report, _, _) = run_site(&with, &["--check", "eos.version.pinned"]);
    assert!(
        report.devices_not_inspected.is_empty(),
        "{:?}",
        report.devices_not_inspected
    );
    assert_eq!(inspected(&report), ["sw1"]);

    let (report, _, _) = run_site(&without, &["--check", "eos.version.pinned"]);
    let down = &report.devices_not_inspected;
    assert_eq!(down.len(), 1, "{down:?}");
    assert_eq!(down[0].cause, "bastion login refused");
    assert!(
        down[0]
            .what
            .starts_with("through bastion b1: authentication failed: user "),
        "{}",
        down[0].what
    );
    assert!(!bastion.ran_something());
    rt.block_on(lab.shutdown());
}
