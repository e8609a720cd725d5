//! Why one line of a known_hosts file cannot be read: the reasons of
//! [`super::Error::Malformed`], in a file of their own so that `known_hosts.rs` stays under
//! 600 lines.

/// Why one line of the file cannot be read (in [`super::Error::Malformed`], with the line).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LineError {
    #[error(
        "its host field cannot be read (a broken `|1|` hash or no host at all), so it may concern this host"
    )]
    HostField,
    #[error("a line takes one marker only")]
    SecondMarker,
    #[error("unknown marker `{0}` (only @revoked and @cert-authority exist)")]
    UnknownMarker(String),
    #[error("no key type after the host field")]
    NoKeyType,
    #[error("no key after the key type")]
    NoKey,
    #[error("the key is not text")]
    NotText,
    /// The key type, and the key parser's words.
    #[error("the `{0}` key does not parse ({1})")]
    Key(String, String),
}
