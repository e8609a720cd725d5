//! The probe's FortiGate side over real SSH on loopback against the lab: the cross-check reads
//! the market-data session's `npu_state`, and `diagnose sys session clear` is sent only after
//! the filter read back as exactly the probe's 5-tuple (asserted on the lab's journal).
//!
//! The lab runs on its own multi-threaded runtime; [`FirewallShell`] blocks on its own one, as
//! in `premarket probe run --firewall`.

use std::net::Ipv4Addr;

use premarket::collect::ssh::{firewall_shell, settings};
use premarket::config::Config;
use premarket::core::CollectError;
use premarket::lab::{Lab, LabOptions, Scenario, topology};
use premarket::platform::fortigate::firewall::{
    self, Cli, FilterMatched, FirewallError, ProbeFlow, SESSION_CLEAR, ShellError,
};
use premarket::platform::fortigate::firewall_shell::FirewallShell;
use premarket::platform::fortigate::{SESSION_FILTER, SESSION_FILTER_CLEAR, SessionFilter};
use tokio::runtime::Runtime;

const CLEAR: &str = SESSION_CLEAR;
const READBACK: &str = SESSION_FILTER;

fn market_data() -> ProbeFlow {
    let f = topology::MARKET_DATA;
    ProbeFlow {
        filter: SessionFilter {
            proto: f.proto,
            src: Some(Ipv4Addr::from(f.src).into()),
            dst: Some(Ipv4Addr::from(f.dst).into()),
            dport: Some(f.dport),
        },
        sport: f.sport,
    }
}

struct Running {
    runtime: Runtime,
    lab: Option<Lab>,
    config: Config,
}

impl Running {
    fn start(scenarios: &[&str]) -> Running {
        let runtime = Runtime::new().expect("runtime");
        let scenarios: Vec<Scenario> = scenarios.iter().map(|s| s.parse().unwrap()).collect();
        let lab = runtime
            .block_on(Lab::start_with(LabOptions {
                scenarios,
                devices: 2,
                ..LabOptions::default()
            }))
            .expect("lab starts");
        let config = Config::load(&lab.site_dir).unwrap_or_else(|e| panic!("{e}"));
        Running {
            runtime,
            lab: Some(lab),
            config,
        }
    }

    fn lab(&self) -> &Lab {
        self.lab.as_ref().expect("lab running")
    }

    fn shell(&self) -> FirewallShell {
        let device = self.config.device("fw1").expect("fw1 in the lab site");
        firewall_shell(device, &settings(&self.config))
            .unwrap_or_else(|e| panic!("connect fw1: {e}"))
    }

    fn fw1_commands(&self) -> Vec<String> {
        self.lab().journal().commands("fw1")
    }

    fn clears(&self) -> usize {
        self.lab()
            .config_attempts()
            .iter()
            .filter(|a| a.command == CLEAR)
            .count()
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(lab) = self.lab.take() {
            self.runtime.block_on(lab.shutdown());
        }
    }
}

#[test]
fn cross_check_reads_the_market_data_sessions_npu_state() {
    for (scenario, npu, offloaded) in [
        ("healthy", "ofld-O", true),
        ("offload-disabled", "no_offload", false),
    ] {
        let run = Running::start(&[scenario]);
        let mut shell = run.shell();
        let check = firewall::cross_check(&mut shell, &market_data(), 2)
            .unwrap_or_else(|e| panic!("{scenario}: {e}"));
        assert!(check.npu_state.contains(npu), "{scenario}: {check:?}");
        assert_eq!(check.offloaded_original, offloaded, "{scenario}: {check:?}");
        assert_eq!(
            check.agrees,
            check.cpu_packets == 2,
            "{scenario}: {check:?}"
        );
        shell.close();
        let sent = run.fw1_commands();
        let mut want = market_data().lines();
        want.push(READBACK.into());
        want.push("diagnose sys session list".into());
        want.push(SESSION_FILTER_CLEAR.into());
        assert!(
            sent.windows(want.len()).any(|w| w == want.as_slice()),
            "{scenario}: {sent:#?}"
        );
        assert!(run.lab().config_attempts().is_empty(), "{scenario}");
    }
}

#[test]
fn clear_with_a_matching_readback_sends_exactly_one_clear_after_the_filter() {
    let run = Running::start(&["healthy"]);
    let mut shell = run.shell();
    firewall::clear_session(&mut shell, &market_data(), true).expect("clear");
    let sent = run.fw1_commands();
    let at = sent.iter().position(|l| l == CLEAR).expect("clear sent");
    let mut want = market_data().lines();
    want.push(READBACK.into());
    assert_eq!(&sent[at - want.len()..at], want.as_slice(), "{sent:#?}");
    assert_eq!(
        sent.get(at + 1).map(String::as_str),
        Some("diagnose sys session filter clear")
    );
    assert_eq!(sent.iter().filter(|l| *l == CLEAR).count(), 1);
    assert_eq!(run.clears(), 1);
    // Only the probe's session went: it is no longer listed, the order-entry session still is.
    let gone = firewall::cross_check(&mut shell, &market_data(), 2);
    assert!(
        matches!(gone, Err(FirewallError::Unreadable(_))),
        "{gone:?}"
    );
    let all = shell.run("diagnose sys session list").unwrap();
    assert!(all.contains("total session"), "{all}");
    assert!(
        !all.contains(&format!(
            "{}:{}->",
            topology::ip(topology::MARKET_DATA.src),
            topology::MARKET_DATA.sport
        )),
        "{all}"
    );
    assert!(all.contains("npu_state="), "other sessions remain: {all}");
    shell.close();
}

#[test]
fn without_clear_session_nothing_is_sent() {
    let run = Running::start(&["healthy"]);
    let before = run.fw1_commands().len();
    let mut shell = run.shell();
    let got = firewall::clear_session(&mut shell, &market_data(), false);
    assert!(matches!(got, Err(FirewallError::Refused(_))), "{got:?}");
    shell.close();
    let sent = run.fw1_commands();
    assert!(
        !sent[before..].iter().any(|l| l.starts_with("diagnose")),
        "{sent:#?}"
    );
    assert_eq!(run.clears(), 0);
}

/// A real SSH shell whose read-back is rewritten: the check must see the difference.
struct WrongReadback(FirewallShell);

impl Cli for WrongReadback {
    fn run(&mut self, line: &str) -> Result<String, ShellError> {
        let text = self.0.run(line)?;
        Ok(if line == READBACK {
            text.replace("source port: 40000", "source port: any")
        } else {
            text
        })
    }

    fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, ShellError> {
        self.0.clear_filtered(proof)
    }
}

/// A real SSH shell that changes the filter after the read-back came back right: the SSH side
/// must refuse the clear because the read-back is no longer the last line sent.
struct ChangesAfterReadback(FirewallShell);

impl Cli for ChangesAfterReadback {
    fn run(&mut self, line: &str) -> Result<String, ShellError> {
        let text = self.0.run(line)?;
        if line == READBACK {
            self.0.run("diagnose sys session filter sport 40001")?;
        }
        Ok(text)
    }

    fn clear_filtered(&mut self, proof: FilterMatched) -> Result<String, ShellError> {
        self.0.clear_filtered(proof)
    }
}

#[test]
fn a_readback_that_differs_refuses_and_nothing_is_cleared() {
    let run = Running::start(&["healthy"]);
    let mut shell = WrongReadback(run.shell());
    let got = firewall::clear_session(&mut shell, &market_data(), true);
    assert!(
        matches!(&got, Err(FirewallError::Refused(r)) if r.contains("source port")),
        "{got:?}"
    );
    shell.0.close();

    let mut shell = ChangesAfterReadback(run.shell());
    let got = firewall::clear_session(&mut shell, &market_data(), true);
    assert!(
        matches!(
            &got,
            Err(FirewallError::Shell(e)) if matches!(**e, ShellError::NotAfterReadback { .. })
        ) && got
            .as_ref()
            .is_err_and(|e| e.to_string().contains("not the filter read-back")),
        "{got:?}"
    );
    shell.0.close();
    let sent = run.fw1_commands();
    assert!(!sent.iter().any(|l| l == CLEAR), "{sent:#?}");
    assert_eq!(run.clears(), 0);
}

#[test]
fn the_probe_shell_keeps_the_read_only_guard_for_everything_else() {
    let run = Running::start(&["healthy"]);
    let mut shell = run.shell();
    for line in [
        CLEAR,
        "diagnose sys session filter clear; diagnose sys session clear",
        "execute reboot",
        "config system console",
    ] {
        let got = shell.run(line);
        assert!(
            matches!(
                &got,
                Err(ShellError::Session { error: CollectError::Refused(why), .. })
                    if why.contains("was not sent")
            ),
            "{line}: {got:?}"
        );
    }
    shell.close();
    assert!(!run.fw1_commands().iter().any(|l| l == CLEAR));
    assert_eq!(run.clears(), 0);
}

#[test]
fn a_switch_is_not_a_firewall() {
    let run = Running::start(&["healthy"]);
    let device = run.config.device("sw1").expect("sw1");
    let got = firewall_shell(device, &settings(&run.config));
    assert!(
        matches!(&got, Err(CollectError::Other(e)) if e.contains("not a FortiGate")),
        "{:?}",
        got.err()
    );
}
