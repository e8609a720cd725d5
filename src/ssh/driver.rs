//! The device driver: runs a [`Script`] and says what the answers mean.
//!
//! After login it waits for the first prompt, then takes the script's steps in order: session
//! settings, escalation (EOS `enable` whenever the prompt is not privileged, the lab notes'
//! third finding; the secret only at the password prompt), the VDOM steps, and the groups of
//! commands (a shared context is sent once, then the commands, then the platform's reset). A
//! device error fails only its command; a VDOM that cannot be entered safely, a timeout or a
//! lost session fails every command still to run, and nothing more is sent.
//!
//! A prompt ends an output only if nothing but the echo of the next line follows it: every read
//! is judged by `super::framing`, and the session's last line is followed by Enter alone. So
//! every byte the device sends is in one command's output or makes a command ERROR; none is
//! dropped between a prompt and the next echo.
//!
//! Every reply must end at the prompt of the context the session is in (`context`): a device
//! that leaves a VDOM or privileged mode under the session fails the command that showed it,
//! and nothing more is typed.
//!
//! A second sample waits for its gap after the first (`sample`), never past the deadline.

mod context;
mod escalate;
mod sample;

use std::sync::Arc;
use std::time::Duration;

use regex::Regex;
use tokio::time::Instant;

use super::framing::Framing;
use super::gate::Gate;
use super::guard::{Line, Listed, Refused};
use super::profile::Profile;
use super::script::{Group, Script, Step};
use super::shell::{Answer, Matched, Shell, ShellError};
use super::target::{Captured, EnableSecret};
use context::Context;
use premarket_core::{CollectError, Output};

/// How a step failed: only this command, or the whole session.
#[derive(Debug)]
enum Failure {
    Command(CollectError),
    Session(CollectError),
}

/// One result per command of the script, in the script's command order.
pub type Results = Vec<Result<Captured, CollectError>>;

pub struct Driver {
    shell: Shell,
    profile: &'static Profile,
    timeout: Duration,
    enable_secret: Option<EnableSecret>,
    password_prompt: Option<std::sync::Arc<Regex>>,
    /// The prompt the device showed last: the next command is typed at it.
    prompt: String,
    /// The VDOMs listed in this session; `edit` is typed only for one of them.
    listed: Option<Listed>,
    /// Inside a global or VDOM context that the script has not left yet.
    in_context: bool,
    /// The context the session is in, whose prompt every reply must end at.
    context: Context,
    /// The context the session returns to on leaving the global context or a VDOM.
    top: Context,
    /// The prompt changed under the session: nothing more is typed.
    halted: bool,
    /// Which command the bytes read belong to.
    framing: Framing,
    /// When each command answered, by its index: a second sample counts its gap from there.
    answered: std::collections::BTreeMap<usize, Instant>,
    /// The run's deadline: a second sample is not waited for past it.
    deadline: Option<Instant>,
    /// Asked before each planned command whether the device's model has it.
    gate: Option<Arc<dyn Gate>>,
}

impl Driver {
    /// Waits for the first prompt (accepting a banner on the way).
    pub async fn start(
        shell: Shell,
        profile: &'static Profile,
        timeout: Duration,
        enable_secret: Option<EnableSecret>,
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
            listed: None,
            in_context: false,
            context: Context::new("", "the session"),
            top: Context::new("", "the session"),
            halted: false,
            framing: Framing::default(),
            answered: Default::default(),
            deadline: None,
            gate: None,
        };
        let first = driver.read(None, &[]).await.map_err(|e| match e {
            // Usually a prompt the platform profile does not recognise: show what was seen.
            ShellError::Timeout { seconds, last } => CollectError::Other(format!(
                "no {} prompt recognised within {seconds} s after login (last line seen: {last:?})",
                profile.platform
            )),
            ShellError::NotAnswering { seconds } => CollectError::Other(format!(
                "no {} prompt within {seconds} s after login: the device printed nothing",
                profile.platform
            )),
            other => failure(other, None),
        })?;
        driver.shell.learn_host(&first.prompt);
        driver.raise_top(Context::first(profile, &first.prompt));
        driver.prompt = first.prompt;
        Ok(driver)
    }

    /// The run's deadline, which no wait for a second sample may pass.
    pub fn until(&mut self, deadline: Option<Instant>) {
        self.deadline = deadline;
    }

    /// Asks `gate` before each planned command whether to send it (the model, learnt from an
    /// earlier answer of the session, may lack it).
    pub fn with_gate(mut self, gate: Option<Arc<dyn Gate>>) -> Self {
        self.gate = gate;
        self
    }

    /// Runs the script; one result per command, in the script's command order.
    pub async fn run(&mut self, script: &Script) -> Results {
        self.steps(script).await.0
    }

    /// Runs a script without commands (the probe CLI's opening); `Err` if a step failed.
    pub async fn prepare(&mut self, script: &Script) -> Result<(), CollectError> {
        match self.steps(script).await.1 {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// The results, and the error that ended the session early, if one did.
    async fn steps(&mut self, script: &Script) -> (Results, Option<CollectError>) {
        let mut results: Vec<Option<Result<Captured, CollectError>>> =
            vec![None; script.commands.len()];
        let mut fatal = None;
        for step in &script.steps {
            if let Err(e) = self.take(step, &mut results).await {
                let reason = CollectError::Other(format!("not run: {e}"));
                for slot in results.iter_mut().filter(|r| r.is_none()) {
                    *slot = Some(Err(reason.clone()));
                }
                fatal = Some(e);
                break;
            }
        }
        for (i, e) in self.framing.take_late() {
            if let Some(slot) = results.get_mut(i) {
                *slot = Some(Err(e));
            }
        }
        let results = results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(CollectError::Other("not run".into()))))
            .collect();
        (results, fatal)
    }

    /// One step. `Err` means the session is unusable or unsafe to go on with.
    async fn take(
        &mut self,
        step: &Step,
        results: &mut [Option<Result<Captured, CollectError>>],
    ) -> Result<(), CollectError> {
        match step {
            Step::Setup(line) => match self.exchange(line).await {
                // A refused session setting is not fatal: the pager is still answered.
                Ok(_) | Err(Failure::Command(_)) => Ok(()),
                Err(Failure::Session(e)) => Err(e),
            },
            Step::Escalate => self.ensure_privileged().await.map_err(Failure::into_error),
            Step::VdomMode {
                line,
                vdom,
                fulfils,
            } => {
                let captured = self.checked(line).await.map_err(Failure::into_error)?;
                if let Some(i) = fulfils {
                    results[*i] = Some(Ok(captured.clone()));
                    self.framing.answer(*i);
                }
                self.vdom_mode(line, vdom, captured.output.head())
            }
            Step::Global { enter, list } => self.global(enter, list).await,
            Step::Leave(line) => {
                let reply = self.switch(line).await.map_err(Failure::into_error)?;
                self.in_context = false;
                self.back_on_top(line, &reply.prompt)
                    .map_err(Failure::into_error)
            }
            Step::EnterVdom(name) => self.enter_vdom(name).await,
            Step::Group(group) => self.group(group, results).await,
            Step::Sample { first, gap, group } => self.sample(*first, *gap, group, results).await,
            Step::Settle(line) => self.settle(line).await.map_err(Failure::into_error),
        }
    }

    /// Sends Enter alone: the device must answer with its prompt alone. Anything else was
    /// printed after the prompt that ended the previous output.
    async fn settle(&mut self, line: &Line) -> Result<(), Failure> {
        self.exchange(line).await.map(|_| ())
    }

    /// A VDOM is configured: the box must have VDOMs.
    fn vdom_mode(&self, line: &Line, vdom: &str, output: &str) -> Result<(), CollectError> {
        let Some(vdoms) = &self.profile.vdoms else {
            return Err(CollectError::Other(format!(
                "ssh.vdom is set, but {} has no VDOMs",
                self.profile.platform
            )));
        };
        match (vdoms.mode)(output) {
            Ok(true) => Ok(()),
            Ok(false) => Err(CollectError::Other(format!(
                "ssh.vdom is {vdom}, but VDOMs are disabled on this box (`{}`); remove ssh.vdom from its baseline",
                line.shown()
            ))),
            Err(reason) => Err(CollectError::Device(format!(
                "cannot tell from `{}` whether the box has VDOMs: {reason}",
                line.shown()
            ))),
        }
    }

    /// Enters the global context and lists the VDOMs there.
    async fn global(&mut self, enter: &Line, list: &Line) -> Result<(), CollectError> {
        let reply = self.switch(enter).await.map_err(Failure::into_error)?;
        self.in_context = true;
        if let Some((_, said)) = self.profile.error_in(reply.output.head()) {
            return Err(CollectError::Device(format!(
                "cannot enter the global context: `{}`: {said}",
                enter.shown()
            )));
        }
        let marker = self.profile.vdoms.as_ref().map_or("", |v| v.global_prompt);
        if !reply.prompt.contains(marker) {
            return Err(CollectError::Device(format!(
                "`{}` did not give the global context (the prompt is `{}`)",
                enter.shown(),
                reply.prompt.trim_end()
            )));
        }
        self.context = Context::new(&reply.prompt, "the global context");
        let captured = self.checked(list).await.map_err(Failure::into_error)?;
        let listed = Listed::read(self.profile, captured.output.head()).map_err(|reason| {
            CollectError::Device(format!(
                "cannot read the VDOM listing `{}`: {reason}",
                list.shown()
            ))
        })?;
        self.listed = Some(listed);
        Ok(())
    }

    /// `config vdom` + `edit NAME`, only for a listed name; the reply must prove the VDOM.
    async fn enter_vdom(&mut self, name: &str) -> Result<(), CollectError> {
        let Some(listed) = &self.listed else {
            return Err(CollectError::Other(format!(
                "VDOM {name} was not entered: no VDOM listing was read first"
            )));
        };
        let [table, edit] = Line::enter_vdom(self.profile, listed, name).map_err(|_| {
            CollectError::Other(format!(
                "VDOM {name} does not exist on this box; its VDOMs are: {} (check ssh.vdom)",
                listed.names().join(", ")
            ))
        })?;
        let reply = self.switch(&table).await.map_err(Failure::into_error)?;
        self.in_context = true;
        if let Some((_, said)) = self.profile.error_in(reply.output.head()) {
            return Err(CollectError::Device(format!(
                "cannot enter VDOM {name}: `{}`: {said}",
                table.shown()
            )));
        }
        let reply = self.switch(&edit).await.map_err(Failure::into_error)?;
        let (proof, prompt) = self
            .profile
            .vdoms
            .as_ref()
            .map_or_else(Default::default, |v| {
                (
                    v.entered.replace("{vdom}", name),
                    v.prompt.replace("{vdom}", name),
                )
            });
        let said = reply.output.head();
        let entered = self.profile.error_in(said).is_none()
            && said.contains(&proof)
            && reply.prompt.contains(&prompt);
        if !entered {
            let said = self
                .profile
                .error_in(said)
                .map_or(said.trim().to_string(), |(_, l)| l.to_string());
            self.leave().await;
            return Err(CollectError::Device(format!(
                "cannot enter VDOM {name}: `{}` answered {said:?} at `{}`, not `{proof}`",
                edit.shown(),
                reply.prompt.trim_end()
            )));
        }
        self.context = Context::new(&reply.prompt, format!("VDOM {name}"));
        Ok(())
    }

    /// Best effort and brief: leaves a context after a failed VDOM step or at the end.
    async fn leave(&mut self) {
        if let (true, false, Ok(line)) = (
            self.in_context,
            self.shell.is_broken(),
            Line::leave(self.profile),
        ) {
            self.timeout = self.timeout.min(Duration::from_secs(2));
            if self.switch(&line).await.is_ok() {
                self.in_context = false;
            }
        }
    }

    /// One group of commands sharing a context. `Err` means the session is unusable.
    async fn group(
        &mut self,
        group: &Group,
        results: &mut [Option<Result<Captured, CollectError>>],
    ) -> Result<(), CollectError> {
        let context = match &group.context {
            Ok(lines) => lines,
            Err(r) => {
                for (i, _) in &group.commands {
                    results[*i] = Some(Err(refused(r.clone())));
                }
                return Ok(());
            }
        };
        for line in context {
            match self.checked(line).await {
                Ok(_) => {}
                Err(Failure::Command(e)) => {
                    let reason =
                        CollectError::Other(format!("context `{}` failed: {e}", line.shown()));
                    for (i, _) in &group.commands {
                        results[*i] = Some(Err(reason.clone()));
                    }
                    return self.reset(group).await;
                }
                Err(Failure::Session(e)) => {
                    for (i, _) in &group.commands {
                        results[*i] = Some(Err(e.clone()));
                    }
                    return Err(e);
                }
            }
        }
        for (i, line) in &group.commands {
            let line = match line {
                Ok(line) => line,
                Err(r) => {
                    results[*i] = Some(Err(refused(r.clone())));
                    continue;
                }
            };
            if let Some(why) = self.gate.as_ref().and_then(|g| g.withhold(*i, results)) {
                results[*i] = Some(Err(CollectError::NotApplicable(why)));
                continue;
            }
            match self.checked(line).await {
                Ok(captured) => {
                    results[*i] = Some(Ok(captured));
                    self.framing.answer(*i);
                    self.answered.insert(*i, Instant::now());
                }
                Err(Failure::Command(e)) => results[*i] = Some(Err(e)),
                Err(Failure::Session(e)) => {
                    results[*i] = Some(Err(e.clone()));
                    return Err(e);
                }
            }
        }
        self.reset(group).await
    }

    /// Undoes a context (clears the FortiGate session filter). If that fails the state of the
    /// session is unknown, so nothing more is run on it.
    async fn reset(&mut self, group: &Group) -> Result<(), CollectError> {
        let Some(reset) = &group.reset else {
            return Ok(());
        };
        self.checked(reset).await.map(|_| ()).map_err(|f| {
            let e = f.into_error();
            CollectError::Other(format!(
                "could not undo the context with `{}`: {e}",
                reset.shown()
            ))
        })
    }

    /// One command typed interactively (the probe's firewall cross-check): the same guard,
    /// privilege and device-error handling as a planned command; its output, which must be
    /// small enough to hold.
    pub async fn line(&mut self, text: &str) -> Result<String, CollectError> {
        let line = Line::command(self.profile, text).map_err(refused)?;
        self.interactive(line).await
    }

    /// Sends a line the guard already made (a proven line); its output.
    pub async fn send_proven(&mut self, line: Line) -> Result<String, CollectError> {
        self.interactive(line).await
    }

    /// An interactive line's output, used at once: so Enter alone follows it first, to prove
    /// the prompt that ended it.
    async fn interactive(&mut self, line: Line) -> Result<String, CollectError> {
        let captured = self.checked(&line).await.map_err(Failure::into_error)?;
        let settle = Line::settle();
        self.settle(&settle).await.map_err(Failure::into_error)?;
        in_memory(&line, captured.output)
    }

    /// A guarded line at a privileged prompt; device errors fail the command.
    async fn checked(&mut self, line: &Line) -> Result<Captured, Failure> {
        self.ensure_privileged().await?;
        let prompt = self.prompt.clone();
        let reply = self.exchange(line).await?;
        // Devices print their errors first: a spooled output is judged by its head.
        if let Some((error, said)) = self.profile.error_in(reply.output.head()) {
            let message = format!("`{}`: {said} ({})", line.shown(), error.advice);
            return Err(Failure::Command(if error.unsupported {
                CollectError::Unsupported(message)
            } else {
                CollectError::Device(message)
            }));
        }
        Ok(Captured {
            prompt,
            output: reply.output,
        })
    }

    /// Sends a guarded line and reads the reply up to the prompt, which must be the context's.
    async fn exchange(&mut self, line: &Line) -> Result<Answer, Failure> {
        let answer = self.switch(line).await?;
        self.hold_prompt(line, &answer.prompt)?;
        Ok(answer)
    }

    /// [`Driver::exchange`] for a line that changes the context (the caller judges the prompt
    /// it ends at).
    async fn switch(&mut self, line: &Line) -> Result<Answer, Failure> {
        self.may_type()?;
        if self.shell.is_broken() {
            return Err(Failure::Session(CollectError::Other(
                "the session already failed; nothing more is sent".into(),
            )));
        }
        let previous = self.framing.begin();
        let deadline = Instant::now() + self.timeout;
        let answer = self
            .shell
            .exec(line, &[], deadline, self.timeout.as_secs())
            .await;
        let stray = self.shell.take_stray();
        self.framing
            .judge(previous, &stray, line.shown())
            .map_err(Failure::Session)?;
        let answer = answer.map_err(|e| Failure::Session(failure(e, Some(line))))?;
        self.framing.read(line.shown());
        self.prompt = answer.prompt.clone();
        if !answer.echoed {
            return Err(Failure::Session(CollectError::Other(format!(
                "`{}`: the device never echoed it: output out of step",
                line.shown()
            ))));
        }
        Ok(answer)
    }

    /// Reads a reply to a line sent with [`Shell::send`] (`echo`: that line, when echoed).
    async fn read(&mut self, echo: Option<&str>, extra: &[&Regex]) -> Result<Answer, ShellError> {
        let previous = self.framing.begin();
        let deadline = Instant::now() + self.timeout;
        let answer = self
            .shell
            .read(echo, extra, deadline, self.timeout.as_secs())
            .await;
        let stray = self.shell.take_stray();
        self.framing
            .judge(previous, &stray, echo.unwrap_or("<secret>"))
            .map_err(ShellError::OutOfStep)?;
        let answer = answer?;
        if let Some(echo) = echo {
            self.framing.read(echo);
        }
        if answer.matched == Matched::Prompt {
            self.prompt = answer.prompt.clone();
        }
        Ok(answer)
    }

    /// True once a read or write failed: nothing more is sent on this session.
    pub fn is_broken(&self) -> bool {
        self.shell.is_broken()
    }

    /// Leaves a context still open (the probe's CLI stays in its VDOM until done) and closes
    /// the channel, both bounded: the device may be gone.
    pub async fn finish(mut self) {
        self.leave().await;
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

fn refused(r: Refused) -> CollectError {
    CollectError::Refused(r.to_string())
}

/// The output of an interactive line, which is read as a whole.
fn in_memory(line: &Line, output: Output) -> Result<String, CollectError> {
    match output {
        Output::Text(text) => Ok(text.to_string()),
        Output::Spooled(spool) => Err(CollectError::Other(format!(
            "`{}` printed {} MB, more than an interactive command is read whole",
            line.shown(),
            spool.size().unwrap_or_default() >> 20
        ))),
    }
}

/// A shell failure as the operator reads it, after sending `line` when there was one.
fn failure(e: ShellError, line: Option<&Line>) -> CollectError {
    let shown = line.map(|l| l.shown().to_string());
    match e {
        ShellError::OutOfStep(e) => e,
        ShellError::Timeout { seconds, .. } => CollectError::Timeout(seconds),
        ShellError::TooLarge(cap) => CollectError::TooLarge(cap),
        ShellError::HostKey(e) => CollectError::HostKey(e.to_string()),
        ShellError::NotAnswering { seconds } => CollectError::NotAnswering {
            command: shown,
            seconds,
        },
        other => CollectError::Other(match shown {
            Some(line) => format!("`{line}`: {other}"),
            None => other.to_string(),
        }),
    }
}
