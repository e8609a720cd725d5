//! The archived reports a run reads: what changed since the previous runs and, for a rerun,
//! what still stands. They are read while the devices are inspected.

use premarket_report::archive::{Archive, ArchiveError};
use premarket_report::{Report, history};

/// The archived reports a run compares with. A full run reads them in outline (their statuses
/// are all it compares), only as far back as "what changed" needs for the checks it judges,
/// `pairs` ([`history::Reach`]), and older runs' own fields alone (for the trend). A rerun
/// reads the newest full run and the reruns since whole (what still stands).
pub(super) fn read_archived(
    archive: &Archive,
    full: bool,
    pairs: Vec<history::Pair>,
) -> Result<(Vec<Report>, Vec<String>), ArchiveError> {
    if full {
        let mut reach = history::Reach::new(pairs);
        archive.history_reaching(|report| reach.more(report))
    } else {
        archive.history()
    }
}

/// What changed since the previous runs and, for a rerun, what still stands, from the archived
/// reports ([`read_archived`]).
pub(super) fn read_history(
    read: Result<(Vec<Report>, Vec<String>), ArchiveError>,
    report: &mut Report,
) -> Vec<Report> {
    match read {
        Ok((earlier, unreadable)) => {
            report.changes = history::changes(&earlier, report);
            for p in unreadable {
                tracing::warn!("skipped an unreadable archived run: {p}");
            }
            if report.partial {
                report.standing = history::standing(&earlier, &report.results);
                // A device found down now speaks for itself; one found down earlier and not
                // rechecked stands as that run's one block.
                for down in history::standing_down(&earlier, &report.standing) {
                    if !report
                        .devices_not_inspected
                        .iter()
                        .any(|d| d.device == down.device)
                    {
                        report.devices_not_inspected.push(down);
                    }
                }
                report.stand();
                report.sort();
            }
            earlier
        }
        Err(e) => {
            report.problems.push(format!(
                "{e}; the report cannot say what changed since the previous run"
            ));
            Vec::new()
        }
    }
}
