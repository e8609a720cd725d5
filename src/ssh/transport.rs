//! The SSH connection itself: TCP connect with a timeout, algorithm policy, keepalive, and the
//! host key check wired into russh's handshake (the password is only sent after it passes).
//! The same handshake runs over a channel through a bastion ([`connect_over`]): a device
//! reached that way is checked, logged in and driven exactly as one reached directly.
//!
//! Host certificates are asked for (the `*-cert-v01@openssh.com` algorithms offered first)
//! only when the site's known_hosts has an `@cert-authority` line for the host and no pin
//! decides ([`hostkey::wants_certificate`]); every other host is offered the plain algorithms
//! it always was.
//!
//! The check runs at every key exchange, not only the first: a device that re-keys during the
//! session must present a key the pin or known_hosts accepts, or the session ends there with
//! the same error as at login, kept in a [`Refusal`] for the shell to report (the vendored russh
//! calls [`client::Handler::check_server_key`] at each exchange: `.vendor/russh/PATCHED.md`).
//! Nothing the device may open towards premarket is accepted (x11, forwarded or direct TCP,
//! agent, session: refused as OpenSSH refuses what it did not ask for), and the host keys a
//! server announces after login (`hostkeys-00@openssh.com`) are ignored: each costs one packet
//! read and nothing kept.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::client::{self, Handle, Msg, Session};
use russh::keys::{Algorithm, Certificate, EcdsaCurve, HashAlg, PublicKey, PublicKeyOrCertificate};
use russh::{Channel, ChannelOpenFailure, Preferred, cipher, kex, mac};
use tokio::io::{AsyncRead, AsyncWrite};

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

/// Host certificate algorithms, most preferred first, offered when a certificate is wanted
/// (OpenSSH's order; no SHA-1 RSA).
const CERTIFICATES: &[Algorithm] = &[
    Algorithm::Ed25519,
    Algorithm::Ecdsa {
        curve: EcdsaCurve::NistP256,
    },
    Algorithm::Ecdsa {
        curve: EcdsaCurve::NistP384,
    },
    Algorithm::Ecdsa {
        curve: EcdsaCurve::NistP521,
    },
    Algorithm::Rsa {
        hash: Some(HashAlg::Sha512),
    },
    Algorithm::Rsa {
        hash: Some(HashAlg::Sha256),
    },
];

/// The russh client configuration for one host; `certificates`: ask for its host certificate.
pub fn client_config(
    legacy: bool,
    certificates: bool,
    keepalive: Duration,
) -> Result<client::Config, CollectError> {
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
    if certificates {
        preferred.host_key_certificates = CERTIFICATES.into();
    }
    config.preferred = preferred;
    config.keepalive_interval = Some(keepalive);
    config.keepalive_max = 3;
    // A command may be silent for a long time (big session tables); keepalive detects dead
    // peers, and the shell reports a connection lost that way as "not answering".
    config.inactivity_timeout = None;
    config.nodelay = true;
    Ok(config)
}

/// Decides whether a host key (or host certificate) is trusted.
type KeyCheck = Box<dyn Fn(&PublicKeyOrCertificate) -> Result<(), HostKeyError> + Send + Sync>;

/// What a host offered at the key exchange: its key, and the certificate it came in.
#[derive(Clone, Debug)]
pub struct Offered {
    pub key: PublicKey,
    pub certificate: Option<Certificate>,
}

impl Offered {
    /// As russh hands it to the check, for [`hostkey::verify_offered`].
    pub fn as_offered(&self) -> PublicKeyOrCertificate {
        match &self.certificate {
            Some(cert) => PublicKeyOrCertificate::Certificate(cert.clone()),
            None => PublicKeyOrCertificate::from(self.key.clone()),
        }
    }
}

/// The russh handler: checks the host key at every key exchange and remembers what was
/// offered; refuses every channel the device opens.
pub struct Client {
    pub(super) check: Option<KeyCheck>,
    pub(super) offered: Arc<Mutex<Option<Offered>>>,
    /// Ask for the host's certificate ([`hostkey::wants_certificate`]).
    certificates: bool,
    /// Key exchanges whose host key was checked: the first at login, then each re-key.
    exchanges: usize,
    refusal: Refusal,
}

/// Why the host key of a re-key was refused, once it was: the session ended inside russh, and
/// the shell reads this to say why instead of "the connection was lost".
#[derive(Clone, Debug, Default)]
pub struct Refusal(Arc<Mutex<Option<HostKeyError>>>);

impl Refusal {
    pub fn get(&self) -> Option<HostKeyError> {
        self.0.lock().ok().and_then(|e| e.clone())
    }

    fn set(&self, e: HostKeyError) {
        if let Ok(mut slot) = self.0.lock() {
            *slot = Some(e);
        }
    }
}

impl Client {
    fn new(check: Option<KeyCheck>, certificates: bool) -> Client {
        Client {
            check,
            offered: Arc::new(Mutex::new(None)),
            certificates,
            exchanges: 0,
            refusal: Refusal::default(),
        }
    }

    /// Where a re-key's refused host key will be said (shared with the handler).
    pub fn refusal(&self) -> Refusal {
        self.refusal.clone()
    }
}

/// Refuses a channel the device opened towards premarket, as OpenSSH refuses what it did not
/// ask for.
async fn refuse(reply: client::ChannelOpenHandle) -> Result<(), HandshakeError> {
    reply
        .reject(ChannelOpenFailure::AdministrativelyProhibited)
        .await;
    Ok(())
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
        if let Ok(mut slot) = self.offered.lock() {
            *slot = Some(Offered {
                key: key.public_key(),
                certificate: key.certificate().cloned(),
            });
        }
        self.exchanges += 1;
        match &self.check {
            // `premarket trust`: record the key, never go further.
            None => Ok(false),
            Some(check) => match check(key) {
                Ok(()) => Ok(true),
                Err(e) if self.exchanges > 1 => {
                    let e = HostKeyError::AtRekey(Box::new(e));
                    self.refusal.set(e.clone());
                    Err(e.into())
                }
                Err(e) => Err(e.into()),
            },
        }
    }

    async fn openssh_ext_host_keys_announced(
        &mut self,
        _keys: Vec<PublicKey>,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        // Trusted keys come from the pin or known_hosts only; premarket never learns one.
        Ok(())
    }

    async fn should_accept_unknown_server_channel(
        &mut self,
        _id: russh::ChannelId,
        _channel_type: &str,
    ) -> bool {
        false
    }

    async fn server_channel_open_session(
        &mut self,
        _channel: Channel<Msg>,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
    }

    async fn server_channel_open_x11(
        &mut self,
        _channel: Channel<Msg>,
        _originator_address: &str,
        _originator_port: u32,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
    }

    async fn server_channel_open_agent_forward(
        &mut self,
        _channel: Channel<Msg>,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
    }

    async fn server_channel_open_forwarded_tcpip(
        &mut self,
        _channel: Channel<Msg>,
        _connected_address: &str,
        _connected_port: u32,
        _originator_address: &str,
        _originator_port: u32,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
    }

    async fn server_channel_open_direct_tcpip(
        &mut self,
        _channel: Channel<Msg>,
        _host_to_connect: &str,
        _port_to_connect: u32,
        _originator_address: &str,
        _originator_port: u32,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
    }

    async fn server_channel_open_forwarded_streamlocal(
        &mut self,
        _channel: Channel<Msg>,
        _socket_path: &str,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
    }

    async fn server_channel_open_direct_streamlocal(
        &mut self,
        _channel: Channel<Msg>,
        _socket_path: &str,
        reply: client::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        refuse(reply).await
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
    let config = Arc::new(client_config(legacy, handler.certificates, keepalive)?);
    let attempt = async {
        let tcp = tokio::net::TcpStream::connect((host, port))
            .await
            .map_err(|e| HandshakeError::Ssh(e.into()))?;
        // As russh's own connect: a command is a few bytes, sent at once.
        let _ = tcp.set_nodelay(true);
        client::connect_stream(config, tcp, handler).await
    };
    handshake(attempt, &format!("{host}:{port}"), legacy, timeout).await
}

/// The handshake over a stream already open to the host (a channel through a bastion);
/// `addr` names the host in messages (`10.0.0.1:22 via b1`).
pub async fn connect_over<S>(
    stream: S,
    addr: &str,
    legacy: bool,
    timeout: Duration,
    keepalive: Duration,
    handler: Client,
) -> Result<Handle<Client>, CollectError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let config = Arc::new(client_config(legacy, handler.certificates, keepalive)?);
    let attempt = client::connect_stream(config, stream, handler);
    handshake(attempt, addr, legacy, timeout).await
}

async fn handshake(
    attempt: impl Future<Output = Result<Handle<Client>, HandshakeError>>,
    addr: &str,
    legacy: bool,
    timeout: Duration,
) -> Result<Handle<Client>, CollectError> {
    match tokio::time::timeout(timeout, attempt).await {
        Err(_) => Err(CollectError::Connect(format!(
            "no SSH handshake with {addr} within {} s",
            timeout.as_secs()
        ))),
        Ok(Ok(handle)) => Ok(handle),
        Ok(Err(HandshakeError::HostKey(e))) => Err(CollectError::HostKey(e.to_string())),
        Ok(Err(HandshakeError::Ssh(e))) => Err(connect_error(addr, legacy, &e)),
    }
}

/// The most russh reads of a device's identification line, and of the lines before it
/// (`SSH_ID_MAX_LINE_LEN` and `SSH_ID_MAX_PRE_BANNER_LINES` in its `ssh_read.rs`, RFC 4253's
/// 255 bytes): a peer that goes past them is refused with `Error::Version`, the only way that
/// error comes to a client.
const IDENT_LINE: usize = 255;
const LINES_BEFORE_IDENT: usize = 20;

fn connect_error(addr: &str, legacy: bool, e: &russh::Error) -> CollectError {
    let hint = match e {
        russh::Error::NoCommonAlgo { .. } if !legacy => {
            " (the device offers only old algorithms; if that is expected, set ssh.legacy_algorithms: true in its baseline)"
        }
        _ => "",
    };
    let said = match e {
        russh::Error::Version => format!(
            "its SSH identification line was refused unread: longer than {IDENT_LINE} bytes \
             (RFC 4253's cap), or more than {LINES_BEFORE_IDENT} lines before it; premarket \
             reads no more than that from a peer before the handshake"
        ),
        other => other.to_string(),
    };
    CollectError::Connect(format!("{addr}: {said}{hint}"))
}

/// Connects only to read the host key the device offers (`premarket trust`), asking for its
/// certificate when `certificates`.
pub async fn offered_key(
    host: &str,
    port: u16,
    legacy: bool,
    certificates: bool,
    timeout: Duration,
) -> Result<Offered, CollectError> {
    let handler = Client::new(None, certificates);
    let offered = handler.offered.clone();
    let result = connect(host, port, legacy, timeout, handler).await;
    take_offered(&offered, result.map(|_| ()))
}

/// [`offered_key`] over a stream already open to the host (a channel through a bastion).
pub async fn offered_key_over<S>(
    stream: S,
    addr: &str,
    legacy: bool,
    certificates: bool,
    timeout: Duration,
) -> Result<Offered, CollectError>
where
    S: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    let handler = Client::new(None, certificates);
    let offered = handler.offered.clone();
    let keepalive = KEEPALIVE;
    let result = connect_over(stream, addr, legacy, timeout, keepalive, handler).await;
    take_offered(&offered, result.map(|_| ()))
}

fn take_offered(
    slot: &Mutex<Option<Offered>>,
    result: Result<(), CollectError>,
) -> Result<Offered, CollectError> {
    let key = slot.lock().ok().and_then(|mut k| k.take());
    match (key, result) {
        (Some(key), _) => Ok(key),
        (None, Err(e)) => Err(e),
        (None, Ok(())) => Err(CollectError::Other(
            "the device did not present a host key".into(),
        )),
    }
}

/// Builds the handler that verifies keys against the baseline pin or the site's known_hosts.
pub fn verifying(expected: hostkey::Expected<'_>) -> Client {
    let certificates = hostkey::wants_certificate(&expected);
    let device = expected.device.to_string();
    let role = expected.role;
    let host = expected.host.to_string();
    let port = expected.port;
    let pin = expected.pin.map(str::to_string);
    let known_hosts = expected.known_hosts.cloned();
    let check = move |offered: &PublicKeyOrCertificate| {
        let expected = hostkey::Expected {
            device: &device,
            role,
            host: &host,
            port,
            pin: pin.as_deref(),
            known_hosts: known_hosts.as_ref(),
        };
        hostkey::verify_offered(&expected, offered)
    };
    Client::new(Some(Box::new(check)), certificates)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn old_algorithms_only_when_asked_for() {
        let keepalive = KEEPALIVE;
        let modern = client_config(false, false, keepalive).unwrap();
        let legacy = client_config(true, false, keepalive).unwrap();
        assert!(modern.preferred.host_key_certificates.is_empty());
        let certificates = client_config(false, true, keepalive).unwrap();
        assert_eq!(&*certificates.preferred.host_key_certificates, CERTIFICATES);
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
