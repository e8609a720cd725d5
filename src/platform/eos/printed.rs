//! Words every EOS switch prints, for `premarket validate`'s warning that a secret is one of
//! them: the interface names (`Ethernet2`, `Et49/1`, `Port-Channel10`, `Vlan100`) and the words
//! of its outputs (`connected`, `network-admin`). A secret the device prints is masked in all
//! that premarket writes, so the report shows `********` for it, and a check that compares with
//! the archive's record of it cannot.

use std::sync::LazyLock;

use regex::Regex;

static INTERFACE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)^(ethernet|et|management|ma|port-channel|po|vlan|vl|loopback|lo|tunnel|tu|vxlan|vx|recirc-channel)\d+(/\d+)*(\.\d+)?$",
    )
    .expect("static regex")
});

/// Words of its outputs (and their case variants) that a password might be.
const WORDS: &[&str] = &[
    "admin",
    "arista",
    "connected",
    "default",
    "disabled",
    "down",
    "enable",
    "enabled",
    "errdisabled",
    "management",
    "network-admin",
    "notconnect",
    "running-config",
    "startup-config",
    "up",
];

/// What kind of word the switch prints `secret` is, if it is one.
pub fn printed(secret: &str) -> Option<&'static str> {
    crate::printed_as(&INTERFACE, WORDS, secret)
}
