//! One interactive shell on a PTY: write a guarded [`Line`], read until the prompt comes back.
//!
//! Every wait has a deadline, writes included: a device that stops reading (its SSH window
//! stays shut, e.g. while it floods `--More--`) cannot hold a write for ever. The pager and the
//! banner are answered with keys that passed the guard like any line, as soon as the screen
//! sees them, and only the last line of the screen is ever compared with the prompt, so reading
//! a large output stays linear. A read that ends in silence says how long the device has been
//! silent ("not answering for N s"), which is not the same as the device closing the session.
//!
//! Finished lines leave the screen as they arrive, into the reply's [`Body`] (echo dropped,
//! kept as printed, spooled to disk when large), so memory stays bounded whatever the device
//! prints; past the per-command cap the read ends with [`ShellError::TooLarge`] and the
//! session is abandoned like any failed read. What the device printed after the previous
//! prompt and before the echo is kept after every read ([`Shell::take_stray`]) for the driver
//! to judge: a prompt is only the end of an output if nothing but the next echo follows it.

use std::sync::Arc;

use regex::Regex;
use russh::ChannelMsg;
use russh::client::{Handle, Msg};
use tokio::time::{Duration, Instant};

use super::body::{Body, Stray};
use super::guard::Line;
use super::profile::Profile;
use super::screen::Screen;
use super::transport::{Client, Refusal};
use premarket_core::{Megabytes, Output};
use premarket_spool::{SpoolDir, SpoolError, SpoolWriter};

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
    /// The reply grew past the per-command cap (`ssh.max_output_mb`).
    #[error("output exceeded {0}")]
    TooLarge(Megabytes),
    #[error("{0}")]
    Spool(String),
    /// The connection ended under the session while the device was still talking.
    #[error("the connection to the device was lost")]
    Lost,
    #[error("SSH error: {0}")]
    Ssh(String),
    #[error("{0}")]
    Refused(#[from] super::guard::Refused),
    /// The device re-keyed with a host key the pin or known_hosts does not accept: russh
    /// ended the session inside the key exchange.
    #[error("{0}")]
    HostKey(Box<super::hostkey::HostKeyError>),
    /// The device printed after a prompt (judged by the driver).
    #[error("{0}")]
    OutOfStep(premarket_core::CollectError),
}

/// What ended a read: the prompt, or one of the extra patterns (e.g. `Password:`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Matched {
    Prompt,
    Extra(usize),
}

/// A reply read up to the prompt: its output (echo dropped) and that prompt.
#[derive(Debug)]
pub struct Answer {
    pub output: Output,
    pub prompt: String,
    pub matched: Matched,
    /// The echo of the line was seen (or none was awaited).
    pub echoed: bool,
}

/// Where replies go and how large one may grow.
#[derive(Clone, Debug)]
pub struct Spooling {
    pub dir: SpoolDir,
    pub cap: Megabytes,
}

impl From<SpoolError> for ShellError {
    fn from(e: SpoolError) -> Self {
        match e {
            SpoolError::Exceeded(cap) => ShellError::TooLarge(cap),
            SpoolError::Io(reason) => ShellError::Spool(reason),
        }
    }
}

pub struct Shell {
    channel: russh::Channel<Msg>,
    screen: Screen,
    prompt: Arc<Regex>,
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
    spooling: Spooling,
    /// What the last read found between the previous prompt and its echo.
    stray: Stray,
    /// Set when a re-key's host key was refused: every failure after it is that.
    refusal: Refusal,
}

impl Shell {
    pub async fn open(
        handle: &Handle<Client>,
        profile: &'static Profile,
        keepalive: Duration,
        spooling: Spooling,
        refusal: Refusal,
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
            spooling,
            stray: Stray::default(),
            refusal,
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

    /// [`Shell::is_prompt`] as a test the body can hold while the shell reads.
    fn prompt_test(&self) -> impl Fn(&str) -> bool + Sync + 'static {
        let (prompt, host) = (self.prompt.clone(), self.host.clone());
        move |line: &str| {
            prompt.is_match(line) && host.as_deref().is_none_or(|h| line.starts_with(h))
        }
    }

    /// What the last read found printed after the previous prompt, before its echo (blank
    /// lines and the prompt drawn again aside); empty when the device was in step.
    pub fn take_stray(&mut self) -> Stray {
        std::mem::take(&mut self.stray)
    }

    /// Writes one guarded line; the only way bytes reach the device.
    pub async fn send(&mut self, line: &Line, deadline: Instant) -> Result<(), ShellError> {
        let result = self.write(line, deadline).await.map_err(|e| self.why(e));
        self.broken |= result.is_err();
        result
    }

    /// A failure as it was: the refused host key of a re-key, when that ended the session.
    fn why(&self, e: ShellError) -> ShellError {
        self.refusal
            .get()
            .map_or(e, |refused| ShellError::HostKey(Box::new(refused)))
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

    /// Reads until the prompt (or one of `extra`) is the last line; returns the reply.
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
    ) -> Result<Answer, ShellError> {
        // The body borrows these while the screen and the channel are used beside it.
        let spooling = self.spooling.clone();
        let is_prompt = self.prompt_test();
        let writer = SpoolWriter::new(&spooling.dir, spooling.cap);
        let mut body = Body::new(echo, &is_prompt, writer);
        let ended = self
            .read_until(&mut body, echo, extra, deadline, seconds, &spooling)
            .await;
        self.stray = body.stray().clone();
        let echoed = body.echoed();
        let result = ended.and_then(|(prompt, matched)| {
            Ok(Answer {
                output: body.finish()?,
                prompt,
                matched,
                echoed,
            })
        });
        let result = result.map_err(|e| self.why(e));
        self.broken |= result.is_err();
        result
    }

    /// True after a read or write failed: the device's state is unknown, send nothing more.
    pub fn is_broken(&self) -> bool {
        self.broken
    }

    /// Reads into `body` until the prompt (or an extra pattern) is the last line; that line and
    /// what matched it.
    async fn read_until(
        &mut self,
        body: &mut Body<'_>,
        echo: Option<&str>,
        extra: &[&Regex],
        deadline: Instant,
        seconds: u64,
        spooling: &Spooling,
    ) -> Result<(String, Matched), ShellError> {
        loop {
            self.screen.drain_with(|lines| match lines {
                [] => Ok(()),
                lines => body.push(lines),
            })?;
            let echoed =
                body.echoed() || echo.is_some_and(|e| self.screen.line_contains(e.as_bytes()));
            if let Some(last) = self.screen.last_line().filter(|_| echoed) {
                let matched = if self.is_prompt(&last) {
                    Some(Matched::Prompt)
                } else {
                    extra
                        .iter()
                        .position(|re| re.is_match(&last))
                        .map(Matched::Extra)
                };
                if let Some(matched) = matched {
                    return Ok((self.screen.take(), matched));
                }
                if let Some((banner, key)) = self.banner.clone()
                    && last.trim_end().ends_with(banner)
                {
                    // What came before the banner is not a reply.
                    self.screen.take();
                    body.restart(echo, SpoolWriter::new(&spooling.dir, spooling.cap));
                    self.write(&key, deadline).await?;
                }
            }
            // A device that never stops printing keeps `wait()` ready, and a ready future wins
            // over its timeout: the deadline is checked here as well.
            if Instant::now() >= deadline {
                return Err(ShellError::Timeout {
                    seconds,
                    last: self.screen.last_line().unwrap_or_default(),
                });
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
    ) -> Result<Answer, ShellError> {
        self.send(line, deadline).await?;
        let echo = (!line.is_secret()).then(|| line.shown());
        self.read(echo, extra, deadline, seconds).await
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
