//! The offline path: capture files in, analysis out. The live run writes its capture and comes
//! through here too, so there is one source of truth for the figures.

use std::path::{Path, PathBuf};

use super::analysis::{self, Analysis, Options};
use super::calibration::Calibration;
use super::pair::{PairError, Pairer, Pairing, Sides};
use super::record::{CaptureError, Records};
use super::stats::{MEDIAN, percentile};
use super::units::{Meters, Nanos, NanosPerMeter};

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Capture { path: PathBuf, source: CaptureError },
    #[error("{0}")]
    Pair(#[from] PairError),
    #[error("the calibration capture {0} has no pairs")]
    EmptyCalibration(PathBuf),
    #[error("no capture file given")]
    NoFiles,
}

/// Pairs the copies in `paths`. A damaged tail (a capture cut off mid-record) ends that file
/// with a note; a file that is not a capture at all is an error.
pub fn pair_files(
    paths: &[PathBuf],
    sides: Sides,
) -> Result<(Pairing, String, Nanos, Vec<String>), AnalyzeError> {
    if paths.is_empty() {
        return Err(AnalyzeError::NoFiles);
    }
    let mut pairer = Pairer::new(sides)?;
    let mut formats: Vec<&'static str> = Vec::new();
    let mut tick = Nanos(1);
    let mut notes = Vec::new();
    for path in paths {
        let bytes = std::fs::read(path).map_err(|source| AnalyzeError::Read {
            path: path.clone(),
            source,
        })?;
        // About 80 bytes per 64-byte frame and its record header, two frames per request.
        pairer.reserve(bytes.len() / 160);
        let mut records = Records::open(&bytes).map_err(|source| AnalyzeError::Capture {
            path: path.clone(),
            source,
        })?;
        for record in records.by_ref() {
            match record {
                Ok(r) => pairer.add(&r),
                Err(e) => {
                    notes.push(format!(
                        "{}: {e}; the rest of the file was ignored",
                        path.display()
                    ));
                    break;
                }
            }
        }
        tick = tick.max(records.tick());
        if !formats.contains(&records.format()) {
            formats.push(records.format());
        }
    }
    Ok((pairer.finish()?, formats.join(", "), tick, notes))
}

/// The calibration from a DAC run (firewall replaced by a cable): its median difference plus
/// the extra cable of the firewall setup.
pub fn calibrate_from(
    path: &Path,
    sides: Sides,
    extra: Meters,
    per_m: NanosPerMeter,
) -> Result<Calibration, AnalyzeError> {
    let (pairing, _, _, _) = pair_files(&[path.to_path_buf()], sides)?;
    let mut deltas: Vec<Nanos> = pairing.pairs.iter().map(|p| p.delta()).collect();
    deltas.sort_unstable();
    let median = percentile(&deltas, MEDIAN)
        .ok_or_else(|| AnalyzeError::EmptyCalibration(path.to_path_buf()))?;
    Ok(Calibration::from_dac(median, deltas.len(), extra, per_m))
}

/// Analyses capture files.
pub fn analyze_files(paths: &[PathBuf], options: &Options) -> Result<Analysis, AnalyzeError> {
    let (pairing, format, tick, notes) = pair_files(paths, options.sides)?;
    let files = paths.iter().map(|p| p.display().to_string()).collect();
    let mut analysis = analysis::analyze(pairing, files, format, tick, options);
    analysis.notes.extend(notes);
    Ok(analysis)
}
