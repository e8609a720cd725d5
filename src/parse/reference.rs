//! What a check that compares with an earlier run (configuration, counters, boots) judges
//! against on one device: its reference. The run driver reads it from the archive's reference
//! store; the check sees only its records, through [`crate::Facts::previous`].

use premarket_core::Accepted;

use super::{Previous, Recorded};

/// The reference of one check on one device.
#[derive(Clone, Debug, Default)]
pub enum Reference {
    /// Nothing to compare with: this is the first reading (it becomes the reference once it
    /// is judged OK).
    #[default]
    First,
    /// The reading of the newest run that judged the check OK on the device, or a reading
    /// accepted since (`premarket accept`: who, when, why).
    Reading {
        previous: Previous,
        accepted: Option<Accepted>,
    },
    /// Earlier readings exist, but none may stand as the reference (the newest judgement kept
    /// is a FAIL and no OK reading is kept): why, and how to accept one. The check is ERROR
    /// until a reading is accepted, never "first reading, OK".
    Missing(String),
}

impl Reference {
    /// The records a check judges against (none on a first reading).
    pub fn previous(&self) -> Previous {
        match self {
            Reference::Reading { previous, .. } => previous.clone(),
            Reference::First | Reference::Missing(_) => Previous::default(),
        }
    }

    /// Who accepted the reading, when it was accepted rather than judged OK.
    pub fn accepted(&self) -> Option<&Accepted> {
        match self {
            Reference::Reading { accepted, .. } => accepted.as_ref(),
            Reference::First | Reference::Missing(_) => None,
        }
    }
}

/// What a device's box facts (version, links, grandmaster ...) are compared with in "Changed
/// since the previous run". A full run compares with the box facts of the full runs before it
/// and advances that reference; a rerun compares only the facts it read with what the latest
/// full run compared with, and advances nothing.
#[derive(Clone, Debug, Default)]
pub struct BoxReference {
    /// The record to compare with (none: nothing is listed).
    pub compare_with: Option<Recorded>,
    /// Whether this run's box facts become the reference (a full run).
    pub advance: bool,
}
