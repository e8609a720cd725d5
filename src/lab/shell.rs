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
            let next = answer.next.clone();
            if !deliver(io, s, answer).await {
                return;
            }
            match &next {
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
    if deliver(io, s, answer).await {
        let _ = io.channel.exit_status(0).await;
    }
}

/// Prints an answer with the faults and the pager applied. `false` = the session is over.
async fn deliver(io: &mut Io, s: &mut Session, answer: Answer) -> bool {
    if s.faults.has(Fault::Slow) {
        tokio::time::sleep(SLOW_DELAY).await;
    }
    if answer.data && s.faults.has(Fault::Hang) {
        io.hang().await;
        return false;
    }
    let prompt_next = answer.next == Next::Prompt;
    let data = answer.data;
    let Answer {
        text, mut stream, ..
    } = answer;
    if data && s.faults.has(Fault::Drop) {
        let mut text = text;
        if text.is_empty() {
            text = stream.and_then(|mut st| st.next()).unwrap_or_default();
        }
        let lines: Vec<&str> = text.split_inclusive('\n').collect();
        let half: String = lines[..lines.len() / 2].concat();
        io.write(&half).await;
        // Let the half reach the client before the connection goes (data is queued, not sent).
        tokio::time::sleep(std::time::Duration::from_millis(300)).await;
        (s.kill)();
        return false;
    }
    let page = answer.page.filter(|p| *p > 0);
    let mut out = Output {
        page,
        step: page.unwrap_or(usize::MAX),
        in_page: 0,
        pending: String::new(),
        ends_line: true,
    };
    let mut ok = match out.write(io, s, &text).await {
        Flow::More => true,
        Flow::Quit => {
            stream = None;
            true
        }
        Flow::Gone => false,
    };
    while ok && let Some(piece) = stream.as_mut().and_then(Iterator::next) {
        match out.write(io, s, &piece).await {
            Flow::More => {}
            Flow::Quit => break,
            Flow::Gone => ok = false,
        }
    }
    // The pieces left unread (after `q`) are dropped with the stream: never made.
    drop(stream);
    ok = ok && out.finish(io).await;
    if ok && s.style.blank_line && prompt_next {
        return io.write("\n").await;
    }
    ok
}

/// What the pager says after a piece of output.
enum Flow {
    /// Carry on.
    More,
    /// The user pressed `q` (or Ctrl-C) at `--More--`: stop the output, print the prompt.
    Quit,
    /// The client is gone.
    Gone,
}

/// Output on its way to the client: lines are buffered into packets of up to [`PACKET`]
/// bytes and, with a pager, stop at `--More--` every `page` lines: space = next page,
/// Enter = next line, `q` or Ctrl-C = stop.
struct Output {
    page: Option<usize>,
    /// Lines before the next `--More--`: a page, or one line after Enter.
    step: usize,
    in_page: usize,
    pending: String,
    /// The last byte written ended a line.
    ends_line: bool,
}

/// Bytes per write: large enough to be cheap, small enough that a slow client holds the lab
/// back (the SSH window does the rest).
const PACKET: usize = 32 * 1024;

impl Output {
    async fn write(&mut self, io: &mut Io, s: &mut Session, text: &str) -> Flow {
        for line in text.split_inclusive('\n') {
            if self.page.is_some() && self.in_page >= self.step {
                match self.more(io, s).await {
                    Some(true) => self.in_page = 0,
                    Some(false) => return Flow::Quit,
                    None => return Flow::Gone,
                }
            }
            self.pending.push_str(line);
            self.ends_line = line.ends_with('\n');
            if self.ends_line {
                self.in_page += 1;
            }
            if self.pending.len() >= PACKET && !self.flush(io).await {
                return Flow::Gone;
            }
        }
        Flow::More
    }

    async fn flush(&mut self, io: &mut Io) -> bool {
        let text = std::mem::take(&mut self.pending);
        io.write(&text).await
    }

    /// Shows `--More--` and reads the key. `Some(true)` = go on, `Some(false)` = stop.
    async fn more(&mut self, io: &mut Io, s: &mut Session) -> Option<bool> {
        if !self.flush(io).await || !io.write(s.style.more).await {
            return None;
        }
        let mut key = io.byte(s.cli.as_mut()).await?;
        if key == b'\n' && std::mem::take(&mut io.after_cr) {
            // The `\n` of the `\r\n` that ended the command line is not a key press.
            key = io.byte(s.cli.as_mut()).await?;
        }
        io.after_cr = key == b'\r';
        if !io.write(s.style.erase).await {
            return None;
        }
        self.step = match key {
            b'q' | b'Q' | INTERRUPT => return Some(false),
            b'\r' | b'\n' => 1,
            _ => self.page.unwrap_or(usize::MAX),
        };
        Some(true)
    }

    /// Writes what is buffered, ending the output with a newline.
    async fn finish(&mut self, io: &mut Io) -> bool {
        if !self.ends_line {
            self.pending.push('\n');
        }
        self.flush(io).await
    }
}
