//! Stage 3 of the pipeline, over SSH: the only code that talks to devices.
//!
//! Layers, bottom up (the scrapli split): [`transport`] (russh connection, algorithms, host
//! key check via [`hostkey`], login via [`auth`]) -> [`shell`] (PTY, prompt and pager reading
//! on a [`screen`]) -> [`driver`] (privilege, VDOM, context groups, device errors) ->
//! [`session`] (one device start to finish). What a platform looks like on the wire is data in
//! [`profile::Profile`], filled in by `src/platform/<p>/cli.rs`. Every line sent has passed
//! the read-only [`guard`]; secrets are removed from everything that comes back ([`redact`]).
//! [`firewall`] is the probe's interactive FortiGate CLI on the same layers; it sends the probe's
//! guarded session clear, the only line that is not read-only.

pub mod auth;
pub mod driver;
pub mod firewall;
pub mod guard;
pub mod hostkey;
pub mod known_hosts;
pub mod profile;
pub mod redact;
pub mod screen;
pub mod session;
pub mod shell;
pub mod transport;

pub use driver::Captured;
pub use session::{Settings, collect};
