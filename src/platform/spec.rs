//! What premarket knows of one platform, in one value: its queries, the models it names, how it
//! is reached, what its allowlist lets through, how its secrets are hidden and how its text
//! output is read. Each platform folder defines its own `SPEC`; the rest of premarket asks
//! `premarket_platform::spec` instead of matching on the platform.

use std::borrow::Cow;

use premarket_core::Platform;
use premarket_parse::{ParseError, QuerySpec};
use premarket_ssh::profile::{NotReadOnly, Profile};

pub struct PlatformSpec {
    pub platform: Platform,
    /// Every query the platform knows.
    pub queries: &'static [QuerySpec],
    /// The query that reads a command as `premarket parse` is given it (filters such as
    /// `| json` included).
    pub query_for: fn(&str) -> Option<&'static QuerySpec>,
    /// A model per family, as its identity command names it: (family, model). Empty where the
    /// commands do not depend on the model.
    pub model_examples: &'static [(&'static str, &'static str)],
    /// The release the model table assumes, and an older release line whose answers differ.
    pub releases: (&'static str, Option<&'static str>),
    /// The CLI profile over SSH; `None` for a platform not reached over SSH.
    pub profile: Option<&'static Profile>,
    /// The read-only allowlist, the same function the SSH guard applies.
    pub allowlist: fn(&str) -> Result<(), NotReadOnly>,
    /// The text with the platform's secrets replaced by `<redacted>`.
    pub redact: for<'a> fn(&'a str) -> Cow<'a, str>,
    /// What kind of word the device prints a secret is (an interface name), if it is one.
    pub printed: fn(&str) -> Option<&'static str>,
    /// An output's lines without echo, prompts and pager remnants; a device error is an error.
    pub text_lines: fn(&str) -> Result<Vec<String>, ParseError>,
    /// Whether the FortiOS text readers (`parse: kv`, `parse: config`) read its output.
    pub fortios_text: bool,
    /// The `ansible_network_os` values of an Ansible inventory that name it (`premarket import
    /// ansible`).
    pub ansible_network_os: &'static [&'static str],
    /// A device baseline to start from (`premarket init`, `premarket import`): commented, a
    /// draft, with `{name}`, `{host}` ... to fill ([`crate::starter`]); empty for a platform
    /// described otherwise.
    pub starter: &'static str,
}
