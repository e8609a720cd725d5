//! Two profiles shaped like the platforms' (a switch with `enable`, a firewall with VDOMs), for
//! the SSH layer's own unit tests: this crate never names a platform. The real profiles are
//! tested through the guard in `premarket-platform` (`profile_tests.rs`).

use premarket_core::Platform;

use crate::profile::{Enable, NotReadOnly, Profile, Vdoms};

fn read_only(line: &str) -> Result<(), NotReadOnly> {
    if line.starts_with("show ") || line.starts_with("get ") {
        Ok(())
    } else {
        Err("not a show or get command".into())
    }
}

pub static SWITCH: Profile = Profile {
    platform: Platform::Eos,
    prompt: r"^[\w.-]{1,63}[>#] ?$",
    pager: "--More--",
    pager_answer: " ",
    banner: None,
    on_open: &["terminal length 0"],
    enable: Some(Enable {
        command: "enable",
        password_prompt: r"(?i)^password: ?$",
        privileged_suffix: '#',
        denied: &["% Access denied"],
    }),
    errors: &[],
    context_reset: None,
    vdoms: None,
    proven: &[],
    allowlist: read_only,
};

pub static FIREWALL: Profile = Profile {
    platform: Platform::Fortigate,
    prompt: r"^[\w.-]{1,63}(?: \([\w.-]+\))? [#$] ?$",
    pager: "--More--",
    pager_answer: " ",
    banner: None,
    on_open: &[],
    enable: None,
    errors: &[],
    context_reset: None,
    vdoms: Some(Vdoms {
        mode_command: "get system status",
        mode: |_| Ok(true),
        global: "config global",
        global_prompt: "(global)",
        list_command: "diagnose sys vd list",
        list: |_| Ok(vec![]),
        table: "config vdom",
        edit: "edit {vdom}",
        entered: "current vf={vdom}:",
        prompt: "({vdom})",
        leave: "end",
        is_name: |name| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        },
        global_scope: |_| false,
    }),
    proven: &[],
    allowlist: read_only,
};
