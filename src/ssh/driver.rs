//! The device driver: what to send, in which order, and what the answers mean.
//!
//! After login it waits for the prompt, sends the platform's session settings, enters the
//! VDOM when the baseline names one, and then runs the planned commands. On EOS every command
//! is preceded by `enable` whenever the prompt is not privileged (the lab notes' third
//! finding). Commands that share a context (a FortiGate session filter) are grouped: the
//! context is sent once, then the commands, then the platform's context reset. A device error
//! fails only its command; a timeout or a closed session fails every command still to run.

use std::time::Duration;

use regex::Regex;
use secrecy::SecretString;
use tokio::time::Instant;

use super::guard::Line;
use super::profile::Profile;
use super::screen::Reply;
use super::shell::{Matched, Shell, ShellError};
use crate::core::CollectError;
use crate::core::Command;

/// A command's output as the device printed it, and the prompt it was typed at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    pub prompt: String,
    pub output: String,
}

/// How a step failed: only this command, or the whole session.
#[derive(Debug)]
enum Failure {
    Command(CollectError),
    Session(CollectError),
}

/// The enable secret and where it came from (shown in errors instead of the value).
pub struct EnableSecret {
    pub value: SecretString,
    pub reference: String,
}

pub struct Driver {
    shell: Shell,
    profile: &'static Profile,
    timeout: Duration,
    enable_secret: Option<EnableSecret>,
    password_prompt: Option<Regex>,
    /// The prompt the device showed last: the next command is typed at it.
    prompt: String,
    in_vdom: bool,
}

impl Driver {
    /// Waits for the first prompt, applies session settings, escalates and enters the VDOM.
    pub async fn start(
        shell: Shell,
        profile: &'static Profile,
        timeout: Duration,
        enable_secret: Option<EnableSecret>,
        vdom: Option<&str>,
    ) -> Result<Driver, CollectError> {
        let password_prompt = match &profile.enable {
            Some(e) => Some(
                super::profile::compiled(e.password_prompt)
                    .map_err(|e| CollectError::Other(e.to_string()))?,
            ),
            None => None,
        };
        let mut driver = Driver {
            shell,
            profile,
            timeout,
            enable_secret,
            password_prompt,
            prompt: String::new(),
            in_vdom: false,
        };
        let (text, _) = driver.read(None, &[]).await.map_err(|e| match e {
            // Usually a prompt the platform profile does not recognise: show what was seen.
            ShellError::Timeout { seconds, last } => CollectError::Other(format!(
                "no {} prompt recognised within {seconds} s after login (last line seen: {last:?})",
                profile.platform
            )),
            other => session(other),
        })?;
        let first = Reply::split(&text, None);
        driver.shell.learn_host(&first.prompt);
        driver.prompt = first.prompt;
        for setting in profile.on_open {
            // A refused session setting is not fatal: the pager is still answered.
            match driver
                .step(Line::command(profile, setting).map_err(refused)?)
                .await
            {
                Ok(_) | Err(Failure::Command(_)) => {}
                Err(Failure::Session(e)) => return Err(e),
            }
        }
        driver
            .ensure_privileged()
            .await
            .map_err(Failure::into_error)?;
        if let Some(name) = vdom {
            driver.enter_vdom(name).await.map_err(Failure::into_error)?;
        }
        Ok(driver)
    }

    /// Runs `commands` in order; one result per command.
    pub async fn run(
        &mut self,
        commands: &[Command],
    ) -> Vec<(Command, Result<Captured, CollectError>)> {
        let mut results = Vec::with_capacity(commands.len());
        let mut rest = commands;
        while let Some(first) = rest.first() {
            let size = rest
                .iter()
                .take_while(|c| c.context == first.context)
                .count();
            let (group, after) = rest.split_at(size);
            rest = after;
            if let Err(fatal) = self.run_group(group, &mut results).await {
                let reason = format!("not run: {fatal}");
                results.extend(
                    rest.iter()
                        .map(|c| (c.clone(), Err(CollectError::Other(reason.clone())))),
                );
                break;
            }
        }
        results
    }

    /// One group of commands sharing a context. `Err` means the session is unusable.
    async fn run_group(
        &mut self,
        group: &[Command],
        results: &mut Vec<(Command, Result<Captured, CollectError>)>,
    ) -> Result<(), CollectError> {
        let context = &group[0].context;
        for line in context {
            match self.command(line).await {
                Ok(_) => {}
                Err(Failure::Command(e)) => {
                    let reason = CollectError::Other(format!("context `{line}` failed: {e}"));
                    results.extend(group.iter().map(|c| (c.clone(), Err(reason.clone()))));
                    return self.reset_context(context).await;
                }
                Err(Failure::Session(e)) => {
                    results.extend(group.iter().map(|c| (c.clone(), Err(e.clone()))));
                    return Err(e);
                }
            }
        }
        for (i, command) in group.iter().enumerate() {
            match self.command(&command.text).await {
                Ok(captured) => results.push((command.clone(), Ok(captured))),
                Err(Failure::Command(e)) => results.push((command.clone(), Err(e))),
                Err(Failure::Session(e)) => {
                    results.push((command.clone(), Err(e.clone())));
                    let reason = CollectError::Other(format!("not run: {e}"));
                    results.extend(
                        group[i + 1..]
                            .iter()
                            .map(|c| (c.clone(), Err(reason.clone()))),
                    );
                    return Err(e);
                }
            }
        }
        self.reset_context(context).await
    }

    /// Undoes a context (clears the FortiGate session filter). If that fails the state of the
    /// session is unknown, so nothing more is run on it.
    async fn reset_context(&mut self, context: &[String]) -> Result<(), CollectError> {
        let Some(reset) = self.profile.context_reset.filter(|_| !context.is_empty()) else {
            return Ok(());
        };
        self.command(reset).await.map(|_| ()).map_err(|f| {
            let e = f.into_error();
            CollectError::Other(format!("could not undo the context with `{reset}`: {e}"))
        })
    }

    /// One command typed interactively (the probe's firewall cross-check): the same guard,
    /// privilege and device-error handling as a planned command.
    pub async fn line(&mut self, text: &str) -> Result<Captured, CollectError> {
        self.command(text).await.map_err(Failure::into_error)
    }

    /// Sends a line the guard already made (the probe's [`Line::filtered_session_clear`]).
    pub async fn send_checked(&mut self, line: Line) -> Result<Captured, CollectError> {
        self.checked(line).await.map_err(Failure::into_error)
    }

    /// One planned command: guard, privilege, send, read, check for device errors.
    async fn command(&mut self, text: &str) -> Result<Captured, Failure> {
        let line = Line::command(self.profile, text).map_err(|r| Failure::Command(refused(r)))?;
        self.checked(line).await
    }

    async fn checked(&mut self, line: Line) -> Result<Captured, Failure> {
        self.ensure_privileged().await?;
        let prompt = self.prompt.clone();
        let text = line.as_str().to_string();
        let reply = self.step(line).await?;
        if let Some((error, said)) = self.profile.error_in(&reply.output) {
            return Err(Failure::Command(CollectError::Device(format!(
                "`{text}`: {said} ({})",
                error.advice
            ))));
        }
        Ok(Captured {
            prompt,
            output: reply.output,
        })
    }

    /// Sends a checked line and reads the reply up to the prompt.
    async fn step(&mut self, line: Line) -> Result<Reply, Failure> {
        let deadline = Instant::now() + self.timeout;
        let (reply, _) = self
            .shell
            .exec(&line, &[], deadline, self.timeout.as_secs())
            .await
            .map_err(|e| {
                Failure::Session(match e {
                    ShellError::Timeout { seconds, .. } => CollectError::Timeout(seconds),
                    other => CollectError::Other(format!("`{}`: {other}", line.as_str())),
                })
            })?;
        self.prompt = reply.prompt.clone();
        Ok(reply)
    }

    async fn read(
        &mut self,
        echo: Option<&str>,
        extra: &[&Regex],
    ) -> Result<(String, Matched), ShellError> {
        let deadline = Instant::now() + self.timeout;
        let (text, matched) = self
            .shell
            .read(echo, extra, deadline, self.timeout.as_secs())
            .await?;
        if matched == Matched::Prompt {
            self.prompt = Reply::split(&text, None).prompt;
        }
        Ok((text, matched))
    }

    /// EOS: `enable` unless the prompt already shows privileged mode.
    async fn ensure_privileged(&mut self) -> Result<(), Failure> {
        let Some(enable) = &self.profile.enable else {
            return Ok(());
        };
        if self.prompt.trim_end().ends_with(enable.privileged_suffix) {
            return Ok(());
        }
        let line = Line::command(self.profile, enable.command)
            .map_err(|r| Failure::Session(refused(r)))?;
        self.shell
            .send(&line)
            .await
            .map_err(|e| Failure::Session(CollectError::Other(e.to_string())))?;
        let password_prompt = self.password_prompt.clone();
        let extra: Vec<&Regex> = password_prompt.iter().collect();
        let (mut text, matched) = self
            .read(Some(enable.command), &extra)
            .await
            .map_err(shell_failure)?;
        let mut sent_secret = None;
        if let Matched::Extra(_) = matched {
            let Some(secret) = &self.enable_secret else {
                return Err(Failure::Session(CollectError::Auth(
                    "the switch asks for an enable password and the baseline has no ssh.enable_secret".into(),
                )));
            };
            sent_secret = Some(secret.reference.clone());
            let value = secret.value.clone();
            self.shell
                .send_secret(&value)
                .await
                .map_err(|e| Failure::Session(CollectError::Other(e.to_string())))?;
            text = self.read(None, &[]).await.map_err(shell_failure)?.0;
        }
        if self.prompt.trim_end().ends_with(enable.privileged_suffix) {
            return Ok(());
        }
        let said = |s: &str| text.lines().any(|l| l.trim_start().starts_with(s));
        let error = if let (Some(reference), true) =
            (&sent_secret, enable.denied.iter().any(|d| said(d)))
        {
            CollectError::Auth(format!(
                "`enable` was refused: the enable secret ({reference}) is wrong"
            ))
        } else if let Some((e, line)) = self.profile.error_in(&text) {
            CollectError::Device(format!("`enable`: {line} ({})", e.advice))
        } else {
            CollectError::Device(format!(
                "`enable` did not give privileged mode (the prompt is still `{}`); check the account's privilege",
                self.prompt.trim_end()
            ))
        };
        Err(Failure::Session(error))
    }

    /// FortiGate: `config vdom`, `edit NAME`; the reply must prove the VDOM exists.
    async fn enter_vdom(&mut self, name: &str) -> Result<(), Failure> {
        let Some(steps) = &self.profile.vdom else {
            return Err(Failure::Session(CollectError::Other(format!(
                "ssh.vdom is set but {} has no VDOMs",
                self.profile.platform
            ))));
        };
        let mut last = Reply {
            output: String::new(),
            prompt: String::new(),
        };
        for step in steps.enter {
            let text = step.replace("{vdom}", name);
            let line =
                Line::vdom_step(self.profile, &text).map_err(|r| Failure::Session(refused(r)))?;
            last = self.step(line).await?;
            if let Some((_, said)) = self.profile.error_in(&last.output) {
                return Err(Failure::Session(CollectError::Device(format!(
                    "cannot enter VDOM {name}: `{text}`: {said}"
                ))));
            }
        }
        self.in_vdom = true;
        let proof = steps.entered.replace("{vdom}", name);
        if !last.output.contains(&proof) {
            return Err(Failure::Session(CollectError::Device(format!(
                "VDOM {name} was not entered (no `{proof}` in the reply; check ssh.vdom)"
            ))));
        }
        Ok(())
    }

    /// Leaves the VDOM (best effort, briefly, and only if the session still works) and closes
    /// the channel.
    pub async fn finish(mut self) {
        if let (true, false, Some(steps)) =
            (self.in_vdom, self.shell.is_broken(), &self.profile.vdom)
            && let Ok(line) = Line::vdom_step(self.profile, steps.leave)
        {
            self.timeout = self.timeout.min(Duration::from_secs(2));
            let _ = self.step(line).await;
        }
        self.shell.close().await;
    }
}

impl Failure {
    fn into_error(self) -> CollectError {
        match self {
            Failure::Command(e) | Failure::Session(e) => e,
        }
    }
}

fn refused(r: super::guard::Refused) -> CollectError {
    CollectError::Refused(r.to_string())
}

fn session(e: ShellError) -> CollectError {
    match e {
        ShellError::Timeout { seconds, .. } => CollectError::Timeout(seconds),
        other => CollectError::Other(other.to_string()),
    }
}

fn shell_failure(e: ShellError) -> Failure {
    Failure::Session(session(e))
}
