//! One SSH channel of an emulated device: a PTY shell (echo, line editing, prompt, `--More--`
//! pager) or an exec request (one command, exit status). Faults that concern the session rather
//! than the device's state live here: `slow` delays each answer, `hang` never answers the first
//! data command, `drop` cuts the connection halfway through its output.

use std::collections::VecDeque;
use std::sync::Arc;

use russh::ChannelMsg;
use russh::server::Msg;

use super::device::{Answer, Cli, Next};
use super::scenario::{Fault, Faults, SLOW_DELAY};

/// How a platform draws its pager and spaces its prompt.
#[derive(Clone, Copy, Debug)]
pub struct Style {
    /// Printed where the output pauses.
    pub more: &'static str,
    /// Printed after a key is pressed, to erase `more`.
    pub erase: &'static str,
    /// A blank line between the output and the next prompt (FortiOS prints one).
    pub blank_line: bool,
    /// The post-login banner waits for this key (FortiOS `post-login-banner`: `a`).
    pub accept_key: Option<u8>,
}

/// The login banner of the `banner` scenario.
const LOGIN_BANNER: &str = "WARNING: authorised use by the trading network team only. \
                            Sessions are logged.\n";

/// Cuts the TCP connection under the SSH session (the `drop` fault).
pub type Killer = Arc<dyn Fn() + Send + Sync>;

/// Everything a channel task needs.
pub struct Session {
    pub cli: Box<dyn Cli>,
    pub style: Style,
    pub faults: Faults,
    pub kill: Killer,
}

/// Ctrl-C.
const INTERRUPT: u8 = 3;

struct Io {
    channel: russh::Channel<Msg>,
    input: VecDeque<u8>,
    /// The previous byte ended a line with `\r`; a following `\n` belongs to it.
    after_cr: bool,
    crlf: bool,
    /// Echo not sent yet: typed-ahead input is echoed in one packet, not one per key.
    echo: Vec<u8>,
}

impl Io {
    async fn write(&mut self, text: &str) -> bool {
        let mut bytes = std::mem::take(&mut self.echo);
        if self.crlf {
            bytes.extend_from_slice(text.replace('\n', "\r\n").as_bytes());
        } else {
            bytes.extend_from_slice(text.as_bytes());
        }
        bytes.is_empty() || self.channel.data_bytes(bytes).await.is_ok()
    }

    fn echo(&mut self, text: &[u8]) {
        self.echo.extend_from_slice(text);
    }

    /// The next input byte; `None` when the client is gone.
    async fn byte(&mut self, cli: &mut dyn Cli) -> Option<u8> {
        let mut waited = false;
        loop {
            if let Some(b) = self.input.pop_front() {
                // A `\n` only completes a `\r\n` when both came together: a `\r` now and a
                // `\n` later (netmiko's `a\r`, then a RETURN) are two key presses.
                if waited {
                    self.after_cr = false;
                }
                return Some(b);
            }
            waited = true;
            if !self.echo.is_empty() && !self.write("").await {
                return None;
            }
            match self.channel.wait().await? {
                ChannelMsg::Data { data } => self.input.extend(data.iter()),
                ChannelMsg::WindowChange { row_height, .. } => cli.set_rows(row_height as usize),
                ChannelMsg::Eof | ChannelMsg::Close => return None,
                _ => {}
            }
        }
    }

    /// Reads one line, echoing it when `echo` (a password is not echoed). `None` = gone;
    /// `Some(None)` = the line was cancelled with Ctrl-C.
    async fn line(&mut self, cli: &mut dyn Cli, echo: bool) -> Option<Option<String>> {
        let mut line: Vec<u8> = Vec::new();
        loop {
            let b = self.byte(cli).await?;
            let after_cr = std::mem::replace(&mut self.after_cr, b == b'\r');
            match b {
                b'\n' if after_cr => continue,
                b'\r' | b'\n' => {
                    self.write("\n").await;
                    return Some(Some(String::from_utf8_lossy(&line).into_owned()));
                }
                INTERRUPT => {
                    self.write("^C\n").await;
                    return Some(None);
                }
                0x7f | 0x08 => {
                    if line.pop().is_some() && echo {
                        self.echo(b"\x08 \x08");
                    }
                }
                0x15 => {
                    if echo {
                        self.echo("\x08 \x08".repeat(line.len()).as_bytes());
                    }
                    line.clear();
                }
                0x1b => {
                    // An escape sequence (arrow keys): swallow `[` and its final byte.
                    if self.byte(cli).await? == b'[' {
                        while !self.byte(cli).await?.is_ascii_alphabetic() {}
                    }
                }
                b'\t' => {}
                b => {
                    line.push(b);
                    if echo {
                        self.echo(&[b]);
                    }
                }
            }
        }
    }

    /// Stays connected and silent until the client leaves (the `hang` fault).
    async fn hang(&mut self) {
        while let Some(msg) = self.channel.wait().await {
            if matches!(msg, ChannelMsg::Eof | ChannelMsg::Close) {
                return;
            }
        }
    }
}

/// Serves one session channel until the client closes it.
pub async fn serve(channel: russh::Channel<Msg>, mut session: Session) {
    let mut io = Io {
        channel,
        input: VecDeque::new(),
        after_cr: false,
        crlf: true,
        echo: Vec::new(),
    };
    let mut pty = false;
    loop {
        match io.channel.wait().await {
            Some(ChannelMsg::RequestPty { row_height, .. }) => {
                pty = true;
                session.cli.set_rows(row_height as usize);
            }
            Some(ChannelMsg::RequestShell { .. }) => {
                io.crlf = pty;
                shell(&mut io, &mut session).await;
                break;
            }
            Some(ChannelMsg::Exec { command, .. }) => {
                io.crlf = pty;
                // One command, no prompt after it: no blank line before a prompt either.
                session.style.blank_line = false;
                exec(&mut io, &mut session, &String::from_utf8_lossy(&command)).await;
                break;
            }
            Some(ChannelMsg::Eof | ChannelMsg::Close) | None => return,
            Some(_) => {}
        }
    }
    let _ = io.channel.eof().await;
    let _ = io.channel.close().await;
}

async fn shell(io: &mut Io, s: &mut Session) {
    if s.faults.has(Fault::Banner) {
        io.write(LOGIN_BANNER).await;
        if let Some(key) = s.style.accept_key {
            io.write(&format!("(Press '{}' to accept):", key as char))
                .await;
            loop {
                match io.byte(s.cli.as_mut()).await {
                    Some(b) if b == key => break,
                    Some(_) => {}
                    None => return,
                }
            }
            io.write("\n").await;
        }
    }
    let banner = s.cli.banner();
    if !banner.is_empty() && !io.write(&banner).await {
        return;
    }
    loop {
        if !io.write(&s.cli.prompt()).await {
            return;
        }
        let Some(line) = io.line(s.cli.as_mut(), true).await else {
            return;
        };
        let Some(line) = line else { continue };
        let mut answer = s.cli.run(&line);
        loop {
            if !deliver(io, s, &answer).await {
                return;
            }
            match &answer.next {
                Next::Prompt => break,
                Next::Exit => return,
                Next::Secret(prompt) => {
                    io.write(prompt).await;
                    let Some(reply) = io.line(s.cli.as_mut(), false).await else {
                        return;
                    };
                    answer = s.cli.secret(&reply.unwrap_or_default());
                }
            }
        }
    }
}

async fn exec(io: &mut Io, s: &mut Session, command: &str) {
    let mut answer = s.cli.run(command);
    if let Next::Secret(prompt) = &answer.next {
        io.write(prompt).await;
        let reply = io
            .line(s.cli.as_mut(), false)
            .await
            .flatten()
            .unwrap_or_default();
        answer = s.cli.secret(&reply);
    }
    if deliver(io, s, &answer).await {
        let _ = io.channel.exit_status(0).await;
    }
}

/// Prints an answer with the faults and the pager applied. `false` = the session is over.
async fn deliver(io: &mut Io, s: &mut Session, answer: &Answer) -> bool {
    if s.faults.has(Fault::Slow) {
        tokio::time::sleep(SLOW_DELAY).await;
    }
    if answer.data && s.faults.has(Fault::Hang) {
        io.hang().await;
        return false;
    }
    let lines: Vec<&str> = answer.text.split_inclusive('\n').collect();
    if answer.data && s.faults.has(Fault::Drop) {
        let half: String = lines[..lines.len() / 2].concat();
        io.write(&half).await;
        // Let the half reach the client before the connection goes (data is queued, not sent).
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        (s.kill)();
        return false;
    }
    let mut text = answer.text.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let ok = match answer.page {
        Some(page) if page > 0 && lines.len() > page => paged(io, s, &lines, page).await,
        _ => io.write(&text).await,
    };
    if ok && s.style.blank_line && answer.next == Next::Prompt {
        return io.write("\n").await;
    }
    ok
}

/// Writes `lines` a page at a time: space = next page, Enter = next line, q or Ctrl-C = stop.
async fn paged(io: &mut Io, s: &mut Session, lines: &[&str], page: usize) -> bool {
    let mut at = 0;
    let mut step = page;
    while at < lines.len() {
        let end = (at + step).min(lines.len());
        let mut chunk = lines[at..end].concat();
        if end == lines.len() && !chunk.ends_with('\n') {
            chunk.push('\n');
        }
        if !io.write(&chunk).await {
            return false;
        }
        at = end;
        if at == lines.len() {
            break;
        }
        io.write(s.style.more).await;
        let Some(mut key) = io.byte(s.cli.as_mut()).await else {
            return false;
        };
        if key == b'\n' && std::mem::take(&mut io.after_cr) {
            // The `\n` of the `\r\n` that ended the command line is not a key press.
            let Some(next) = io.byte(s.cli.as_mut()).await else {
                return false;
            };
            key = next;
        }
        io.after_cr = key == b'\r';
        io.write(s.style.erase).await;
        match key {
            b'q' | b'Q' | INTERRUPT => return true,
            b'\r' | b'\n' => step = 1,
            _ => step = page,
        }
    }
    true
}
