//! Stage 5 of the pipeline: checks judge parsed facts against the baseline.
//!
//! A check is a pure function: it declares the commands it needs (which may depend on the
//! baseline, e.g. one session query per trading flow) and turns facts plus baseline into a
//! [`Verdict`]. It never talks to a device and never formats a report.

pub mod eos;
pub mod fortigate;
pub mod probe;
pub mod registry;

use crate::core::{Command, Verdict};
use crate::parse::{FactError, Facts};

/// A baseline value a check needs and the device file does not give (a configuration error:
/// a missing value is never OK).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Missing(pub String);

impl Missing {
    pub fn key(key: impl Into<String>) -> Self {
        Missing(key.into())
    }
}

/// A check over devices whose expectations have type `E`.
pub trait Check<E>: Sync + Send {
    /// The stable id, `<platform>.<area>.<assertion>`.
    fn id(&self) -> &'static str;

    /// The commands whose facts [`Check::evaluate`] reads, in the order they should be sent.
    /// Errs with the baseline key when the baseline lacks a value the check needs.
    fn commands(&self, expect: &E) -> Result<Vec<Command>, Missing>;

    /// The verdict. A [`FactError`] (output missing or unreadable) becomes ERROR.
    fn evaluate(&self, facts: &Facts, expect: &E) -> Result<Verdict, FactError>;
}
