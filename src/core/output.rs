//! What a collector hands on: each command's raw output, or why there is none. The message of a
//! [`CollectError`] is shown to the operator as an ERROR reason, so it says what happened and,
//! where possible, what to do.
//!
//! An [`Output`] is small text in memory, or a [`Spool`] on disk for the rare output too large
//! to hold (a busy firewall's session list): every stage reads it through [`Output::reader`] or
//! its bounded [`Output::head`], so none holds a large output whole.

use std::io::{self, BufRead};
use std::sync::Arc;

use super::spool::Spool;
use super::{Command, Megabytes};

/// Why a command's output is missing. The message is shown to the operator as an ERROR reason,
/// so it says what happened and, where possible, what to do.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CollectError {
    #[error("saved output {path} is missing")]
    FileMissing { path: String },
    #[error("saved output {path} is empty")]
    FileEmpty { path: String },
    #[error("cannot read {path}: {reason}")]
    FileUnreadable { path: String, reason: String },
    #[error("cannot connect: {0}")]
    Connect(String),
    #[error("{0}")]
    HostKey(String),
    #[error("authentication failed: {0}")]
    Auth(String),
    /// A secret the device's baseline refers to could not be read (an unset variable, a
    /// missing file): nothing was sent to the device.
    #[error("secret not available: {0}")]
    Secret(String),
    #[error("the device answered with an error: {0}")]
    Device(String),
    /// The device says it has no such command or keyword (`% Invalid input`, `% Unavailable
    /// command (not supported on this hardware platform)`): the hardware or release lacks it.
    /// Whether that is a SKIP or an ERROR depends on what premarket knows of the model.
    #[error("the device does not offer this command: {0}")]
    Unsupported(String),
    /// Not sent: the device's model (learnt earlier in the session) does not have it.
    #[error("not sent: {0}")]
    NotApplicable(String),
    #[error("refused by the read-only guard: {0}")]
    Refused(String),
    #[error(
        "{}the device is not answering for {seconds} s (frozen, or the network dropped it)",
        .command.as_ref().map(|c| format!("`{c}`: ")).unwrap_or_default()
    )]
    NotAnswering {
        /// The line that got no answer, when one was sent.
        command: Option<String>,
        seconds: u64,
    },
    /// Past `ssh.max_output_mb`: the session was closed, the other devices go on.
    #[error("output exceeded {0} (ssh.max_output_mb); the session was closed")]
    TooLarge(Megabytes),
    #[error("timed out after {0} s")]
    Timeout(u64),
    #[error("not finished by the deadline")]
    Deadline,
    /// premarket was told to stop (the signal's name) before this finished.
    #[error("interrupted ({0}) before it finished")]
    Interrupted(String),
    /// A jump host on the way to the device failed (unreachable, its host key, its login, a
    /// secret of its own, or it refused to forward): nothing reached the device.
    #[error("through bastion {bastion}: {error}")]
    Bastion {
        bastion: String,
        error: Box<CollectError>,
    },
    /// A bastion refused the `direct-tcpip` channel to the device (only inside
    /// [`CollectError::Bastion`]).
    #[error("it refused to forward to {0}")]
    Forwarding(String),
    #[error("{0}")]
    Other(String),
}

/// One command's output: in memory, or spooled to disk when it is large.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Output {
    /// Shared, not copied, by everything that holds it after collection (the parsed facts'
    /// evidence, the report's raw outputs when redaction changed nothing).
    Text(Arc<str>),
    Spooled(Spool),
}

impl Output {
    /// The whole text when it is in memory.
    pub fn text(&self) -> Option<&str> {
        match self {
            Output::Text(text) => Some(text),
            Output::Spooled(_) => None,
        }
    }

    /// The whole text when in memory, else its start (whole lines, at most 64 kB: see
    /// [`Spool::head`]): for evidence, excerpts and error detection.
    pub fn head(&self) -> &str {
        match self {
            Output::Text(text) => text,
            Output::Spooled(spool) => spool.head(),
        }
    }

    /// Bytes of text, when known.
    pub fn size(&self) -> Option<u64> {
        match self {
            Output::Text(text) => Some(text.len() as u64),
            Output::Spooled(spool) => spool.size(),
        }
    }

    /// Nothing but white space (a spooled output never is: it is larger than any blank one).
    pub fn is_blank(&self) -> bool {
        match self {
            Output::Text(text) => text.trim().is_empty(),
            Output::Spooled(_) => false,
        }
    }

    /// The text from its start, read as needed.
    pub fn reader(&self) -> io::Result<Box<dyn BufRead + Send + '_>> {
        match self {
            Output::Text(text) => Ok(Box::new(text.as_bytes())),
            Output::Spooled(spool) => spool.open(),
        }
    }
}

/// An output equals a text when it is that text in memory (a spooled one never does).
impl PartialEq<str> for Output {
    fn eq(&self, other: &str) -> bool {
        self.text() == Some(other)
    }
}

impl PartialEq<&str> for Output {
    fn eq(&self, other: &&str) -> bool {
        self.text() == Some(*other)
    }
}

impl From<String> for Output {
    fn from(text: String) -> Self {
        Output::Text(text.into())
    }
}

impl From<&str> for Output {
    fn from(text: &str) -> Self {
        Output::Text(text.into())
    }
}

/// The raw outputs of one device, in plan order.
#[derive(Clone, Debug, Default)]
pub struct Outputs {
    pub results: Vec<(Command, Result<Output, CollectError>)>,
}

impl Outputs {
    /// Every command failed for the same reason (e.g. the device is unreachable).
    pub fn all_failed(commands: &[Command], error: CollectError) -> Self {
        Outputs {
            results: commands
                .iter()
                .map(|c| (c.clone(), Err(error.clone())))
                .collect(),
        }
    }
}
