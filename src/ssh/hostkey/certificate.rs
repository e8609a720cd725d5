//! Host certificates (OpenSSH's `*-cert-v01@openssh.com` host keys), trusted through the
//! `@cert-authority` lines of the site's known_hosts as `ssh` trusts them (OpenSSH 9.2's
//! sshconnect.c `check_host_key` and `check_host_cert`, hostfile.c `check_key_not_revoked`):
//!
//! - The lines consulted are those under the host's own name (`[host]:port` off port 22) and,
//!   when none of their authorities signed the certificate, those under the bare host name.
//! - A `@revoked` line among them for the certificate's key, or for the authority that signed
//!   it, refuses it outright: nothing else is tried.
//! - An authority line vouches only for a certificate signed by that authority (the signature
//!   verified), of the host type (a user certificate is not a host's), valid now (valid after
//!   <= now < valid before), listing among its principals the host as premarket dials it
//!   (compared whole, the name lowercased as `ssh` lowercases it, the port not part of it; a
//!   certificate listing no principal is valid for any host the line's patterns name, as in
//!   OpenSSH), with no critical option, and not signed with SHA-1 RSA (`ssh-rsa`, outside
//!   OpenSSH's default `CASignatureAlgorithms`).
//! - A certificate that is not accepted is judged as its plain key, as `ssh` retries with it;
//!   when that fails too, the refusal says why the certificate was not enough.
//!
//! The certificate is only asked for when an authority line names the host
//! ([`super::wants_certificate`]).

use russh::keys::ssh_key::certificate::CertType;
use russh::keys::ssh_key::public::KeyData;
use russh::keys::{Algorithm, Certificate, HashAlg};

use crate::known_hosts::{Entry, Listed, Marker};

/// What the consulted lines make of a host certificate.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// An authority line consulted for the host signed it, and it is valid for the host now.
    Trusted { line: usize },
    /// A `@revoked` line names its key or its authority (`authority` then).
    Revoked { line: usize, authority: bool },
    /// Not trusted as a certificate: judge its plain key. Why, when an authority line names
    /// the host; `None` when none does (the certificate then adds nothing, and says nothing).
    Plain(Option<String>),
}

/// Judges `certificate`, offered by `host`, by the lines `listed` for it, at `now` (Unix
/// seconds).
pub fn judge(certificate: &Certificate, listed: &Listed, host: &str, now: u64) -> Verdict {
    let signer = certificate.signature_key();
    let is_authority = |e: &&Entry| e.marker == Marker::CertAuthority;
    let signed_it = |e: &&Entry| e.key.key_data() == signer;
    let own_signer = listed
        .own
        .iter()
        .filter(is_authority)
        .any(|e| signed_it(&e));
    let consulted: Vec<&Entry> = if own_signer {
        listed.own.iter().collect()
    } else {
        listed.own.iter().chain(&listed.bare).collect()
    };
    let key = certificate.public_key();
    let revocation = consulted
        .iter()
        .filter(|e| e.marker == Marker::Revoked)
        .find(|e| e.key.key_data() == key || e.key.key_data() == signer);
    if let Some(e) = revocation {
        return Verdict::Revoked {
            line: e.line,
            authority: e.key.key_data() != key,
        };
    }
    let authorities: Vec<&Entry> = consulted.iter().copied().filter(is_authority).collect();
    if authorities.is_empty() {
        return Verdict::Plain(None);
    }
    let Some(line) = authorities.iter().find(|e| signed_it(e)).map(|e| e.line) else {
        let lines: Vec<String> = authorities
            .iter()
            .map(|e| format!("line {} trusts {}", e.line, fingerprint(e.key.key_data())))
            .collect();
        return Verdict::Plain(Some(format!(
            "it is signed by {}, an authority no @cert-authority line for it names ({})",
            fingerprint(signer),
            lines.join(", ")
        )));
    };
    match valid_for(certificate, host, now) {
        Ok(()) => Verdict::Trusted { line },
        Err(why) => Verdict::Plain(Some(format!(
            "{why} (known_hosts line {line} trusts its authority)"
        ))),
    }
}

/// Why a certificate an authority line names is not valid for the host, in the words the
/// refusal says (after "its host certificate was refused: ").
#[derive(Debug, thiserror::Error)]
enum Unfit {
    #[error("its signature does not verify against its authority's key")]
    Signature,
    #[error("it is a user certificate, not a host certificate")]
    UserCertificate,
    #[error("it is not valid before {0}")]
    NotYet(String),
    #[error("it expired at {0}")]
    Expired(String),
    #[error("it is for {principals}, not {host}")]
    OtherHost { principals: String, host: String },
    #[error("it carries critical options ({0}), which premarket does not know")]
    CriticalOptions(String),
    #[error("its authority signed it with ssh-rsa (SHA-1), which OpenSSH refuses by default")]
    Sha1,
}

/// The checks of OpenSSH's `check_host_cert` once the authority is trusted.
fn valid_for(certificate: &Certificate, host: &str, now: u64) -> Result<(), Unfit> {
    if certificate.verify_signature().is_err() {
        return Err(Unfit::Signature);
    }
    if certificate.cert_type() != CertType::Host {
        return Err(Unfit::UserCertificate);
    }
    if now < certificate.valid_after() {
        return Err(Unfit::NotYet(time(certificate.valid_after())));
    }
    if now >= certificate.valid_before() {
        return Err(Unfit::Expired(time(certificate.valid_before())));
    }
    let name = host.to_ascii_lowercase();
    let principals = certificate.valid_principals();
    if !principals.is_empty() && !principals.contains(&name) {
        return Err(Unfit::OtherHost {
            principals: principals
                .iter()
                .map(|p| p.escape_debug().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            host: name,
        });
    }
    if !certificate.critical_options().is_empty() {
        let names: Vec<String> = certificate
            .critical_options()
            .keys()
            .map(|k| k.escape_debug().to_string())
            .collect();
        return Err(Unfit::CriticalOptions(names.join(", ")));
    }
    if certificate.signature().algorithm() == (Algorithm::Rsa { hash: None }) {
        return Err(Unfit::Sha1);
    }
    Ok(())
}

fn fingerprint(key: &KeyData) -> String {
    key.fingerprint(HashAlg::Sha256).to_string()
}

/// A certificate's time (Unix seconds) as UTC.
fn time(seconds: u64) -> String {
    i64::try_from(seconds)
        .ok()
        .and_then(|s| chrono::DateTime::from_timestamp(s, 0))
        .map_or_else(
            || format!("{seconds} (Unix time)"),
            |t| t.format("%Y-%m-%d %H:%M:%S UTC").to_string(),
        )
}

#[cfg(test)]
mod tests;
