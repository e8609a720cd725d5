//! Host certificates judged as `ssh` judges them, on certificates made with `ssh-keygen -s`
//! (`-h -n 10.0.0.1,sw1.example -V 20200101:forever` and variations) for the host key HOST.

use russh::keys::ssh_encoding::base64::{Base64, Encoding};
use russh::keys::{Certificate, PublicKey, PublicKeyOrCertificate};

use crate::hostkey::{Expected, KnownHosts, Role, fingerprint, verify_offered, wants_certificate};

const CA: &str = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJIJ77QJ4Yv2HPgRhmetVDvLj+N2XzZrV2yiFYqJdxjs";
const CA2: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIGtpZyL7a8FGieV6+Vf3zFTtzVQISc/i+pJYJbt59QdQ";
const HOST: &str =
    "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedI";
const VALID: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAICZIB24CHbJc7vs7UnTVBbOnRSTxKbDStPYDqX2lRq3+AAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAACAAAABXZhbGlkAAAAGwAAAAgxMC4wLjAuMQAAAAtzdzEuZXhhbXBsZQAAAABeC+EA//////////8AAAAAAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIJIJ77QJ4Yv2HPgRhmetVDvLj+N2XzZrV2yiFYqJdxjsAAAAUwAAAAtzc2gtZWQyNTUxOQAAAEDd09tEVKCcnmaMLA0DY/vXpIZ6Jjw4NcIrQ2cLNq9/+YWgIUpEyU2jZlZQ9OlFCTTIdC4QTF8LXzERZ4z2RqgL";
const EXPIRED: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIC/3kbjQdjogp4U+uPtfp7jwi0SFBbbEuQBnaiwvk4Y7AAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAACAAAAB2V4cGlyZWQAAAAMAAAACDEwLjAuMC4xAAAAAF4L4QAAAAAAXg0ygAAAAAAAAAAAAAAAAAAAADMAAAALc3NoLWVkMjU1MTkAAAAgkgnvtAnhi/Yc+BGGZ61UO8uP43ZfNmtXbKIViol3GOwAAABTAAAAC3NzaC1lZDI1NTE5AAAAQIl+OKAEg/3jrFZd/A+o1OIovicyqLQXjLyOc/u/Ufrz7Qvp81JyBHxp4AEikFEF8CKs9LhAEiyugT0e0KXAwwE=";
const FUTURE: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIEDM6AWU4i9aloAH4pRl6TFqoJ3rjrFtXUe9VRXnxDtsAAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAACAAAABmZ1dHVyZQAAAAwAAAAIMTAuMC4wLjEAAAAA8qUjgP//////////AAAAAAAAAAAAAAAAAAAAMwAAAAtzc2gtZWQyNTUxOQAAACCSCe+0CeGL9hz4EYZnrVQ7y4/jdl82a1dsohWKiXcY7AAAAFMAAAALc3NoLWVkMjU1MTkAAABAHscPGF42UhCqqn8xSPRRTASqDJyK8gojL98BDDgEXDXmZLR5j3jqoc3mCCHwHj0AtjKO1524NkOfk7qata4EDg==";
const OTHER_NAME: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAINYbaCtBOOIUMKnp9MkHkLFmv7vglGseE8097MqJS3rRAAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAACAAAABW90aGVyAAAADAAAAAgxMC4wLjAuMgAAAABeC+EA//////////8AAAAAAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIJIJ77QJ4Yv2HPgRhmetVDvLj+N2XzZrV2yiFYqJdxjsAAAAUwAAAAtzc2gtZWQyNTUxOQAAAEBAh0I4N/0yYGLutduhB1gBzA4gk5M7COWDUJK3wQ1OcvZhoXIFkr/g8JW/QKtcOTgTbo3LkJtU0LiseeLUbywI";
const NO_PRINCIPALS: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIIR7PH4ec9eleqGJHKs7TqqHolL2l20gRv9SQKtGBV/2AAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAACAAAAB25vcHJpbmMAAAAAAAAAAF4L4QD//////////wAAAAAAAAAAAAAAAAAAADMAAAALc3NoLWVkMjU1MTkAAAAgkgnvtAnhi/Yc+BGGZ61UO8uP43ZfNmtXbKIViol3GOwAAABTAAAAC3NzaC1lZDI1NTE5AAAAQJ7ZSGFgDlujQmto52v+YbM7vMBWxX1tJEJxnPgRKcbuTQGp6ARWsdr36YR9uLhriKEbm6OR5vL4bPM6iBCKcgA=";
const USER: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIIf3599WVe6xAot6aWPHgApzCElz23PnqNZzF87M/m3PAAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAABAAAABHVzZXIAAAAMAAAACDEwLjAuMC4xAAAAAF4L4QD//////////wAAAAAAAACCAAAAFXBlcm1pdC1YMTEtZm9yd2FyZGluZwAAAAAAAAAXcGVybWl0LWFnZW50LWZvcndhcmRpbmcAAAAAAAAAFnBlcm1pdC1wb3J0LWZvcndhcmRpbmcAAAAAAAAACnBlcm1pdC1wdHkAAAAAAAAADnBlcm1pdC11c2VyLXJjAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIJIJ77QJ4Yv2HPgRhmetVDvLj+N2XzZrV2yiFYqJdxjsAAAAUwAAAAtzc2gtZWQyNTUxOQAAAEBcWcBmFfXGtfZY/ikahxiCVVafEt3aCNPAiEihjjitr+Z8iWbiCqa4iiQKnQpe0pb/TpSXnlQDkqVNZ2oOWtkM";
const BY_CA2: &str = "ssh-ed25519-cert-v01@openssh.com AAAAIHNzaC1lZDI1NTE5LWNlcnQtdjAxQG9wZW5zc2guY29tAAAAIEkjm+JfYPVdghN/Mix9s1LBz3M3sqtFRscKhon39HuJAAAAIBiilldw4zU+mmBMgQTf+tHiGb4VYeLf6HOacHE+HedIAAAAAAAAAAAAAAACAAAABWJ5Y2EyAAAADAAAAAgxMC4wLjAuMQAAAABeC+EA//////////8AAAAAAAAAAAAAAAAAAAAzAAAAC3NzaC1lZDI1NTE5AAAAIGtpZyL7a8FGieV6+Vf3zFTtzVQISc/i+pJYJbt59QdQAAAAUwAAAAtzc2gtZWQyNTUxOQAAAEC+X+azVfZlqe3yc8Es/ICf6sfLbmD2SBBFwg0WVtJaaSRPhmI3qe0fXewINZdtHP0nHEYXCz5DWU9hz8Nd5uYA";

fn ca_fp(text: &str) -> String {
    fingerprint(&PublicKey::from_openssh(text).unwrap())
}

fn cert(text: &str) -> PublicKeyOrCertificate {
    PublicKeyOrCertificate::Certificate(Certificate::from_openssh(text).unwrap())
}

/// VALID with one byte of its principals changed: the CA's signature no longer covers it.
fn forged() -> PublicKeyOrCertificate {
    let blob = VALID.split(' ').nth(1).unwrap();
    let mut bytes = Base64::decode_vec(blob).unwrap();
    let at = bytes.windows(8).position(|w| w == b"10.0.0.1").unwrap();
    bytes[at + 7] = b'9';
    let text = format!(
        "ssh-ed25519-cert-v01@openssh.com {}",
        Base64::encode_string(&bytes)
    );
    cert(&text)
}

/// A fragment of the refusal a row expects.
type Fragment = String;

#[test]
fn host_certificates_are_judged_as_ssh_judges_them() {
    let host_fp = fingerprint(&PublicKey::from_openssh(HOST).unwrap());
    let n = "[10.0.0.1]:2222";
    let refused = "its host certificate was refused: ";
    type Row<'a> = (
        &'a str,
        String,
        PublicKeyOrCertificate,
        Option<&'a str>,
        Result<(), Fragment>,
    );
    let table: Vec<Row> = vec![
        (
            "a CA line alone",
            format!("@cert-authority {n} {CA}\n"),
            cert(VALID),
            None,
            Ok(()),
        ),
        (
            "a CA line under the bare host (as ssh falls back to it)",
            format!("@cert-authority 10.0.0.1 {CA}\n"),
            cert(VALID),
            None,
            Ok(()),
        ),
        (
            "a CA line for every host of a pattern",
            format!("@cert-authority [10.0.0.*]:* {CA}\n"),
            cert(VALID),
            None,
            Ok(()),
        ),
        (
            "the right CA among two",
            format!("@cert-authority {n} {CA2}\n@cert-authority {n} {CA}\n"),
            cert(VALID),
            None,
            Ok(()),
        ),
        (
            "no principal: valid for any host the line names (as in OpenSSH)",
            format!("@cert-authority {n} {CA}\n"),
            cert(NO_PRINCIPALS),
            None,
            Ok(()),
        ),
        (
            "expired",
            format!("@cert-authority {n} {CA}\n"),
            cert(EXPIRED),
            None,
            Err(format!(
                "{refused}it expired at 2020-01-02 00:00:00 UTC (known_hosts line 1 trusts its \
                 authority); and on its own: unknown host key for sw1 (10.0.0.1:2222): it offered {host_fp}"
            )),
        ),
        (
            "not valid yet",
            format!("@cert-authority {n} {CA}\n"),
            cert(FUTURE),
            None,
            Err(format!(
                "{refused}it is not valid before 2099-01-01 00:00:00 UTC"
            )),
        ),
        (
            "another principal",
            format!("@cert-authority {n} {CA}\n"),
            cert(OTHER_NAME),
            None,
            Err(format!(
                "{refused}it is for 10.0.0.2, not 10.0.0.1 (known_hosts line 1"
            )),
        ),
        (
            "a user certificate",
            format!("@cert-authority {n} {CA}\n"),
            cert(USER),
            None,
            Err(format!(
                "{refused}it is a user certificate, not a host certificate"
            )),
        ),
        (
            "signed by another CA",
            format!("# site CA\n@cert-authority {n} {CA}\n"),
            cert(BY_CA2),
            None,
            Err(format!(
                "{refused}it is signed by {}, an authority no @cert-authority line for it names \
                 (line 2 trusts {}); and on its own: unknown host key for sw1 (10.0.0.1:2222): it \
                 offered {host_fp}; KH names it only in @cert-authority lines",
                ca_fp(CA2),
                ca_fp(CA)
            )),
        ),
        (
            "a forged signature",
            format!("@cert-authority {n} {CA}\n"),
            forged(),
            None,
            Err(format!(
                "{refused}its signature does not verify against its authority's key"
            )),
        ),
        (
            "a certificate refused, its key listed: accepted as the plain key (as ssh retries)",
            format!("@cert-authority {n} {CA}\n{n} {HOST}\n"),
            cert(EXPIRED),
            None,
            Ok(()),
        ),
        (
            "no CA line: its key judged alone, the certificate unmentioned",
            format!("{n} {HOST}\n"),
            cert(EXPIRED),
            None,
            Ok(()),
        ),
        (
            "no CA line and no key",
            String::new(),
            cert(VALID),
            None,
            Err("unknown host key for sw1 (10.0.0.1:2222)".to_string()),
        ),
        (
            "the CA line excludes this host",
            format!("@cert-authority [10.0.0.*]:*,!{n} {CA}\n"),
            cert(VALID),
            None,
            Err("unknown host key for sw1".to_string()),
        ),
        (
            "the CA revoked",
            format!("@cert-authority {n} {CA}\n@revoked * {CA}\n"),
            cert(VALID),
            None,
            Err("an authority REVOKED in known_hosts KH line 2".to_string()),
        ),
        (
            "the CA revoked, and its key listed too",
            format!("@cert-authority {n} {CA}\n{n} {HOST}\n@revoked {n} {CA}\n"),
            cert(VALID),
            None,
            Err("an authority REVOKED in known_hosts KH line 3".to_string()),
        ),
        (
            "the host key revoked",
            format!("@cert-authority {n} {CA}\n@revoked {n} {HOST}\n"),
            cert(VALID),
            None,
            Err(format!(
                "host key of sw1 (10.0.0.1:2222) is REVOKED in known_hosts KH line 2: it offered {host_fp}"
            )),
        ),
        (
            "a revoked CA beats the pin",
            format!("@revoked 10.0.0.1 {CA}\n"),
            cert(VALID),
            Some(host_fp.as_str()),
            Err("an authority REVOKED in known_hosts KH line 1".to_string()),
        ),
        (
            "the pin decides on the certificate's key",
            format!("@cert-authority {n} {CA}\n"),
            cert(EXPIRED),
            Some(host_fp.as_str()),
            Ok(()),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    for (what, text, offered, pin, want) in table {
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
        let got = verify_offered(&device, &offered)
            .map_err(|e| e.to_string().replace(&kh.display().to_string(), "KH"));
        match (&want, &got) {
            (Ok(()), Ok(())) => {}
            (Err(fragment), Err(e)) if e.contains(fragment.as_str()) => {}
            _ => panic!("{what}: expected {want:?}, got {got:?}"),
        }
    }
}

#[test]
fn a_principal_is_the_host_name_lowercased_and_a_bastion_is_named_as_one() {
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    std::fs::write(&kh, format!("@cert-authority *.example {CA}\n")).unwrap();
    let file = KnownHosts::read(&kh);
    let at = |host: &'static str, role| Expected {
        device: "b1",
        role,
        host,
        port: 22,
        pin: None,
        known_hosts: Some(&file),
    };
    assert_eq!(
        verify_offered(&at("SW1.Example", Role::Bastion), &cert(VALID)),
        Ok(())
    );
    let e = verify_offered(&at("sw2.example", Role::Bastion), &cert(VALID))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("it is for 10.0.0.1, sw1.example, not sw2.example")
            && e.contains("unknown host key for bastion b1 (sw2.example:22)")
            && e.contains("site.yaml's bastions: entry for b1")
            && e.contains("premarket trust --bastion b1"),
        "{e}"
    );
}

#[test]
fn a_certificate_is_asked_for_only_where_a_ca_line_names_the_host_and_no_pin_decides() {
    let dir = tempfile::tempdir().unwrap();
    let kh = dir.path().join("known_hosts");
    std::fs::write(
        &kh,
        format!("@cert-authority *.example,10.0.0.1 {CA}\n[10.0.0.2]:2222 {HOST}\n"),
    )
    .unwrap();
    let file = KnownHosts::read(&kh);
    let wants = |host: &'static str, port, pin| {
        wants_certificate(&Expected {
            device: "sw1",
            role: Role::Device,
            host,
            port,
            pin,
            known_hosts: Some(&file),
        })
    };
    assert!(wants("sw1.example", 22, None));
    assert!(
        wants("10.0.0.1", 2222, None),
        "the bare host's CA line is read off port 22"
    );
    assert!(!wants("sw1.example", 22, Some("SHA256:x")));
    assert!(!wants("10.0.0.2", 2222, None));
    assert!(!wants("fw1.other", 22, None));
}
