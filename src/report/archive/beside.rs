//! What a run keeps beside its report: the charts the email showed (`charts/`) and the
//! configuration diffs it attached (`diffs/<device>.diff`).

use std::fs;
use std::path::Path;

use super::{ArchiveError, CHARTS, DIFFS, file_safe};

/// The run's charts, `charts/<name>` (the probe's latency chart as SVG for a desk and PNG as
/// the email showed it; the trend when it was attached).
pub(super) fn write_charts(run: &Path, charts: &[(String, Vec<u8>)]) -> Result<(), ArchiveError> {
    if charts.is_empty() {
        return Ok(());
    }
    let dir = run.join(CHARTS);
    fs::create_dir_all(&dir).map_err(|source| ArchiveError::Write {
        path: dir.clone(),
        source,
    })?;
    for (name, bytes) in charts {
        let path = dir.join(file_safe(name));
        fs::write(&path, bytes).map_err(|source| ArchiveError::Write { path, source })?;
    }
    Ok(())
}

/// The configuration diffs, `diffs/<device>.diff`.
pub(super) fn write_diffs(run: &Path, diffs: &[(String, String)]) -> Result<(), ArchiveError> {
    if diffs.is_empty() {
        return Ok(());
    }
    let dir = run.join(DIFFS);
    fs::create_dir_all(&dir).map_err(|source| ArchiveError::Write {
        path: dir.clone(),
        source,
    })?;
    for (device, text) in diffs {
        let path = dir.join(format!("{}.diff", file_safe(device)));
        fs::write(&path, text).map_err(|source| ArchiveError::Write { path, source })?;
    }
    Ok(())
}
