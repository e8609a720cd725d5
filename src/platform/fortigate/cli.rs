//! How a FortiGate behaves on an interactive SSH shell, as data for the SSH driver.
//!
//! The prompt is `HOST # ` (`HOST (vdom) # `, `HOST (NAME) # ` inside a VDOM; `$` for restricted
//! profiles). The pager `--More--` is answered with a space: turning it off would need
//! `config system console`, a configuration change premarket never makes. Session filters are
//! per CLI session state, so after commands that set one the filter is cleared again.

use crate::core::Platform;
use crate::ssh::profile::{DeviceError, Profile, VdomSteps};

pub static PROFILE: Profile = Profile {
    platform: Platform::Fortigate,
    prompt: r"^[\w.\-~]{1,63}(?: \([\w.\-]+\))? [#$] ?$",
    pager: super::text::PAGER,
    pager_answer: " ",
    banner: Some(("(Press 'a' to accept):", "a")),
    on_open: &[],
    enable: None,
    errors: &[
        DeviceError {
            line_starts: "Command fail",
            advice: "the firewall refused the command (admin profile rights or VDOM?)",
        },
        DeviceError {
            line_starts: "Unknown action",
            advice: "the firewall does not know this command (check the FortiOS version and VDOM context)",
        },
        DeviceError {
            line_starts: "command parse error",
            advice: "the firewall could not parse the command (check the FortiOS version)",
        },
    ],
    context_reset: Some("diagnose sys session filter clear"),
    vdom: Some(VdomSteps {
        enter: &["config vdom", "edit {vdom}"],
        leave: "end",
        entered: "current vf={vdom}",
        allows: super::allowlist::vdom_step,
    }),
    allowlist: super::allowlist::check,
};
