//! Who the device is and what a command gave, as the SSH layer's parts share them: the
//! target (address, account, secrets already read), the enable secret, and a captured output.
//! The words at the bottom of the SSH layer, so login, redaction, the driver and the session
//! name them without importing each other.

use std::path::PathBuf;

use premarket_core::Output;
use secrecy::SecretString;

/// One device as the SSH layer needs it, secrets read.
pub struct Target {
    /// The device's name, for messages and the host key check.
    pub name: String,
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<SecretString>,
    pub key_file: Option<PathBuf>,
    pub key_passphrase: Option<SecretString>,
    pub agent: bool,
    pub enable_secret: Option<EnableSecret>,
    /// Pinned host key fingerprint.
    pub host_key: Option<String>,
    pub legacy_algorithms: bool,
    /// The VDOM to inspect (FortiGate).
    pub vdom: Option<String>,
}

/// The enable secret and where it came from (shown in errors instead of the value).
pub struct EnableSecret {
    pub value: SecretString,
    pub reference: String,
}

/// A command's output as the device printed it (secrets masked; spooled when large), and the
/// prompt it was typed at.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Captured {
    pub prompt: String,
    pub output: Output,
}
