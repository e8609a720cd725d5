//! A scripted network device on 127.0.0.1 over real SSH (russh server): an EOS-like or
//! FortiGate-like prompt, `enable` with an optional `Password:`, privilege errors, a pager,
//! VDOMs (a box without them, or with several, where `edit` of a missing name creates it as
//! FortiOS does), a slow device, a hung command, a device that freezes (stops answering even
//! keepalives), one that floods `--More--` and stops reading (a TCP proxy in front of it
//! stops taking bytes) and one that answers a command with output that never ends. Output can
//! go out in packets with pauses between them (a slow box, or one lying about where its output
//! ends; input waits meanwhile). It records every line it receives, to prove what was sent.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use russh::keys::{Algorithm, PrivateKey};
use russh::server::{self, Auth, Msg, Server as _, Session};
use russh::{Channel, ChannelId, MethodKind, MethodSet, Preferred, cipher, kex, mac};
use tokio::net::TcpListener;

use super::wire::{Pacer, proxy};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Eos,
    Fortigate,
}

/// What the device does.
#[derive(Clone, Debug)]
pub struct Script {
    pub kind: Kind,
    pub hostname: String,
    pub password: String,
    /// Only keyboard-interactive login is offered (some AAA setups).
    pub keyboard_interactive_only: bool,
    /// EOS: log in at `#` already (privilege 15).
    pub start_privileged: bool,
    /// EOS: `enable` asks `Password:` and wants this.
    pub enable_password: Option<String>,
    /// EOS: `enable` is refused by AAA authorization.
    pub enable_denied: bool,
    /// Echo what is typed at `Password:` (a misbehaving line; tests redaction).
    pub echo_password: bool,
    /// command -> output (lines separated by `\n`).
    pub answers: HashMap<String, String>,
    /// Commands that need `#`.
    pub privileged_only: Vec<String>,
    /// Page outputs longer than this many lines with `--More--` (EOS: until `terminal length 0`).
    pub page_lines: Option<usize>,
    /// Keep paging even after `terminal length 0` (a refused session setting).
    pub pager_sticky: bool,
    /// Never answer this command.
    pub hang_on: Option<String>,
    /// Wait this long before every answer.
    pub delay: Duration,
    /// VDOM names (FortiGate); empty: VDOMs are disabled on this box.
    pub vdoms: Vec<String>,
    /// Offer only old algorithms (group14-sha1, aes-cbc, hmac-sha1).
    pub legacy_only: bool,
    /// Ask `(Press 'a' to accept):` after login (FortiGate).
    pub banner: bool,
    /// Print a second prompt shortly after the first (some devices do after login).
    pub stray_prompt: bool,
    /// Echo what is typed at `Password:` broken over two lines.
    pub echo_password_split: bool,
    /// On this command, stop everything: no output, no keepalive replies (a frozen box).
    pub freeze_on: Option<String>,
    /// On this command, print pages of `--More--` without end and stop reading input.
    pub flood_on: Option<String>,
    /// On this command, print session-list blocks without end (as fast as the client reads),
    /// still reading input.
    pub endless_on: Option<String>,
    /// command -> its output as packets: the echo, then each packet `pause` after the one
    /// before, then the prompt `pause` later (raw bytes: write `\r\n` yourself).
    pub paced: HashMap<String, Vec<String>>,
    /// Echo what is typed at `Password:` cut at these character positions: one line and one
    /// packet per piece, `pause` apart.
    pub echo_password_cuts: Vec<usize>,
    /// The pause between paced packets.
    pub pause: Duration,
}

impl Script {
    pub fn eos(hostname: &str, password: &str) -> Script {
        Script {
            kind: Kind::Eos,
            hostname: hostname.into(),
            password: password.into(),
            keyboard_interactive_only: false,
            start_privileged: false,
            enable_password: None,
            enable_denied: false,
            echo_password: false,
            answers: HashMap::new(),
            privileged_only: vec![
                "show running-config".into(),
                "show running-config diffs".into(),
            ],
            page_lines: None,
            pager_sticky: false,
            hang_on: None,
            delay: Duration::ZERO,
            vdoms: Vec::new(),
            legacy_only: false,
            banner: false,
            stray_prompt: false,
            echo_password_split: false,
            freeze_on: None,
            flood_on: None,
            endless_on: None,
            paced: HashMap::new(),
            echo_password_cuts: Vec::new(),
            pause: Duration::from_millis(150),
        }
    }

    pub fn fortigate(hostname: &str, password: &str) -> Script {
        Script {
            kind: Kind::Fortigate,
            privileged_only: Vec::new(),
            ..Script::eos(hostname, password)
        }
    }

    pub fn answer(mut self, command: &str, output: &str) -> Script {
        self.answers.insert(command.into(), output.into());
        self
    }

    /// Answers `command` with `packets`, `pause` apart (see [`Script::paced`]).
    pub fn paced(mut self, command: &str, packets: &[&str]) -> Script {
        let packets = packets.iter().map(|p| p.to_string()).collect();
        self.paced.insert(command.into(), packets);
        self
    }
}

/// A running device. Dropping it stops the server.
pub struct Device {
    pub port: u16,
    pub host_key: russh::keys::PublicKey,
    /// Every line received, in order (passwords included: the device sees them).
    pub received: Arc<Mutex<Vec<String>>>,
    /// When each of `received` arrived.
    pub received_at: Arc<Mutex<Vec<std::time::Instant>>>,
    /// VDOMs that `edit` created (a configuration change premarket must never cause).
    pub created: Arc<Mutex<Vec<String>>>,
    shutdown: server::RunningServerHandle,
}

impl Device {
    pub async fn start(script: Script) -> Device {
        let key = PrivateKey::random(&mut rand::rng(), Algorithm::Ed25519).unwrap();
        let host_key = key.public_key().clone();
        let mut methods = MethodSet::empty();
        if !script.keyboard_interactive_only {
            methods.push(MethodKind::Password);
        }
        methods.push(MethodKind::KeyboardInteractive);
        let mut config = server::Config {
            keys: vec![key],
            methods,
            auth_rejection_time: Duration::from_millis(10),
            auth_rejection_time_initial: Some(Duration::from_millis(0)),
            ..Default::default()
        };
        if script.legacy_only {
            config.preferred = Preferred {
                kex: (&[kex::DH_G14_SHA1][..]).into(),
                cipher: (&[cipher::AES_128_CBC][..]).into(),
                mac: (&[mac::HMAC_SHA1][..]).into(),
                ..Preferred::DEFAULT.clone()
            };
        }
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let mut port = listener.local_addr().unwrap().port();
        let received = Arc::new(Mutex::new(Vec::new()));
        let received_at = Arc::new(Mutex::new(Vec::new()));
        let created = Arc::new(Mutex::new(Vec::new()));
        let deaf = Arc::new(AtomicBool::new(false));
        if script.flood_on.is_some() {
            port = proxy(port, deaf.clone()).await;
        }
        let mut server = Server {
            script: Arc::new(script),
            received: received.clone(),
            received_at: received_at.clone(),
            created: created.clone(),
            deaf,
        };
        let (tx, rx) = tokio::sync::oneshot::channel();
        tokio::spawn(async move {
            let running = server.run_on_socket(Arc::new(config), &listener);
            let _ = tx.send(running.handle());
            let _ = running.await;
        });
        let shutdown = rx.await.unwrap();
        Device {
            port,
            host_key,
            received,
            received_at,
            created,
            shutdown,
        }
    }

    pub fn known_hosts_line(&self) -> String {
        premarket::ssh::hostkey::known_hosts_line("127.0.0.1", self.port, &self.host_key)
    }

    pub fn received(&self) -> Vec<String> {
        self.received.lock().unwrap().clone()
    }

    /// Every line received, with when it arrived.
    pub fn received_timed(&self) -> Vec<(String, std::time::Instant)> {
        let at = self.received_at.lock().unwrap().clone();
        self.received().into_iter().zip(at).collect()
    }
}

impl Drop for Device {
    fn drop(&mut self) {
        self.shutdown.shutdown("test over".into());
    }
}

struct Server {
    script: Arc<Script>,
    received: Arc<Mutex<Vec<String>>>,
    received_at: Arc<Mutex<Vec<std::time::Instant>>>,
    created: Arc<Mutex<Vec<String>>>,
    deaf: Arc<AtomicBool>,
}

impl server::Server for Server {
    type Handler = Handler;
    fn new_client(&mut self, _: Option<std::net::SocketAddr>) -> Handler {
        Handler {
            script: self.script.clone(),
            received: self.received.clone(),
            received_at: self.received_at.clone(),
            created: self.created.clone(),
            deaf: self.deaf.clone(),
            line: Vec::new(),
            privileged: self.script.start_privileged,
            awaiting_password: false,
            paging: self.script.page_lines,
            pending_pages: Vec::new(),
            context: None,
            banner_pending: self.script.banner,
            pacer: None,
        }
    }
}

struct Handler {
    script: Arc<Script>,
    received: Arc<Mutex<Vec<String>>>,
    received_at: Arc<Mutex<Vec<std::time::Instant>>>,
    created: Arc<Mutex<Vec<String>>>,
    deaf: Arc<AtomicBool>,
    line: Vec<u8>,
    privileged: bool,
    awaiting_password: bool,
    paging: Option<usize>,
    /// Pages still to show after a `--More--`.
    pending_pages: Vec<String>,
    context: Option<String>,
    banner_pending: bool,
    /// Made when the shell starts.
    pacer: Option<Pacer>,
}

impl Handler {
    fn prompt(&self) -> String {
        let s = &self.script;
        match s.kind {
            Kind::Eos => format!("{}{}", s.hostname, if self.privileged { "#" } else { ">" }),
            Kind::Fortigate => match &self.context {
                Some(c) => format!("{} ({c}) # ", s.hostname),
                None => format!("{} # ", s.hostname),
            },
        }
    }

    fn pager(&self) -> &'static str {
        match self.script.kind {
            Kind::Eos => " --More-- ",
            Kind::Fortigate => "--More-- ",
        }
    }

    /// The reply to one line as paced packets, when the script paces it.
    fn paced_reply(&mut self, line: &str) -> Option<Vec<String>> {
        let s = self.script.clone();
        if self.awaiting_password && !s.echo_password_cuts.is_empty() {
            self.awaiting_password = false;
            let mut packets = super::wire::lines_cut_at(line, &s.echo_password_cuts);
            let ok = Some(line) == s.enable_password.as_deref();
            self.privileged |= ok;
            let denied = if ok { "" } else { "% Access denied\r\n" };
            packets.push(format!("{denied}{}", self.prompt()));
            return Some(packets);
        }
        let pieces = s.paced.get(line)?;
        if s.privileged_only.iter().any(|p| p == line) && !self.privileged {
            return None;
        }
        let mut packets = vec![format!("{line}\r\n")];
        packets.extend(pieces.iter().cloned());
        packets.push(self.prompt());
        Some(packets)
    }

    /// Sends a reply now, or behind the paced packets still queued.
    fn send(
        &self,
        session: &mut Session,
        id: ChannelId,
        reply: String,
    ) -> Result<(), russh::Error> {
        let Some(pacer) = self.pacer.as_ref().filter(|p| p.busy()) else {
            return session.data(id, reply.into_bytes());
        };
        pacer.push(Duration::ZERO, reply);
        Ok(())
    }

    /// The reply to one line, or `None` to stay silent (hang).
    fn respond(&mut self, line: &str) -> Option<String> {
        let s = self.script.clone();
        if self.awaiting_password {
            self.awaiting_password = false;
            let echoed = if s.echo_password_split {
                let half = line.len() / 2;
                format!("{}\r\n{}\r\n", &line[..half], &line[half..])
            } else if s.echo_password {
                format!("{line}\r\n")
            } else {
                "\r\n".into()
            };
            return Some(if Some(line) == s.enable_password.as_deref() {
                self.privileged = true;
                format!("{echoed}{}", self.prompt())
            } else {
                format!("{echoed}% Access denied\r\n{}", self.prompt())
            });
        }
        let echo = format!("{line}\r\n");
        if s.hang_on.as_deref() == Some(line) {
            return None;
        }
        let out = match (s.kind, line) {
            // Enter alone: the prompt again, as every CLI answers it.
            (_, "") => String::new(),
            (Kind::Eos, "enable") if s.enable_denied => {
                "% Authorization denied for command 'enable'\r\n".to_string()
            }
            (Kind::Eos, "enable") if self.privileged => String::new(),
            (Kind::Eos, "enable") => match &s.enable_password {
                Some(_) => {
                    self.awaiting_password = true;
                    return Some(format!("{echo}Password: "));
                }
                None => {
                    self.privileged = true;
                    String::new()
                }
            },
            (Kind::Eos, "terminal length 0") => {
                if !s.pager_sticky {
                    self.paging = None;
                }
                "Pagination disabled.\r\n".into()
            }
            (Kind::Eos, "terminal width 511") => "Width set to 511 columns.\r\n".into(),
            (Kind::Fortigate, "get system status") if !s.answers.contains_key(line) => format!(
                "Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)\r\nHostname: {}\r\nVirtual domain configuration: {}\r\n",
                s.hostname,
                if s.vdoms.is_empty() {
                    "disable"
                } else {
                    "multiple"
                }
            ),
            (Kind::Fortigate, "config vdom" | "config global") if s.vdoms.is_empty() => {
                let word = &line[7..];
                format!("command parse error before '{word}'\r\nCommand fail. Return code -61\r\n")
            }
            (Kind::Fortigate, "config vdom") => {
                self.context = Some("vdom".into());
                "\r\n".into()
            }
            (Kind::Fortigate, "config global") => {
                self.context = Some("global".into());
                "\r\n".into()
            }
            (Kind::Fortigate, "diagnose sys vd list")
                if self.context.as_deref() == Some("global") =>
            {
                let mut names = s.vdoms.clone();
                names.insert(1.min(names.len()), "vsys_ha".into());
                names.extend(self.created.lock().unwrap().iter().cloned());
                let mut out =
                    "system fib version=58\r\nlist virtual firewall info:\r\n".to_string();
                for (i, n) in names.iter().enumerate() {
                    out.push_str(&format!("name={n}/{n} index={i} enabled fib_ver=3 use=9 rt_num=4\r\n\ttree_flag=1 tree6_flag=0\r\n"));
                }
                out.push_str(&format!("vf_count={} vfe_count=0\r\n", names.len()));
                out
            }
            (Kind::Fortigate, "end") => {
                self.context = None;
                "\r\n".into()
            }
            (Kind::Fortigate, l)
                if l.starts_with("edit ") && self.context.as_deref() == Some("vdom") =>
            {
                // As FortiOS does: `edit` of a missing VDOM creates it.
                let name = &l[5..];
                if !s.vdoms.iter().any(|v| v == name) {
                    self.created.lock().unwrap().push(name.to_string());
                }
                self.context = Some(name.to_string());
                format!("current vf={name}:1\r\n\r\n")
            }
            (_, l) if s.privileged_only.iter().any(|p| p == l) && !self.privileged => {
                "% Invalid input (privileged mode required)\r\n".into()
            }
            (kind, l) => match s.answers.get(l) {
                Some(output) => {
                    let lines: Vec<String> = output.lines().map(|l| format!("{l}\r\n")).collect();
                    match self.paging {
                        Some(n) if lines.len() > n => {
                            let mut pages: Vec<String> =
                                lines.chunks(n).map(|c| c.concat()).collect();
                            let first = pages.remove(0);
                            pages.reverse();
                            self.pending_pages = pages;
                            return Some(format!("{echo}{first}{}", self.pager()));
                        }
                        _ => lines.concat(),
                    }
                }
                None if kind == Kind::Eos => "% Invalid input\r\n".into(),
                None => "Unknown action 0\r\n".into(),
            },
        };
        Some(format!("{echo}{out}{}", self.prompt()))
    }

    /// A key pressed at `--More--`: the next page (erasing the pager line first).
    fn next_page(&mut self) -> Option<String> {
        let page = self.pending_pages.pop()?;
        let erase = "\r          \r";
        Some(if self.pending_pages.is_empty() {
            format!("{erase}{page}{}", self.prompt())
        } else {
            format!("{erase}{page}{}", self.pager())
        })
    }
}

impl server::Handler for Handler {
    type Error = russh::Error;

    async fn auth_password(&mut self, _user: &str, password: &str) -> Result<Auth, Self::Error> {
        if !self.script.keyboard_interactive_only && password == self.script.password {
            Ok(Auth::Accept)
        } else {
            Ok(Auth::reject())
        }
    }

    async fn auth_keyboard_interactive<'a>(
        &'a mut self,
        _user: &str,
        _submethods: &str,
        response: Option<server::Response<'a>>,
    ) -> Result<Auth, Self::Error> {
        match response {
            None => Ok(Auth::Partial {
                name: "".into(),
                instructions: "".into(),
                prompts: vec![("Password: ".into(), false)].into(),
            }),
            Some(mut answers) => match answers.next() {
                Some(pw) if pw.as_ref() == self.script.password.as_bytes() => Ok(Auth::Accept),
                _ => Ok(Auth::reject()),
            },
        }
    }

    async fn channel_open_session(
        &mut self,
        _channel: Channel<Msg>,
        reply: server::ChannelOpenHandle,
        _session: &mut Session,
    ) -> Result<(), Self::Error> {
        reply.accept().await;
        Ok(())
    }

    async fn pty_request(
        &mut self,
        channel: ChannelId,
        _term: &str,
        _w: u32,
        _h: u32,
        _pw: u32,
        _ph: u32,
        _modes: &[(russh::Pty, u32)],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)
    }

    async fn shell_request(
        &mut self,
        channel: ChannelId,
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        session.channel_success(channel)?;
        self.pacer = Some(Pacer::start(session.handle(), channel));
        let greeting = if self.banner_pending {
            "WARNING: authorised access only\r\n(Press 'a' to accept):".to_string()
        } else {
            format!("\r\nLast login: never\r\n{}", self.prompt())
        };
        if self.script.stray_prompt {
            let (handle, again) = (session.handle(), format!("\r\n{}", self.prompt()));
            tokio::spawn(async move {
                tokio::time::sleep(Duration::from_millis(50)).await;
                let _ = handle.data(channel, again.into_bytes()).await;
            });
        }
        session.data(channel, greeting.into_bytes())
    }

    async fn data(
        &mut self,
        channel: ChannelId,
        data: &[u8],
        session: &mut Session,
    ) -> Result<(), Self::Error> {
        for &b in data {
            if self.banner_pending {
                if b == b'a' {
                    self.banner_pending = false;
                    session.data(channel, format!("a\r\n{}", self.prompt()).into_bytes())?;
                }
                continue;
            }
            if !self.pending_pages.is_empty() {
                if let Some(page) = self.next_page() {
                    tokio::time::sleep(self.script.delay).await;
                    session.data(channel, page.into_bytes())?;
                }
                continue;
            }
            if b == b'\n' || b == b'\r' {
                let line = String::from_utf8_lossy(&self.line).into_owned();
                self.line.clear();
                self.received.lock().unwrap().push(line.clone());
                self.received_at
                    .lock()
                    .unwrap()
                    .push(std::time::Instant::now());
                if self.script.freeze_on.as_deref() == Some(line.as_str()) {
                    // Frozen: the whole SSH session stops, keepalive replies included.
                    std::future::pending::<()>().await;
                }
                if self.script.flood_on.as_deref() == Some(line.as_str()) {
                    self.deaf.store(true, Ordering::SeqCst);
                    let handle = session.handle();
                    session.data(channel, format!("{line}\r\n").into_bytes())?;
                    tokio::spawn(async move {
                        let page = "more output\r\n--More-- ".repeat(64);
                        while handle
                            .data(channel, page.clone().into_bytes())
                            .await
                            .is_ok()
                        {}
                    });
                    return Ok(());
                }
                if self.script.endless_on.as_deref() == Some(line.as_str()) {
                    let handle = session.handle();
                    session.data(channel, format!("{line}\r\n").into_bytes())?;
                    tokio::spawn(async move {
                        let block = "session info: proto=17 proto_state=00 duration=1 expire=179 timeout=0 flags=00000000\r\nhook=pre dir=org act=noop 10.10.1.10:40001->10.20.1.20:5000(0.0.0.0:0)\r\nnpu_state=0x4000c00 ofld-O ofld-R\r\n".repeat(100);
                        // Until the client goes away: each send waits for its SSH window.
                        while handle
                            .data(channel, block.clone().into_bytes())
                            .await
                            .is_ok()
                        {}
                    });
                    continue;
                }
                if let Some(packets) = self.paced_reply(&line) {
                    if let Some(pacer) = &self.pacer {
                        pacer.push_all(packets, self.script.pause);
                    }
                } else if let Some(reply) = self.respond(&line) {
                    tokio::time::sleep(self.script.delay).await;
                    self.send(session, channel, reply)?;
                }
            } else {
                self.line.push(b);
            }
        }
        Ok(())
    }
}
