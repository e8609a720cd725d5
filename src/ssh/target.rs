//! Who the device is and what a command gave, as the SSH layer's parts share them: the
//! target (address, account, secrets already read, the bastions on the way), the enable
//! secret, and a captured output. The words at the bottom of the SSH layer, so login,
//! redaction, the driver and the session name them without importing each other.

use std::path::PathBuf;
use std::sync::Arc;

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
    /// An OpenSSH user certificate for the key (of `key_file`, or held by the agent).
    pub cert_file: Option<PathBuf>,
    pub agent: bool,
    pub enable_secret: Option<EnableSecret>,
    /// Pinned host key fingerprint.
    pub host_key: Option<String>,
    pub legacy_algorithms: bool,
    /// The VDOM to inspect (FortiGate).
    pub vdom: Option<String>,
    /// The jump hosts the device is reached through, outermost first; empty: dialled directly.
    pub via: Vec<Arc<Bastion>>,
}

/// A jump host, as the SSH layer needs it: its login (secrets read; `name` is the bastion's)
/// and the limits kept to on it. Nothing is ever typed on it: premarket only opens
/// `direct-tcpip` channels through it ([`crate::jump`]).
pub struct Bastion {
    pub login: Target,
    /// Device channels open through it at once.
    pub max_sessions: usize,
    /// Logins started through it per second.
    pub max_starts_per_s: u32,
}

impl Target {
    /// `10.0.0.1:22`, or `10.0.0.1:22 via b1 > b2` when reached through bastions.
    pub fn addr(&self) -> String {
        let addr = format!("{}:{}", self.host, self.port);
        match self.via.is_empty() {
            true => addr,
            false => format!("{addr} via {}", self.path()),
        }
    }

    /// The bastions' names, outermost first: `b1 > b2`.
    pub fn path(&self) -> String {
        let names: Vec<&str> = self.via.iter().map(|b| b.login.name.as_str()).collect();
        names.join(" > ")
    }
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
