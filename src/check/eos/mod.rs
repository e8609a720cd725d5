//! Checks of Arista EOS switches.

mod config_saved;
mod lanz_persisted;
mod version_pinned;

pub use config_saved::ConfigSaved;
pub use lanz_persisted::LanzPersisted;
pub use version_pinned::VersionPinned;
