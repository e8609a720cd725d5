//! Where `premarket demo` keeps its home (archive and email), for the commands that read the
//! demo's archive afterwards (`premarket diff --demo`, `history --demo`, `accept --demo`) as
//! well as for the demo itself. Not behind the `lab` feature: reading an archive needs no lab.

use std::path::{Path, PathBuf};

/// The demo's home: `given` (`--home`) made absolute, else [`default_home`]. Every command
/// that reads what the demo wrote (`history --demo`, `diff --demo`) asks this one function, so
/// they all find the same archive.
pub fn home(given: Option<&Path>) -> PathBuf {
    given.map(super::absolute).unwrap_or_else(default_home)
}

/// `$XDG_STATE_HOME/premarket/demo`, else `~/.local/state/premarket/demo`, else a directory
/// in the system temp dir named after the user id.
pub fn default_home() -> PathBuf {
    let nonempty = |v: Option<std::ffi::OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
    if let Some(state) = nonempty(std::env::var_os("XDG_STATE_HOME")).filter(|p| p.is_absolute()) {
        return state.join("premarket").join("demo");
    }
    if let Some(home) = nonempty(std::env::var_os("HOME")) {
        return home.join(".local/state/premarket/demo");
    }
    std::env::temp_dir().join(format!("premarket-demo-{}", crate::files::os::uid()))
}

/// The demo's archive: `HOME/archive`, with `--home` or the default home.
pub fn archive(given: Option<PathBuf>) -> PathBuf {
    home(given.as_deref()).join("archive")
}

/// The demo's site as its runs were judged, its archive in the demo's home (`given`, else the
/// default), for the commands that read or change that archive; the guard removes the site.
#[cfg(feature = "lab")]
pub fn site(given: Option<&Path>) -> Result<(crate::Config, tempfile::TempDir), super::Stop> {
    super::demo::site_for_history(&home(given))
}

#[cfg(not(feature = "lab"))]
pub fn site(_: Option<&Path>) -> Result<(crate::Config, tempfile::TempDir), super::Stop> {
    Err(super::Stop::config(
        "--demo: this premarket was built without the lab (no `demo`)",
    ))
}
