//! How far back a full run reads the archive for "what changed" ([`super::changes`]), newest
//! run first: until every check this run judges on every device has been seen in an earlier
//! run (its status before), every one failing there has been followed back to the run its
//! failing streak began in (its "since"), and a full run has been read (where `--last-failed`
//! starts). Older runs change nothing `changes` says, so the archive reads them without their
//! results ([`crate::archive::Archive::history_reaching`]): a month of a thousand-device
//! site's runs, result by result, was hundreds of MB.

use std::collections::{HashMap, HashSet};

use super::{Pair, is_failing};
use crate::Report;

pub struct Reach {
    /// The pairs this run judges, each `None` until seen in an earlier run, then whether its
    /// failing streak is still being followed back; and every other pair seen.
    pairs: HashMap<Pair, Option<bool>>,
    unseen: usize,
    following: HashSet<Pair>,
    full_read: bool,
}

impl Reach {
    /// For a run that judges `pairs` (check, device).
    pub fn new(pairs: impl IntoIterator<Item = Pair>) -> Reach {
        let pairs: HashMap<Pair, Option<bool>> = pairs.into_iter().map(|p| (p, None)).collect();
        Reach {
            unseen: pairs.len(),
            pairs,
            following: HashSet::new(),
            full_read: false,
        }
    }

    /// Takes the next older run; `true` while runs older than it are still needed.
    pub fn more(&mut self, report: &Report) -> bool {
        for r in &report.results {
            let pair = (r.check.clone(), r.device.clone());
            let failing = is_failing(r.status);
            // A pair this run was not planned to judge (the probe's cross-check, added when it
            // disagrees) is followed back as well when it was failing, but never waited for.
            let state = self.pairs.entry(pair.clone()).or_insert_with(|| {
                if failing {
                    self.following.insert(pair.clone());
                }
                Some(failing)
            });
            match state {
                None => {
                    *state = Some(failing);
                    self.unseen -= 1;
                    if failing {
                        self.following.insert(pair);
                    }
                }
                // Followed back to a run where it was not failing: its streak began after it.
                Some(true) if !failing => {
                    *state = Some(false);
                    self.following.remove(&pair);
                }
                Some(_) => {}
            }
        }
        self.full_read |= !report.partial;
        !(self.full_read && self.unseen == 0 && self.following.is_empty())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::CheckResult;
    use crate::history::changes;
    use premarket_core::Status::{self, Error, Fail, Ok, Skip};

    fn run(n: usize, partial: bool, results: &[(&str, &str, Status)]) -> Report {
        let results = results
            .iter()
            .map(|(c, d, s)| CheckResult::new(c, d, *s, ""))
            .collect();
        let mut r = Report::new(
            format!("run{n}"),
            "site".into(),
            format!("2026-11-{:02}T08:00:00+08:00", n + 1),
            format!("2026-11-{:02}T08:01:00+08:00", n + 1),
            results,
        );
        r.partial = partial;
        r
    }

    /// Reads `archive` (oldest first) newest first as the archive would, runs past the reach
    /// without their results; `changes` must say the same as over every result.
    fn reached(archive: &[Report], current: &Report) -> (usize, Vec<Report>) {
        let mut reach = Reach::new(
            current
                .results
                .iter()
                .map(|r| (r.check.clone(), r.device.clone())),
        );
        let mut reaching = true;
        let mut read = 0;
        let mut out: Vec<Report> = archive
            .iter()
            .rev()
            .map(|r| {
                if reaching {
                    read += 1;
                    reaching = reach.more(r);
                    r.clone()
                } else {
                    Report {
                        results: Vec::new(),
                        ..r.clone()
                    }
                }
            })
            .collect();
        out.reverse();
        assert_eq!(changes(&out, current), changes(archive, current));
        (read, out)
    }

    #[test]
    fn reads_back_to_each_failing_streaks_start_and_no_further() {
        let a = ("a", "sw1");
        let b = ("b", "sw1");
        let archive = vec![
            run(0, false, &[(a.0, a.1, Ok), (b.0, b.1, Ok)]),
            run(1, false, &[(a.0, a.1, Ok), (b.0, b.1, Fail)]),
            run(2, false, &[(a.0, a.1, Ok), (b.0, b.1, Error)]),
            run(3, true, &[(a.0, a.1, Fail)]),
            run(4, false, &[(a.0, a.1, Skip), (b.0, b.1, Fail)]),
        ];
        let now = run(5, false, &[(a.0, a.1, Fail), (b.0, b.1, Fail)]);
        // b fails since run 1: runs 4, 3, 2, 1 and 0 (where it was OK) are read.
        assert_eq!(reached(&archive, &now).0, 5);

        // Nothing failing in the newest full run: that run alone is read.
        let mut healthy = archive.clone();
        healthy.push(run(6, false, &[(a.0, a.1, Ok), (b.0, b.1, Ok)]));
        let (read, out) = reached(&healthy, &now);
        assert_eq!(read, 1);
        assert!(out[..5].iter().all(|r| r.results.is_empty()));
        assert_eq!(
            out[0].run_id, "run0",
            "older runs are still listed, for the trend"
        );

        // A rerun after the full run: the full run is read too (where --last-failed starts).
        healthy.push(run(7, true, &[(a.0, a.1, Ok)]));
        assert_eq!(reached(&healthy, &now).0, 2);

        // A pair not planned (the probe's cross-check) failing in the newest runs: followed
        // back to where its streak began all the same.
        let x = ("probe.crosscheck.offload", "probe1");
        let mut crosscheck = healthy.clone();
        crosscheck.push(run(
            8,
            false,
            &[(a.0, a.1, Ok), (b.0, b.1, Ok), (x.0, x.1, Fail)],
        ));
        crosscheck.push(run(
            9,
            false,
            &[(a.0, a.1, Ok), (b.0, b.1, Ok), (x.0, x.1, Fail)],
        ));
        let mut with_x = now.clone();
        with_x.results.push(CheckResult::new(x.0, x.1, Fail, ""));
        assert_eq!(reached(&crosscheck, &with_x).0, crosscheck.len());
        // A run without it does not end its streak (`changes` skips runs that did not judge a
        // pair): read to the end, as `changes` would.
        crosscheck.insert(
            crosscheck.len() - 2,
            run(10, false, &[(a.0, a.1, Ok), (b.0, b.1, Ok)]),
        );
        assert_eq!(reached(&crosscheck, &with_x).0, crosscheck.len());

        // A device seen in no earlier run: every run is read, in vain.
        let mut new_device = now.clone();
        new_device
            .results
            .push(CheckResult::new("a", "sw9", Fail, ""));
        assert_eq!(reached(&healthy, &new_device).0, healthy.len());
    }
}
