//! The emulated Arista EOS CLI: `HOST>` after login, `enable` (with `Password:` when a secret
//! is set) to `HOST#`, privilege errors for the config commands, `| json`, pipes, the pager
//! unless `terminal length 0`, and configuration mode (recorded as a config attempt).

mod commands;
mod fabric;
mod handoff;
mod interfaces;
pub(crate) mod json;
mod lanz;
pub mod model;
mod multicast;
mod ntp;
mod outputs;
mod ports;
mod ptp;
mod reload;
pub mod state;

use std::sync::{Arc, Mutex};

use super::clock;
use super::device::{Answer, Cli, Journal, Next, grep, split_pipes};
use super::grammar::{Match, find};
use super::scenario::{Fault, Faults, PAGER_LINES};
use commands::{COMMANDS, Cmd};
pub use state::EosState;

const PRIVILEGE_REQUIRED: &str = "% Invalid input (privileged mode required)";

/// One CLI session on an emulated switch.
pub struct EosCli {
    name: String,
    state: Arc<Mutex<EosState>>,
    journal: Journal,
    privileged: bool,
    config_mode: bool,
    /// `terminal length N` as typed; `None` = follow the terminal height.
    length: Option<usize>,
    rows: usize,
    forced_page: bool,
    /// A `reload` waits for its `[confirm]`.
    confirming_reload: bool,
    /// Under `privilege-dropped`: commands left at `#` before privileged mode is lost.
    privilege_lasts: Option<usize>,
}

impl EosCli {
    pub fn new(name: &str, state: Arc<Mutex<EosState>>, journal: Journal, faults: &Faults) -> Self {
        EosCli {
            name: name.to_string(),
            state,
            journal,
            privileged: false,
            config_mode: false,
            length: None,
            rows: 0,
            forced_page: faults.has(Fault::Pager),
            confirming_reload: false,
            privilege_lasts: faults
                .has(Fault::PrivilegeDropped)
                .then_some(Fault::CONTEXT_LASTS),
        }
    }

    /// Under `privilege-dropped`, counts a command typed at `#`: after the last one the
    /// switch is unprivileged, and the prompt that follows says so.
    fn count_privileged(&mut self) {
        if let (true, Some(left)) = (self.privileged, self.privilege_lasts.as_mut()) {
            *left = left.saturating_sub(1);
            if *left == 0 {
                self.privilege_lasts = None;
                self.privileged = false;
            }
        }
    }

    fn hostname(&self) -> String {
        self.state
            .lock()
            .map(|s| s.running.hostname.clone())
            .unwrap_or_else(|_| self.name.clone())
    }

    fn page(&self, pipes: &[String]) -> Option<usize> {
        if pipes
            .iter()
            .any(|p| "no-more".starts_with(p.as_str()) && p.len() >= 2)
        {
            return None;
        }
        match self.length {
            Some(0) => None,
            Some(n) => Some(n),
            None if self.forced_page => Some(PAGER_LINES),
            None if self.rows > 1 => Some(self.rows - 1),
            None => None,
        }
    }

    fn configure_line(&mut self, line: &str) -> Answer {
        self.journal.attempt(&self.name, line);
        match line.trim() {
            "end" | "exit" => {
                self.config_mode = false;
                Answer::empty()
            }
            other => {
                if let Ok(mut s) = self.state.lock() {
                    s.configure(other);
                }
                Answer::empty()
            }
        }
    }

    fn show(&self, cmd: Cmd, pipes: &[String]) -> Answer {
        let json = json_revision(pipes);
        let Ok(s) = self.state.lock() else {
            return Answer::text("% Internal error");
        };
        let now = clock::now();
        // A bare `| json` gives revision 1 here, as eAPI does by default (what the CLI gives
        // is unconfirmed); `| json revision 2` the per-VLAN port model.
        let rev = match json {
            Some(Some(n)) if n >= 2 => ptp::Revision::Two,
            _ => ptp::Revision::One,
        };
        // What this model lacks, answered as such hardware answers (ANTA's unsupported-platform
        // errors, with the CLI's `% `): a Trident switch has no VOQ counters, a switch without
        // PTP no `ptp` keyword, and only Trident switches count per egress queue here.
        let lacks = match cmd {
            Cmd::ShowQueueDrops => (!s.spec.voq()).then_some(INCOMPLETE),
            Cmd::ShowQueueDetail => s.spec.voq().then_some(INCOMPLETE),
            Cmd::ShowPtp | Cmd::ShowPtpMasters => (!s.spec.ptp).then_some(INCOMPLETE),
            // Sand switches only (ANTA's tests quote the message).
            Cmd::ShowHardwareDrops => (!s.spec.voq()).then_some(UNAVAILABLE),
            _ => None,
        };
        let text = match (cmd, json.is_some()) {
            _ if let Some(lack) = lacks => lack.to_string(),
            (Cmd::ShowVersion, false) => outputs::show_version(&s, now),
            (Cmd::ShowVersion, true) => outputs::show_version_json(&s, now),
            (Cmd::ShowLanzStatus, false) => outputs::lanz_status(&s),
            (Cmd::ShowLanzStatus, true) => outputs::lanz_status_json(&s),
            (Cmd::ShowRunning, false) => outputs::show_running_config(&s),
            (Cmd::ShowStartup, false) => outputs::show_startup_config(&s),
            (Cmd::ShowRunningDiffs, true) => outputs::unconverted_json(),
            (Cmd::ShowRunningDiffs, false) => outputs::running_config_diffs(&s),
            (Cmd::ShowClock, false) => outputs::show_clock(),
            (Cmd::ShowHostname, false) => {
                format!(
                    "Hostname: {}\nFQDN:     {}.lab.example\n",
                    s.running.hostname, s.running.hostname
                )
            }
            (Cmd::ShowPrivilege, false) => {
                format!(
                    "Current privilege level is {}\n",
                    if self.privileged { 15 } else { 1 }
                )
            }
            (Cmd::ShowInterfaces, true) => interfaces::interfaces_json(&s, now),
            (Cmd::ShowCountersErrors, true) => interfaces::counters_errors_json(&s, now),
            (Cmd::ShowQueueDrops, true) => interfaces::queue_drops_json(&s, now),
            (Cmd::ShowQueueDetail, true) => interfaces::queue_detail_json(&s, now),
            (Cmd::ShowDiscards, true) => interfaces::discards_json(&s, now),
            (Cmd::ShowDomThresholds, true) => interfaces::dom_thresholds_json(&s, now),
            (Cmd::ShowPtp, true) => ptp::ptp_json(&s, now, rev),
            (Cmd::ShowPtpMasters, true) => ptp::masters_json(&s),
            (Cmd::ShowIgmpSnooping, true) => multicast::snooping_json(&s),
            (Cmd::ShowIgmpQuerier, true) => multicast::querier_json(&s),
            (Cmd::ShowIgmpGroups, true) => multicast::groups_json(&s),
            (Cmd::ShowLanz, true) => lanz::length_json(&s, now),
            (Cmd::ShowLanz, false) => lanz::length_text(&s, now),
            (Cmd::ShowReloadCause, true) => reload::reload_cause_json(&s),
            (Cmd::ShowReloadCause, false) => reload::reload_cause_text(&s),
            (Cmd::ShowNtpStatus, false) => ntp::status_text(&s),
            (Cmd::ShowNtpAssociations, true) => ntp::associations_json(&s, now),
            (Cmd::ShowNtpAssociations, false) => ntp::associations_text(&s),
            (Cmd::ShowUptime, true) => reload::uptime_json(&s, now),
            (Cmd::ShowBgpSummary, true) => handoff::bgp_summary_json(&s),
            (Cmd::ShowBfdPeers, true) => handoff::bfd_peers_json(&s),
            (Cmd::ShowPimNeighbors, true) => handoff::pim_neighbors_json(&s),
            (Cmd::ShowMroute, true) => handoff::mroute_json(&s),
            (Cmd::ShowMrouteCount, true) => handoff::mroute_count_json(&s, now),
            (Cmd::ShowMlag, true) => fabric::mlag_json(&s),
            (Cmd::ShowMlagConfigSanity, true) => fabric::mlag_sanity_json(&s),
            (Cmd::ShowHardwareDrops, true) => fabric::hardware_drops_json(&s, now),
            (Cmd::ShowFlowControl, true) => fabric::flow_control_json(&s, now),
            (Cmd::ShowLldpNeighbors, true) => fabric::lldp_json(&s, now),
            (_, true) => outputs::unconverted_json(),
            // A text form the lab does not draw: say so rather than print something made up.
            (_, false) => LAB_TEXT_MISSING.to_string(),
        };
        drop(s);
        let text = apply_pipes(text, pipes);
        Answer::data(text, self.page(pipes))
    }
}

impl EosCli {
    /// `show interfaces PORT | json` (the per-port counters `eos.multicast.flowing` samples).
    fn show_interface(&self, port: &str, pipes: &[String]) -> Answer {
        let Ok(s) = self.state.lock() else {
            return Answer::text("% Internal error");
        };
        let text = match (
            json_revision(pipes),
            interfaces::interface_json(&s, clock::now(), port),
        ) {
            (_, None) => "% Invalid input".to_string(),
            (Some(_), Some(json)) => json,
            (None, Some(_)) => LAB_TEXT_MISSING.to_string(),
        };
        drop(s);
        Answer::data(apply_pipes(text, pipes), self.page(pipes))
    }
}

/// `show interfaces PORT` (abbreviated as EOS allows: `sh int Ethernet9`): the port's name,
/// which names a port when it holds a digit (`show interfaces status` is another command).
fn one_interface<'a>(words: &[&'a str]) -> Option<&'a str> {
    let abbreviates = |word: &str, key: &str, least: usize| {
        word.len() >= least && key.starts_with(&word.to_ascii_lowercase())
    };
    match words {
        [show, interfaces, port]
            if abbreviates(show, "show", 2)
                && abbreviates(interfaces, "interfaces", 3)
                && port.bytes().any(|b| b.is_ascii_digit()) =>
        {
            Some(port)
        }
        _ => None,
    }
}

/// What a switch prints for a keyword its hardware lacks (`show interfaces counters queue
/// drops` on a 7050X: ANTA's `Incomplete command (at token 4: 'drops')`).
const INCOMPLETE: &str = "% Incomplete command";

/// What a switch prints for a command its hardware platform lacks (`show hardware counter
/// drop` off Sand platforms: ANTA's tests quote it).
const UNAVAILABLE: &str = "% Unavailable command (not supported on this hardware platform)";

/// What the lab prints for a command whose text form it does not emulate (only `| json`).
const LAB_TEXT_MISSING: &str = "% The lab emulates this command with | json only";

/// `| json` or `| json revision N` among the pipes: `None` = text, `Some(None)` = the
/// default revision, `Some(Some(n))` = revision n.
fn json_revision(pipes: &[String]) -> Option<Option<u32>> {
    pipes.iter().find_map(|p| {
        let mut words = p.split_whitespace();
        (words.next() == Some("json")).then(|| match (words.next(), words.next()) {
            (Some("revision"), Some(n)) => n.parse().ok(),
            _ => None,
        })
    })
}

/// `| include RE`, `| exclude RE`, `| begin RE`; `json` and `no-more` are handled elsewhere.
fn apply_pipes(mut text: String, pipes: &[String]) -> String {
    for pipe in pipes {
        let (verb, arg) = pipe.split_once(' ').unwrap_or((pipe.as_str(), ""));
        let arg = arg.trim();
        text = match verb {
            v if !v.is_empty() && "include".starts_with(v) => grep(&text, arg, false, false),
            v if !v.is_empty() && "exclude".starts_with(v) => grep(&text, arg, true, false),
            v if !v.is_empty() && "begin".starts_with(v) => {
                match text.lines().position(|l| l.contains(arg)) {
                    Some(i) => text.lines().skip(i).map(|l| format!("{l}\n")).collect(),
                    None => String::new(),
                }
            }
            _ => text,
        };
    }
    text
}

impl Cli for EosCli {
    fn banner(&self) -> String {
        "Last login: Mon Nov 30 07:02:11 2026 from 192.0.2.50\n".to_string()
    }

    fn prompt(&self) -> String {
        let host = self.hostname();
        match (self.config_mode, self.privileged) {
            (true, _) => format!("{host}(config)#"),
            (false, true) => format!("{host}#"),
            (false, false) => format!("{host}>"),
        }
    }

    fn run(&mut self, line: &str) -> Answer {
        let trimmed = line.trim();
        if trimmed.is_empty() {
            return Answer::empty();
        }
        self.journal.command(&self.name, trimmed);
        if self.config_mode {
            return self.configure_line(trimmed);
        }
        let typed_privileged = self.privileged;
        let answer = self.answer(trimmed);
        if typed_privileged {
            self.count_privileged();
        }
        answer
    }

    fn secret(&mut self, line: &str) -> Answer {
        if std::mem::take(&mut self.confirming_reload) {
            // The lab never reloads; the attempt is already in the journal.
            return Answer::empty();
        }
        let expected = self.state.lock().ok().and_then(|s| s.enable_secret.clone());
        match expected {
            Some(secret) if secret == line.trim_end_matches(['\r', '\n']) => {
                self.privileged = true;
                Answer::empty()
            }
            Some(_) => Answer::text("% Access denied"),
            None => Answer::empty(),
        }
    }

    fn set_rows(&mut self, rows: usize) {
        self.rows = rows;
    }
}

impl EosCli {
    /// The answer to a line typed outside configuration mode.
    fn answer(&mut self, trimmed: &str) -> Answer {
        let (command, pipes) = split_pipes(trimmed);
        let words: Vec<&str> = command.split_whitespace().collect();
        if let Some(port) = one_interface(&words) {
            return self.show_interface(port, &pipes);
        }
        let (cmd, args) = match find(COMMANDS, &words) {
            Match::Found(cmd, args) => (*cmd, args),
            Match::Incomplete => return Answer::text("% Incomplete command"),
            Match::Ambiguous => return Answer::text("% Ambiguous command"),
            Match::Invalid(_) => return Answer::text("% Invalid input"),
        };
        let needs_enable = matches!(
            cmd,
            Cmd::ShowRunning
                | Cmd::ShowRunningDiffs
                | Cmd::ShowStartup
                | Cmd::Configure
                | Cmd::Write
                | Cmd::Copy
                | Cmd::Reload
                | Cmd::Clear
        );
        if matches!(
            cmd,
            Cmd::Configure | Cmd::Write | Cmd::Copy | Cmd::Reload | Cmd::Clear
        ) {
            self.journal.attempt(&self.name, trimmed);
        }
        if needs_enable && !self.privileged {
            let mut answer = Answer::text(PRIVILEGE_REQUIRED);
            answer.data = cmd != Cmd::Configure;
            return answer;
        }
        match cmd {
            Cmd::Enable => {
                let secret = self.state.lock().ok().and_then(|s| s.enable_secret.clone());
                match secret {
                    Some(_) if !self.privileged => {
                        Answer::empty().then(Next::Secret("Password: ".into()))
                    }
                    _ => {
                        self.privileged = true;
                        Answer::empty()
                    }
                }
            }
            Cmd::Disable => {
                self.privileged = false;
                Answer::empty()
            }
            Cmd::Exit => Answer::empty().then(Next::Exit),
            Cmd::TerminalLength => match args.first().and_then(|a| a.parse::<usize>().ok()) {
                Some(0) => {
                    self.length = Some(0);
                    Answer::text("Pagination disabled.")
                }
                Some(n) if n <= 32767 => {
                    self.length = Some(n);
                    Answer::text(format!("Pagination set to {n} lines."))
                }
                _ => Answer::text("% Invalid input"),
            },
            Cmd::TerminalWidth => match args.first().and_then(|a| a.parse::<usize>().ok()) {
                Some(n) if (10..=32767).contains(&n) => {
                    Answer::text(format!("Width set to {n} columns."))
                }
                _ => Answer::text("% Invalid input"),
            },
            Cmd::Configure => {
                self.config_mode = true;
                Answer::empty()
            }
            Cmd::Write => {
                if let Ok(mut s) = self.state.lock() {
                    s.save();
                }
                Answer::text("Copy completed successfully.")
            }
            Cmd::Copy => {
                let to_startup = args.get(1).is_some_and(|a| a.starts_with("startup"));
                if to_startup
                    && args.first().is_some_and(|a| a.starts_with("running"))
                    && let Ok(mut s) = self.state.lock()
                {
                    s.save();
                }
                Answer::text("Copy completed successfully.")
            }
            Cmd::Reload => {
                self.confirming_reload = true;
                Answer::empty().then(Next::Secret("Proceed with reload? [confirm]".into()))
            }
            Cmd::Clear => Answer::empty(),
            show => self.show(show, &pipes),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cli(faults: Faults) -> (EosCli, Journal) {
        let journal = Journal::default();
        let state = Arc::new(Mutex::new(EosState::new("sw1", 1, &faults)));
        (EosCli::new("sw1", state, journal.clone(), &faults), journal)
    }

    #[test]
    fn privilege_then_enable() {
        let (mut c, journal) = cli(Faults::default());
        assert_eq!(c.prompt(), "sw1>");
        assert_eq!(c.run("show running-config").text, PRIVILEGE_REQUIRED);
        assert_eq!(c.run("show running-config diffs").text, PRIVILEGE_REQUIRED);
        assert!(
            c.run("show version")
                .text
                .contains("Software image version: 4.31.6M")
        );
        let a = c.run("enable");
        assert_eq!(a.next, Next::Secret("Password: ".into()));
        assert_eq!(c.secret("wrong").text, "% Access denied");
        assert_eq!(c.prompt(), "sw1>");
        c.run("enable");
        c.secret(crate::topology::EOS_ENABLE_SECRET);
        assert_eq!(c.prompt(), "sw1#");
        assert!(
            c.run("show running-config")
                .text
                .contains("\nqueue-monitor length\n")
        );
        assert_eq!(c.run("show running-config diffs").text, "");
        assert!(journal.attempts().is_empty());
    }

    #[test]
    fn pager_and_pipes() {
        let (mut c, _) = cli(Faults::default());
        c.set_rows(24);
        assert_eq!(c.run("show version").page, Some(23));
        assert_eq!(c.run("show version | no-more").page, None);
        assert_eq!(c.run("terminal length 0").text, "Pagination disabled.");
        assert_eq!(c.run("show version").page, None);
        assert_eq!(
            c.run("show version | include Software").text,
            "Software image version: 4.31.6M\n"
        );
        assert!(
            c.run("show queue-monitor length status | json")
                .text
                .contains("\"lanzEnabled\": true")
        );
        assert_eq!(c.run("sh bogus").text, "% Invalid input");
        assert_eq!(c.run("show").text, "% Incomplete command");
    }

    #[test]
    fn json_revisions_and_missing_text_forms() {
        let (mut c, journal) = cli(Faults::default());
        assert_eq!(json_revision(&["json".into()]), Some(None));
        assert_eq!(json_revision(&["json revision 2".into()]), Some(Some(2)));
        assert_eq!(json_revision(&["include x".into()]), None);
        let rev1 = c.run("show ptp | json").text;
        assert!(
            rev1.contains("\"portState\": \"psSlave\"") && !rev1.contains("ptpIntfVlanSummaries")
        );
        assert!(
            c.run("show ptp | json revision 2")
                .text
                .contains("ptpIntfVlanSummaries")
        );
        // A text form the lab does not draw says so instead of printing something made up.
        assert_eq!(c.run("show ptp").text, LAB_TEXT_MISSING);
        assert!(c.run("show ntp status").text.starts_with("synchronised"));
        assert!(
            c.run("show reload cause")
                .text
                .starts_with("Reload Cause 1:\n")
        );
        assert!(journal.attempts().is_empty());
    }

    #[test]
    fn one_port_with_its_counters() {
        let (mut c, _) = cli(Faults::default());
        let one = c.run("show interfaces Ethernet9 | json").text;
        let v: serde_json::Value = serde_json::from_str(&one).unwrap();
        let ports: Vec<&String> = v["interfaces"].as_object().unwrap().keys().collect();
        assert_eq!(ports, ["Ethernet9"]);
        assert!(v["interfaces"]["Ethernet9"]["interfaceCounters"]["inMulticastPkts"].is_u64());
        assert_eq!(c.run("sh int Ethernet99 | json").text, "% Invalid input");
        assert_eq!(c.run("show interfaces Ethernet9").text, LAB_TEXT_MISSING);
        assert!(
            c.run("show interfaces counters errors | json")
                .text
                .contains("interfaceErrorCounters")
        );
    }

    #[test]
    fn config_is_recorded_and_applied() {
        let (mut c, journal) = cli(Faults::only(Fault::LanzUnsaved));
        c.run("enable");
        c.secret(crate::topology::EOS_ENABLE_SECRET);
        assert!(
            c.run("show running-config diffs")
                .text
                .contains("+queue-monitor length\n")
        );
        c.run("configure");
        assert_eq!(c.prompt(), "sw1(config)#");
        c.run("end");
        c.run("write memory");
        assert_eq!(c.run("show running-config diffs").text, "");
        let attempts: Vec<String> = journal.attempts().into_iter().map(|a| a.command).collect();
        assert_eq!(attempts, vec!["configure", "end", "write memory"]);
    }
}
