//! The SSH connection itself: TCP connect with a timeout, algorithm policy, keepalive, and the
//! host key check wired into russh's handshake (the password is only sent after it passes).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::client::{self, Handle};
use russh::keys::{Algorithm, PublicKey, PublicKeyOrCertificate};
use russh::{Preferred, cipher, kex, mac};

use super::hostkey::{self, HostKeyError};
use premarket_core::CollectError;

/// Algorithms old devices still need. Only offered when the baseline says
/// `legacy_algorithms: true` for that device.
const LEGACY_KEX: &[kex::Name] = &[kex::DH_G14_SHA1, kex::DH_GEX_SHA1];
const LEGACY_CIPHERS: &[cipher::Name] = &[cipher::AES_128_CBC, cipher::AES_256_CBC];
const LEGACY_MACS: &[mac::Name] = &[mac::HMAC_SHA1, mac::HMAC_SHA1_ETM];
/// Modern key exchanges not in russh's defaults but common on network devices.
const EXTRA_KEX: &[kex::Name] = &[
    kex::ECDH_SHA2_NISTP256,
    kex::ECDH_SHA2_NISTP384,
    kex::ECDH_SHA2_NISTP521,
];

/// The russh client configuration for one device.
pub fn client_config(legacy: bool, keepalive: Duration) -> Result<client::Config, CollectError> {
    let mut preferred = Preferred::DEFAULT.clone();
    let mut kex_list = preferred.kex.to_vec();
    kex_list.extend_from_slice(EXTRA_KEX);
    // `ssh-rsa` (RSA with SHA-1 signatures) is in russh's defaults; it is legacy here.
    let mut keys: Vec<Algorithm> = preferred.key.to_vec();
    let mut ciphers = preferred.cipher.to_vec();
    let mut macs = preferred.mac.to_vec();
    let mut config = client::Config::default();
    if legacy {
        kex_list.extend_from_slice(LEGACY_KEX);
        ciphers.extend_from_slice(LEGACY_CIPHERS);
        macs.extend_from_slice(LEGACY_MACS);
        config.gex = client::GexParams::new(2048, 4096, 8192)
            .map_err(|e| CollectError::Other(e.to_string()))?;
    } else {
        keys.retain(|k| *k != Algorithm::Rsa { hash: None });
    }
    preferred.kex = kex_list.into();
    preferred.key = keys.into();
    preferred.cipher = ciphers.into();
    preferred.mac = macs.into();
    config.preferred = preferred;
    config.keepalive_interval = Some(keepalive);
    config.keepalive_max = 3;
    // A command may be silent for a long time (big session tables); keepalive detects dead
    // peers, and the shell reports a connection lost that way as "not answering".
    config.inactivity_timeout = None;
    config.nodelay = true;
    Ok(config)
}

/// Decides whether a host key is trusted.
type KeyCheck = Box<dyn Fn(&PublicKey) -> Result<(), HostKeyError> + Send + Sync>;

/// The russh handler: checks the host key and remembers what was offered.
pub struct Client {
    pub(super) check: Option<KeyCheck>,
    pub(super) offered: Arc<Mutex<Option<PublicKey>>>,
}

/// Errors the handler can end a handshake with.
#[derive(Debug, thiserror::Error)]
pub enum HandshakeError {
    #[error(transparent)]
    Ssh(#[from] russh::Error),
    #[error(transparent)]
    HostKey(#[from] HostKeyError),
}

impl client::Handler for Client {
    type Error = HandshakeError;

    async fn check_server_key(
        &mut self,
        key: &PublicKeyOrCertificate,
    ) -> Result<bool, Self::Error> {
        let key = key.public_key();
        if let Ok(mut slot) = self.offered.lock() {
            *slot = Some(key.clone());
        }
        match &self.check {
            // `premarket trust`: record the key, never go further.
            None => Ok(false),
            Some(check) => check(&key).map(|()| true).map_err(HandshakeError::from),
        }
    }
}

/// Keepalive interval unless the site's settings say otherwise.
pub const KEEPALIVE: Duration = Duration::from_secs(15);

/// Opens the TCP connection and runs the handshake, all within `timeout`.
pub async fn connect(
    host: &str,
    port: u16,
    legacy: bool,
    timeout: Duration,
    handler: Client,
) -> Result<Handle<Client>, CollectError> {
    connect_with(host, port, legacy, timeout, KEEPALIVE, handler).await
}

/// [`connect`] with its own keepalive interval.
pub async fn connect_with(
    host: &str,
    port: u16,
    legacy: bool,
    timeout: Duration,
    keepalive: Duration,
    handler: Client,
) -> Result<Handle<Client>, CollectError> {
    let config = Arc::new(client_config(legacy, keepalive)?);
    let attempt = client::connect(config, (host, port), handler);
    match tokio::time::timeout(timeout, attempt).await {
        Err(_) => Err(CollectError::Connect(format!(
            "no SSH handshake with {host}:{port} within {} s",
            timeout.as_secs()
        ))),
        Ok(Ok(handle)) => Ok(handle),
        Ok(Err(HandshakeError::HostKey(e))) => Err(CollectError::HostKey(e.to_string())),
        Ok(Err(HandshakeError::Ssh(e))) => Err(connect_error(host, port, legacy, &e)),
    }
}

fn connect_error(host: &str, port: u16, legacy: bool, e: &russh::Error) -> CollectError {
    let hint = match e {
        russh::Error::NoCommonAlgo { .. } if !legacy => {
            " (the device offers only old algorithms; if that is expected, set ssh.legacy_algorithms: true in its baseline)"
        }
        _ => "",
    };
    CollectError::Connect(format!("{host}:{port}: {e}{hint}"))
}

/// Connects only to read the host key the device offers (`premarket trust`).
pub async fn offered_key(
    host: &str,
    port: u16,
    legacy: bool,
    timeout: Duration,
) -> Result<PublicKey, CollectError> {
    let offered = Arc::new(Mutex::new(None));
    let handler = Client {
        check: None,
        offered: offered.clone(),
    };
    let result = connect(host, port, legacy, timeout, handler).await;
    let key = offered.lock().ok().and_then(|mut k| k.take());
    match (key, result) {
        (Some(key), _) => Ok(key),
        (None, Err(e)) => Err(e),
        (None, Ok(_)) => Err(CollectError::Other(
            "the device did not present a host key".into(),
        )),
    }
}

/// Builds the handler that verifies keys against the baseline pin or the site's known_hosts.
pub fn verifying(expected: hostkey::Expected<'_>) -> Client {
    let device = expected.device.to_string();
    let host = expected.host.to_string();
    let port = expected.port;
    let pin = expected.pin.map(str::to_string);
    let known_hosts = expected.known_hosts.cloned();
    let check = move |key: &PublicKey| {
        let expected = hostkey::Expected {
            device: &device,
            host: &host,
            port,
            pin: pin.as_deref(),
            known_hosts: known_hosts.as_ref(),
        };
        hostkey::verify(&expected, key)
    };
    Client {
        check: Some(Box::new(check)),
        offered: Arc::new(Mutex::new(None)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_algorithms_only_when_asked_for() {
        let keepalive = KEEPALIVE;
        let modern = client_config(false, keepalive).unwrap();
        let legacy = client_config(true, keepalive).unwrap();
        let sha1_rsa = Algorithm::Rsa { hash: None };
        assert!(!modern.preferred.key.contains(&sha1_rsa));
        assert!(legacy.preferred.key.contains(&sha1_rsa));
        for kex in LEGACY_KEX {
            assert!(!modern.preferred.kex.contains(kex) && legacy.preferred.kex.contains(kex));
        }
        for cipher in LEGACY_CIPHERS {
            assert!(
                !modern.preferred.cipher.contains(cipher)
                    && legacy.preferred.cipher.contains(cipher)
            );
        }
        for mac in LEGACY_MACS {
            assert!(!modern.preferred.mac.contains(mac) && legacy.preferred.mac.contains(mac));
        }
        assert_eq!(legacy.gex.min_group_size(), 2048);
        assert_eq!(modern.keepalive_interval, Some(Duration::from_secs(15)));
    }
}
