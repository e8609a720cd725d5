//! The lab over real SSH on loopback, driven by a minimal russh client (PTY shell, read until
//! the prompt): privilege error and `enable`, pager, VDOM prompts, session filter, every
//! scenario's distinguishing output, the transport faults, and the config-attempt journal.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use premarket::lab::{Lab, Scenario, topology};
use russh::client;
use russh::{ChannelMsg, Disconnect};

use crate::lab_support;

use lab_support::*;

async fn start_lab(scenarios: &[&str]) -> Lab {
    let scenarios: Vec<Scenario> = scenarios.iter().map(|s| s.parse().unwrap()).collect();
    Lab::start(&scenarios, 2).await.expect("lab starts")
}

#[tokio::test]
async fn eos_privilege_enable_and_pager() {
    let lab = start_lab(&[]).await;
    let handle = connect(&lab, "sw1").await.unwrap();
    let mut t = Term::open(&handle, 24, EOS_PROMPT).await;
    for cmd in ["show running-config", "show running-config diffs"] {
        let out = t.cmd(cmd).await;
        assert!(
            out.contains("% Invalid input (privileged mode required)"),
            "{cmd}: {out}"
        );
    }
    assert!(
        t.cmd("show version")
            .await
            .contains("Software image version: 4.31.6M")
    );
    t.send("enable").await;
    t.until_prompt_or_password().await;
    let out = t.cmd("not-the-secret").await;
    assert!(
        out.contains("% Access denied") && out.ends_with("sw1>"),
        "{out}"
    );
    t.send("enable").await;
    t.until_prompt_or_password().await;
    assert!(t.cmd(topology::EOS_ENABLE_SECRET).await.ends_with("sw1#"));
    // No `terminal length 0` yet: the running-config pages at the terminal height.
    let paged = t.cmd("show running-config").await;
    assert!(paged.contains(" --More-- <MORE>"), "{paged}");
    assert!(paged.contains("\r\nqueue-monitor length\r\n") && paged.contains("\r\nend\r\n"));
    assert!(
        t.cmd("terminal length 0")
            .await
            .contains("Pagination disabled.")
    );
    let whole = t.cmd("show running-config").await;
    assert!(!whole.contains("--More--"), "{whole}");
    assert_eq!(
        t.cmd("show running-config diffs").await,
        "show running-config diffs\r\nsw1#"
    );
    assert!(
        t.cmd("show queue-monitor length status | json")
            .await
            .contains("\"lanzEnabled\": true")
    );
    assert!(lab.config_attempts().is_empty());
    handle
        .disconnect(Disconnect::ByApplication, "", "")
        .await
        .ok();
    lab.shutdown().await;
}

#[tokio::test]
async fn fortigate_vdom_filter_and_pager() {
    let lab = start_lab(&[]).await;
    let handle = connect(&lab, "fw1").await.unwrap();
    let mut t = Term::open(&handle, 24, FGT_PROMPT).await;
    // The 201G runs without VDOMs: there is no VDOM to enter (lab_trading.rs has the rest).
    let out = t.cmd("config vdom").await;
    assert!(
        out.contains("command parse error before 'vdom'") && out.ends_with("fw1 # "),
        "{out}"
    );
    t.cmd("diagnose sys session filter clear").await;
    assert!(
        t.cmd("diagnose sys session filter")
            .await
            .contains("        dest port: any\r\n")
    );
    t.cmd("diagnose sys session filter src 10.10.1.10").await;
    t.cmd("diagnose sys session filter dst 10.20.1.20").await;
    t.cmd("diagnose sys session filter dport 5000").await;
    let readback = t.cmd("diagnose sys session filter").await;
    assert!(
        readback.contains("        source ip: 10.10.1.10-10.10.1.10\r\n"),
        "{readback}"
    );
    assert!(readback.contains("        dest port: 5000-5000\r\n"));
    let list = t.cmd("diagnose sys session list | grep .").await;
    assert!(!list.contains("--More--"));
    assert_eq!(list.matches("session info:").count(), 1);
    assert!(
        list.contains("npu_state=0x4000400 ofld-O\r\n") && list.contains("total session 1\r\n"),
        "{list}"
    );
    // Without `| grep` the console pager (output more) stops at the terminal height.
    let paged = t.cmd("get system status").await;
    assert!(
        paged.contains("--More-- <MORE>") && paged.contains("Last reboot reason"),
        "{paged}"
    );
    t.cmd("diagnose sys session filter clear").await;
    assert!(
        t.cmd("diagnose sys session list | grep total")
            .await
            .contains("total session 4\r\n")
    );
    assert!(
        t.cmd("diagnose sys mcast-session list")
            .await
            .contains("10.10.1.10.30001->239.1.1.1.30001")
    );
    assert!(t.cmd("bogus").await.contains("Unknown action 0"));
    assert!(
        t.cmd("get system bogus")
            .await
            .contains("command parse error before 'bogus'")
    );
    assert!(
        lab.config_attempts().is_empty(),
        "{:?}",
        lab.config_attempts()
    );
    lab.shutdown().await;
}

/// Each device-state scenario, the command that shows it, and what must appear.
#[tokio::test]
async fn every_scenario_shows_its_fault() {
    let fw_cases: &[(&str, &str, &str)] = &[
        (
            "healthy",
            "diagnose sys session list | grep npu_state",
            "ofld-O",
        ),
        (
            "offload-disabled",
            "diagnose sys session list | grep no_ofld_reason",
            "disabled-by-policy",
        ),
        (
            "offload-disabled",
            "show firewall policy 1",
            "set auto-asic-offload disable",
        ),
        (
            "new-source-port",
            "diagnose sys session list | grep total",
            "total session 10000",
        ),
        (
            "new-source-port",
            "diagnose sys session stat | grep setup_rate",
            "setup_rate=1000",
        ),
        (
            "not-established",
            "diagnose sys session list | grep total",
            "total session 0",
        ),
        (
            "idle-expired",
            "diagnose sys session list | grep expire",
            "expire=9 timeout=0",
        ),
        (
            "ha-mismatch",
            "get system ha status | grep -e Mode -e sync",
            "out-of-sync",
        ),
        (
            "cpu-high",
            "get system performance status | grep CPU",
            "CPU states: 61% user 27% system",
        ),
        (
            "version-drift",
            "get system status | grep Version",
            "v7.6.5,build",
        ),
    ];
    for (scenario, cmd, expect) in fw_cases {
        let lab = start_lab(&[scenario]).await;
        let handle = connect(&lab, "fw1").await.unwrap();
        let mut t = Term::open(&handle, 200, FGT_PROMPT).await;
        if cmd.starts_with("diagnose sys session list") {
            t.cmd("diagnose sys session filter dport 5000").await;
        }
        let out = t.cmd(cmd).await;
        assert!(out.contains(expect), "{scenario}: {cmd}: {out}");
        lab.shutdown().await;
    }
    let sw_cases: &[(&str, &str, &str)] = &[
        (
            "lanz-unsaved",
            "show running-config diffs",
            "+queue-monitor length\r\n",
        ),
        (
            "lanz-unsaved",
            "show queue-monitor length status | json",
            "\"lanzEnabled\": true",
        ),
        (
            "lanz-off",
            "show queue-monitor length status | json",
            "\"lanzEnabled\": false",
        ),
        (
            "config-unsaved",
            "show running-config diffs",
            "+ip host md-gateway 10.2.2.1\r\n",
        ),
        ("version-drift", "show version | include image", "4.30.1F"),
    ];
    for (scenario, cmd, expect) in sw_cases {
        let lab = start_lab(&[scenario]).await;
        let (_handle, mut t) = eos_enabled(&lab).await;
        t.cmd("terminal length 0").await;
        let out = t.cmd(cmd).await;
        assert!(out.contains(expect), "{scenario}: {cmd}: {out}");
        if *scenario == "lanz-unsaved" {
            assert!(
                !t.cmd("show startup-config")
                    .await
                    .contains("\r\nqueue-monitor length\r\n")
            );
        }
        lab.shutdown().await;
    }
}

#[tokio::test]
async fn pager_scenario_pages_whatever_the_height() {
    let lab = start_lab(&["pager"]).await;
    let handle = connect(&lab, "fw1").await.unwrap();
    let mut t = Term::open(&handle, 500, FGT_PROMPT).await;
    let out = t.cmd("get system status").await;
    assert!(out.matches("<MORE>").count() >= 2, "{out}");
    assert!(out.contains("Last reboot reason"));
    lab.shutdown().await;
}

#[tokio::test]
async fn slow_hang_and_drop() {
    let lab = start_lab(&["slow@fw1", "hang@sw1"]).await;
    // slow: every answer waits SLOW_DELAY.
    let handle = connect(&lab, "fw1").await.unwrap();
    let mut t = Term::open(&handle, 200, FGT_PROMPT).await;
    let start = Instant::now();
    assert!(
        t.cmd("get system status | grep Hostname")
            .await
            .contains("Hostname: fw1")
    );
    assert!(
        start.elapsed() >= premarket::lab::SLOW_DELAY,
        "{:?}",
        start.elapsed()
    );
    // hang: the prompt comes, setup commands answer, the first data command never does.
    let handle = connect(&lab, "sw1").await.unwrap();
    let mut t = Term::open(&handle, 200, EOS_PROMPT).await;
    assert!(
        t.cmd("terminal length 0")
            .await
            .contains("Pagination disabled.")
    );
    t.send("show version").await;
    let r = t.until_prompt(Duration::from_secs(3)).await;
    assert!(r.as_ref().is_err_and(|e| e.starts_with("timeout")), "{r:?}");
    lab.shutdown().await;

    let lab = start_lab(&["drop"]).await; // default target sw1
    let handle = connect(&lab, "sw1").await.unwrap();
    let mut t = Term::open(&handle, 200, EOS_PROMPT).await;
    t.send("show version").await;
    let r = t.until_prompt(Duration::from_secs(5)).await;
    let err = r.expect_err("dropped");
    assert!(err.starts_with("closed") && err.contains("Arista"), "{err}");
    lab.shutdown().await;
}

#[tokio::test]
async fn auth_fail_and_host_key_changed() {
    let lab = start_lab(&["auth-fail", "host-key-changed"]).await; // sw1, fw1
    let err = connect(&lab, "sw1").await.err().expect("auth fails");
    assert_eq!(err, "authentication failed");
    let err = connect(&lab, "fw1").await.err().expect("key refused");
    assert!(
        err.contains("host key") && err.to_lowercase().contains("changed"),
        "{err}"
    );
    let fw = lab.device("fw1").unwrap();
    let known = std::fs::read_to_string(lab.baselines().join("known_hosts")).unwrap();
    assert!(known.contains(&format!("[127.0.0.1]:{} ssh-ed25519 ", fw.addr.port())));
    lab.shutdown().await;
}

#[tokio::test]
async fn keyboard_interactive_and_exec() {
    let lab = start_lab(&[]).await;
    let sw = lab.device("sw1").unwrap().clone();
    let verdict = Arc::new(Mutex::new(String::new()));
    let handler = Verify {
        known_hosts: lab.baselines().join("known_hosts"),
        port: sw.addr.port(),
        verdict,
    };
    let mut handle = client::connect(Arc::new(client::Config::default()), sw.addr, handler)
        .await
        .unwrap();
    let mut reply = handle
        .authenticate_keyboard_interactive_start(topology::USER, None)
        .await
        .unwrap();
    loop {
        match reply {
            client::KeyboardInteractiveAuthResponse::Success => break,
            client::KeyboardInteractiveAuthResponse::InfoRequest { ref prompts, .. } => {
                assert_eq!(prompts.len(), 1);
                reply = handle
                    .authenticate_keyboard_interactive_respond(vec![topology::EOS_PASSWORD.into()])
                    .await
                    .unwrap();
            }
            other => panic!("{other:?}"),
        }
    }
    // Exec runs unprivileged, as the lab notes found: running-config is refused.
    for (cmd, expect) in [
        (
            "show running-config",
            "% Invalid input (privileged mode required)",
        ),
        ("show version", "Software image version: 4.31.6M"),
    ] {
        let mut ch = handle.channel_open_session().await.unwrap();
        ch.exec(true, cmd).await.unwrap();
        let (mut out, mut status) = (String::new(), None);
        while let Some(msg) = tokio::time::timeout(Duration::from_secs(5), ch.wait())
            .await
            .unwrap()
        {
            match msg {
                ChannelMsg::Data { data } => out.push_str(&String::from_utf8_lossy(&data)),
                ChannelMsg::ExitStatus { exit_status } => status = Some(exit_status),
                ChannelMsg::Close => break,
                _ => {}
            }
        }
        assert!(
            out.contains(expect) && !out.contains('\r'),
            "{cmd}: {out:?}"
        );
        assert_eq!(status, Some(0));
    }
    lab.shutdown().await;
}

#[tokio::test]
async fn config_changes_are_recorded() {
    let lab = start_lab(&["lanz-unsaved"]).await;
    let (_h, mut t) = eos_enabled(&lab).await;
    t.cmd("configure").await;
    t.cmd("queue-monitor length").await;
    t.cmd("end").await;
    assert!(
        t.cmd("write memory")
            .await
            .contains("Copy completed successfully.")
    );
    assert_eq!(lab.eos_lanz_saved("sw1"), Some(true));
    let h = connect(&lab, "fw1").await.unwrap();
    let mut f = Term::open(&h, 200, FGT_PROMPT).await;
    f.cmd("diagnose sys session clear").await;
    for line in ["config system console", "set output standard", "end"] {
        f.cmd(line).await;
    }
    let attempts: Vec<(String, String)> = lab
        .config_attempts()
        .into_iter()
        .map(|a| (a.device, a.command))
        .collect();
    let expected: Vec<(String, String)> = [
        ("sw1", "configure"),
        ("sw1", "queue-monitor length"),
        ("sw1", "end"),
        ("sw1", "write memory"),
        ("fw1", "diagnose sys session clear"),
        ("fw1", "config system console"),
        ("fw1", "set output standard"),
        ("fw1", "end"),
    ]
    .iter()
    .map(|(d, c)| (d.to_string(), c.to_string()))
    .collect();
    assert_eq!(attempts, expected);
    lab.shutdown().await;
}

#[tokio::test]
async fn site_dir_loads_and_matches_the_lab() {
    let lab = Lab::start(&[], 4).await.unwrap();
    let names: Vec<&str> = lab.devices.iter().map(|d| d.name.as_str()).collect();
    assert_eq!(names, ["fw1", "fw2", "sw1", "sw2"]);
    let config = premarket::config::Config::load(&lab.site_dir).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(config.devices.len(), 4);
    for device in &config.devices {
        let lab_device = lab.device(&device.name).unwrap();
        let ssh = device.ssh().expect("an SSH device");
        assert_eq!(
            (ssh.host.as_str(), ssh.port),
            ("127.0.0.1", lab_device.addr.port())
        );
        let secret = ssh
            .password
            .as_ref()
            .unwrap()
            .resolve(&device.environment)
            .unwrap();
        use secrecy::ExposeSecret;
        assert_eq!(secret.expose_secret(), password(lab_device));
    }
    let site_dir: PathBuf = lab.site_dir.clone();
    lab.shutdown().await;
    assert!(!Path::new(&site_dir).exists(), "temporary site dir removed");
}

#[tokio::test]
async fn line_editing_like_a_terminal() {
    let lab = start_lab(&[]).await;
    let handle = connect(&lab, "sw1").await.unwrap();
    let mut t = Term::open(&handle, 200, EOS_PROMPT).await;
    // Backspace corrects a typo; the echo shows the erase.
    let out = t.cmd("show verx\x7fsion | include image").await;
    assert!(out.contains("Software image version: 4.31.6M"), "{out:?}");
    // Ctrl-C abandons the line and gives a fresh prompt.
    t.channel.data(&b"show runn\x03"[..]).await.unwrap();
    let out = t.until_prompt(Duration::from_secs(5)).await.unwrap();
    assert!(out.ends_with("^C\r\nsw1>"), "{out:?}");
    let out = t.cmd("sh ver | i image").await;
    assert!(
        out.contains("4.31.6M") && !out.contains("Architecture"),
        "{out:?}"
    );
    lab.shutdown().await;
}

#[tokio::test]
async fn banner_waits_for_accept_on_the_firewall() {
    let lab = start_lab(&["banner"]).await;
    let handle = connect(&lab, "fw1").await.unwrap();
    let channel = handle.channel_open_session().await.unwrap();
    channel
        .request_pty(true, "vt100", 200, 24, 0, 0, &[])
        .await
        .unwrap();
    channel.request_shell(true).await.unwrap();
    let mut t = Term {
        channel,
        prompt: regex::Regex::new(r"\(Press 'a' to accept\):$").unwrap(),
        buf: String::new(),
    };
    let banner = t.until_prompt(Duration::from_secs(5)).await.unwrap();
    assert!(banner.starts_with("WARNING: authorised use"), "{banner:?}");
    // Nothing until `a`: a stray key does not let the session in.
    t.prompt = regex::Regex::new(FGT_PROMPT).unwrap();
    t.channel.data(&b"x"[..]).await.unwrap();
    assert!(t.until_prompt(Duration::from_millis(500)).await.is_err());
    t.channel.data(&b"a"[..]).await.unwrap();
    assert!(
        t.until_prompt(Duration::from_secs(5))
            .await
            .unwrap()
            .ends_with("fw1 # ")
    );
    // The switch shows the banner and carries on.
    let handle = connect(&lab, "sw1").await.unwrap();
    let mut s = Term::open(&handle, 24, EOS_PROMPT).await;
    assert!(s.cmd("show hostname").await.contains("Hostname: sw1"));
    lab.shutdown().await;
}
