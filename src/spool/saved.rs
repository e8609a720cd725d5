//! A saved output (`run --offline`, `premarket parse`) opened where it lies: small ones read
//! whole, larger ones left on disk and read as the parser goes, `<file>.zst` through zstd, and
//! one larger than the cap refused by its size when the file says it.

use std::fs::File;
use std::io::{self, Read};
use std::path::Path;

use super::disk::{IN_MEMORY, OnDisk, head_of};
use premarket_core::{Megabytes, Output};

/// Opens a saved output where it lies (`<file>.zst` through zstd): small ones are read whole,
/// larger ones stay on disk and are read as the parser goes. `Exceeded` when it is larger than
/// `cap` (for a `.zst`, when its frame says so; otherwise reading stops at the cap).
pub fn read_saved(path: &Path, cap: Megabytes) -> Result<Output, SavedError> {
    let compressed = path.extension().is_some_and(|e| e == "zst");
    let file = File::open(path).map_err(SavedError::Io)?;
    let size = if compressed {
        frame_size(path)
    } else {
        file.metadata().ok().map(|m| m.len())
    };
    let mut text: Box<dyn Read> = if compressed {
        Box::new(zstd::stream::read::Decoder::new(file).map_err(SavedError::Io)?)
    } else {
        Box::new(file)
    };
    if size.is_some_and(|s| s > cap.bytes()) {
        return Err(SavedError::Exceeded(cap));
    }
    let mut start = Vec::new();
    (&mut text)
        .take(IN_MEMORY as u64 + 1)
        .read_to_end(&mut start)
        .map_err(SavedError::Io)?;
    if start.len() <= IN_MEMORY {
        let text = String::from_utf8(start)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        return Ok(Output::Text(text));
    }
    let file = OnDisk {
        path: path.to_path_buf(),
        compressed,
        size,
        cap,
        temporary: None,
    };
    Ok(Output::Spooled(file.spool(head_of(&start))))
}

/// The text size a `.zst` file's first frame declares, when it does (the `zstd` tool writes it
/// for a file it compresses).
fn frame_size(path: &Path) -> Option<u64> {
    let mut header = [0u8; 18];
    let mut file = File::open(path).ok()?;
    let n = file.read(&mut header).ok()?;
    zstd::zstd_safe::get_frame_content_size(&header[..n])
        .ok()
        .flatten()
}

/// Why a saved output could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SavedError {
    #[error("{0}")]
    Io(io::Error),
    #[error("output exceeded {0}")]
    Exceeded(Megabytes),
}
