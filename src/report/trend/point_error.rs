//! Why one archived output gave no point of the trend. Never fatal: the point is a gap in the
//! chart and the reason a note under it, so one unreadable run does not hide the others.

use std::io;
use std::path::PathBuf;

use premarket_files::FileError;
use premarket_parse::ParseError;

#[derive(Debug, thiserror::Error)]
pub enum PointError {
    #[error("the probe output is not the analysis JSON: {0}")]
    NotAnalysisJson(#[source] serde_json::Error),
    #[error("the probe output has no `steady` summary")]
    NoSteadySummary,
    /// Not a file premarket reads (a FIFO, a device, too big for its kind), or unreadable.
    #[error(transparent)]
    File(#[from] FileError),
    #[error("{}: {source}", path.display())]
    Read { path: PathBuf, source: io::Error },
    /// Bigger than any output of the command: not what the archive should hold there.
    #[error("{}: more than {mib} MiB: not this command's output", path.display())]
    TooLong { path: PathBuf, mib: u64 },
    /// The output does not read as the command's (the parser's message, with its excerpt).
    #[error(transparent)]
    Parse(#[from] ParseError),
}
