//! The trend's points, read from the archive's runs (for `premarket history --chart` and the
//! email's drift check) and from the run at hand (not archived yet when the email is
//! composed). Both read the same outputs the same way: the probe's analysis JSON (`probe
//! measure`) and the FortiGate's `diagnose sys session stat`, as the archive keeps them under
//! `raw/<device>/`, plain or zstd-compressed (`<file>.zst`).
//!
//! A run without the output (a rerun, a device that was down, a pruned file) is a gap in the
//! trend, never a failure; an output that does not read is a gap too, and a note that names
//! the run and quotes the output, so a damaged archive is said, not hidden.

use std::io::{self, Read};
use std::path::Path;

use chrono::{DateTime, FixedOffset};

use super::{FirewallPoint, Limits, PointError, TrendPoint};
use crate::archive::{Archive, file_safe};
use crate::{Report, escape};
use premarket_config::{Access, Config};
use premarket_core::{Command, Platform, Status};
use premarket_files::{self as file, Kind};
use premarket_parse::{Query, Raw};
use premarket_platform::fortigate::DiagSessionStat;
use premarket_probe::facts::Measure;
use premarket_probe::units::Nanos;
use premarket_spool::COMPRESSED;

/// The most an archived output may expand to: a session-stat or analysis output is
/// kilobytes; anything this large is not one.
const MAX_OUTPUT: u64 = 64 << 20;
/// The file of such an output, compressed or not: a regular file no larger than that.
const ARCHIVED_OUTPUT: Kind = Kind::new("archived output", MAX_OUTPUT);

/// What the trend follows: the site's first probe device and first FortiGate (in the order of
/// `site.yaml`), and their baselines' limits.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Sources {
    pub probe: Option<String>,
    pub firewall: Option<String>,
    pub limits: Limits,
}

/// The FortiGate baseline keys the trend draws (those of `fortigate.sessions.npu`).
#[derive(serde::Deserialize)]
struct FirewallLimits {
    npu_sessions_min: Option<u64>,
    setup_rate_max: Option<u64>,
}

impl Sources {
    pub fn of(config: &Config) -> Sources {
        let mut sources = Sources::default();
        for device in &config.devices {
            match (&device.access, device.platform) {
                (Access::Probe(expect), _) if sources.probe.is_none() => {
                    sources.probe = Some(device.name.to_string());
                    sources.limits.median_max = expect.median_max_ns.map(Nanos);
                    sources.limits.p99_max = expect.p99_max_ns.map(Nanos);
                }
                (_, Platform::Fortigate) if sources.firewall.is_none() => {
                    sources.firewall = Some(device.name.to_string());
                    // A baseline without these keys draws no limit (it is not the trend's
                    // place to say the baseline is wrong: `premarket validate` does).
                    if let Ok(l) = device
                        .baseline
                        .input::<FirewallLimits>("fortigate.sessions.npu")
                    {
                        sources.limits.npu_sessions_min = l.npu_sessions_min;
                        sources.limits.setup_rate_max = l.setup_rate_max;
                    }
                }
                _ => {}
            }
        }
        sources
    }
}

/// The points of some runs, oldest first, with what could not be read.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Points {
    pub probe: Vec<TrendPoint>,
    pub firewall: Vec<FirewallPoint>,
    /// "run 20261130T081500.000: fw1: diagnose sys session stat: ...": outputs that did not
    /// read (each a gap in the trend).
    pub unreadable: Vec<String>,
    /// Each run's overall status, so the trend marks the FAIL and ERROR mornings.
    pub statuses: Vec<(String, Status)>,
}

impl Points {
    /// The last `runs` full runs of the archive (reruns judge a few checks and would only
    /// add gaps). `reports` is the archive's, oldest first.
    pub fn from_archive(
        archive: &Archive,
        reports: &[Report],
        sources: &Sources,
        runs: usize,
    ) -> Points {
        let full: Vec<&Report> = reports.iter().filter(|r| !r.partial).collect();
        let mut points = Points::default();
        for report in &full[full.len().saturating_sub(runs)..] {
            let dir = archive.root().join(&report.run_id);
            points.add(report, sources, |device, command| {
                archived_text(&dir, device, command)
            });
        }
        points
    }

    /// Adds the run in memory (its outputs are in `report.raw`).
    pub fn add_report(&mut self, report: &Report, sources: &Sources) {
        self.add(report, sources, |device, command| {
            let (_, output) = report
                .raw
                .iter()
                .find(|d| d.device == device)?
                .outputs
                .iter()
                .find(|(c, _)| c == command)?;
            // An output that was not collected is a gap, like a missing file.
            // A spooled output is read up to the bound any parser that reads it whole gets.
            output.as_ref().ok().map(|output| {
                Raw::output(output)
                    .text()
                    .map(str::to_string)
                    .map_err(PointError::from)
            })
        });
    }

    /// Adds one run's points; `text(device, command)` is the output, `None` when absent.
    fn add(
        &mut self,
        report: &Report,
        sources: &Sources,
        text: impl Fn(&str, &Command) -> Option<Result<String, PointError>>,
    ) {
        let Ok(at) = DateTime::parse_from_rfc3339(&report.started_at) else {
            self.unreadable.push(format!(
                "run {}: the start time {:?} is not RFC 3339",
                report.run_id, report.started_at
            ));
            return;
        };
        let id = report.run_id.as_str();
        self.statuses.push((id.to_string(), report.status));
        if let Some(device) = &sources.probe {
            let command = Measure.command();
            let point = self
                .read(id, device, &command, text(device, &command), |json| {
                    TrendPoint::from_probe_json(id, at, json)
                })
                .unwrap_or_else(|| gap_probe(id, at));
            self.probe.push(point);
        }
        if let Some(device) = &sources.firewall {
            let command = DiagSessionStat.command();
            let point = self
                .read(id, device, &command, text(device, &command), |out| {
                    let stat = DiagSessionStat::parse(&mut Raw::new(out))?;
                    Ok(FirewallPoint {
                        run_id: id.to_string(),
                        started_at: at,
                        npu_session_count: stat.npu_session_count,
                        setup_rate: stat.setup_rate,
                    })
                })
                .unwrap_or_else(|| FirewallPoint {
                    run_id: id.to_string(),
                    started_at: at,
                    npu_session_count: None,
                    setup_rate: None,
                });
            self.firewall.push(point);
        }
    }

    /// The point of one output, or `None` (a gap) when it is absent or does not read; the
    /// latter is noted.
    fn read<P>(
        &mut self,
        run: &str,
        device: &str,
        command: &Command,
        text: Option<Result<String, PointError>>,
        parse: impl FnOnce(&str) -> Result<P, PointError>,
    ) -> Option<P> {
        let outcome = text?.and_then(|t| parse(&t));
        outcome
            .map_err(|e| {
                // The reason may quote the archived output: shown, never obeyed.
                self.unreadable.push(escape::line(&format!(
                    "run {run}: {device}: {command}: {e}"
                )))
            })
            .ok()
    }
}

fn gap_probe(run_id: &str, at: DateTime<FixedOffset>) -> TrendPoint {
    TrendPoint {
        run_id: run_id.to_string(),
        started_at: at,
        median_ns: None,
        p99_ns: None,
    }
}

/// An archived output: `raw/<device>/<file>` or its compressed `<file>.zst`; `None` when the
/// run has neither (a `.error` file, a device not inspected, a pruned run).
fn archived_text(
    run: &Path,
    device: &str,
    command: &Command,
) -> Option<Result<String, PointError>> {
    let dir = run.join("raw").join(file_safe(device));
    let name = command.file_name();
    let plain = dir.join(&name);
    let compressed = dir.join(format!("{name}{COMPRESSED}"));
    let read = |path: &Path, zst: bool| -> Result<String, PointError> {
        let file = file::open(path, ARCHIVED_OUTPUT)?;
        let mut bytes = Vec::new();
        let read = if zst {
            zstd::stream::read::Decoder::new(file)
                .and_then(|d| d.take(MAX_OUTPUT + 1).read_to_end(&mut bytes))
        } else {
            file.take(MAX_OUTPUT + 1).read_to_end(&mut bytes)
        };
        read.map_err(|source: io::Error| PointError::Read {
            path: path.to_path_buf(),
            source,
        })?;
        if bytes.len() as u64 > MAX_OUTPUT {
            return Err(PointError::TooLong {
                path: path.to_path_buf(),
                mib: MAX_OUTPUT >> 20,
            });
        }
        Ok(String::from_utf8_lossy(&bytes).into_owned())
    };
    // Whether each is a file premarket reads is the reader's to say (a FIFO is a note, not a
    // silent gap).
    if compressed.exists() {
        Some(read(&compressed, true))
    } else if plain.exists() {
        Some(read(&plain, false))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::DeviceOutputs;
    use premarket_core::CollectError;

    const STAT: &str = "misc info:       session_count=4 setup_rate=7 exp_count=0 clash=0\n        npu_session_count=2\n";
    const ANALYSIS: &str = r#"{"steady": {"n": 10, "median_ns": 4100, "p99_ns": 4137}}"#;

    fn sources() -> Sources {
        Sources {
            probe: Some("probe1".into()),
            firewall: Some("fw1".into()),
            limits: Limits::default(),
        }
    }

    fn report(id: &str, partial: bool) -> Report {
        let mut r = Report::new(
            id.into(),
            "lab".into(),
            format!("2026-11-{}T08:30:00.000+08:00", &id[1..]),
            "t".into(),
            Vec::new(),
        );
        r.partial = partial;
        r
    }

    fn write(run: &Path, device: &str, command: &Command, text: &str, zst: bool) {
        let dir = run.join("raw").join(device);
        std::fs::create_dir_all(&dir).unwrap();
        let name = command.file_name();
        if zst {
            let bytes = zstd::encode_all(text.as_bytes(), 3).unwrap();
            std::fs::write(dir.join(format!("{name}.zst")), bytes).unwrap();
        } else {
            std::fs::write(dir.join(name), text).unwrap();
        }
    }

    /// Plain and compressed outputs read alike; a missing output or a rerun is a gap, a
    /// damaged one a gap and a note.
    #[test]
    fn archived_runs_give_points_and_gaps() {
        let dir = tempfile::tempdir().unwrap();
        let archive = Archive::new(dir.path());
        let (measure, stat) = (Measure.command(), DiagSessionStat.command());
        let r = |id| dir.path().join(id);
        write(&r("r10"), "probe1", &measure, ANALYSIS, false);
        write(&r("r10"), "fw1", &stat, STAT, false);
        write(&r("r11"), "probe1", &measure, ANALYSIS, true);
        write(&r("r11"), "fw1", &stat, STAT, true);
        write(&r("r12"), "probe1", &measure, "% Unknown command", false);
        write(&r("r14"), "probe1", &measure, ANALYSIS, false);
        let reports = [
            report("r10", false),
            report("r11", false),
            report("r12", false),
            report("r13", true),
            report("r14", false),
        ];
        let points = Points::from_archive(&archive, &reports, &sources(), 30);
        let medians: Vec<_> = points
            .probe
            .iter()
            .map(|p| (p.run_id.as_str(), p.median_ns.map(|n| n.0)))
            .collect();
        assert_eq!(
            medians,
            [
                ("r10", Some(4100)),
                ("r11", Some(4100)),
                ("r12", None),
                ("r14", Some(4100))
            ],
            "the rerun r13 is left out"
        );
        let npu: Vec<_> = points
            .firewall
            .iter()
            .map(|p| p.npu_session_count)
            .collect();
        assert_eq!(npu, [Some(2), Some(2), None, None]);
        assert_eq!(points.unreadable.len(), 1, "{:?}", points.unreadable);
        assert!(
            points.unreadable[0].contains("run r12: probe1: probe measure")
                && points.unreadable[0].contains("not the analysis JSON"),
            "{:?}",
            points.unreadable
        );
        let last_two = Points::from_archive(&archive, &reports, &sources(), 2);
        assert_eq!(last_two.probe.len(), 2);
        assert_eq!(last_two.probe[0].run_id, "r12");
    }

    #[test]
    fn the_run_at_hand_reads_from_memory() {
        let mut r = report("r15", false);
        r.raw = vec![
            DeviceOutputs {
                device: "probe1".into(),
                platform: Platform::Probe,
                outputs: vec![(Measure.command(), Ok(ANALYSIS.into()))],
                facts: Vec::new(),
                advance: Default::default(),
            },
            DeviceOutputs {
                device: "fw1".into(),
                platform: Platform::Fortigate,
                outputs: vec![(DiagSessionStat.command(), Err(CollectError::Deadline))],
                facts: Vec::new(),
                advance: Default::default(),
            },
        ];
        let mut points = Points::default();
        points.add_report(&r, &sources());
        assert_eq!(points.probe[0].p99_ns, Some(Nanos(4137)));
        assert_eq!(points.firewall[0].setup_rate, None, "not collected: a gap");
        assert!(points.unreadable.is_empty());
    }
}
