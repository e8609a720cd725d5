//! The read-only allowlist for FortiGate: the exact shapes of every line premarket may send to a
//! firewall as a command, checked by the SSH guard before a byte leaves.
//!
//! The shapes are the commands of [`super::QUERIES`] (each with its argument, if any), the
//! reviewed commands without a parser that declarative checks may send
//! ([`super::reviewed::REVIEWED`], one line each), and the session filter's context lines: those
//! [`super::SessionFilter::context`] produces, and the source port the probe's exact 5-tuple
//! adds ([`super::firewall`]). FortiOS puts destructive commands one word away
//! from harmless ones (`diagnose sys session clear` drops every session; `diagnose sys session
//! filter clear` only resets a filter), so nothing here is a prefix rule. The session lines
//! that are not commands (`config global`, `config vdom`, `edit NAME`, `end`) have their own
//! narrow doors in the guard and are refused here; so is every `config`, `execute` and `set`.
//! An NP command that clears its counters when it displays them ([`super::clearing`]) is
//! refused with the reason, whatever list it might be on.

use premarket_ssh::profile::NotReadOnly;

use super::session_filter::{SESSION_FILTER, SESSION_FILTER_CLEAR};

/// The filter keys [`super::SessionFilter::context`] and the probe's filter set, one value each.
const FILTER_KEYS: &[(&str, Value)] = &[
    ("proto", Value::Number),
    ("src", Value::Ip),
    ("dst", Value::Ip),
    ("sport", Value::Number),
    ("dport", Value::Number),
];

#[derive(Clone, Copy)]
enum Value {
    Number,
    Ip,
}

/// `Ok` when `line` is one of the read-only shapes, otherwise the reason it is refused.
pub fn check(line: &str) -> Result<(), NotReadOnly> {
    if !line.bytes().all(|b| (0x20..0x7f).contains(&b)) || line.contains(';') {
        return Err("control characters, non-ASCII and `;` are never sent".into());
    }
    if line.split(' ').any(str::is_empty) {
        return Err("only single spaces between words, none around them".into());
    }
    if let Some(reason) = super::clearing::clears(line) {
        return Err(NotReadOnly(format!("`{line}` is not read-only: {reason}")));
    }
    if super::QUERIES.iter().any(|q| q.shape.matches(line))
        || super::reviewed::REVIEWED.iter().any(|s| s.matches(line))
        || line == SESSION_FILTER_CLEAR
    {
        return Ok(());
    }
    if let Some(rest) = line
        .strip_prefix(SESSION_FILTER)
        .and_then(|r| r.strip_prefix(' '))
    {
        return check_filter(rest);
    }
    Err(NotReadOnly(format!(
        "`{line}` is not one of the read-only FortiGate commands premarket sends"
    )))
}

/// One filter key with one value; `clear` is an exact line above.
fn check_filter(rest: &str) -> Result<(), NotReadOnly> {
    let ok = match rest.split(' ').collect::<Vec<_>>().as_slice() {
        [key, value] => FILTER_KEYS.iter().any(|(k, kind)| {
            k == key
                && match kind {
                    Value::Number => is_number(value),
                    Value::Ip => value.parse::<std::net::IpAddr>().is_ok(),
                }
        }),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(NotReadOnly(format!(
            "session filter `{rest}` is not an allowed filter (proto, src, dst, sport, dport with one value)"
        )))
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

#[cfg(test)]
mod tests {
    use super::check;
    use crate::fortigate::{QUERIES, SessionFilter};

    #[test]
    fn every_listed_query_and_every_filter_line_passes() {
        for spec in QUERIES {
            assert_eq!(check(spec.shape.text()), Ok(()), "{spec:?}");
        }
        let filter = SessionFilter {
            proto: 17,
            src: Some("10.1.2.3".parse().unwrap()),
            dst: Some("239.1.1.1".parse().unwrap()),
            dport: Some(5001),
        };
        for line in filter.context() {
            assert_eq!(check(&line), Ok(()), "{line}");
        }
        for line in [
            "show firewall policy 12",
            "show firewall multicast-policy 3",
            "show firewall service custom MD-FEED",
            "show firewall service custom \"MD feed\"",
            "show firewall service custom UDP/5000",
        ] {
            assert_eq!(check(line), Ok(()), "{line}");
        }
    }

    #[test]
    fn refuses_everything_else() {
        for line in [
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
            " get system status",
            "get system status ",
            "config system console",
            "config global",
            "config vdom",
            "edit root",
            "end",
            "sudo global get system status",
            "config system npu",
            "diagnose npu np7lite port-list 0",
            "diagnose sys ntp status; execute reboot",
            "execute time",
            "diagnose npu np7lite dce-drop-all 0",
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
            "get system status\n",
            "",
        ] {
            assert!(check(line).is_err(), "{line:?} must be refused");
        }
    }
}
