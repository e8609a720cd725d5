//! Logging in: password, then keyboard-interactive when the server asks for it (some AAA setups
//! accept only that), then a private key file, then the keys of ssh-agent. The secrets arrive
//! already read (the collector reads them at connect time) and are never put into a message.

use std::sync::Arc;

use russh::MethodKind;
use russh::client::{AuthResult, Handle, KeyboardInteractiveAuthResponse};
use russh::keys::agent::client::AgentClient;
use russh::keys::{PrivateKeyWithHashAlg, decode_secret_key};

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

    if let Some(path) = &conn.key_file {
        let passphrase = conn.key_passphrase.as_ref();
        // A regular file of a key's size, read off the async threads (a FIFO or /dev/zero
        // named as the key is refused, not waited on or read for ever).
        let key_path = path.clone();
        let text = tokio::task::spawn_blocking(move || file::read_text(&key_path, Kind::KEY))
            .await
            .map_err(|e| {
                CollectError::Auth(format!("cannot read key file {}: {e}", path.display()))
            })?
            .map_err(|e| CollectError::Auth(e.to_string()))?;
        let key = decode_secret_key(&text, passphrase.map(|p| p.expose_secret())).map_err(|e| {
            CollectError::Auth(format!("cannot load key file {}: {e}", path.display()))
        })?;
        let hash = handle
            .best_supported_rsa_hash()
            .await
            .map_err(ssh)?
            .flatten();
        let result = handle
            .authenticate_publickey(user, PrivateKeyWithHashAlg::new(Arc::new(key), hash))
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
        let hash = handle
            .best_supported_rsa_hash()
            .await
            .map_err(ssh)?
            .flatten();
        tried.push(format!("ssh-agent ({} keys)", identities.len()));
        for identity in identities {
            let key = identity.public_key().into_owned();
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

fn ssh(e: russh::Error) -> CollectError {
    CollectError::Auth(e.to_string())
}
