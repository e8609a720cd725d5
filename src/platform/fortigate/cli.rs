//! How a FortiGate behaves on an interactive SSH shell, as data for the SSH driver.
//!
//! The prompt is `HOST # ` (`HOST (global) # `, `HOST (vdom) # `, `HOST (NAME) # ` in the
//! contexts; `$` for restricted profiles). The pager `--More--` is answered with a space:
//! turning it off would need `config system console`, a configuration change premarket never
//! makes. Session filters are per CLI session state, so after commands that set one the filter
//! is cleared again.
//!
//! VDOMs: `config vdom` + `edit NAME` creates NAME when it does not exist, and FortiOS has no
//! form that only enters. So with `ssh.vdom` set the session reads `get system status` first
//! (no VDOMs: ERROR), enters `config global` (documented in the CLI reference; the `sudo
//! global|VDOM ...` prefix appears only in examples, with no reference page and unknown
//! behaviour on a box without VDOMs), lists the VDOMs there with `diagnose sys vd list` and
//! runs the box-wide commands, `end`s, and only then types `config vdom` + `edit NAME`, for a
//! listed name only, and checks the reply `current vf=NAME:N` (see [`super::vdoms`]).

use premarket_core::Platform;
use premarket_ssh::profile::{DeviceError, Profile, Proven, Vdoms};

pub static PROFILE: Profile = Profile {
    platform: Platform::Fortigate,
    prompt: r"^[\w.\-~]{1,63}(?: \([\w.\-]+\))? [#$] ?$",
    pager: super::text::PAGER,
    pager_answer: " ",
    banner: Some(("(Press 'a' to accept):", "a")),
    on_open: &[],
    enable: None,
    errors: &[
        // FortiOS says "no such command here" three ways (research-18-19 §2.4): an unknown
        // word (`Unknown action 0`), a word that does not fit (`command parse error before
        // 'np7'`, followed by `Command fail. Return code -61`), or -61 alone for an object
        // the model lacks. Where the model is not known to have the command that is a SKIP
        // naming the model; where it is, an ERROR (the parse stage decides, knowing it).
        DeviceError {
            line_starts: "command parse error",
            advice: "the firewall could not parse the command (not on this model or FortiOS version?)",
            unsupported: true,
        },
        DeviceError {
            line_starts: "Unknown action",
            advice: "the firewall does not know this command (check the FortiOS version and VDOM context)",
            unsupported: true,
        },
        DeviceError {
            line_starts: "Command fail. Return code -61",
            advice: "the firewall has no such command or object (not on this model or FortiOS version?)",
            unsupported: true,
        },
        // Any other return code (-37 permission denied, ...) is a failure, whatever the model.
        DeviceError {
            line_starts: "Command fail",
            advice: "the firewall refused the command (admin profile rights or VDOM?)",
            unsupported: false,
        },
    ],
    context_reset: Some(super::session_filter::SESSION_FILTER_CLEAR),
    vdoms: Some(Vdoms {
        mode_command: super::GetSystemStatus::TEXT,
        mode: super::vdoms::enabled,
        global: "config global",
        global_prompt: "(global)",
        list_command: super::vdoms::LIST,
        list: super::vdoms::listed,
        table: "config vdom",
        edit: "edit {vdom}",
        entered: "current vf={vdom}:",
        prompt: "({vdom})",
        leave: "end",
        is_name: super::allowlist::is_vdom_name,
        global_scope: super::vdoms::global_scope,
    }),
    proven: &[Proven {
        line: super::firewall::SESSION_CLEAR,
        proof: super::firewall::FilterMatched::type_id,
    }],
    allowlist: super::allowlist::check,
};
