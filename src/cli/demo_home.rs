//! Where `premarket demo` keeps its home (archive and email), for the commands that read the
//! demo's archive afterwards (`premarket diff --demo`) as well as for the demo itself. Not
//! behind the `lab` feature: reading an archive needs no lab.

use std::path::PathBuf;

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
pub fn archive(home: Option<PathBuf>) -> PathBuf {
    home.unwrap_or_else(default_home).join("archive")
}
