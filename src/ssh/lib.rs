//! Stage 3 of the pipeline, over SSH: the only code that talks to devices.
//!
//! Layers, bottom up (the scrapli split): [`transport`] (russh connection, algorithms, host
//! key check via [`hostkey`], login via [`auth`]; directly or through bastions, [`jump`]) -> [`shell`] (PTY, prompt and pager reading
//! on a [`screen`], every wait and write bounded, each reply streamed into a [`body`] that
//! spools it when large) -> [`driver`] (runs a [`script`]: privilege,
//! VDOM, context groups, device errors; which command each byte belongs to; asks a [`gate`]
//! before each command) -> [`session`] (one device start to finish). What a
//! platform looks like on the wire is data in [`profile::Profile`], filled in by
//! `src/platform/<p>/cli.rs` and handed in by the collector: this module names no platform and
//! reads no configuration. Every byte sent is a [`guard::Line`]; secrets are removed from
//! everything that comes back, and from everything premarket writes anywhere, by the one
//! [`redact::Redactor`].

pub mod auth;
pub mod body;
pub mod driver;
mod framing;
pub mod gate;
pub mod guard;
pub mod hostkey;
pub mod jump;
pub mod known_hosts;
pub mod profile;
pub mod redact;
pub mod screen;
pub mod script;
pub mod session;
pub mod shell;
pub mod target;
pub mod transport;

#[cfg(test)]
mod test_profiles;

pub use gate::Gate;
pub use session::{Settings, collect, collect_gated};
pub use target::{Bastion, Captured, EnableSecret, Target};
