//! Which VDOMs a FortiGate has, read before any VDOM line is sent: `config vdom` + `edit NAME`
//! *creates* NAME when it does not exist, so the SSH driver types `edit` only for a name read
//! here in the same session (research wave 2, §1).
//!
//! - `get system status` says whether the box has VDOMs: `Virtual domain configuration:`
//!   `disable` (none), `multiple`, `split-task` (6.2-7.0) or `enable` (older builds).
//! - `diagnose sys vd list` (global context) lists every VDOM as `name=<name>/<name> index=N
//!   ...`, after a `list virtual firewall info:` header and before a closing `vf_count=N`.
//!   It includes the hidden system VDOMs (`vsys_ha`, `vsys_fgfm`, `dmgmt-vdom` on some models),
//!   which are not VDOMs an operator inspects and are left out.
//!
//! ```text
//! list virtual firewall info:
//! name=root/root index=0 enabled fib_ver=365 use=4896 rt_num=4634 ...
//!         tree_flag=1 tree6_flag=0 ...
//! name=vsys_ha/vsys_ha index=1 enabled fib_ver=3 ...
//! vf_count=3 vfe_count=0
//! ```

use super::allowlist::is_vdom_name;
use super::status;
use super::text::{body, device_error, joined};
use premarket_parse::ParseError;
use premarket_ssh::profile::VdomsUnreadable;

/// The listing command (global context on a box with VDOMs).
pub const LIST: &str = "diagnose sys vd list";

/// Whether the box has VDOMs, from `get system status`.
pub fn enabled(raw: &str) -> Result<bool, VdomsUnreadable> {
    let status = status::parse(raw).map_err(|e| VdomsUnreadable::Output(e.to_string()))?;
    match status.vdom_mode.as_deref() {
        Some("disable") => Ok(false),
        Some("multiple" | "split-task" | "enable") => Ok(true),
        Some(other) => Err(VdomsUnreadable::Output(format!(
            "unknown `Virtual domain configuration: {other}`"
        ))),
        None => Err(VdomsUnreadable::Output(
            "no `Virtual domain configuration:` line".into(),
        )),
    }
}

/// The VDOMs an operator can enter, in listed order, from `diagnose sys vd list`.
pub fn listed(raw: &str) -> Result<Vec<String>, VdomsUnreadable> {
    parse(raw).map_err(|e| VdomsUnreadable::Output(e.to_string()))
}

fn parse(raw: &str) -> Result<Vec<String>, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let text = joined(&lines);
    if !lines
        .iter()
        .any(|l| l.trim() == "list virtual firewall info:")
    {
        return Err(ParseError::new(
            "no `list virtual firewall info:` header: this is not a VDOM listing",
            &text,
        ));
    }
    let Some(count) = lines
        .iter()
        .find_map(|l| l.trim().strip_prefix("vf_count="))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse::<usize>().ok())
    else {
        return Err(ParseError::new(
            "no `vf_count=N` line: the VDOM listing is cut short",
            &text,
        ));
    };
    let mut all = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(rest) = line.trim().strip_prefix("name=") else {
            continue;
        };
        let word = rest.split_whitespace().next().unwrap_or_default();
        let name = word.split('/').next().unwrap_or_default();
        if !is_vdom_name(name) {
            return Err(ParseError::at_line(
                format!("`{}` is not a VDOM name", name.escape_debug()),
                &text,
                i,
            ));
        }
        if all.iter().any(|n| n == name) {
            return Err(ParseError::at_line("a VDOM listed twice", &text, i));
        }
        all.push(name.to_string());
    }
    if all.len() != count {
        return Err(ParseError::new(
            format!(
                "the listing shows {} VDOMs but says vf_count={count}",
                all.len()
            ),
            &text,
        ));
    }
    Ok(all.into_iter().filter(|n| !is_system(n)).collect())
}

/// The hidden system VDOMs: never inspected, and `dmgmt-vdom` cannot even be edited.
fn is_system(name: &str) -> bool {
    name.starts_with("vsys_") || name == "dmgmt-vdom"
}

/// The commands that read box-wide state and so run in the global context on a box with VDOMs
/// (research wave 2, §1e); everything else (sessions, policies, services) is per VDOM. `get
/// system status` works in any context.
pub fn global_scope(command: &str) -> bool {
    const GLOBAL: &[&str] = &[
        "get system global",
        "get system ha status",
        "get system performance status",
        "get system interface",
        "show system npu",
        "show full-configuration system npu",
        "show system interface",
        "show system virtual-switch",
        "diagnose sys ntp status",
        "diagnose sys ha checksum cluster",
        "show system np6xlite",
        "get hardware ",
        "diagnose npu ",
        "diagnose hardware ",
    ];
    GLOBAL
        .iter()
        .any(|g| command == g.trim_end() || (g.ends_with(' ') && command.starts_with(g)))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LISTING: &str = "FGT # diagnose sys vd list\nsystem fib version=58\nlist virtual firewall info:\nname=root/root index=0 enabled fib_ver=212 use=88 rt_num=4\n\ttree_flag=1 tree6_flag=0\nname=vsys_ha/vsys_ha index=1 enabled fib_ver=7 use=21\nname=trading/trading index=2 enabled fib_ver=3 use=9\nname=vsys_fgfm/vsys_fgfm index=3 enabled\nvf_count=4 vfe_count=0\nFGT # ";

    #[test]
    fn lists_the_vdoms_an_operator_can_enter() {
        assert_eq!(listed(LISTING).unwrap(), ["root", "trading"]);
        for bad in [
            "",
            "Command fail. Return code -61",
            &LISTING.replace("vf_count=4", "vf_count=5"),
            &LISTING.replace("list virtual firewall info:", ""),
            &LISTING.replace("vf_count=4 vfe_count=0\n", ""),
            &LISTING.replace("name=trading/trading", "name=tra;ding/x"),
            &LISTING.replace("name=vsys_fgfm/vsys_fgfm", "name=root/root"),
        ] {
            assert!(listed(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_mode_from_system_status() {
        let status = |mode: &str| {
            format!(
                "Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)\nVirtual domain configuration: {mode}\n"
            )
        };
        assert_eq!(enabled(&status("disable")), Ok(false));
        assert_eq!(enabled(&status("multiple")), Ok(true));
        assert_eq!(enabled(&status("split-task")), Ok(true));
        assert!(enabled(&status("maybe")).is_err());
        assert!(enabled("Version: FortiGate-201G v7.6.7,build3651,250606 (GA.M)\n").is_err());
    }

    #[test]
    fn box_wide_commands_run_in_global() {
        for g in [
            "get system ha status",
            "diagnose npu np7lite port-list",
            "show system npu",
        ] {
            assert!(global_scope(g), "{g}");
        }
        for v in [
            "diagnose sys session list",
            "show firewall policy 1",
            "get system status",
            "diagnose npux",
        ] {
            assert!(!global_scope(v), "{v}");
        }
    }
}
