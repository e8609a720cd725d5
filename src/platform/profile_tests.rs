//! The SSH layer's guard and session script, tested with the real platform profiles. They live
//! here because `ssh` never names a platform (its crate cannot: it does not depend on this one).

mod guard {
    use premarket_ssh::guard::*;

    use crate::{eos, fortigate};

    #[test]
    fn writes_and_separators_are_refused_for_both_platforms() {
        let profiles = [&eos::cli::PROFILE, &fortigate::cli::PROFILE];
        for line in [
            "configure",
            "configure terminal",
            "write memory",
            "copy running-config startup-config",
            "reload",
            "execute reboot",
            "execute factoryreset",
            "config system console",
            "config global",
            "config vdom",
            "edit root",
            "end",
            "diagnose sys session clear",
            "diagnose sys session filter clear;diagnose sys session clear",
            "diagnose sys session filter dport 1\ndiagnose sys session clear",
            "show running-config | write flash:x",
            "show running-config | redirect flash:x",
            "show running-config > flash:x",
            "show version\u{0}",
        ] {
            for profile in profiles {
                assert!(
                    Line::command(profile, line).is_err(),
                    "{line:?} passed the {} guard",
                    profile.platform
                );
            }
        }
    }

    /// The NP commands Fortinet documents as clearing their counters when they display them
    /// (KB 335104, Hardware Acceleration 427232 and 479144) are refused, and the reason says
    /// so: an operator who adds one to a declarative check learns why it cannot be sent.
    #[test]
    fn commands_that_clear_counters_when_read_are_refused_with_that_reason() {
        let profile = &fortigate::cli::PROFILE;
        for (line, said) in [
            ("diagnose npu np6 dce 0", "KB 335104"),
            ("diag npu np6 dce 1", "KB 335104"),
            ("diagnose npu np6lite dce 0", "KB 335104"),
            ("diagnose npu np6 dce-all 0", "the same DCE counters"),
            ("diagnose npu np6lite dce-all 1", "the same DCE counters"),
            ("diagnose npu np6xlite dce 0", "clear-on-read"),
            ("diagnose npu np7lite dce-drop-all 0", "clear-on-read"),
            ("diagnose npu np7 dce-drop-all 0 2", "clears"),
            ("diagnose npu np7 dce-drop-all 1 c", "clears"),
            ("diagnose npu np7 dce-drop-all 0 clear", "clears"),
            ("diagnose npu np7 cgmac-stats 0 2", "clears"),
            ("diagnose npu np7 cgmac-stats 0 clear", "clears"),
            ("diagnose npu np6 xgmac-stats-clear 0", "clears"),
            ("diagnose npu np6 session-stats-clear 0", "clears"),
            ("diagnose npu np6 sse-stats-clear 1", "clears"),
            ("diagnose npu np6 ipsec-stats-clear", "clears"),
            ("diagnose npu np6 hbq-stats-clear 0", "clears"),
        ] {
            let refused = Line::command(profile, line).expect_err(line);
            assert!(
                refused.reason.contains("clear") && refused.reason.contains(said),
                "{line}: {}",
                refused.reason
            );
        }
    }

    struct Forged;
    impl Proof for Forged {
        fn line(&self) -> &'static str {
            "diagnose sys session clear"
        }
    }

    #[test]
    fn a_proof_of_another_type_is_refused() {
        let e = Line::proven(&fortigate::cli::PROFILE, Forged).unwrap_err();
        assert!(e.reason.contains("no such proof"), "{e}");
        assert!(Line::proven(&eos::cli::PROFILE, Forged).is_err());
    }
}

mod script {
    use premarket_core::Command;
    use premarket_ssh::script::*;

    use crate::{eos, fortigate};

    fn texts(shown: &[Shown]) -> Vec<&str> {
        shown.iter().map(|s| s.text.as_str()).collect()
    }

    #[test]
    fn eos_session_in_order_with_the_conditional_lines() {
        let profile = &eos::cli::PROFILE;
        let commands = [
            Command::new("show version | json"),
            Command::new("configure"),
        ];
        let script = Script::new(profile, &commands, None).unwrap();
        let shown = script.shown(profile, Some("env:ENABLE"));
        assert_eq!(
            texts(&shown),
            [
                "terminal length 0",
                "terminal width 511",
                "enable",
                "<enable secret from env:ENABLE>",
                "show version | json",
                "configure",
                "",
            ]
        );
        assert!(shown[5].note.as_deref().unwrap().starts_with("REFUSED"));
        assert_eq!(script.refusals().len(), 1);
        assert!(Script::new(profile, &commands, Some("root")).is_err());
    }

    #[test]
    fn fortigate_with_a_vdom_reads_the_mode_lists_then_enters() {
        let profile = &fortigate::cli::PROFILE;
        let filter = vec![
            "diagnose sys session filter clear".to_string(),
            "diagnose sys session filter proto 17".to_string(),
        ];
        let commands = [
            Command::in_context(filter.clone(), "diagnose sys session filter"),
            Command::new("get system ha status"),
            Command::in_context(filter, "diagnose sys session list"),
            Command::new("get system status"),
        ];
        let script = Script::new(profile, &commands, Some("trading")).unwrap();
        assert_eq!(
            texts(&script.shown(profile, None)),
            [
                "get system status",
                "config global",
                "diagnose sys vd list",
                "get system ha status",
                "end",
                "config vdom",
                "edit trading",
                "diagnose sys session filter clear",
                "diagnose sys session filter proto 17",
                "diagnose sys session filter",
                "diagnose sys session list",
                "diagnose sys session filter clear",
                "end",
                "",
            ]
        );
        assert!(Script::new(profile, &commands, Some("a;b")).is_err());
        let plain = Script::new(profile, &commands, None).unwrap();
        assert_eq!(
            texts(&plain.shown(profile, None))[..2],
            [
                "diagnose sys session filter clear",
                "diagnose sys session filter proto 17"
            ]
        );
    }
}
