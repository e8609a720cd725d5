//! One interactive shell on a PTY: send a checked line, read until the prompt comes back.
//!
//! Every wait has a deadline. The pager is answered as soon as the screen sees it, and only
//! the last line of the screen is ever compared with the prompt, so reading a large output
//! stays linear.

use regex::Regex;
use russh::ChannelMsg;
use russh::client::{Handle, Msg};
use secrecy::{ExposeSecret, SecretString};
use tokio::time::Instant;

use super::guard::Line;
use super::profile::Profile;
use super::screen::{Reply, Screen};
use super::transport::Client;

/// Terminal size asked for: wide so long commands are echoed on one line, tall so devices that
/// size their pager by the terminal page rarely.
const COLUMNS: u32 = 511;
const ROWS: u32 = 1000;

/// Why a read ended without the prompt. All of these abandon the session.
#[derive(Debug, thiserror::Error)]
pub enum ShellError {
    #[error("no prompt within {seconds} s (last line seen: {last:?})")]
    Timeout { seconds: u64, last: String },
    #[error("the device closed the session")]
    Closed,
    #[error("SSH error: {0}")]
    Ssh(String),
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
    profile: &'static Profile,
    broken: bool,
}

impl Shell {
    pub async fn open(
        handle: &Handle<Client>,
        profile: &'static Profile,
    ) -> Result<Shell, ShellError> {
        let prompt = super::profile::compiled(profile.prompt)
            .map_err(|e| ShellError::Ssh(format!("bad prompt pattern: {e}")))?;
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
            profile,
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

    pub async fn send(&mut self, line: &Line) -> Result<(), ShellError> {
        self.write(format!("{}\n", line.as_str()).as_bytes()).await
    }

    /// Answers a password prompt. The value goes to the channel only, never to a log.
    pub async fn send_secret(&mut self, secret: &SecretString) -> Result<(), ShellError> {
        let mut bytes = secret.expose_secret().as_bytes().to_vec();
        bytes.push(b'\n');
        self.write(&bytes).await
    }

    async fn write(&mut self, bytes: &[u8]) -> Result<(), ShellError> {
        self.channel.data(bytes).await.map_err(ssh)
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

    /// True after a read failed: the device's state is unknown, send nothing more.
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
                if let Some((banner, answer)) = self.profile.banner
                    && last.trim_end().ends_with(banner)
                {
                    self.screen.take();
                    self.write(answer.as_bytes()).await?;
                }
            }
            let message = match tokio::time::timeout_at(deadline, self.channel.wait()).await {
                Ok(message) => message,
                Err(_) => {
                    return Err(ShellError::Timeout {
                        seconds,
                        last: self.screen.last_line().unwrap_or_default(),
                    });
                }
            };
            match message {
                Some(ChannelMsg::Data { data }) | Some(ChannelMsg::ExtendedData { data, .. }) => {
                    for _ in 0..self.screen.feed(&data) {
                        self.write(self.profile.pager_answer.as_bytes()).await?;
                    }
                }
                Some(ChannelMsg::Eof | ChannelMsg::Close | ChannelMsg::ExitStatus { .. })
                | None => {
                    return Err(ShellError::Closed);
                }
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
        self.send(line).await?;
        let (text, matched) = self
            .read(Some(line.as_str()), extra, deadline, seconds)
            .await?;
        Ok((Reply::split(&text, Some(line.as_str())), matched))
    }

    pub async fn close(self) {
        let _ = self.channel.eof().await;
        let _ = self.channel.close().await;
    }
}

fn ssh(e: russh::Error) -> ShellError {
    ShellError::Ssh(e.to_string())
}
