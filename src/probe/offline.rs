//! The offline path: capture files in, analysis out. The live run writes its capture and comes
//! through here too, so there is one source of truth for the figures.
//!
//! The files are streamed: read in chunks and merged by time stamp ([`super::stream`]),
//! paired as they come ([`super::pair`]), resolved into pairs once the sides are known
//! ([`super::sides`]), classified ([`super::session`]). What stays in memory is the requests
//! still waiting for their twin and eight bytes per pair, so a million requests take a few
//! tens of MB whatever the file's size.

use std::fs::File;
use std::path::{Path, PathBuf};

use super::analysis::{self, Analysis, Options};
use super::calibration::Calibration;
use super::pair::{self, Limits, Outcome, PairError, Pairer, Pairing, Settled, Sides, Tally};
use super::session::Classifier;
use super::sides::{Resolved, Resolver};
use super::stream::{CaptureFile, Merge, StreamError};
use super::units::{Meters, Nanos, NanosPerMeter};
use premarket_files::{self as file, FileError, Kind};

#[derive(Debug, thiserror::Error)]
pub enum AnalyzeError {
    /// Missing, or not a regular file (a FIFO would block the analysis for ever).
    #[error("{0}")]
    File(FileError),
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path}: {source}")]
    Capture {
        path: PathBuf,
        source: super::record::CaptureError,
    },
    #[error("{0}")]
    Pair(#[from] PairError),
    #[error("the calibration capture {0} has no pairs")]
    EmptyCalibration(PathBuf),
    #[error("no capture file given")]
    NoFiles,
}

/// The files, opened and merged, with what they said about themselves once read.
struct Inputs {
    paths: Vec<PathBuf>,
    merge: Merge<File>,
    notes: Vec<String>,
}

impl Inputs {
    fn open(paths: &[PathBuf]) -> Result<Self, AnalyzeError> {
        if paths.is_empty() {
            return Err(AnalyzeError::NoFiles);
        }
        let mut files = Vec::with_capacity(paths.len());
        for path in paths {
            let file = file::open(path, Kind::CAPTURE)
                .map_err(AnalyzeError::File)?
                .into_file();
            files.push(CaptureFile::open(file).map_err(|e| stream_error(path, e))?);
        }
        Ok(Inputs {
            paths: paths.to_vec(),
            merge: Merge::new(files),
            notes: Vec::new(),
        })
    }

    /// Feeds every frame to `pairer`. A damaged tail (a capture cut off mid-record) ends that
    /// file with a note; a read error ends the analysis.
    fn pair(
        &mut self,
        pairer: &mut Pairer,
        settled: &mut impl FnMut(Settled),
    ) -> Result<(), AnalyzeError> {
        while let Some((i, record)) = self.merge.next_record() {
            match record {
                Ok(r) => pairer.add(&r, settled),
                Err(StreamError::Capture(e)) => self.notes.push(format!(
                    "{}: {e}; the rest of the file was ignored",
                    self.path(i).display()
                )),
                Err(StreamError::Io(source)) => {
                    return Err(AnalyzeError::Read {
                        path: self.path(i).to_path_buf(),
                        source,
                    });
                }
            }
        }
        Ok(())
    }

    fn path(&self, i: usize) -> &Path {
        self.paths.get(i).map_or(Path::new("?"), PathBuf::as_path)
    }

    /// The formats read and the coarsest time stamp unit.
    fn formats(&self) -> (String, Nanos) {
        let mut formats: Vec<String> = Vec::new();
        let mut tick = Nanos(1);
        for file in self.merge.files() {
            tick = tick.max(file.tick());
            let format = file.format();
            if !formats.contains(&format) {
                formats.push(format);
            }
        }
        (formats.join(", "), tick)
    }
}

fn stream_error(path: &Path, e: StreamError) -> AnalyzeError {
    match e {
        StreamError::Io(source) => AnalyzeError::Read {
            path: path.to_path_buf(),
            source,
        },
        StreamError::Capture(source) => AnalyzeError::Capture {
            path: path.to_path_buf(),
            source,
        },
    }
}

/// One reading of the files with the sides `fixed` (or decided on the way).
fn read_once(
    paths: &[PathBuf],
    options: &Options,
    fixed: Option<Sides>,
) -> Result<(Analysis, Resolved), AnalyzeError> {
    let mut inputs = Inputs::open(paths)?;
    let mut pairer = Pairer::new(options.sides)?;
    let mut resolver = Resolver::new(options.sides, fixed);
    let mut classifier = Classifier::new(options);
    let mut tally = Tally::default();
    let mut outcome = |o: Outcome| match o {
        Outcome::Pair(p) => classifier.pair(p),
        other => tally.count(other),
    };
    let mut settle = |s: Settled| resolver.settle(s, &mut outcome);
    inputs.pair(&mut pairer, &mut settle)?;
    let mut pairing = pairer.finish(&mut settle);
    let resolved = resolver.finish(&mut outcome);
    tally.into_pairing(&mut pairing);
    match &resolved.sides {
        Ok(sides) => pairing.sides = *sides,
        Err(e) => pairing.problem = Some(e.to_string()),
    }
    let classified = classifier.finish(&pairing.flows);
    let (format, tick) = inputs.formats();
    let files = paths.iter().map(|p| p.display().to_string()).collect();
    let mut analysis = analysis::build(classified, pairing, files, format, tick, options);
    analysis.notes.extend(inputs.notes);
    Ok((analysis, resolved))
}

/// Analyses capture files.
pub fn analyze_files(paths: &[PathBuf], options: &Options) -> Result<Analysis, AnalyzeError> {
    let (analysis, resolved) = read_once(paths, options, None)?;
    if resolved.consistent {
        return Ok(analysis);
    }
    // The first requests voted for other sides than the whole capture: read it again with
    // the capture's own decision.
    let (analysis, _) = read_once(paths, options, resolved.sides.ok())?;
    Ok(analysis)
}

/// Pairs the copies in `paths`, keeping every pair in memory (for tests and tools that want
/// the pairs themselves; the analysis streams instead). A damaged tail ends that file with a
/// note; a file that is not a capture at all is an error.
pub fn pair_files(
    paths: &[PathBuf],
    sides: Sides,
) -> Result<(Pairing, String, Nanos, Vec<String>), AnalyzeError> {
    let mut inputs = Inputs::open(paths)?;
    let mut pairer = Pairer::with_limits(sides, Limits::UNBOUNDED)?;
    let mut all = Vec::new();
    inputs.pair(&mut pairer, &mut |s| all.push(s))?;
    let counts = pairer.finish(&mut |s| all.push(s));
    let pairing = pair::resolve_all(counts, &all, sides);
    let (format, tick) = inputs.formats();
    Ok((pairing, format, tick, inputs.notes))
}

/// The calibration from a DAC run (firewall replaced by a cable): its median difference plus
/// the extra cable of the firewall setup.
pub fn calibrate_from(
    path: &Path,
    sides: Sides,
    extra: Meters,
    per_m: NanosPerMeter,
) -> Result<Calibration, AnalyzeError> {
    let options = Options {
        sides,
        calibration: Calibration::fixed(0.0),
        ..Options::default()
    };
    let dac = analyze_files(&[path.to_path_buf()], &options)?;
    let median = dac
        .raw_median_ns
        .ok_or_else(|| AnalyzeError::EmptyCalibration(path.to_path_buf()))?;
    Ok(Calibration::from_dac(median, dac.pairs, extra, per_m))
}
