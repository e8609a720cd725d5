//! Read-only FortiOS commands premarket has no parser for, reviewed one by one so a declarative
//! check (`checks/fortigate.yaml`, read with `parse: regex`, `kv` or `config`) may send them
//! without a line of Rust. One line each; each was checked to print and return (no
//! `get system performance top`, which never ends) and to change nothing on the box.
//!
//! A command with a parser is a `Query` in `super::QUERIES` and is allowed from there; this list
//! is for the rest. Adding a line is a review: FortiOS puts destructive commands one word away
//! from harmless ones (`diagnose sys session clear`), so there is no prefix rule here either.

use premarket_parse::{Arg, Shape};

pub static REVIEWED: &[Shape] = &[
    Shape::Exact("get system arp"),
    Shape::Exact("get system dns"),
    Shape::Exact("get system ntp"),
    Shape::Exact("get system interface physical"),
    Shape::Exact("get system source-ip status"),
    Shape::Exact("get system fortiguard-service status"),
    Shape::Exact("get router info routing-table all"),
    Shape::Exact("get router info ospf neighbor"),
    Shape::Exact("get router info multicast igmp groups"),
    Shape::Exact("get router info multicast pim sparse-mode neighbour"),
    Shape::Exact("get hardware status"),
    Shape::Exact("diagnose sys ha checksum show"),
    Shape::Exact("diagnose sys ha dump-by vcluster"),
    Shape::Exact("diagnose netlink aggregate list"),
    Shape::WithArg("diagnose netlink aggregate name", Arg::Name),
    Shape::Exact("diagnose sys link-monitor status"),
];

#[cfg(test)]
mod tests {
    use super::REVIEWED;
    use crate::fortigate::allowlist::check;

    #[test]
    fn each_reviewed_command_passes_the_guard_and_none_is_a_verb_that_acts() {
        for shape in REVIEWED {
            assert_eq!(check(shape.text()), Ok(()), "{shape:?}");
            let acts = [
                "clear", "delete", "purge", "reset", "kill", "restart", "reboot",
            ];
            let first = shape.text().split(' ').next();
            assert!(matches!(first, Some("get" | "diagnose")), "{shape:?}");
            assert!(
                !shape.text().split(' ').any(|w| acts.contains(&w)),
                "{shape:?} names a verb that acts"
            );
        }
        // A reviewed shape with an argument takes one name, nothing after it.
        assert_eq!(check("get hardware nic port1"), Ok(()));
        assert!(check("get hardware nic port1 extra").is_err());
        assert!(check("get system arp clear").is_err());
    }
}
