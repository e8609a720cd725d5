//! Jump hosts (bastions): a device that says `via: b1` is reached by a `direct-tcpip` channel
//! through one SSH connection to b1, and its own SSH session (host key check, login, shell,
//! the read-only guard) runs over that channel exactly as over TCP. One connection per bastion
//! and run, per chain of hops (`via: [b1, b2]`: b2 is reached through a channel of b1's
//! connection, and the device through a channel of b2's), shared by every device behind it.
//!
//! Nothing is typed on a bastion. [`Link`] is the only holder of a bastion's connection, its
//! handle private to this module, and all it can do is open a `direct-tcpip` channel: there
//! is no way to ask a bastion for a session channel, so no shell, exec or PTY, and the
//! channels a bastion would open towards premarket are refused by the handler.
//!
//! Limits per bastion, so a fleet does not overrun it: `max_sessions` device channels open
//! at once (a permit travels with the channel's stream and is given back when the device's
//! session ends) and `max_starts_per_s` channels (logins) started per second. A channel that
//! carries the next hop's connection is paced but holds no permit: it lives for the whole run,
//! and counting it could leave no permit for the devices.
//!
//! A bastion that cannot be reached, whose host key is not vouched for, that refuses the login
//! or the forwarding, is a [`CollectError::Bastion`] naming it and what it said, for each of
//! its devices. A connection that failed is not tried again in the run: every device behind it
//! gets its ERROR within the connect timeout of the first attempt, and the other bastions'
//! devices go on. A connection that drops during the run is made again for the next device.
//!
//! A [`Jumps`] (one per run, in the session settings) must only be used on the tokio runtime
//! it first connected on: russh drives each connection on a task of that runtime.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use russh::client::{Handle, Msg};
use russh::{ChannelOpenFailure, ChannelStream};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use super::auth;
use super::hostkey::{Expected, KnownHosts, Role};
use super::target::Bastion;
use super::transport::{self, Client};
use premarket_core::CollectError;

/// Device channels open at once through one bastion, by default: the number of OpenSSH's
/// `MaxSessions` default (which bounds shells, not forwarded channels; jump appliances may
/// bound both), and it keeps the bastion's own outgoing connections few.
pub const MAX_SESSIONS: usize = 10;
/// Device logins started per second through one bastion, by default. The bastion sees one
/// login per run (its `MaxStartups` never meets a burst); the devices' logins are connections
/// it opens, paced so that neither it nor a device's SSH server (whose own `MaxStartups`-like
/// limit refuses a burst) sees a fleet at once.
pub const MAX_STARTS_PER_S: u32 = 10;

/// What reaching a bastion needs from the run's settings.
pub struct Reach<'a> {
    /// The site's known_hosts, read once for the run.
    pub known_hosts: Option<&'a KnownHosts>,
    /// TCP (or channel) + handshake, then login, each; and each channel request.
    pub connect_timeout: Duration,
    pub keepalive: Duration,
}

/// Reads one bastion (its secrets) for the run: the collector's, which knows the site file.
pub type ReadBastion = Box<dyn Fn() -> Result<Bastion, CollectError> + Send + Sync>;

/// The run's bastions, their connections and limits (clones share them).
#[derive(Clone, Default)]
pub struct Jumps {
    bastions: Arc<HashMap<String, Known>>,
    links: Arc<Mutex<HashMap<Vec<String>, Arc<Slot>>>>,
    limits: Arc<Mutex<HashMap<String, Arc<Limits>>>>,
}

/// A bastion of the site, read the first time a device needs it, once for the run.
struct Known {
    read: ReadBastion,
    once: std::sync::OnceLock<Result<Arc<Bastion>, CollectError>>,
}

impl std::fmt::Debug for Jumps {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let open = self.links.lock().map_or(0, |l| l.len());
        write!(f, "Jumps({open} chains)")
    }
}

/// One chain's connection: made by the first device that needs it, while the others wait.
type Slot = tokio::sync::Mutex<State>;

enum State {
    Idle,
    Up(Arc<Link>),
    Failed(CollectError),
}

/// A logged-in connection to a bastion. It can only forward: see the module's doc.
pub struct Link {
    handle: Handle<Client>,
    name: String,
}

impl Link {
    /// A `direct-tcpip` channel to `host:port`, as the bastion connects it.
    async fn forward(&self, host: &str, port: u16) -> Result<ChannelStream<Msg>, CollectError> {
        let addr = format!("{host}:{port}");
        match self
            .handle
            .channel_open_direct_tcpip(host, u32::from(port), "127.0.0.1", 0)
            .await
        {
            Ok(channel) => Ok(channel.into_stream()),
            Err(russh::Error::ChannelOpenFailure(ChannelOpenFailure::ConnectFailed)) => {
                Err(CollectError::Connect(format!(
                    "{addr} via {}: the bastion could not open a connection to it (connect failed)",
                    self.name
                )))
            }
            Err(russh::Error::ChannelOpenFailure(reason)) => Err(self.failed(
                CollectError::Forwarding(format!("{addr}: {}", refusal(&reason))),
            )),
            Err(e) => Err(self.failed(CollectError::Connect(format!(
                "the connection was lost while asking it to forward to {addr}: {e}"
            )))),
        }
    }

    fn failed(&self, error: CollectError) -> CollectError {
        bastion_error(&self.name, error)
    }
}

/// What a bastion's refusal code means, in words an operator can act on.
fn refusal(reason: &ChannelOpenFailure) -> String {
    match reason {
        ChannelOpenFailure::AdministrativelyProhibited => "administratively prohibited (TCP \
            forwarding is off for premarket's account there: OpenSSH's AllowTcpForwarding, \
            PermitOpen, DisableForwarding)"
            .into(),
        ChannelOpenFailure::UnknownChannelType => "it does not know direct-tcpip channels".into(),
        ChannelOpenFailure::ResourceShortage => {
            "resource shortage (too many channels at once: lower its max_sessions)".into()
        }
        ChannelOpenFailure::ConnectFailed => "connect failed".into(),
        ChannelOpenFailure::Other { code, .. } => format!("refusal code {code}"),
    }
}

/// `error` as the bastion's, unless it already names a bastion (an outer hop's).
fn bastion_error(name: &str, error: CollectError) -> CollectError {
    match error {
        CollectError::Bastion { .. } => error,
        other => CollectError::Bastion {
            bastion: name.to_string(),
            error: Box::new(other),
        },
    }
}

/// A bastion's limits, shared by every chain through it.
struct Limits {
    sessions: Arc<Semaphore>,
    interval: Duration,
    /// When the next start may begin.
    next: tokio::sync::Mutex<Instant>,
}

impl Limits {
    fn new(bastion: &Bastion) -> Limits {
        Limits {
            sessions: Arc::new(Semaphore::new(bastion.max_sessions.max(1))),
            interval: Duration::from_secs(1) / bastion.max_starts_per_s.max(1),
            next: tokio::sync::Mutex::new(Instant::now()),
        }
    }

    /// Waits for this start's turn: starts are spaced `interval` apart.
    async fn pace(&self) {
        let at = {
            let mut next = self.next.lock().await;
            let at = (*next).max(Instant::now());
            *next = at + self.interval;
            at
        };
        tokio::time::sleep_until(at).await;
    }
}

/// A stream to a device through its bastions, for [`transport::connect_over`]. It holds the
/// bastion's permit (given back when the device's session ends and the stream is dropped) and
/// the connection it runs over.
pub struct Tunnel {
    stream: ChannelStream<Msg>,
    _permit: Option<OwnedSemaphorePermit>,
    _link: Arc<Link>,
}

impl AsyncRead for Tunnel {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_read(cx, buf)
    }
}

impl AsyncWrite for Tunnel {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        Pin::new(&mut self.get_mut().stream).poll_write(cx, buf)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

type Reaching<'a> = Pin<Box<dyn Future<Output = Result<Arc<Link>, CollectError>> + Send + 'a>>;

impl Jumps {
    /// The site's bastions by name, each read by its function when first needed.
    pub fn new(bastions: impl IntoIterator<Item = (String, ReadBastion)>) -> Jumps {
        let bastions = bastions
            .into_iter()
            .map(|(name, read)| {
                let once = std::sync::OnceLock::new();
                (name, Known { read, once })
            })
            .collect();
        Jumps {
            bastions: Arc::new(bastions),
            ..Jumps::default()
        }
    }

    /// The bastion named `name`, read (its secrets) once for the run; a failure to read it is
    /// that bastion's error for every device behind it.
    pub fn bastion(&self, name: &str) -> Result<Arc<Bastion>, CollectError> {
        let known = self.bastions.get(name).ok_or_else(|| {
            CollectError::Other(format!("site.yaml lists no bastion named {name}"))
        })?;
        known
            .once
            .get_or_init(|| {
                (known.read)()
                    .map(Arc::new)
                    .map_err(|e| bastion_error(name, e))
            })
            .clone()
    }

    /// A channel to `host:port` through `via` (outermost first) for one device's session,
    /// within the bastions' limits.
    pub async fn tunnel(
        &self,
        via: &[Arc<Bastion>],
        host: &str,
        port: u16,
        reach: &Reach<'_>,
    ) -> Result<Tunnel, CollectError> {
        self.open(via, host, port, reach, true).await
    }

    async fn open(
        &self,
        via: &[Arc<Bastion>],
        host: &str,
        port: u16,
        reach: &Reach<'_>,
        device: bool,
    ) -> Result<Tunnel, CollectError> {
        let Some(bastion) = via.last() else {
            return Err(CollectError::Other("no bastion to go through".into()));
        };
        let link = self.link(via, reach).await?;
        let limits = self.limits(bastion);
        let permit = match device {
            true => Some(
                Arc::clone(&limits.sessions)
                    .acquire_owned()
                    .await
                    .map_err(|e| CollectError::Other(e.to_string()))?,
            ),
            false => None,
        };
        limits.pace().await;
        let forward = tokio::time::timeout(reach.connect_timeout, link.forward(host, port));
        let stream = forward.await.map_err(|_| {
            link.failed(CollectError::Connect(format!(
                "no answer within {} s to the request to forward to {host}:{port}",
                reach.connect_timeout.as_secs()
            )))
        })??;
        Ok(Tunnel {
            stream,
            _permit: permit,
            _link: link,
        })
    }

    fn limits(&self, bastion: &Bastion) -> Arc<Limits> {
        let mut limits = self.limits.lock().unwrap_or_else(|p| p.into_inner());
        Arc::clone(
            limits
                .entry(bastion.login.name.clone())
                .or_insert_with(|| Arc::new(Limits::new(bastion))),
        )
    }

    /// The logged-in connection to the last of `via`, made once for the chain.
    fn link<'a>(&'a self, via: &'a [Arc<Bastion>], reach: &'a Reach<'a>) -> Reaching<'a> {
        Box::pin(async move {
            let key: Vec<String> = via.iter().map(|b| b.login.name.clone()).collect();
            let slot = {
                let mut links = self.links.lock().unwrap_or_else(|p| p.into_inner());
                Arc::clone(
                    links
                        .entry(key)
                        .or_insert_with(|| Arc::new(tokio::sync::Mutex::new(State::Idle))),
                )
            };
            let mut state = slot.lock().await;
            match &*state {
                State::Up(link) if !link.handle.is_closed() => return Ok(Arc::clone(link)),
                State::Failed(e) => return Err(e.clone()),
                State::Up(_) | State::Idle => {}
            }
            let made = self.connect(via, reach).await;
            *state = match &made {
                Ok(link) => State::Up(Arc::clone(link)),
                Err(e) => State::Failed(e.clone()),
            };
            made
        })
    }

    /// Connects to the last of `via` (through the others), checks its host key, logs in.
    async fn connect(
        &self,
        via: &[Arc<Bastion>],
        reach: &Reach<'_>,
    ) -> Result<Arc<Link>, CollectError> {
        let Some((bastion, outer)) = via.split_last() else {
            return Err(CollectError::Other("no bastion to go through".into()));
        };
        let login = &bastion.login;
        let failed = |e| bastion_error(&login.name, e);
        let expected = Expected {
            device: &login.name,
            role: Role::Bastion,
            host: &login.host,
            port: login.port,
            pin: login.host_key.as_deref(),
            known_hosts: reach.known_hosts,
        };
        let handler = transport::verifying(expected);
        let (timeout, keepalive) = (reach.connect_timeout, reach.keepalive);
        let legacy = login.legacy_algorithms;
        let mut handle = match outer.is_empty() {
            true => {
                transport::connect_with(
                    &login.host,
                    login.port,
                    legacy,
                    timeout,
                    keepalive,
                    handler,
                )
                .await
            }
            false => {
                let tunnel = self
                    .open(outer, &login.host, login.port, reach, false)
                    .await?;
                let addr = format!("{}:{}", login.host, login.port);
                transport::connect_over(tunnel, &addr, legacy, timeout, keepalive, handler).await
            }
        }
        .map_err(failed)?;
        match tokio::time::timeout(timeout, auth::login(&mut handle, login)).await {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(failed(e)),
            Err(_) => {
                return Err(failed(CollectError::Auth(format!(
                    "no answer within {} s",
                    timeout.as_secs()
                ))));
            }
        }
        Ok(Arc::new(Link {
            handle,
            name: login.name.clone(),
        }))
    }
}
