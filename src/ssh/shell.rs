//! One interactive shell on a PTY: write a guarded [`Line`], read until the prompt comes back.
//!
//! Every wait has a deadline, writes included: a device that stops reading (its SSH window
//! stays shut, e.g. while it floods `--More--`) cannot hold a write for ever. The pager and the
//! banner are answered with keys that passed the guard like any line, as soon as the screen
//! sees them, and only the last line of the screen is ever compared with the prompt, so reading
//! a large output stays linear. A read that ends in silence says how long the device has been
//! silent ("not answering for N s"), which is not the same as the device closing the session.

use regex::Regex;
use russh::ChannelMsg;
use russh::client::{Handle, Msg};
use tokio::time::{Duration, Instant};

use super::guard::Line;
use super::profile::Profile;
use super::screen::{Reply, Screen};
use super::transport::Client;

/// Terminal size asked for: wide so long commands are echoed on one line, tall so devices that
/// size their pager by the terminal page rarely.
const COLUMNS: u32 = 511;
const ROWS: u32 = 1000;
/// Closing the channel is a courtesy; it never holds the run longer than this.
const CLOSE_WAIT: Duration = Duration::from_secs(2);
/// A read that ends after at least this much silence is a device not answering; with output
/// still arriving it is one that did not finish in time.
const QUIET: Duration = Duration::from_secs(1);

/// Why a read or a write ended without the prompt. All of these abandon the session.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    /// Output kept coming, but not the prompt.
    #[error("no prompt within {seconds} s (last line seen: {last:?})")]
    Timeout { seconds: u64, last: String },
    /// Nothing came at all: a frozen device, or a network that dropped it.
    #[error("the device is not answering for {seconds} s (frozen, or the network dropped it)")]
    NotAnswering { seconds: u64 },
    /// A write could not go out: the device stopped reading what is sent to it.
    #[error("the device stopped reading: nothing sent could go out for {seconds} s")]
    NotReading { seconds: u64 },
    #[error("the device closed the session")]
    Closed,
    /// The connection ended under the session while the device was still talking.
    #[error("the connection to the device was lost")]
    Lost,
    #[error("SSH error: {0}")]
    Ssh(String),
    #[error("{0}")]
    Refused(#[from] super::guard::Refused),
}

/// What ended a read: the prompt, or one of the extra patterns (e.g. `Password:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matched {
    Prompt,
    Extra(usize),
}

pub struct Shell {
    channel: russh::Channel<Msg>,
    screen: Screen,
    prompt: Regex,
    /// The hostname learnt from the first prompt; later prompts must start with it, so an
    /// output line that merely looks like a prompt does not end a read.
    host: Option<String>,
    pager_answer: Line,
    banner: Option<(&'static str, Line)>,
    /// When the device last sent anything.
    heard: Instant,
    /// Silence after which a connection that ends was given up on keepalives.
    keepalive: Duration,
    broken: bool,
}

impl Shell {
    pub async fn open(
        handle: &Handle<Client>,
        profile: &'static Profile,
        keepalive: Duration,
    ) -> Result<Shell, ShellError> {
        let prompt = super::profile::compiled(profile.prompt)
            .map_err(|e| ShellError::Ssh(format!("bad prompt pattern: {e}")))?;
        let pager_answer = Line::pager_answer(profile)?;
        let banner = match (profile.banner, Line::banner_answer(profile)?) {
            (Some((text, _)), Some(key)) => Some((text, key)),
            _ => None,
        };
        let channel = handle.channel_open_session().await.map_err(ssh)?;
        channel
            .request_pty(true, "vt100", COLUMNS, ROWS, 0, 0, &[])
            .await
            .map_err(ssh)?;
        channel.request_shell(true).await.map_err(ssh)?;
        Ok(Shell {
            channel,
            screen: Screen::new(profile.pager),
            prompt,
            host: None,
            pager_answer,
            banner,
            heard: Instant::now(),
            keepalive,
            broken: false,
        })
    }

    /// Remembers the device's hostname from its prompt (`sw1>` -> `sw1`).
    pub fn learn_host(&mut self, prompt: &str) {
        let host: String = prompt
            .chars()
            .take_while(|c| !" (>#$".contains(*c))
            .collect();
        if !host.is_empty() {
            self.host = Some(host);
        }
    }

    fn is_prompt(&self, line: &str) -> bool {
        self.prompt.is_match(line) && self.host.as_deref().is_none_or(|h| line.starts_with(h))
    }

    /// Writes one guarded line; the only way bytes reach the device.
    pub async fn send(&mut self, line: &Line, deadline: Instant) -> Result<(), ShellError> {
        let result = self.write(line, deadline).await;
        self.broken |= result.is_err();
        result
    }

    async fn write(&mut self, line: &Line, deadline: Instant) -> Result<(), ShellError> {
        let started = Instant::now();
        match tokio::time::timeout_at(deadline, self.channel.data(&line.wire()[..])).await {
            Ok(result) => result.map_err(ssh),
            Err(_) => Err(ShellError::NotReading {
                seconds: started.elapsed().as_secs().max(1),
            }),
        }
    }

    /// Reads until the prompt (or one of `extra`) is the last line; returns everything read.
    ///
    /// With `echo`, a prompt only counts after the device has echoed that line: a stray prompt
    /// (some devices print two after login) must not end the reply before it has begun, or
    /// every later output would be paired with the wrong command.
    pub async fn read(
        &mut self,
        echo: Option<&str>,
        extra: &[&Regex],
        deadline: Instant,
        seconds: u64,
    ) -> Result<(String, Matched), ShellError> {
        let result = self.read_until(echo, extra, deadline, seconds).await;
        self.broken |= result.is_err();
        result
    }

    /// True after a read or write failed: the device's state is unknown, send nothing more.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    async fn read_until(
        &mut self,
        echo: Option<&str>,
        extra: &[&Regex],
        deadline: Instant,
        seconds: u64,
    ) -> Result<(String, Matched), ShellError> {
        let mut echoed = echo.is_none();
        let mut searched = 0;
        loop {
            if let (false, Some(line)) = (echoed, echo) {
                echoed = self.screen.find_from(searched, line.as_bytes());
                searched = self.screen.len().saturating_sub(line.len());
            }
            if let Some(last) = self.screen.last_line().filter(|_| echoed) {
                if self.is_prompt(&last) {
                    return Ok((self.screen.take(), Matched::Prompt));
                }
                if let Some(i) = extra.iter().position(|re| re.is_match(&last)) {
                    return Ok((self.screen.take(), Matched::Extra(i)));
                }
                if let Some((banner, key)) = self.banner.clone()
                    && last.trim_end().ends_with(banner)
                {
                    self.screen.take();
                    self.write(&key, deadline).await?;
                }
            }
            let message = match tokio::time::timeout_at(deadline, self.channel.wait()).await {
                Ok(message) => message,
                // Silent for a while: frozen (or cut off), whatever it printed before.
                Err(_) if self.heard.elapsed() >= QUIET => {
                    return Err(ShellError::NotAnswering {
                        seconds: whole_seconds(self.heard.elapsed()),
                    });
                }
                Err(_) => {
                    return Err(ShellError::Timeout {
                        seconds,
                        last: self.screen.last_line().unwrap_or_default(),
                    });
                }
            };
            match message {
                Some(ChannelMsg::Data { data }) | Some(ChannelMsg::ExtendedData { data, .. }) => {
                    self.heard = Instant::now();
                    for _ in 0..self.screen.feed(&data) {
                        let key = self.pager_answer.clone();
                        self.write(&key, deadline).await?;
                    }
                }
                Some(ChannelMsg::Eof | ChannelMsg::Close | ChannelMsg::ExitStatus { .. }) => {
                    return Err(ShellError::Closed);
                }
                // The connection itself ended without the device closing the channel: after a
                // keepalive interval of silence, russh gave up on keepalives the device no
                // longer answered; otherwise the network or the device cut it.
                None if self.heard.elapsed() >= self.keepalive => {
                    return Err(ShellError::NotAnswering {
                        seconds: whole_seconds(self.heard.elapsed()),
                    });
                }
                None => return Err(ShellError::Lost),
                Some(_) => {}
            }
        }
    }

    /// Sends `line` and reads its reply up to the prompt.
    pub async fn exec(
        &mut self,
        line: &Line,
        extra: &[&Regex],
        deadline: Instant,
        seconds: u64,
    ) -> Result<(Reply, Matched), ShellError> {
        self.send(line, deadline).await?;
        let echo = (!line.is_secret()).then(|| line.shown());
        let (text, matched) = self.read(echo, extra, deadline, seconds).await?;
        Ok((Reply::split(&text, echo), matched))
    }

    /// Closes the channel politely when the session still works; a broken one is dropped.
    pub async fn close(self) {
        if self.broken {
            return;
        }
        let _ = tokio::time::timeout(CLOSE_WAIT, async {
            let _ = self.channel.eof().await;
            let _ = self.channel.close().await;
        })
        .await;
    }
}

fn whole_seconds(d: Duration) -> u64 {
    (d.as_millis() as u64 + 500) / 1000
}

fn ssh(e: russh::Error) -> ShellError {
    ShellError::Ssh(e.to_string())
}
