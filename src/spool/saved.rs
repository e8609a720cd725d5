//! A saved output (`run --offline`, `premarket parse`) opened where it lies: small ones read
//! whole, larger ones left on disk and read as the parser goes, `<file>.zst` through zstd, and
//! one larger than the cap refused by its size when the file says it.

use std::io::{self, Read};
use std::path::Path;

use super::disk::{IN_MEMORY, OnDisk, head_of};
use premarket_core::{Megabytes, Output};
use premarket_files::{self as file, FileError, Kind, Size};

/// Opens a saved output where it lies (`<file>.zst` through zstd): small ones are read whole,
/// larger ones stay on disk and are read as the parser goes. Only a regular file is read
/// ([`file::open`]: a FIFO or a device is refused, not waited on). `Exceeded` when it is larger
/// than `cap` (for a `.zst`, when its frame says so; otherwise reading stops at the cap).
pub fn read_saved(path: &Path, cap: Megabytes) -> Result<Output, SavedError> {
    let compressed = path.extension().is_some_and(|e| e == "zst");
    let mut opened = match file::open(path, Kind::saved_output(cap)) {
        Ok(opened) => opened,
        Err(FileError::TooLarge { size, .. }) => return Err(SavedError::Exceeded { cap, size }),
        Err(e) => return Err(SavedError::File(e)),
    };
    let mut header = Vec::with_capacity(FRAME_HEADER);
    (&mut opened)
        .take(FRAME_HEADER as u64)
        .read_to_end(&mut header)
        .map_err(SavedError::Io)?;
    let size = if compressed {
        zstd::zstd_safe::get_frame_content_size(&header)
            .ok()
            .flatten()
    } else {
        Some(opened.size())
    };
    if let Some(size) = size.filter(|s| *s > cap.bytes()) {
        return Err(SavedError::Exceeded {
            cap,
            size: Some(size),
        });
    }
    let whole = io::Cursor::new(header).chain(opened);
    let mut text: Box<dyn Read> = if compressed {
        Box::new(zstd::stream::read::Decoder::new(whole).map_err(SavedError::Io)?)
    } else {
        Box::new(whole)
    };
    let mut start = Vec::new();
    (&mut text)
        .take(IN_MEMORY as u64 + 1)
        .read_to_end(&mut start)
        .map_err(SavedError::Io)?;
    if start.len() <= IN_MEMORY {
        let text = String::from_utf8(start)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
        return Ok(Output::Text(text.into()));
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

/// The most of a `.zst` file's start that holds its first frame's header (and so the size of
/// the text, when the `zstd` tool wrote it).
const FRAME_HEADER: usize = 18;

/// Why a saved output could not be opened.
#[derive(Debug, thiserror::Error)]
pub enum SavedError {
    /// Not a file premarket reads (missing, a FIFO, a device): the message names it.
    #[error("{0}")]
    File(FileError),
    #[error("{0}")]
    Io(io::Error),
    #[error(
        "output exceeded {cap} (ssh.max_output_mb){}",
        size.map(|s| format!(": the file holds {}", Size(s))).unwrap_or_default()
    )]
    Exceeded { cap: Megabytes, size: Option<u64> },
}
