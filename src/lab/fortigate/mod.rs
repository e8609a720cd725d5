//! The emulated FortiGate CLI: `HOST # ` (`HOST (root) # ` after `config vdom` / `edit root`,
//! `HOST (global) # ` after `config global`), `get`/`show`/`diagnose` commands, the session
//! filter with its readback, `| grep`, the `--More--` pager (console output `more`), FortiOS
//! error lines, and configuration mode, which is applied and recorded as a config attempt.

mod bgp;
mod commands;
mod config;
mod full;
mod ha_checksum;
mod ha_links;
mod interfaces;
pub mod model;
mod nic;
mod npu;
mod ntp;
mod outputs;
mod pipe;
mod session_filter;
mod session_list;
mod sessions;
pub mod state;
mod vdom;

use std::sync::{Arc, Mutex};

use super::clock;
use super::device::{Answer, Cli, Journal, Next, Stream, split_pipes};
use super::grammar::{Match, find};
use super::scenario::{Fault, PAGER_LINES};
use commands::{COMMANDS, Cmd, PATHS, UNKNOWN_ACTION, parse_error, shown_path};
use config::Edit;
use pipe::Grep;
pub use state::FgState;
pub use vdom::DROPPED_VDOM;

/// Where the session is: top level, a VDOM list, a VDOM, global, or editing a config section.
#[derive(Clone, Debug)]
enum Context {
    Top,
    VdomList,
    Vdom(String),
    Global,
}

/// One CLI session on an emulated FortiGate.
pub struct FortiCli {
    name: String,
    state: Arc<Mutex<FgState>>,
    journal: Journal,
    context: Context,
    edit: Option<Edit>,
    rows: usize,
    forced_page: bool,
    /// An `execute reboot` waits for (y/n).
    confirming: bool,
    /// Under `vdom-dropped`: commands left in [`DROPPED_VDOM`] before the CLI falls back to
    /// root.
    vdom_lasts: Option<usize>,
}

impl FortiCli {
    pub fn new(name: &str, state: Arc<Mutex<FgState>>, journal: Journal) -> Self {
        let (forced_page, dropped) = state
            .lock()
            .map(|s| (s.faults.has(Fault::Pager), s.faults.has(Fault::VdomDropped)))
            .unwrap_or((false, false));
        FortiCli {
            name: name.to_string(),
            state,
            journal,
            context: Context::Top,
            edit: None,
            rows: 0,
            forced_page,
            confirming: false,
            vdom_lasts: dropped.then_some(Fault::CONTEXT_LASTS),
        }
    }

    /// Whether this box runs with VDOMs enabled. The lab's FortiGates do not (the example
    /// site's 201G), but under `vdom-dropped`.
    fn multi_vdom(&self) -> bool {
        self.state.lock().is_ok_and(|s| s.multi_vdom())
    }

    /// Whether the session is in [`DROPPED_VDOM`].
    fn in_dropped_vdom(&self) -> bool {
        matches!(&self.context, Context::Vdom(v) if v == DROPPED_VDOM)
    }

    /// Under `vdom-dropped`, counts a command typed in [`DROPPED_VDOM`]: after the last one the
    /// CLI is in root, and the prompt that follows says so.
    fn count_in_vdom(&mut self) {
        if let Some(left) = self.vdom_lasts.as_mut() {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.vdom_lasts = None;
                self.context = Context::Vdom("root".into());
            }
        }
    }

    fn page(&self, pipes: &[String]) -> Option<usize> {
        let paging = self
            .state
            .lock()
            .map(|s| s.console_paging())
            .unwrap_or(true);
        if !pipes.is_empty() || !paging {
            // FortiOS does not page piped output (`| grep .` is the read-only way to avoid the pager).
            return None;
        }
        if self.forced_page {
            Some(PAGER_LINES)
        } else if self.rows > 1 {
            Some(self.rows - 1)
        } else {
            None
        }
    }

    fn output(&self, text: String, pipes: &[String]) -> Answer {
        Answer::data(pipe::text(text, &Grep::all(pipes)), self.page(pipes))
    }

    /// A listing made while it is written (the session list), through the pipes.
    fn streamed(&self, stream: Stream, pipes: &[String]) -> Answer {
        Answer::streamed(pipe::stream(stream, Grep::all(pipes)), self.page(pipes))
    }

    fn editing(&mut self, line: &str, words: &[&str]) -> Answer {
        self.journal.attempt(&self.name, line);
        let Some(edit) = self.edit.as_mut() else {
            return Answer::empty();
        };
        match words.first().copied() {
            Some("end") => {
                let work = edit.work.clone();
                if let Ok(mut s) = self.state.lock() {
                    s.config = work;
                }
                self.edit = None;
                Answer::empty()
            }
            Some("abort") => {
                self.edit = None;
                Answer::empty()
            }
            Some("show") => {
                let text = edit
                    .work
                    .show(&edit.path, edit.entry.as_deref())
                    .unwrap_or_default();
                Answer::data(text, None)
            }
            Some("get") => Answer::empty(),
            _ => match edit.apply(words) {
                Ok(()) => Answer::empty(),
                Err(e) => Answer::text(format!("{e}\nCommand fail. Return code -61")),
            },
        }
    }

    fn show(&self, args: &[String], pipes: &[String]) -> Answer {
        let Ok(s) = self.state.lock() else {
            return Answer::text(UNKNOWN_ACTION);
        };
        if args.is_empty() {
            let all = full::show_all(&s);
            drop(s);
            return self.output(all, pipes);
        }
        if args.join(" ") == "system np6xlite" {
            // `config system np6xlite` exists on NP6XLite models only (CLI reference).
            let np6xlite = s.spec.np == premarket_platform::fortigate::Np::Np6xlite;
            drop(s);
            return if np6xlite {
                self.output(npu::NP6XLITE_CONFIG.to_string(), pipes)
            } else {
                Answer::text(parse_error("np6xlite"))
            };
        }
        match shown_path(&args.join(" ")) {
            Some(("system virtual-switch", _)) => {
                let text = interfaces::virtual_switch(s.spec);
                drop(s);
                match text {
                    Some(text) => self.output(text, pipes),
                    None => Answer::text(parse_error("virtual-switch")),
                }
            }
            Some((path, entry)) => {
                let text = s.config.show(path, entry.as_deref()).unwrap_or_default();
                drop(s);
                self.output(text, pipes)
            }
            None => Answer::text(parse_error(
                args.last().map(String::as_str).unwrap_or_default(),
            )),
        }
    }

    fn filter(&self, args: &[String]) -> Answer {
        let Ok(mut s) = self.state.lock() else {
            return Answer::text(UNKNOWN_ACTION);
        };
        let Some((key, rest)) = args.split_first() else {
            return Answer::data(s.filter.readback(), None);
        };
        let rest: Vec<&str> = rest.iter().map(String::as_str).collect();
        match s.filter.set(key, &rest) {
            Ok(()) => Answer::empty(),
            Err(e) => Answer::text(format!("{e}\nCommand fail. Return code -61")),
        }
    }

    fn run_command(&mut self, line: &str, cmd: Cmd, args: Vec<String>, pipes: &[String]) -> Answer {
        let state = self.state.clone();
        let Ok(mut s) = state.lock() else {
            return Answer::text(UNKNOWN_ACTION);
        };
        match cmd {
            Cmd::Status => {
                let text = outputs::system_status(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Performance => {
                let text = outputs::performance_status(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Ha => {
                let text = outputs::ha_status(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Global => {
                let text = outputs::get_global(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Console => {
                let text = outputs::get_console(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Interface => {
                let text = interfaces::get_system_interface(&s.config, s.spec);
                drop(s);
                self.output(text, pipes)
            }
            // Another NP generation's command tree does not exist on the box (inferred).
            Cmd::NpPortList(np) | Cmd::NpuFeature(np) if np != s.spec.np => {
                Answer::text(parse_error(np.word()))
            }
            Cmd::NpPortList(np) => {
                let moved = s.faults.has(Fault::NpCrossChip);
                drop(s);
                self.output(npu::port_list(np, moved), pipes)
            }
            Cmd::NpuFeature(np) => {
                drop(s);
                self.output(npu::npu_feature(np), pipes)
            }
            Cmd::Nic => match args.first().map(|p| nic::nic(&s, p)) {
                Some(Some(text)) => {
                    drop(s);
                    self.output(text, pipes)
                }
                // No argument lists the NICs; the checks always name one.
                None => {
                    drop(s);
                    let names: String = config::INTERFACES
                        .iter()
                        .map(|n| format!("        {n}\n"))
                        .collect();
                    self.output(format!("The following NICs are available:\n{names}"), pipes)
                }
                Some(None) => Answer::text(parse_error(
                    args.first().map(String::as_str).unwrap_or_default(),
                )),
            },
            Cmd::BgpSummary => {
                let text = bgp::summary(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::HaChecksum => {
                let text = ha_checksum::cluster(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::NtpStatus => {
                let text = ntp::ntp_status(&s, clock::now());
                drop(s);
                self.output(text, pipes)
            }
            Cmd::VdList => {
                drop(s);
                self.output(vdom::vd_list(self.multi_vdom()), pipes)
            }
            // `sudo <vdom>|global get|show|diagnose ...` needs VDOMs; with VDOMs disabled the
            // VDOM word is refused (inferred: what the real box prints is unconfirmed).
            Cmd::Sudo => Answer::text(parse_error(
                args.first().map(String::as_str).unwrap_or("sudo"),
            )),
            Cmd::ShowFull if args.join(" ") == "system npu" => {
                let text = npu::full_configuration(&s.config);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Show | Cmd::ShowFull => {
                drop(s);
                self.show(&args, pipes)
            }
            Cmd::Filter => {
                drop(s);
                self.filter(&args)
            }
            Cmd::List => {
                let stream = session_list::list_stream(s.sessions(), s.filter.clone());
                drop(s);
                self.streamed(stream, pipes)
            }
            Cmd::Stat => {
                let text = outputs::session_stat(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Clear => {
                // Without a filter this drops every session on the box: recorded, and done.
                self.journal.attempt(&self.name, line);
                let doomed: Vec<_> = s
                    .sessions()
                    .iter()
                    .filter(|x| s.filter.matches(x))
                    .map(|x| x.key())
                    .collect();
                Arc::make_mut(&mut s.cleared).extend(doomed);
                s.flush += 1;
                Answer {
                    data: true,
                    ..Answer::empty()
                }
            }
            Cmd::McastList => {
                let text = outputs::mcast_session_list(&s);
                drop(s);
                self.output(text, pipes)
            }
            Cmd::Config => {
                drop(s);
                self.config(line, &args)
            }
            Cmd::Edit => match &self.context {
                Context::VdomList
                    if args.first().is_some_and(|a| a.trim_matches('"') == "root") =>
                {
                    self.context = Context::Vdom("root".into());
                    Answer::text("current vf=root:0")
                }
                // The state is locked here (`s`): asked of it, not through `multi_vdom`.
                Context::VdomList
                    if s.multi_vdom()
                        && args
                            .first()
                            .is_some_and(|a| a.trim_matches('"') == DROPPED_VDOM) =>
                {
                    self.context = Context::Vdom(DROPPED_VDOM.into());
                    Answer::text(format!("current vf={DROPPED_VDOM}:3"))
                }
                Context::VdomList => {
                    // `edit NAME` in `config vdom` creates the VDOM: a config change.
                    self.journal.attempt(&self.name, line);
                    Answer::text("Command fail. Return code -651")
                }
                // Outside a table `edit` is not a command (as `end` at the top level, below).
                _ => Answer::text(vdom::TOP_LEVEL_END),
            },
            Cmd::End | Cmd::Next | Cmd::Abort => match self.context {
                // A real capture: `end` at the top level is an unknown action.
                Context::Top => Answer::text(vdom::TOP_LEVEL_END),
                _ => {
                    self.context = Context::Top;
                    Answer::empty()
                }
            },
            Cmd::Exit => Answer::empty().then(Next::Exit),
            Cmd::Execute => {
                self.journal.attempt(&self.name, line);
                if args
                    .first()
                    .is_some_and(|a| matches!(a.as_str(), "reboot" | "shutdown" | "factoryreset"))
                {
                    self.confirming = true;
                    let text =
                        "This operation will reboot the system !\nDo you want to continue? (y/n)";
                    return Answer::empty().then(Next::Secret(text.into()));
                }
                Answer::empty()
            }
        }
    }

    fn config(&mut self, line: &str, args: &[String]) -> Answer {
        let joined = args.join(" ");
        match joined.as_str() {
            // VDOMs are disabled on this box: neither context exists (research: the parse
            // error, and the prompt stays `HOST # `).
            "vdom" | "global" if !self.multi_vdom() => {
                return Answer::text(parse_error(&joined));
            }
            "vdom" => {
                self.context = Context::VdomList;
                return Answer::empty();
            }
            "global" => {
                self.context = Context::Global;
                return Answer::empty();
            }
            _ => {}
        }
        self.journal.attempt(&self.name, line);
        match PATHS.iter().find(|p| **p == joined) {
            Some(path) => {
                let work = self.state.lock().map(|s| s.config.clone());
                match work {
                    Ok(work) => {
                        self.edit = Some(Edit {
                            path: path.to_string(),
                            entry: None,
                            work,
                        });
                        Answer::empty()
                    }
                    Err(_) => Answer::text(UNKNOWN_ACTION),
                }
            }
            None => Answer::text(parse_error(
                args.last().map(String::as_str).unwrap_or("config"),
            )),
        }
    }
}

impl Cli for FortiCli {
    fn banner(&self) -> String {
        String::new()
    }

    fn prompt(&self) -> String {
        let host = self
            .state
            .lock()
            .map(|s| s.hostname.clone())
            .unwrap_or_else(|_| self.name.clone());
        if let Some(edit) = &self.edit {
            let label = edit
                .entry
                .clone()
                .unwrap_or_else(|| edit.path.rsplit(' ').next().unwrap_or_default().to_string());
            return format!("{host} ({label}) # ");
        }
        match &self.context {
            Context::Top => format!("{host} # "),
            Context::VdomList => format!("{host} (vdom) # "),
            Context::Vdom(v) => format!("{host} ({v}) # "),
            Context::Global => format!("{host} (global) # "),
        }
    }

    fn run(&mut self, line: &str) -> Answer {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return Answer::empty();
        }
        self.journal.command(&self.name, trimmed);
        let (command, pipes) = split_pipes(trimmed);
        let words: Vec<&str> = command.split_whitespace().collect();
        if self.edit.is_some() {
            return self.editing(trimmed, &words);
        }
        match find(COMMANDS, &words) {
            Match::Found(cmd, args) => {
                let typed_in_vdom = self.in_dropped_vdom();
                let answer = self.run_command(trimmed, *cmd, args, &pipes);
                if typed_in_vdom {
                    self.count_in_vdom();
                }
                answer
            }
            Match::Invalid(0) | Match::Ambiguous if words.len() == 1 => {
                Answer::text(UNKNOWN_ACTION)
            }
            Match::Invalid(0) => Answer::text(UNKNOWN_ACTION),
            Match::Invalid(i) => Answer::text(parse_error(words[i])),
            Match::Ambiguous | Match::Incomplete => {
                Answer::text(parse_error(words.last().copied().unwrap_or_default()))
            }
        }
    }

    fn secret(&mut self, _line: &str) -> Answer {
        // Only `execute reboot` asks; the lab never reboots (the attempt is in the journal).
        self.confirming = false;
        Answer::empty()
    }

    fn set_rows(&mut self, rows: usize) {
        self.rows = rows;
    }
}

#[cfg(test)]
mod tests;
