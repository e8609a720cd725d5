//! The NTP limits both platforms' `*.ntp.synchronised` checks judge (issue 19): "synchronised"
//! says nothing about how far off the clock is (a real FortiGate reports `synchronized: yes`
//! 575 ms off its server), so the offset from the followed server and its stratum are judged
//! against the baseline's `expect.ntp`.
//!
//! Default offset limit 100 ms: the figure, a tenth of the one-second granularity of
//! the logs and syslog timestamps the on-call reads against each other, and far above a LAN's
//! NTP offset (well under 10 ms). Stratum: not judged unless `max_stratum` is set (16 always
//! fails: unsynchronised by definition, RFC 5905).

use serde::Deserialize;

use crate::Invalid;

pub const DEFAULT_MAX_OFFSET_MS: f64 = 100.0;

/// `expect.ntp` (optional as a whole).
#[derive(Clone, Debug, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NtpLimits {
    #[serde(default = "max_offset_ms")]
    pub max_offset_ms: f64,
    #[serde(default)]
    pub max_stratum: Option<u8>,
}

fn max_offset_ms() -> f64 {
    DEFAULT_MAX_OFFSET_MS
}

impl Default for NtpLimits {
    fn default() -> Self {
        NtpLimits {
            max_offset_ms: DEFAULT_MAX_OFFSET_MS,
            max_stratum: None,
        }
    }
}

impl NtpLimits {
    pub fn validate(&self) -> Result<(), Invalid> {
        if !(self.max_offset_ms.is_finite() && self.max_offset_ms > 0.0) {
            return Err(Invalid(format!(
                "`expect.ntp.max_offset_ms` {} is not a positive number of milliseconds",
                self.max_offset_ms
            )));
        }
        Ok(())
    }

    /// What the limits say about the followed server `server`: offset `offset_ms`, stratum.
    pub fn judge(
        &self,
        server: &str,
        offset_ms: f64,
        stratum: Option<u8>,
        problems: &mut Vec<String>,
    ) {
        if offset_ms.abs() > self.max_offset_ms {
            problems.push(format!(
                "clock offset {offset_ms:.3} ms from {server}, beyond ±{} ms",
                self.max_offset_ms
            ));
        }
        match stratum {
            Some(16) => problems.push(format!("{server} is at stratum 16 (unsynchronised)")),
            Some(s) if self.max_stratum.is_some_and(|m| s > m) => problems.push(format!(
                "{server} is at stratum {s}, above {}",
                self.max_stratum.unwrap_or(s)
            )),
            _ => {}
        }
    }

    pub fn expected(&self) -> String {
        match self.max_stratum {
            Some(m) => format!(
                "synchronised, |offset| <= {} ms, stratum <= {m}",
                self.max_offset_ms
            ),
            None => format!("synchronised, |offset| <= {} ms", self.max_offset_ms),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offset_and_stratum() {
        let limits = NtpLimits::default();
        let mut p = Vec::new();
        limits.judge("10.0.0.1", 99.9, Some(2), &mut p);
        limits.judge("10.0.0.1", -99.9, None, &mut p);
        assert!(p.is_empty(), "{p:?}");
        limits.judge("10.0.0.1", -575.402, Some(16), &mut p);
        assert_eq!(
            p,
            [
                "clock offset -575.402 ms from 10.0.0.1, beyond ±100 ms",
                "10.0.0.1 is at stratum 16 (unsynchronised)"
            ]
        );
        let strict = NtpLimits {
            max_offset_ms: 10.0,
            max_stratum: Some(3),
        };
        let mut p = Vec::new();
        strict.judge("a", 12.0, Some(4), &mut p);
        assert_eq!(p.len(), 2, "{p:?}");
        assert!(
            NtpLimits {
                max_offset_ms: -1.0,
                max_stratum: None
            }
            .validate()
            .is_err()
        );
    }
}
