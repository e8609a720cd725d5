//! Logging in: password, then keyboard-interactive when the server asks for it (some AAA setups
//! accept only that), then a private key file, then the keys of ssh-agent. The secrets arrive
//! already read (the collector reads them at connect time) and are never put into a message.
//!
//! With `cert_file`, the OpenSSH user certificate is offered first for the key it certifies
//! (the key file's, or one ssh-agent holds), then that key alone, as `ssh` does. A certificate
//! that cannot be used (not a user certificate, outside its validity window, for a key neither
//! source holds) is refused here with the reason, before anything is sent.

use std::path::Path;
use std::sync::Arc;

use russh::MethodKind;
use russh::client::{AuthResult, Handle, KeyboardInteractiveAuthResponse};
use russh::keys::agent::client::AgentClient;
use russh::keys::ssh_key::certificate::CertType;
use russh::keys::{Certificate, HashAlg, PrivateKeyWithHashAlg, decode_secret_key};

use premarket_files::{self as file, Kind};
use secrecy::{ExposeSecret, SecretString};

use super::target::Target;
use super::transport::Client;
use premarket_core::CollectError;

/// Rounds of keyboard-interactive questions answered before giving up.
const MAX_KI_ROUNDS: usize = 4;

/// Tries every method the baseline configures, in order, until one succeeds.
pub async fn login(handle: &mut Handle<Client>, conn: &Target) -> Result<(), CollectError> {
    let user = conn.user.as_str();
    let mut tried: Vec<String> = Vec::new();
    let mut server_accepts: Vec<&'static str> = Vec::new();
    let note = |r: &AuthResult, server_accepts: &mut Vec<&'static str>| {
        if let AuthResult::Failure {
            remaining_methods, ..
        } = r
        {
            *server_accepts = remaining_methods.iter().map(<&'static str>::from).collect();
        }
    };

    if let Some(password) = &conn.password {
        let result = handle
            .authenticate_password(user, password.expose_secret())
            .await
            .map_err(ssh)?;
        tried.push("password".into());
        if result.success() {
            return Ok(());
        }
        note(&result, &mut server_accepts);
        let offers_ki = match &result {
            AuthResult::Failure {
                remaining_methods, ..
            } => remaining_methods.contains(&MethodKind::KeyboardInteractive),
            AuthResult::Success => false,
        };
        if offers_ki {
            tried.push("keyboard-interactive".into());
            if keyboard_interactive(handle, user, password).await? {
                return Ok(());
            }
        }
    }

    let certificate = match &conn.cert_file {
        Some(path) => Some((path, read_certificate(path).await?)),
        None => None,
    };
    // Whether the certificate's key was found with the key file or the agent.
    let mut certified = false;

    if let Some(path) = &conn.key_file {
        let passphrase = conn.key_passphrase.as_ref();
        let text = read(path, Kind::KEY).await?;
        let key = decode_secret_key(&text, passphrase.map(|p| p.expose_secret())).map_err(|e| {
            CollectError::Auth(format!("cannot load key file {}: {e}", path.display()))
        })?;
        let key = Arc::new(key);
        if let Some((cert_path, cert)) = &certificate
            && cert.public_key() == key.public_key().key_data()
        {
            certified = true;
            let result = handle
                .authenticate_openssh_cert(user, Arc::clone(&key), cert.clone())
                .await
                .map_err(ssh)?;
            tried.push(format!("certificate {}", cert_path.display()));
            if result.success() {
                return Ok(());
            }
            note(&result, &mut server_accepts);
        }
        let hash = rsa_hash(handle).await?;
        let result = handle
            .authenticate_publickey(user, PrivateKeyWithHashAlg::new(key, hash))
            .await
            .map_err(ssh)?;
        tried.push(format!("key file {}", path.display()));
        if result.success() {
            return Ok(());
        }
        note(&result, &mut server_accepts);
    }

    if conn.agent {
        let mut agent = AgentClient::connect_env().await.map_err(|e| {
            CollectError::Auth(format!("ssh-agent is not reachable (SSH_AUTH_SOCK): {e}"))
        })?;
        let identities = agent
            .request_identities()
            .await
            .map_err(|e| CollectError::Auth(format!("ssh-agent: {e}")))?;
        let hash = rsa_hash(handle).await?;
        tried.push(format!("ssh-agent ({} keys)", identities.len()));
        for identity in identities {
            let key = identity.public_key().into_owned();
            if let Some((cert_path, cert)) = &certificate
                && !certified
                && cert.public_key() == key.key_data()
            {
                certified = true;
                tried.push(format!(
                    "certificate {} with ssh-agent",
                    cert_path.display()
                ));
                match handle
                    .authenticate_certificate_with(user, cert.clone(), hash, &mut agent)
                    .await
                {
                    Ok(result) if result.success() => return Ok(()),
                    Ok(result) => note(&result, &mut server_accepts),
                    Err(e) => {
                        return Err(CollectError::Auth(format!("ssh-agent could not sign: {e}")));
                    }
                }
            }
            match handle
                .authenticate_publickey_with(user, key, hash, &mut agent)
                .await
            {
                Ok(result) if result.success() => return Ok(()),
                Ok(result) => note(&result, &mut server_accepts),
                Err(e) => return Err(CollectError::Auth(format!("ssh-agent could not sign: {e}"))),
            }
        }
    }

    if let Some((path, cert)) = &certificate
        && !certified
    {
        return Err(CollectError::Auth(format!(
            "certificate {} is for key {}, which neither ssh.key_file nor ssh-agent holds",
            path.display(),
            cert.public_key().fingerprint(HashAlg::Sha256)
        )));
    }
    if tried.is_empty() {
        return Err(CollectError::Auth(format!(
            "no login method configured for user {user}: set ssh.password, ssh.key_file or ssh.agent in the baseline"
        )));
    }
    Err(CollectError::Auth(format!(
        "user {user} was refused (tried {}; the server accepts {})",
        tried.join(", "),
        if server_accepts.is_empty() {
            "nothing more".to_string()
        } else {
            server_accepts.join(", ")
        }
    )))
}

/// Answers the server's questions: hidden prompts get the password, visible ones the user.
async fn keyboard_interactive(
    handle: &mut Handle<Client>,
    user: &str,
    password: &SecretString,
) -> Result<bool, CollectError> {
    let mut reply = handle
        .authenticate_keyboard_interactive_start(user, None)
        .await
        .map_err(ssh)?;
    for _ in 0..MAX_KI_ROUNDS {
        match reply {
            KeyboardInteractiveAuthResponse::Success => return Ok(true),
            KeyboardInteractiveAuthResponse::Failure { .. } => return Ok(false),
            KeyboardInteractiveAuthResponse::InfoRequest { prompts, .. } => {
                let answers = prompts
                    .iter()
                    .map(|p| {
                        if p.echo {
                            user.to_string()
                        } else {
                            password.expose_secret().to_string()
                        }
                    })
                    .collect();
                reply = handle
                    .authenticate_keyboard_interactive_respond(answers)
                    .await
                    .map_err(ssh)?;
            }
        }
    }
    Ok(false)
}

/// A regular file of `kind`'s size, read off the async threads (a FIFO or /dev/zero named as
/// the key is refused, not waited on or read for ever).
async fn read(path: &Path, kind: Kind) -> Result<String, CollectError> {
    let owned = path.to_path_buf();
    tokio::task::spawn_blocking(move || file::read_text(&owned, kind))
        .await
        .map_err(|e| {
            CollectError::Auth(format!("cannot read {} {}: {e}", kind.what, path.display()))
        })?
        .map_err(|e| CollectError::Auth(e.to_string()))
}

/// The user certificate at `path`, refused unless it is one that can log in now.
async fn read_certificate(path: &Path) -> Result<Certificate, CollectError> {
    let text = read(path, Kind::SSH_CERTIFICATE).await?;
    let refused =
        |why: String| CollectError::Auth(format!("certificate {}: {why}", path.display()));
    let cert = Certificate::from_openssh(text.trim())
        .map_err(|e| refused(format!("not an OpenSSH certificate ({e})")))?;
    if cert.cert_type() != CertType::User {
        return Err(refused("a host certificate, not a user certificate".into()));
    }
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    if now < cert.valid_after() || now >= cert.valid_before() {
        let at = |t: Option<std::time::SystemTime>| {
            t.map_or("forever".to_string(), |t| {
                chrono::DateTime::<chrono::Utc>::from(t)
                    .format("%Y-%m-%d %H:%M:%S UTC")
                    .to_string()
            })
        };
        return Err(refused(format!(
            "valid from {} to {}, not now: renew it",
            at(cert.valid_after_time()),
            at(cert.valid_before_time())
        )));
    }
    Ok(cert)
}

/// The RSA signature hash the server takes (its `server-sig-algs`).
async fn rsa_hash(handle: &Handle<Client>) -> Result<Option<HashAlg>, CollectError> {
    Ok(handle
        .best_supported_rsa_hash()
        .await
        .map_err(ssh)?
        .flatten())
}

fn ssh(e: russh::Error) -> CollectError {
    CollectError::Auth(e.to_string())
}
