//! `run --last-failed`: what the newest run and the reruns since it left failing, as the pairs
//! (check, device) to run again.

use std::path::PathBuf;

use premarket_report::Invocation;
use premarket_report::archive::{Archive, ArchiveError};
use premarket_report::history;

/// What `--last-failed` selects.
pub(crate) enum Pick {
    Nothing(String),
    Pairs(String, Vec<(String, String)>),
}

/// Why there is nothing to choose from: the run stops before it starts (exit 4).
#[derive(Debug, thiserror::Error)]
pub(crate) enum LastFailedError {
    #[error(transparent)]
    Archive(#[from] ArchiveError),
    /// `run` is the command to start with, complete for this site (`premarket run --dir ...`).
    #[error("--last-failed: the archive {} holds no run yet; run `{run}` first", archive.display())]
    NoRun { archive: PathBuf, run: String },
}

pub(crate) fn last_failed(
    archive: &Archive,
    invocation: &Invocation,
) -> Result<Pick, LastFailedError> {
    // The newest full run and the reruns since are all it reads; older runs' own fields only.
    let (reports, _) = archive.history_reaching(|report| report.partial)?;
    let Some((run, pairs)) = history::last_failed(&reports) else {
        return Err(LastFailedError::NoRun {
            archive: archive.root().to_path_buf(),
            run: invocation.complete("premarket run"),
        });
    };
    if pairs.is_empty() {
        return Ok(Pick::Nothing(format!(
            "nothing failed in the latest run ({run}) or the reruns since; nothing to rerun"
        )));
    }
    let list: Vec<String> = pairs.iter().map(|(c, d)| format!("{c} on {d}")).collect();
    Ok(Pick::Pairs(
        format!("rerunning what failed as of run {run}: {}", list.join(", ")),
        pairs,
    ))
}
