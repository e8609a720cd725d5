//! The emulated FortiGate's whole configuration, as `show` at the top prints it: the backup
//! header (`#config-version=...`, `#conf_file_ver=...`: the second counts every read here, as
//! it moves on a real box with every save) and every section, secrets included. FortiOS
//! prints each secret as an `ENC` blob re-encrypted with a fresh salt; the lab's blobs are
//! fixed for a healthy box and all different (same lengths) under `enc-rotated`, so a test can
//! tell "re-encrypted" from "changed".

use std::sync::atomic::{AtomicU64, Ordering};

use super::super::scenario::Fault;
use super::config::{Body, Section, Settings};
use super::state::FgState;

/// Reads so far, for `#conf_file_ver=` (a real box's counter only ever moves forward).
static READS: AtomicU64 = AtomicU64::new(0);

/// The secrets of the lab's configuration: (section, entry, key, plain length).
const SECRETS: &[(&str, &str, &str, usize)] = &[
    ("system admin", "admin", "password", 12),
    ("system admin", "premarket", "password", 16),
    ("user local", "ops-break-glass", "passwd", 20),
];

/// A self-signed certificate body (not a real key: text of the right shape and length).
const CERTIFICATE: &[&str] = &[
    "MIIDdzCCAl+gAwIBAgIEAgAAuTANBgkqhkiG9w0BAQsFADBbMQswCQYDVQQGEwJU",
    "VzEPMA0GA1UEBxMGVGFpcGVpMRMwEQYDVQQKEwpwcmVtYXJrZXQxJjAkBgNVBAMT",
    "HWxhYi1mdzEucHJlbWFya2V0LmludmFsaWQwHhcNMjYxMjAxMDAwMDAwWhcNMjcx",
];

/// `show`: the header, then every section.
pub fn show_all(s: &FgState) -> String {
    let reads = READS.fetch_add(1, Ordering::Relaxed);
    let code = s.model.trim_start_matches("FortiGate-");
    let mut out = format!(
        "#config-version=FG{code}-{}-FW-build{}-{}:opmode=0:vdom=0:user=premarket\n\
         #conf_file_ver={}\n#buildno={}\n#global_vdom=1\n",
        s.version,
        s.build,
        s.build_date,
        2_873_625_514_781_726u64 + reads,
        s.build
    );
    let rotated = s.faults.has(Fault::EncRotated);
    for section in s.config.sections.iter().chain(&secret_sections(rotated)) {
        if let Some(text) = s
            .config
            .show(&section.path, None)
            .or_else(|| shown(section))
        {
            out.push_str(&text);
        }
    }
    out
}

/// A section that is not part of the box's working configuration (the secrets' sections),
/// rendered as `Config::show` renders the others.
fn shown(section: &Section) -> Option<String> {
    let config = super::config::Config {
        sections: vec![section.clone()],
    };
    config.show(&section.path, None)
}

/// `system admin`, `user local` and `vpn certificate local`, with their secrets.
fn secret_sections(rotated: bool) -> Vec<Section> {
    let mut sections: Vec<Section> = Vec::new();
    for (path, entry, key, len) in SECRETS {
        let blob = enc(&format!("{path}/{entry}"), *len, rotated);
        let settings: Settings = vec![
            (key.to_string(), format!("ENC {blob}")),
            ("accprofile".into(), "\"super_admin_readonly\"".into()),
        ];
        match sections.iter_mut().find(|s| s.path == *path) {
            Some(Section {
                body: Body::Table(rows),
                ..
            }) => rows.push((format!("\"{entry}\""), settings)),
            _ => sections.push(Section {
                path: path.to_string(),
                body: Body::Table(vec![(format!("\"{entry}\""), settings)]),
            }),
        }
    }
    let pem = format!(
        "\"-----BEGIN CERTIFICATE-----\n{}\n-----END CERTIFICATE-----\"",
        CERTIFICATE.join("\n")
    );
    sections.push(Section {
        path: "vpn certificate local".into(),
        body: Body::Table(vec![(
            "\"lab-fw1\"".into(),
            vec![
                (
                    "password".into(),
                    format!("ENC {}", enc("certificate", 16, rotated)),
                ),
                ("certificate".into(), pem),
            ],
        )]),
    });
    sections
}

/// An `ENC` blob for a secret of `plain_len` characters: the length FortiOS gives it (a
/// 4-byte salt and the AES-CBC blocks, in base64) and text that depends on `seed` and, under
/// `enc-rotated`, on a second salt.
fn enc(seed: &str, plain_len: usize, rotated: bool) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let bytes = 4 + plain_len.div_ceil(16).max(1) * 16 + 32;
    let chars = bytes.div_ceil(3) * 4;
    let mut x: u64 = seed.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    if rotated {
        x ^= 0x9e37_79b9_7f4a_7c15;
    }
    (0..chars)
        .map(|_| {
            x = x
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            char::from(B64[(x >> 58) as usize])
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::super::scenario::Faults;
    use super::*;

    #[test]
    fn rotation_changes_every_blob_and_nothing_else() {
        let healthy = FgState::new("fw1", 1, &Faults::default());
        let rotated = FgState::new("fw1", 1, &Faults::only(Fault::EncRotated));
        let (a, b) = (show_all(&healthy), show_all(&rotated));
        let (a, b): (Vec<&str>, Vec<&str>) = (a.lines().collect(), b.lines().collect());
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            if x.contains("ENC ") {
                assert_ne!(x, y);
                assert_eq!(x.len(), y.len());
            } else if !x.starts_with("#conf_file_ver=") {
                assert_eq!(x, y);
            }
        }
        assert!(a.iter().any(|l| l.contains("-----BEGIN CERTIFICATE-----")));
        assert_eq!(show_all(&healthy).lines().count(), a.len());
    }
}
