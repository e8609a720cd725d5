//! Where a run's large outputs are spooled, and what the report says when a place would not
//! take them. Spools go under the archive when the run is archived (next to where they are
//! copied), otherwise to the system's temporary directory; a place that fails (a full disk, a
//! read-only mount) hands on to the next, memory last ([`premarket_spool::SpoolDir`]). The
//! inspection never waits on the archive: the move is a problem the report states, never a
//! reason for a check to go unjudged.

use std::path::Path;

use premarket_spool::{Fallback, SpoolDir};

/// The run's spool directory: under the archive when the run is archived.
pub(super) fn dir(archived: bool, archive: &Path) -> SpoolDir {
    if archived {
        SpoolDir::under(archive)
    } else {
        SpoolDir::temporary()
    }
}

/// One fallback in words: `the archive's disk is full (No space left on device ... at
/// /srv/archive): large outputs were spooled in the system's temporary directory (/tmp)
/// instead`.
pub(super) fn said(f: &Fallback, archive: &Path) -> String {
    let place = if f.left.starts_with(archive) {
        "the archive's disk"
    } else {
        "the system's temporary directory"
    };
    let what = if f.full {
        format!("{place} is full")
    } else {
        format!("{place} cannot take spools")
    };
    let instead = match &f.to {
        Some(to) => format!(
            "large outputs were spooled in the system's temporary directory ({}) instead",
            to.display()
        ),
        None => {
            "large outputs were held in memory instead (compressed, within ssh.max_output_mb each)"
                .to_string()
        }
    };
    format!("{what} ({} at {}): {instead}", f.error, f.left.display())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn a_fallback_says_which_disk_and_where_the_outputs_went() {
        let archive = Path::new("/srv/archive");
        let full = Fallback {
            left: archive.to_path_buf(),
            error: "No space left on device (os error 28)".into(),
            full: true,
            to: Some(PathBuf::from("/tmp")),
        };
        assert_eq!(
            said(&full, archive),
            "the archive's disk is full (No space left on device (os error 28) at /srv/archive): large outputs were spooled in the system's temporary directory (/tmp) instead"
        );
        let temp = Fallback {
            left: PathBuf::from("/tmp"),
            error: "Read-only file system (os error 30)".into(),
            full: false,
            to: None,
        };
        let words = said(&temp, archive);
        assert!(
            words.starts_with("the system's temporary directory cannot take spools")
                && words.contains("held in memory"),
            "{words}"
        );
    }
}
