//! A check that would compare with a record the archive masked is not judged.
//!
//! A device's outputs are judged as it printed them, and the archive masks every secret in the
//! facts it keeps ([`premarket_report::redact::record`]): a device that prints one of its
//! secrets (a password that is also an interface name) leaves a record that is not what it
//! said. Compared with this run's facts, the masked port would look gone and its counters new,
//! so a check whose reference holds one of its queries' masked records is an ERROR that says
//! why, until a reading taken with a secret the device never prints is accepted as the
//! reference (or an OK judgement of it made it so).

use premarket_core::Verdict;
use premarket_plan::PlannedCheck;

/// The ERROR for a comparing `check` when its reference's record of one of its queries was
/// masked.
pub(crate) fn unjudgeable(check: &PlannedCheck) -> Option<Verdict> {
    let reference = check.reference.previous();
    let command = check.queries.iter().find_map(|q| {
        let key = q.key();
        reference
            .get(&key)
            .filter(|r| r.masked)
            .map(|r| (key.command.text.clone(), r.run_id.clone()))
    })?;
    let (command, run_id) = command;
    Some(Verdict::error(format!(
        "not judged: the archive's record of `{command}` (run {run_id}) has one of this device's \
         secrets masked in it, because the device printed it (a password that is also an \
         interface name, a number or a word of its outputs); this check compares with that \
         record, its reference, and cannot. Give the device a secret it never prints \
         (`premarket validate` names it); a reading taken after the change can then be made the \
         reference"
    )))
}
