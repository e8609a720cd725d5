//! The SSH side of a lab device: a russh server on 127.0.0.1 with password and
//! keyboard-interactive login, one task per channel (`shell.rs`), and an accept loop that can
//! cut a connection (`drop`) and stop everything on shutdown. Per session the cost is the
//! russh connection task plus one channel task, so hundreds of sessions are cheap.

use std::borrow::Cow;
use std::net::Shutdown;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::keys::PrivateKey;
use russh::server::{Auth, ChannelOpenHandle, Msg, Response, Session as SshSession};
use russh::{Channel, ChannelId, MethodKind, MethodSet, Preferred};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinHandle;

use super::device::{Cli, Journal};
use super::eos::{EosCli, EosState};
use super::fortigate::{FgState, FortiCli};
use super::scenario::{Fault, Faults};
use super::shell::{self, Killer, Style};
use premarket_core::Platform;

/// The device behind one SSH port: its state is shared by all its sessions.
#[derive(Clone)]
pub enum DeviceState {
    Eos(Arc<Mutex<EosState>>),
    Fortigate(Arc<Mutex<FgState>>),
}

/// Everything one device's server needs.
pub struct DeviceSpec {
    pub name: String,
    pub state: DeviceState,
    pub faults: Faults,
    pub journal: Journal,
    pub password: String,
    pub user: String,
}

impl DeviceSpec {
    fn cli(&self) -> (Box<dyn Cli>, Style) {
        match &self.state {
            DeviceState::Eos(state) => (
                Box::new(EosCli::new(
                    &self.name,
                    state.clone(),
                    self.journal.clone(),
                    &self.faults,
                )),
                Style {
                    more: " --More-- ",
                    erase: "\r\x1b[K",
                    blank_line: false,
                    accept_key: None,
                },
            ),
            DeviceState::Fortigate(state) => (
                Box::new(FortiCli::new(
                    &self.name,
                    state.clone(),
                    self.journal.clone(),
                )),
                Style {
                    more: "--More-- ",
                    erase: "\r         \r",
                    blank_line: true,
                    accept_key: Some(b'a'),
                },
            ),
        }
    }

    fn accepts(&self, user: &str, password: &str) -> bool {
        !self.faults.has(Fault::AuthFail) && user == self.user && password == self.password
    }
}

/// The russh server configuration for a device serving `key`.
pub fn ssh_config(key: PrivateKey, platform: Platform) -> russh::server::Config {
    let mut methods = MethodSet::empty();
    methods.push(MethodKind::Password);
    methods.push(MethodKind::KeyboardInteractive);
    let mut preferred = Preferred::default();
    // Neither FortiOS 7.6 nor EOS 4.31 offers the post-quantum hybrid; without it a lab
    // session also costs less CPU. FortiOS still offers group14-sha1 (netmiko's fortinet
    // driver asks for it).
    let mut kex: Vec<_> = preferred
        .kex
        .iter()
        .filter(|k| **k != russh::kex::MLKEM768X25519_SHA256)
        .cloned()
        .collect();
    if platform == Platform::Fortigate {
        kex.push(russh::kex::DH_G14_SHA1);
    }
    preferred.kex = Cow::Owned(kex);
    russh::server::Config {
        server_id: russh::SshId::Standard(Cow::Borrowed(match platform {
            Platform::Fortigate => "SSH-2.0-FortiSSH_lab",
            _ => "SSH-2.0-OpenSSH_8.7",
        })),
        methods,
        auth_rejection_time: Duration::from_millis(10),
        auth_rejection_time_initial: Some(Duration::from_millis(0)),
        keys: vec![key],
        preferred,
        inactivity_timeout: Some(Duration::from_secs(1800)),
        nodelay: true,
        ..Default::default()
    }
}

/// One accepted connection.
struct Conn {
    spec: Arc<DeviceSpec>,
    kill: Killer,
}

impl russh::server::Handler for Conn {
    type Error = russh::Error;

    async fn auth_password(&mut self, user: &str, password: &str) -> Result<Auth, Self::Error> {
        Ok(if self.spec.accepts(user, password) {
            Auth::Accept
        } else {
            Auth::reject()
        })
    }

    async fn auth_keyboard_interactive<'a>(
        &'a mut self,
        user: &str,
        _submethods: &str,
        response: Option<Response<'a>>,
    ) -> Result<Auth, Self::Error> {
        let Some(mut response) = response else {
            return Ok(Auth::Partial {
                name: Cow::Borrowed(""),
                instructions: Cow::Borrowed(""),
                prompts: Cow::Owned(vec![(Cow::Borrowed("Password: "), false)]),
            });
        };
        let answer = response
            .next()
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        Ok(if self.spec.accepts(user, &answer) {
            Auth::Accept
        } else {
            Auth::reject()
        })
    }

    async fn channel_open_session(
        &mut self,
        channel: Channel<Msg>,
        reply: ChannelOpenHandle,
        _session: &mut SshSession,
    ) -> Result<(), Self::Error> {
        reply.accept().await;
        let (cli, style) = self.spec.cli();
        let session = shell::Session {
            cli,
            style,
            faults: self.spec.faults.clone(),
            kill: self.kill.clone(),
        };
        tokio::spawn(shell::serve(channel, session));
        Ok(())
    }

    #[allow(clippy::too_many_arguments)]
    async fn pty_request(
        &mut self,
        channel: ChannelId,
        _term: &str,
        _col_width: u32,
        _row_height: u32,
        _pix_width: u32,
        _pix_height: u32,
        _modes: &[(russh::Pty, u32)],
        session: &mut SshSession,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut SshSession,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)
    }

    async fn exec_request(
        &mut self,
        channel: ChannelId,
        _data: &[u8],
        session: &mut SshSession,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)
    }

    async fn env_request(
        &mut self,
        channel: ChannelId,
        _name: &str,
        _value: &str,
        session: &mut SshSession,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)
    }
}

/// A device's running server.
pub struct Running {
    stop: watch::Sender<bool>,
    task: JoinHandle<()>,
}

impl Running {
    /// Stops accepting, cuts every open connection and waits for the accept loop to end.
    pub async fn shutdown(self) {
        let _ = self.stop.send(true);
        let _ = self.task.await;
    }
}

/// Serves `spec` on `listener` until shut down.
pub fn spawn(
    spec: Arc<DeviceSpec>,
    config: Arc<russh::server::Config>,
    listener: TcpListener,
) -> Running {
    let (stop, mut stopped) = watch::channel(false);
    let task = tokio::spawn(async move {
        let open: Arc<Mutex<Vec<(u64, Killer)>>> = Arc::default();
        let mut next_id = 0u64;
        loop {
            tokio::select! {
                _ = stopped.changed() => break,
                accepted = listener.accept() => {
                    let Ok((stream, _peer)) = accepted else { continue };
                    let Some((stream, kill)) = killable(stream) else { continue };
                    let id = next_id;
                    next_id += 1;
                    if let Ok(mut list) = open.lock() {
                        list.push((id, kill.clone()));
                    }
                    let conn = Conn { spec: spec.clone(), kill };
                    let config = config.clone();
                    let open = open.clone();
                    tokio::spawn(async move {
                        if let Ok(session) = russh::server::run_stream(config, stream, conn).await {
                            let _ = session.await;
                        }
                        if let Ok(mut list) = open.lock() {
                            list.retain(|(i, _)| *i != id);
                        }
                    });
                }
            }
        }
        let killers: Vec<Killer> = open
            .lock()
            .map(|l| l.iter().map(|(_, k)| k.clone()).collect())
            .unwrap_or_default();
        for kill in killers {
            kill();
        }
    });
    Running { stop, task }
}

/// The stream, plus a function that shuts the socket down under russh's feet.
fn killable(stream: TcpStream) -> Option<(TcpStream, Killer)> {
    let std = stream.into_std().ok()?;
    let dup = std.try_clone().ok()?;
    let stream = TcpStream::from_std(std).ok()?;
    let _ = stream.set_nodelay(true);
    let kill: Killer = Arc::new(move || {
        let _ = dup.shutdown(Shutdown::Both);
    });
    Some((stream, kill))
}
