//! The host key decisions, table by table ([`super::verify`]).

use super::*;
use russh::keys::{Algorithm, PrivateKey};

fn key() -> PublicKey {
    PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519)
        .map(|k| k.public_key().clone())
        .unwrap()
}

fn expected<'a>(pin: Option<&'a str>, known_hosts: Option<&'a KnownHosts>) -> Expected<'a> {
    Expected {
        device: "sw1",
        role: Role::Device,
        host: "127.0.0.1",
        port: 2201,
        pin,
        known_hosts,
    }
}

#[test]
fn pin_and_known_hosts_decide() {
    let k = key();
    let other = key();
    let fp = fingerprint(&k);
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    std::fs::write(
        &kh,
        format!("# site keys\n{}\n", known_hosts_line("127.0.0.1", 2201, &k)),
    )
    .unwrap();
    let kh = KnownHosts::read(&kh);

    assert_eq!(verify(&expected(Some(&fp), None), &k), Ok(()));
    assert_eq!(
        verify(&expected(Some(fp.trim_start_matches("SHA256:")), None), &k),
        Ok(())
    );
    assert!(matches!(
        verify(&expected(Some(&fp), None), &other),
        Err(HostKeyError::Changed { .. })
    ));
    assert_eq!(verify(&expected(None, Some(&kh)), &k), Ok(()));
    let changed = verify(&expected(None, Some(&kh)), &other).unwrap_err();
    assert!(
        changed.to_string().starts_with("HOST KEY CHANGED for sw1"),
        "{changed}"
    );
    let unknown = verify(&expected(None, None), &k).unwrap_err().to_string();
    assert!(
        unknown.contains(&fp) && unknown.contains("host_key"),
        "{unknown}"
    );
    let elsewhere = Expected {
        port: 2299,
        ..expected(None, Some(&kh))
    };
    assert!(matches!(
        verify(&elsewhere, &k),
        Err(HostKeyError::Unknown { .. })
    ));
    let missing = KnownHosts::read(&dir.path().join("nope"));
    assert!(
        verify(&expected(None, Some(&missing)), &k)
            .unwrap_err()
            .to_string()
            .contains("does not exist")
    );
}

/// One device at `[10.0.0.1]:2222` offering key A, against a known_hosts text and a pin.
/// `Ok(())` or a fragment of the refusal.
#[test]
fn known_hosts_decides_as_openssh_reads_it() {
    use crate::known_hosts::test_keys::{A, B, E, HASHED_10_0_0_1_2222};
    let a = PublicKey::from_openssh(A).unwrap();
    let pin_a = fingerprint(&a);
    let pin_b = fingerprint(&PublicKey::from_openssh(B).unwrap());
    let n = "[10.0.0.1]:2222";
    type Row<'a> = (&'a str, String, Option<&'a str>, Result<(), &'a str>);
    let table: Vec<Row> = vec![
        ("listed", format!("{n} {A}\n"), None, Ok(())),
        (
            "listed and revoked",
            format!("{n} {A}\n@revoked {n} {A}\n"),
            None,
            Err("host key of sw1 (10.0.0.1:2222) is REVOKED in known_hosts KH line 2"),
        ),
        (
            "revoked for every host",
            format!("# revoked\n@revoked * {A}\n{n} {A}\n"),
            None,
            Err("is REVOKED in known_hosts KH line 2"),
        ),
        (
            "a revocation that excludes this host",
            format!("@revoked *,!{n} {A}\n{n} {A}\n"),
            None,
            Ok(()),
        ),
        (
            "another key revoked",
            format!("@revoked * {B}\n{n} {A}\n"),
            None,
            Ok(()),
        ),
        (
            "a revocation beats the pin",
            format!("@revoked [10.0.0.?]:* {A}\n"),
            Some(&pin_a),
            Err("is REVOKED in known_hosts KH line 1"),
        ),
        (
            "the pin when known_hosts is silent",
            String::new(),
            Some(&pin_a),
            Ok(()),
        ),
        (
            "the pin is decided before known_hosts",
            format!("{n} {A}\n"),
            Some(&pin_b),
            Err("HOST KEY CHANGED for sw1 (10.0.0.1:2222)! It offered"),
        ),
        (
            "another key of the same type",
            format!("{n} {E}\n{n} {B}\n"),
            None,
            Err("but known_hosts KH line 2 says SHA256:"),
        ),
        ("several keys", format!("{n} {B}\n{n} {A}\n"), None, Ok(())),
        (
            "only another key type",
            format!("{n} {E}\n"),
            None,
            Err("KH lists it only with other key types"),
        ),
        (
            "only a CA",
            format!("@cert-authority *.example,[10.0.0.1]:* {B}\n"),
            None,
            Err(
                "known_hosts KH line 1 is a @cert-authority entry for sw1, but it offered a \
                 plain host key, not a certificate: give it a host certificate signed by that \
                 authority, or add its key (`[10.0.0.1]:2222 ssh-ed25519",
            ),
        ),
        (
            "a CA and a changed plain key",
            format!("@cert-authority * {B}\n{n} {B}\n"),
            None,
            Err("HOST KEY CHANGED"),
        ),
        ("a wildcard", format!("[10.0.0.*]:* {A}\n"), None, Ok(())),
        (
            "a wildcard with this host negated",
            format!("[10.0.0.*]:*,!{n} {A}\n"),
            None,
            Err("unknown host key for sw1 (10.0.0.1:2222): it offered SHA256:"),
        ),
        (
            "the bare host when the port has no key (as ssh falls back)",
            format!("10.0.0.1 {A}\n"),
            None,
            Ok(()),
        ),
        (
            "the bare host lists another key",
            format!("10.0.0.1 {B}\n"),
            None,
            Err("KH lists only other keys for 10.0.0.1 (port 22)"),
        ),
        (
            "the bare host is not read when the port lists a key",
            format!("{n} {E}\n10.0.0.1 {A}\n"),
            None,
            Err("KH lists it only with other key types"),
        ),
        (
            "revoked under the bare host, which is not read (as by ssh)",
            format!("{n} {A}\n@revoked 10.0.0.1 {A}\n"),
            None,
            Ok(()),
        ),
        (
            "revoked under the bare host, which is read",
            format!("@revoked 10.0.0.1 {A}\n10.0.0.1 {A}\n"),
            None,
            Err("is REVOKED in known_hosts KH line 1"),
        ),
        (
            "revoked under the bare host, which is read, and pinned",
            format!("@revoked 10.0.0.1 {A}\n"),
            Some(&pin_a),
            Err("is REVOKED in known_hosts KH line 1"),
        ),
        (
            "[host]:22 is not the bare host",
            format!("[10.0.0.1]:22 {A}\n"),
            None,
            Err("KH has no entry for it"),
        ),
        (
            "hashed",
            format!("{HASHED_10_0_0_1_2222} {A}\n"),
            None,
            Ok(()),
        ),
        (
            "a broken line for this host",
            format!("@revokd {n} {A}\n{n} {A}\n"),
            None,
            Err("cannot read known_hosts KH: line 1: unknown marker `@revokd`"),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    for (what, text, pin, want) in table {
        std::fs::write(&kh, text).unwrap();
        let file = KnownHosts::read(&kh);
        let device = Expected {
            device: "sw1",
            role: Role::Device,
            host: "10.0.0.1",
            port: 2222,
            pin,
            known_hosts: Some(&file),
        };
        let got =
            verify(&device, &a).map_err(|e| e.to_string().replace(&kh.display().to_string(), "KH"));
        match (want, &got) {
            (Ok(()), Ok(())) => {}
            (Err(fragment), Err(e)) if e.contains(fragment) => {}
            _ => panic!("{what}: expected {want:?}, got {got:?}"),
        }
    }
    // A known_hosts that cannot be read fails closed, pinned or not.
    let directory = KnownHosts::read(dir.path());
    for pin in [None, Some(pin_a.as_str())] {
        let unreadable = Expected {
            device: "sw1",
            role: Role::Device,
            host: "10.0.0.1",
            port: 2222,
            pin,
            known_hosts: Some(&directory),
        };
        assert!(matches!(
            verify(&unreadable, &a),
            Err(HostKeyError::KnownHostsFile(_))
        ));
    }
}
