//! How an EOS switch behaves on an interactive SSH shell, as data for the SSH driver.
//!
//! Login lands at `HOST>` (unprivileged) unless the account has privilege 15; `enable` gives
//! `HOST#`, after a `Password:` prompt when an enable secret is configured. Paging is turned off
//! for the session with `terminal length 0` (a session setting, not a configuration write), and
//! `--More--` is still answered in case the setting is refused.

use premarket_core::Platform;
use premarket_ssh::profile::{DeviceError, Enable, Profile};

pub static PROFILE: Profile = Profile {
    platform: Platform::Eos,
    // `sw1>`, `sw1#`, `leaf1(s1)#` on dual supervisors, `sw1(config-if-Et1)#` in config modes.
    prompt: r"^[\w.\-@/:]{1,63}(?:\(s\d\))?(?:\(config[^)]*\))?[>#] ?$",
    pager: "--More--",
    pager_answer: " ",
    banner: None,
    on_open: &["terminal length 0", "terminal width 511"],
    enable: Some(Enable {
        command: "enable",
        password_prompt: r"(?i)^password: ?$",
        privileged_suffix: '#',
        denied: &["% Access denied", "% Bad secret"],
    }),
    errors: &[
        DeviceError {
            line_starts: "% Invalid input (privileged mode required)",
            advice: "the command needs privileged EXEC and `enable` did not give the `#` prompt: \
                     give the account privilege 15 or set ssh.enable_secret",
            unsupported: false,
        },
        DeviceError {
            line_starts: "% Authorization denied",
            advice: "AAA command authorization refused it: allow this show command for the premarket account",
            unsupported: false,
        },
        DeviceError {
            line_starts: "CLI Exception: Internal error <class 'CliParserCommon.AuthzDeniedError'>",
            advice: "AAA command authorization refused it: allow this show command for the premarket account",
            unsupported: false,
        },
        // Not a platform limit: the switch is not ready yet (stays an ERROR).
        DeviceError {
            line_starts: "% Unavailable command (controller not ready)",
            advice: "the switch's agent is not ready: retry after it has settled",
            unsupported: false,
        },
        // "Not on this hardware or release" (ANTA's UNSUPPORTED_PLATFORM_ERRORS, with the
        // CLI's `% `): a 7050X answers `% Incomplete command` to `... queue drops`, a switch
        // without PTP to `show ptp`, an older release `% Invalid input` to a newer keyword.
        DeviceError {
            line_starts: "% Unavailable command",
            advice: "this hardware platform does not support the command",
            unsupported: true,
        },
        DeviceError {
            line_starts: "% Invalid input",
            advice: "the switch does not know this command (check the EOS version)",
            unsupported: true,
        },
        DeviceError {
            line_starts: "% Incomplete command",
            advice: "the command is incomplete for this EOS version or hardware",
            unsupported: true,
        },
        DeviceError {
            line_starts: "% Ambiguous command",
            advice: "the command is ambiguous for this EOS version",
            unsupported: false,
        },
        DeviceError {
            line_starts: "% Error",
            advice: "the switch reported an error",
            unsupported: false,
        },
    ],
    context_reset: None,
    vdoms: None,
    proven: &[],
    allowlist: super::allowlist::check,
};
