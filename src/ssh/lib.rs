#![doc = include_str!("README.md")]

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
