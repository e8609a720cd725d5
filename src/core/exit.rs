//! The process exit code (DESIGN §3), named once so no module writes a bare number.

use super::Status;

/// What the process tells cron and systemd.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Exit {
    /// Every selected check is OK (or SKIP).
    Ok = 0,
    /// At least one FAIL: the network is not as the baseline says.
    Fail = 1,
    /// At least one ERROR and no FAIL: the inspection could not tell (or the report did not
    /// get out: undelivered mail, a failed archive).
    Error = 2,
    /// Nothing ran: a usage or configuration error.
    NotRun = 3,
}

impl Exit {
    /// The exit code a run with this overall status earns.
    pub fn of(status: Status) -> Exit {
        match status {
            Status::Ok | Status::Skip => Exit::Ok,
            Status::Fail => Exit::Fail,
            Status::Error => Exit::Error,
        }
    }

    pub fn code(self) -> u8 {
        self as u8
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(exit: Exit) -> Self {
        std::process::ExitCode::from(exit.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_follow_the_contract() {
        assert_eq!(
            [Status::Ok, Status::Skip, Status::Fail, Status::Error].map(|s| Exit::of(s).code()),
            [0, 0, 1, 2]
        );
        assert_eq!(Exit::NotRun.code(), 3);
    }
}
