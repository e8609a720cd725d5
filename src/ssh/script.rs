//! A session written out before it starts: every line the driver will send to one device, in
//! order, each already through the guard. The driver runs exactly this script, `premarket plan`
//! prints it and `validate` builds it, so what they show or accept is what the transport sends.
//!
//! Lines that depend on the device's answers are steps with a condition: escalation (only at an
//! unprivileged prompt, the secret only when the device asks for it) and the VDOM steps. With a
//! VDOM configured, the session first reads whether the box has VDOMs at all, then enters the
//! global context, lists the VDOMs read-only there and runs the box-wide commands, leaves, and
//! enters the configured VDOM only if the listing showed it. Every session with commands ends
//! with an empty line, whose reply tells whether the last output really ended at its prompt.
//!
//! A second sample of a command ([`Command::resample`]) is a step of its own after the other
//! commands of its scope: the driver sends it once its gap since the first sample has passed,
//! and not at all if waiting would pass the run's deadline.

use super::guard::{Line, Refused};
use super::profile::Profile;
use premarket_core::Command;

/// A whole session.
#[derive(Debug)]
pub struct Script {
    pub commands: Vec<Command>,
    pub steps: Vec<Step>,
}

#[derive(Debug)]
pub enum Step {
    /// A session setting; the device refusing it is not fatal.
    Setup(Line),
    /// Privilege escalation at an unprivileged prompt, the secret at the password prompt.
    Escalate,
    /// Reads whether the box has VDOMs; with none, the configured VDOM is an error and the
    /// session ends. `fulfils` is the planned command with this very text, answered by it.
    VdomMode {
        line: Line,
        vdom: String,
        fulfils: Option<usize>,
    },
    /// Enters the global context and lists the VDOMs there.
    Global {
        enter: Line,
        list: Line,
    },
    /// Leaves the global context or the VDOM.
    Leave(Line),
    /// Enters the configured VDOM, if the listing showed it.
    EnterVdom(String),
    Group(Group),
    /// A second sample: `group` holds the one command, sent no sooner than `gap` after the
    /// command `first` (its first sample, when planned) was answered.
    Sample {
        first: Option<usize>,
        gap: std::time::Duration,
        group: Group,
    },
    /// Enter alone after the last line: its reply must be the prompt alone, which proves the
    /// output before it ended at its prompt (see the driver).
    Settle(Line),
}

/// Commands that share a context: the context once, the commands, then the reset.
#[derive(Debug)]
pub struct Group {
    /// A refused context line fails every command of the group.
    pub context: Result<Vec<Line>, Refused>,
    /// Indexes into [`Script::commands`], each with its line or why the guard refused it.
    pub commands: Vec<(usize, Result<Line, Refused>)>,
    pub reset: Option<Line>,
}

/// One line as `premarket plan` shows it, with the condition it is sent under.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Shown {
    pub text: String,
    pub note: Option<String>,
}

impl Script {
    /// The session for `commands` (in plan order), in the VDOM `vdom` when one is configured.
    /// `Err` when the session itself cannot be guarded (a VDOM on a platform without VDOMs, an
    /// invalid VDOM name); a refused command only fails that command.
    pub fn new(
        profile: &Profile,
        commands: &[Command],
        vdom: Option<&str>,
    ) -> Result<Script, Refused> {
        let mut steps = Vec::new();
        for setting in profile.on_open {
            steps.push(Step::Setup(Line::setup(profile, setting)?));
        }
        if profile.enable.is_some() {
            Line::enable(profile)?;
            steps.push(Step::Escalate);
        }
        let all: Vec<usize> = (0..commands.len()).collect();
        match vdom {
            None => groups(profile, commands, &all, &mut steps),
            Some(name) => {
                Line::vdom_edit(profile, name)?;
                let line = Line::vdom_mode(profile)?;
                let scope = profile.vdoms.as_ref().map(|v| v.global_scope);
                let fulfils = commands
                    .iter()
                    .position(|c| c.context.is_empty() && c.text == line.shown());
                let (global, local): (Vec<usize>, Vec<usize>) = all
                    .into_iter()
                    .filter(|i| Some(*i) != fulfils)
                    .partition(|i| {
                        let c = &commands[*i];
                        c.context.is_empty() && scope.is_some_and(|f| f(&c.text))
                    });
                steps.push(Step::VdomMode {
                    line,
                    vdom: name.to_string(),
                    fulfils,
                });
                steps.push(Step::Global {
                    enter: Line::global(profile)?,
                    list: Line::list_vdoms(profile)?,
                });
                groups(profile, commands, &global, &mut steps);
                steps.push(Step::Leave(Line::leave(profile)?));
                steps.push(Step::EnterVdom(name.to_string()));
                groups(profile, commands, &local, &mut steps);
                steps.push(Step::Leave(Line::leave(profile)?));
            }
        }
        if !commands.is_empty() {
            steps.push(Step::Settle(Line::settle()));
        }
        Ok(Script {
            commands: commands.to_vec(),
            steps,
        })
    }

    /// The session up to its first command: setup, escalation and the VDOM steps, ending
    /// inside the VDOM (the probe's interactive firewall CLI; the driver leaves it when done).
    pub fn opening(profile: &Profile, vdom: Option<&str>) -> Result<Script, Refused> {
        let mut script = Script::new(profile, &[], vdom)?;
        if vdom.is_some() {
            script.steps.pop();
        }
        Ok(script)
    }

    /// Every refusal in the script, with the command it concerns: what `validate` reports.
    pub fn refusals(&self) -> Vec<(&Command, &Refused)> {
        let mut out = Vec::new();
        for step in &self.steps {
            if let Step::Group(group) | Step::Sample { group, .. } = step {
                for (i, line) in &group.commands {
                    let command = &self.commands[*i];
                    if let Err(r) = &group.context {
                        out.push((command, r));
                    }
                    if let Err(r) = line {
                        out.push((command, r));
                    }
                }
            }
        }
        out
    }

    /// Every line in the order it is sent, with its condition. `enable_secret` is the secret's
    /// reference (`env:NAME`), shown in place of the value.
    pub fn shown(&self, profile: &Profile, enable_secret: Option<&str>) -> Vec<Shown> {
        let mut out = Vec::new();
        let mut push = |text: &str, note: Option<String>| {
            out.push(Shown {
                text: text.to_string(),
                note,
            })
        };
        for step in &self.steps {
            match step {
                Step::Setup(line) => push(line.shown(), None),
                Step::Escalate => {
                    let Some(enable) = &profile.enable else {
                        continue;
                    };
                    push(
                        enable.command,
                        Some(format!(
                            "when the prompt is not privileged (no `{}`): after login, and again before any command typed at such a prompt",
                            enable.privileged_suffix
                        )),
                    );
                    if let Some(reference) = enable_secret {
                        push(
                            &format!("<enable secret from {reference}>"),
                            Some(
                                "typed only at the password prompt; the value is never shown"
                                    .into(),
                            ),
                        );
                    }
                }
                Step::VdomMode { line, vdom, .. } => push(
                    line.shown(),
                    Some(format!(
                        "read first: when the box has no VDOMs, ssh.vdom {vdom} is an ERROR and nothing more is sent"
                    )),
                ),
                Step::Global { enter, list } => {
                    push(
                        enter.shown(),
                        Some("global context, read-only commands only".into()),
                    );
                    push(
                        list.shown(),
                        Some(
                            "read-only VDOM listing: `edit` below only for a name it shows".into(),
                        ),
                    );
                }
                Step::Leave(line) => push(line.shown(), None),
                Step::EnterVdom(name) => {
                    if let Some(vdoms) = &profile.vdoms {
                        push(vdoms.table, None);
                    }
                    let edit = Line::vdom_edit(profile, name)
                        .map(|l| l.shown().to_string())
                        .unwrap_or_else(|r| r.line);
                    push(
                        &edit,
                        Some(format!(
                            "only if the listing shows {name}; otherwise ERROR naming the VDOMs that exist, and nothing more is sent"
                        )),
                    );
                }
                Step::Sample { gap, group, .. } => {
                    for (i, line) in &group.commands {
                        let note = match line {
                            Ok(_) => format!(
                                "second sample: sent {} s after the first (the session waits for what is left of that), never past the run's deadline",
                                gap.as_secs()
                            ),
                            Err(r) => format!("REFUSED, never sent: {}", r.reason),
                        };
                        push(&self.commands[*i].text, Some(note));
                    }
                }
                Step::Group(group) => {
                    match &group.context {
                        Ok(lines) => lines.iter().for_each(|l| push(l.shown(), None)),
                        Err(r) => push(&r.line, Some(format!("REFUSED, never sent: {}", r.reason))),
                    }
                    for (i, line) in &group.commands {
                        match line {
                            Ok(l) => push(l.shown(), None),
                            Err(r) => push(
                                &self.commands[*i].text,
                                Some(format!("REFUSED, never sent: {}", r.reason)),
                            ),
                        }
                    }
                    if let Some(reset) = &group.reset {
                        push(reset.shown(), Some("undoes the context".into()));
                    }
                }
                Step::Settle(line) => push(
                    line.shown(),
                    Some(
                        "Enter alone: the prompt alone must answer it, or the last output is ERROR (out of step)"
                            .into(),
                    ),
                ),
            }
        }
        out
    }
}

/// The keys the session may press besides lines, described for `plan`.
pub fn keys(profile: &Profile) -> Vec<String> {
    let mut out = vec![format!(
        "{:?} at each `{}`",
        profile.pager_answer, profile.pager
    )];
    if let Some((banner, key)) = profile.banner {
        out.push(format!("{key:?} at `{banner}`"));
    }
    out
}

/// Commands in order, consecutive ones that share a context grouped (the context sent once);
/// second samples after them, each a step of its own.
fn groups(profile: &Profile, commands: &[Command], indexes: &[usize], steps: &mut Vec<Step>) {
    let (seconds, firsts): (Vec<usize>, Vec<usize>) = indexes
        .iter()
        .partition(|i| commands[**i].resample.is_some());
    grouped(profile, commands, &firsts, steps);
    for i in seconds {
        let command = &commands[i];
        let first = commands.iter().position(|c| *c == command.first_sample());
        let mut group = Vec::new();
        grouped(profile, commands, &[i], &mut group);
        for step in group {
            if let Step::Group(group) = step {
                steps.push(Step::Sample {
                    first,
                    gap: std::time::Duration::from_secs(
                        command.resample.map_or(0, |r| u64::from(r.gap_s)),
                    ),
                    group,
                });
            }
        }
    }
}

fn grouped(profile: &Profile, commands: &[Command], indexes: &[usize], steps: &mut Vec<Step>) {
    let mut rest = indexes;
    while let Some(&first) = rest.first() {
        let context = &commands[first].context;
        let size = rest
            .iter()
            .take_while(|i| &commands[**i].context == context)
            .count();
        let (group, after) = rest.split_at(size);
        rest = after;
        let reset = profile
            .context_reset
            .filter(|_| !context.is_empty())
            .and_then(|r| Line::command(profile, r).ok());
        steps.push(Step::Group(Group {
            context: context.iter().map(|l| Line::command(profile, l)).collect(),
            commands: group
                .iter()
                .map(|i| (*i, Line::command(profile, &commands[*i].text)))
                .collect(),
            reset,
        }));
    }
}
