//! The emulated FortiGate CLI's sessions: prompts, errors, the session filter, configuration
//! mode, the pager and the configuration shows.

use super::super::scenario::Faults;
use super::*;

fn cli(faults: Faults) -> (FortiCli, Journal) {
    let journal = Journal::default();
    let state = Arc::new(Mutex::new(FgState::new("fw1", 1, &faults)));
    (FortiCli::new("fw1", state, journal.clone()), journal)
}

#[test]
fn prompts_vdom_and_errors() {
    let (mut c, journal) = cli(Faults::default());
    assert_eq!(c.prompt(), "fw1 # ");
    // VDOMs are disabled: no VDOM context exists, and the prompt stays.
    for (line, word) in [
        ("config vdom", "vdom"),
        ("config global", "global"),
        ("sudo global get system status", "global"),
        ("sudo root diagnose sys session list", "root"),
    ] {
        assert_eq!(
            c.run(line).text,
            format!("command parse error before '{word}'\nCommand fail. Return code -61"),
            "{line}"
        );
        assert_eq!(c.prompt(), "fw1 # ");
    }
    assert_eq!(c.run("edit root").text, vdom::TOP_LEVEL_END);
    assert_eq!(c.run("end").text, vdom::TOP_LEVEL_END);
    assert!(
        c.run("diagnose sys vd list")
            .text
            .contains("name=root/root index=0 ")
    );
    assert_eq!(c.run("bogus").text, UNKNOWN_ACTION);
    assert!(
        c.run("get system bogus")
            .text
            .starts_with("command parse error before 'bogus'")
    );
    assert!(
        c.run("get system status")
            .text
            .contains("Version: FortiGate-201G v7.6.7,build")
    );
    assert!(
        c.run("get sys stat | grep Virtual").text
            == "Virtual domains status: 1 in NAT mode, 0 in TP mode\nVirtual domain configuration: disable\n"
    );
    assert!(journal.attempts().is_empty());
}

#[test]
fn session_filter_flow() {
    let (mut c, journal) = cli(Faults::default());
    assert_eq!(c.run("diagnose sys session filter clear").text, "");
    assert!(
        c.run("diagnose sys session filter")
            .text
            .contains("        dest port: any\n")
    );
    c.run("diagnose sys session filter dst 10.20.1.20");
    c.run("diagnose sys session filter dport 5000");
    let readback = c.run("diagnose sys session filter").text;
    assert!(
        readback.contains("        dest ip: 10.20.1.20-10.20.1.20\n"),
        "{readback}"
    );
    let list = c.run("diagnose sys session list").full_text();
    assert_eq!(list.matches("session info:").count(), 1);
    assert!(list.ends_with("total session 1\n"));
    assert_eq!(
        c.run("diagnose sys session list | grep -c \"session info\"")
            .full_text(),
        "1\n"
    );
    c.run("diagnose sys session filter clear");
    let all = c.run("diagnose sys session list").full_text();
    assert!(all.ends_with("total session 4\n"), "{all}");
    assert!(journal.attempts().is_empty());
    c.run("diagnose sys session clear");
    assert_eq!(journal.attempts().len(), 1);
    assert!(
        c.run("diagnose sys session list")
            .full_text()
            .ends_with("total session 0\n")
    );
    assert!(c.run("diagnose sys session stat").text.contains("flush=1,"));
}

#[test]
fn config_mode_is_applied_and_recorded() {
    let (mut c, journal) = cli(Faults::only(Fault::OffloadDisabled));
    assert!(
        c.run("show firewall policy 1")
            .text
            .contains("set auto-asic-offload disable")
    );
    c.run("diagnose sys session filter dport 5000");
    assert!(
        c.run("diagnose sys session list")
            .full_text()
            .contains("no_ofld_reason:  disabled-by-policy")
    );
    c.run("config firewall policy");
    assert_eq!(c.prompt(), "fw1 (policy) # ");
    c.run("edit 1");
    assert_eq!(c.prompt(), "fw1 (1) # ");
    c.run("set auto-asic-offload enable");
    c.run("next");
    c.run("end");
    assert_eq!(c.prompt(), "fw1 # ");
    assert!(
        c.run("diagnose sys session list")
            .full_text()
            .contains("ofld-O")
    );
    assert_eq!(journal.attempts().len(), 5);
}

#[test]
fn console_output_mode_controls_the_pager() {
    let (mut c, _) = cli(Faults::default());
    c.set_rows(24);
    assert_eq!(c.run("get system status").page, Some(23));
    assert_eq!(c.run("get system status | grep .").page, None);
    assert!(
        c.run("get system console")
            .text
            .starts_with("output                  : more\n")
    );
    for line in ["config system console", "set output standard", "end"] {
        c.run(line);
    }
    assert_eq!(c.run("get system status").page, None);
}

#[test]
fn config_shows_and_global() {
    let (mut c, _) = cli(Faults::default());
    let vwp = c.run("show system virtual-wire-pair").text;
    assert_eq!(
        vwp,
        "config system virtual-wire-pair\n    edit \"vwp-trading\"\n        set member \"x1\" \"x2\"\n    next\nend\n"
    );
    let svc = c.run("show firewall service custom MD-UDP-5000").text;
    assert!(
        svc.contains("set udp-portrange 5000\n        set udp-idle-timer 3600\n"),
        "{svc}"
    );
    assert!(!svc.contains("ORDERS"));
    assert!(
        c.run("show firewall multicast-policy")
            .text
            .contains("    edit 1\n")
    );
    assert!(
        c.run("get system global")
            .text
            .contains("udp-idle-timer          : 180\n")
    );
    assert!(
        c.run("show firewall bogus")
            .text
            .starts_with("command parse error")
    );
    let (mut idle, _) = cli(Faults::only(Fault::IdleExpired));
    let svc = idle.run("show firewall service custom MD-UDP-5000").text;
    assert!(!svc.contains("udp-idle-timer"), "{svc}");
}
