//! The read-only allowlist for FortiGate: the exact shapes of every line premarket may send to a
//! firewall, checked by the SSH layer before a byte leaves.
//!
//! FortiOS puts destructive commands one word away from harmless ones (`diagnose sys session
//! clear` drops every session; `diagnose sys session filter clear` only resets a filter), so
//! this is a list of exact shapes, not a prefix rule. Entering a VDOM (`config vdom`,
//! `edit NAME`, `end`) is a driver step with its own rule, [`vdom_step`]; `config` is never
//! allowed here.

/// Commands allowed exactly as written.
const EXACT: &[&str] = &[
    "get system status",
    "get system performance status",
    "get system ha status",
    "get system global",
    "diagnose sys session stat",
    "diagnose sys session list",
    "diagnose sys mcast-session list",
    "diagnose sys session filter",
    "diagnose sys session filter clear",
    "show system virtual-wire-pair",
    // The trading checks (issue 12's command contract): all print, none changes anything.
    "get system interface",
    "show system npu",
    "show system session-ttl",
    "diagnose npu np7lite port-list",
    "diagnose npu np7 port-list",
    "diagnose sys ntp status",
];

/// Drops every session the CLI's session filter matches (all of them with no filter). Never on
/// the allowlist: the only way it is sent is [`crate::ssh::guard::Line::filtered_session_clear`],
/// which needs the probe's proof that the filter read back as its exact 5-tuple.
pub const SESSION_CLEAR: &str = "diagnose sys session clear";

/// `show` commands that may name one entry.
const SHOW_ENTRY: &[&str] = &[
    "show firewall policy",
    "show firewall multicast-policy",
    "show firewall service custom",
];

/// `Ok` when `line` is one of the read-only shapes, otherwise the reason it is refused.
pub fn check(line: &str) -> Result<(), String> {
    if !line.bytes().all(|b| (0x20..0x7f).contains(&b)) || line.contains(';') {
        return Err("control characters, non-ASCII and `;` are never sent".into());
    }
    if EXACT.contains(&line) || SHOW_ENTRY.contains(&line) {
        return Ok(());
    }
    if let Some(rest) = line.strip_prefix("diagnose sys session filter ") {
        return check_filter(rest);
    }
    for base in SHOW_ENTRY {
        if let Some(rest) = line.strip_prefix(base).and_then(|r| r.strip_prefix(' ')) {
            let ok = if *base == "show firewall service custom" {
                is_name(rest)
            } else {
                is_number(rest)
            };
            return if ok {
                Ok(())
            } else {
                Err(format!("`{rest}` is not a valid entry for `{base}`"))
            };
        }
    }
    Err(format!(
        "`{line}` is not one of the read-only FortiGate commands premarket sends"
    ))
}

/// One filter key with one value; `clear` is handled as an exact command above.
fn check_filter(rest: &str) -> Result<(), String> {
    let ok = match rest.split(' ').collect::<Vec<_>>().as_slice() {
        ["proto" | "sport" | "dport" | "policy", n] => is_number(n),
        ["src" | "dst", ip] => ip.parse::<std::net::Ipv4Addr>().is_ok(),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "session filter `{rest}` is not an allowed filter (proto, src, dst, sport, dport, policy with one value)"
        ))
    }
}

/// The VDOM steps: `config vdom`, `edit NAME` with a plain VDOM name, and `end`.
pub fn vdom_step(line: &str) -> bool {
    match line.strip_prefix("edit ") {
        Some(name) => is_vdom_name(name),
        None => line == "config vdom" || line == "end",
    }
}

/// FortiOS VDOM names: letters, digits, `_` and `-`, at most 31 characters.
pub fn is_vdom_name(name: &str) -> bool {
    (1..=31).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

fn is_number(s: &str) -> bool {
    (1..=10).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
}

/// A service name: plain (`MD-FEED_1`, `UDP/5000`) or double-quoted with spaces (`"MD feed"`);
/// never a quote, `|`, `;` or anything that could end the argument.
fn is_name(s: &str) -> bool {
    let plain = |t: &str| {
        !t.is_empty()
            && t.bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"_.-/:+@".contains(&b))
    };
    match s.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
        Some(inner) => inner.len() <= 79 && !inner.is_empty() && inner.split(' ').all(plain),
        None => s.len() <= 79 && plain(s),
    }
}

#[cfg(test)]
mod tests {
    use super::{check, vdom_step};

    #[test]
    fn accepts_exactly_the_read_only_shapes() {
        for line in [
            "get system status",
            "get system performance status",
            "get system ha status",
            "get system global",
            "diagnose sys session stat",
            "diagnose sys session list",
            "diagnose sys mcast-session list",
            "diagnose sys session filter",
            "diagnose sys session filter clear",
            "diagnose sys session filter proto 17",
            "diagnose sys session filter src 10.1.2.3",
            "diagnose sys session filter dst 239.1.1.1",
            "diagnose sys session filter sport 5000",
            "diagnose sys session filter dport 5001",
            "diagnose sys session filter policy 12",
            "show firewall policy",
            "show firewall policy 12",
            "show firewall multicast-policy",
            "show firewall multicast-policy 3",
            "show firewall service custom",
            "show firewall service custom MD-FEED",
            "show firewall service custom \"MD feed\"",
            "show firewall service custom UDP/5000",
            "show system virtual-wire-pair",
            "get system interface",
            "show system npu",
            "show system session-ttl",
            "diagnose npu np7lite port-list",
            "diagnose npu np7 port-list",
            "diagnose sys ntp status",
        ] {
            assert_eq!(check(line), Ok(()), "{line}");
        }
    }

    #[test]
    fn refuses_everything_else() {
        for line in [
            super::SESSION_CLEAR,
            "diagnose sys session clear",
            "diagnose sys session filter clear; diagnose sys session clear",
            "diagnose sys session filter dport 5000\ndiagnose sys session clear",
            "diagnose sys session filter dport 5000\rdiagnose sys session clear",
            "diagnose sys session filter dport 5000;",
            "diagnose sys session filter dport",
            "diagnose sys session filter dport 5000 6000",
            "diagnose sys session filter negate dport",
            "diagnose sys session filter src 10.1.2",
            "diagnose sys session filter vd 0",
            "diagnose sys session  list",
            "config system console",
            "config vdom",
            "edit root",
            "end",
            "execute reboot",
            "execute factoryreset",
            "execute backup config tftp x 1.2.3.4",
            "set output standard",
            "show firewall policy 1 2",
            "show firewall policy x",
            "show firewall service custom a\"b",
            "show firewall service custom a|b",
            "show firewall service custom \"a\" \"b\"",
            "get system status | grep .",
            "config system npu",
            "diagnose npu np7lite port-list 0",
            "diagnose sys ntp status; execute reboot",
            "execute time",
            "diagnose npu np7lite dce-drop-all 0",
            "get system status\n",
            "",
        ] {
            assert!(check(line).is_err(), "{line:?} must be refused");
        }
    }

    #[test]
    fn vdom_steps_have_their_own_narrow_rule() {
        for ok in ["config vdom", "edit root", "edit TRADING-1", "end"] {
            assert!(vdom_step(ok), "{ok}");
        }
        for bad in [
            "config global",
            "config system console",
            "edit root; execute reboot",
            "edit a b",
            "edit ",
            "next",
        ] {
            assert!(!vdom_step(bad), "{bad}");
        }
    }
}
