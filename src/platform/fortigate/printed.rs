//! Words every FortiGate prints, for `premarket validate`'s warning that a secret is one of
//! them: the interface names (`port1`, `wan2`, `x1`, `npu0_vlink1`, `ha`) and the words of its
//! outputs (`root`, `standalone`). A secret the device prints is masked in all that premarket
//! writes, so the report shows `********` for it, and a check that compares with the archive's
//! record of it cannot.

use std::sync::LazyLock;

use regex::Regex;

static INTERFACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(port|wan|lan|dmz|mgmt|ha|internal|x|a|b|s|vw|fortilink|npu\d+_vlink)\d*$")
        .expect("static regex")
});

/// Words of its outputs (and their case variants) that a password might be.
const WORDS: &[&str] = &[
    "admin",
    "disable",
    "enable",
    "fortigate",
    "global",
    "management",
    "root",
    "standalone",
    "super_admin",
    "vdom",
];

/// What kind of word the firewall prints `secret` is, if it is one.
pub fn printed(secret: &str) -> Option<&'static str> {
    crate::printed_as(&INTERFACE, WORDS, secret)
}
