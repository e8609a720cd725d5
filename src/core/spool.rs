//! An output too large to hold in memory: a file on disk (zstd-compressed when premarket wrote
//! it), its size, and a bounded head kept for evidence and excerpts.
//!
//! A busy FortiGate lists hundreds of MB of sessions, and a broken device can print without
//! end, so no stage of the pipeline may hold an output whole. The SSH reader writes a command's
//! body into a [`SpoolWriter`] as it arrives: it stays in memory up to [`IN_MEMORY`] bytes and
//! goes to a file in the run's [`SpoolDir`] beyond that, refusing to grow past the per-command
//! cap. A saved output (`run --offline`, `premarket parse`) is opened where it lies
//! ([`read_saved`]); `<file>.zst` is read through zstd. Parsers read a spool through
//! [`Spool::open`], which decompresses as it goes and stops with "output exceeded N MB" at the
//! cap. A spool that premarket wrote is removed when its last handle goes, and its directory
//! with the run.

use std::fmt;
use std::fs::{self, File};
use std::io::{self, BufRead, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

use super::Megabytes;
use super::file::{self, FileError, Kind, Size};

/// Outputs up to this size stay in memory (every ordinary command's output does).
pub const IN_MEMORY: usize = 1 << 20;
/// The start of a spooled output kept in memory, cut at a line end: evidence and excerpts.
pub const HEAD: usize = 64 << 10;
/// Spools are compressed for speed, not size: a session list still shrinks about tenfold.
const SPOOL_LEVEL: i32 = 1;
/// Name of a spool directory: `.tmp-` + this + random + `-<pid>`, so that the archive's
/// leftover cleaning removes one a killed run left behind.
const DIR_PREFIX: &str = ".tmp-spool-";

/// Why an output could not be written or read whole.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpoolError {
    #[error("output exceeded {0}")]
    Exceeded(Megabytes),
    #[error("cannot spool the output to disk: {0}")]
    Io(String),
}

/// A command's output on disk.
#[derive(Clone)]
pub struct Spool {
    file: Arc<SpoolFile>,
    head: Arc<str>,
}

struct SpoolFile {
    path: PathBuf,
    compressed: bool,
    /// Bytes of text, when known (a `.zst` written without its size does not say).
    size: Option<u64>,
    /// Reading stops with an error past this many bytes.
    cap: Megabytes,
    /// Set for a file premarket wrote: it is removed when the last handle goes, and its
    /// directory lives as long as it does. A saved output is never removed.
    temporary: Option<Arc<tempfile::TempDir>>,
}

impl Drop for SpoolFile {
    fn drop(&mut self) {
        if self.temporary.is_some() {
            let _ = fs::remove_file(&self.path);
        }
    }
}

impl Spool {
    pub fn path(&self) -> &Path {
        &self.file.path
    }

    /// Whether the file is zstd-compressed.
    pub fn is_compressed(&self) -> bool {
        self.file.compressed
    }

    /// Bytes of text, when known.
    pub fn size(&self) -> Option<u64> {
        self.file.size
    }

    /// The start of the output (whole lines, at most [`HEAD`] bytes).
    pub fn head(&self) -> &str {
        &self.head
    }

    /// The same file with its head replaced (redacted for the report); the file is not.
    pub fn with_head(&self, head: String) -> Spool {
        Spool {
            file: self.file.clone(),
            head: head.into(),
        }
    }

    /// Whether premarket wrote this file for the run (and removes it), rather than reading a
    /// saved output where it lies.
    pub fn is_temporary(&self) -> bool {
        self.file.temporary.is_some()
    }

    /// The text from its start, decompressed as it is read; an error past the cap.
    pub fn open(&self) -> io::Result<Box<dyn BufRead + Send>> {
        // A saved output is opened by the same rules as the first time (the path may have
        // become a FIFO since); a spool premarket wrote is its own.
        let file: Box<dyn Read + Send> = match self.file.temporary {
            Some(_) => Box::new(File::open(&self.file.path)?),
            None => Box::new(
                file::open(&self.file.path, Kind::saved_output(self.file.cap))
                    .map_err(FileError::into_io)?,
            ),
        };
        let text: Box<dyn Read + Send> = if self.file.compressed {
            Box::new(zstd::stream::read::Decoder::new(file)?)
        } else {
            Box::new(file)
        };
        Ok(Box::new(BufReader::with_capacity(
            64 << 10,
            Capped {
                inner: text,
                left: self.file.cap.bytes(),
                cap: self.file.cap,
            },
        )))
    }
}

impl PartialEq for Spool {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.file, &other.file) || self.file.path == other.file.path
    }
}

impl Eq for Spool {}

impl fmt::Debug for Spool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Spool")
            .field("path", &self.file.path)
            .field("compressed", &self.file.compressed)
            .field("size", &self.file.size)
            .finish_non_exhaustive()
    }
}

/// A reader that fails once more than the cap has been read.
struct Capped<R> {
    inner: R,
    left: u64,
    cap: Megabytes,
}

impl<R: Read> Read for Capped<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        match self.left.checked_sub(n as u64) {
            Some(left) => {
                self.left = left;
                Ok(n)
            }
            None => Err(io::Error::other(SpoolError::Exceeded(self.cap).to_string())),
        }
    }
}

/// Where a run's spools go: created on first use, removed with everything in it when the last
/// handle (the run's, or a spool's) goes.
#[derive(Clone, Default)]
pub struct SpoolDir {
    inner: Arc<DirState>,
}

#[derive(Default)]
struct DirState {
    /// Create the directory here (the archive, so that a spool can be moved into a run); the
    /// system's temporary directory when absent or not writable.
    parent: Option<PathBuf>,
    dir: OnceLock<Result<Arc<tempfile::TempDir>, String>>,
    next: AtomicU64,
}

impl fmt::Debug for SpoolDir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.inner.dir.get() {
            Some(Ok(dir)) => write!(f, "SpoolDir({})", dir.path().display()),
            _ => write!(f, "SpoolDir(not created)"),
        }
    }
}

impl SpoolDir {
    /// Spools in the system's temporary directory.
    pub fn temporary() -> SpoolDir {
        SpoolDir::default()
    }

    /// Spools in a hidden directory under `parent` (falling back to the system's temporary
    /// directory when `parent` cannot take one).
    pub fn under(parent: impl Into<PathBuf>) -> SpoolDir {
        SpoolDir {
            inner: Arc::new(DirState {
                parent: Some(parent.into()),
                ..DirState::default()
            }),
        }
    }

    /// The directory, once a spool was written.
    pub fn path(&self) -> Option<PathBuf> {
        match self.inner.dir.get() {
            Some(Ok(dir)) => Some(dir.path().to_path_buf()),
            _ => None,
        }
    }

    fn dir(&self) -> Result<Arc<tempfile::TempDir>, SpoolError> {
        let made = self.inner.dir.get_or_init(|| {
            let suffix = format!("-{}", std::process::id());
            let builder = || {
                let mut b = tempfile::Builder::new();
                b.prefix(DIR_PREFIX).suffix(&suffix).rand_bytes(8);
                b
            };
            let in_parent = self.inner.parent.as_ref().and_then(|p| {
                fs::create_dir_all(p).ok()?;
                builder().tempdir_in(p).ok()
            });
            match in_parent {
                Some(dir) => Ok(Arc::new(dir)),
                None => builder()
                    .tempdir()
                    .map(Arc::new)
                    .map_err(|e| format!("cannot create a spool directory: {e}")),
            }
        });
        made.clone().map_err(SpoolError::Io)
    }

    /// A new file for one output.
    fn create(&self) -> Result<(PathBuf, Arc<tempfile::TempDir>, File), SpoolError> {
        let dir = self.dir()?;
        let n = self.inner.next.fetch_add(1, Ordering::Relaxed);
        let path = dir.path().join(format!("{n}.zst"));
        let file = create_private(&path).map_err(|e| SpoolError::Io(e.to_string()))?;
        Ok((path, dir, file))
    }
}

/// A file only its owner reads: it holds device output.
fn create_private(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
}

/// Receives one output as it arrives: memory first, a compressed file past [`IN_MEMORY`].
pub struct SpoolWriter {
    dir: SpoolDir,
    cap: Megabytes,
    memory: Vec<u8>,
    file: Option<Spilled>,
    size: u64,
}

struct Spilled {
    path: PathBuf,
    dir: Arc<tempfile::TempDir>,
    head: String,
    encoder: zstd::stream::write::Encoder<'static, BufWriter<File>>,
}

impl SpoolWriter {
    pub fn new(dir: &SpoolDir, cap: Megabytes) -> SpoolWriter {
        SpoolWriter {
            dir: dir.clone(),
            cap,
            memory: Vec::new(),
            file: None,
            size: 0,
        }
    }

    /// Bytes written so far.
    pub fn size(&self) -> u64 {
        self.size
    }

    /// Appends `bytes`; past the cap nothing more is taken.
    pub fn write(&mut self, bytes: &[u8]) -> Result<(), SpoolError> {
        self.size += bytes.len() as u64;
        if self.size > self.cap.bytes() {
            return Err(SpoolError::Exceeded(self.cap));
        }
        match &mut self.file {
            Some(spilled) => spilled
                .encoder
                .write_all(bytes)
                .map_err(|e| SpoolError::Io(e.to_string())),
            None => {
                self.memory.extend_from_slice(bytes);
                if self.memory.len() > IN_MEMORY {
                    self.spill()?;
                }
                Ok(())
            }
        }
    }

    fn spill(&mut self) -> Result<(), SpoolError> {
        let (path, dir, file) = self.dir.create()?;
        let io = |e: io::Error| SpoolError::Io(e.to_string());
        let mut encoder = zstd::stream::write::Encoder::new(
            BufWriter::with_capacity(256 << 10, file),
            SPOOL_LEVEL,
        )
        .map_err(io)?;
        encoder.write_all(&self.memory).map_err(io)?;
        let head = head_of(&self.memory);
        self.memory = Vec::new();
        self.file = Some(Spilled {
            path,
            dir,
            head,
            encoder,
        });
        Ok(())
    }

    /// The output: text when it stayed small, else the finished spool.
    pub fn finish(self) -> Result<super::Output, SpoolError> {
        let Some(spilled) = self.file else {
            let text = String::from_utf8(self.memory)
                .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned());
            return Ok(super::Output::Text(text));
        };
        let io = |e: io::Error| SpoolError::Io(e.to_string());
        let mut out = spilled.encoder.finish().map_err(io)?;
        out.flush().map_err(io)?;
        Ok(super::Output::Spooled(Spool {
            file: Arc::new(SpoolFile {
                path: spilled.path,
                compressed: true,
                size: Some(self.size),
                cap: self.cap,
                temporary: Some(spilled.dir),
            }),
            head: spilled.head.into(),
        }))
    }
}

/// The first [`HEAD`] bytes of `text`, cut after the last whole line in them.
fn head_of(text: &[u8]) -> String {
    let start = &text[..text.len().min(HEAD)];
    let cut = match memchr::memrchr(b'\n', start) {
        Some(i) if text.len() > HEAD => i + 1,
        _ => start.len(),
    };
    String::from_utf8_lossy(&start[..cut]).into_owned()
}

/// Pieces of text [`for_each_piece`] hands on: large enough that per-piece work (a regex
/// search, a write) is cheap, small enough to hold a few of.
pub const PIECE: usize = 256 << 10;

/// Reads `text` in pieces of whole lines (about [`PIECE`] bytes each) and hands each to `f`, so
/// that line-based work (redaction) runs over a large output in bounded memory. A private key
/// block (`-----BEGIN ... PRIVATE KEY-----` to its `END` line) is never cut, up to [`IN_MEMORY`]
/// bytes, so that redaction sees it whole.
pub fn for_each_piece(
    mut text: impl BufRead,
    mut f: impl FnMut(&str) -> io::Result<()>,
) -> io::Result<()> {
    let mut piece: Vec<u8> = Vec::with_capacity(PIECE + (64 << 10));
    loop {
        let buf = text.fill_buf()?;
        if buf.is_empty() {
            if !piece.is_empty() {
                f(&text_of(&piece))?;
            }
            return Ok(());
        }
        // Never much more than a piece at once, however much the reader holds.
        let n = buf.len().min(PIECE.saturating_sub(piece.len()).max(4096));
        piece.extend_from_slice(&buf[..n]);
        text.consume(n);
        if piece.len() < PIECE {
            continue;
        }
        let cut = match memchr::memrchr(b'\n', &piece) {
            Some(i) => i + 1,
            // A line without end is cut anyway once it is twice a piece.
            None if piece.len() >= 2 * PIECE => piece.len(),
            None => continue,
        };
        let key_lines = memchr::memmem::find_iter(&piece[..cut], b"PRIVATE KEY-----").count();
        if key_lines % 2 == 1 && piece.len() < IN_MEMORY {
            continue;
        }
        f(&text_of(&piece[..cut]))?;
        piece.drain(..cut);
    }
}

/// `bytes` as text: checked in one pass when valid (the usual case), replacing what is not
/// UTF-8 otherwise.
fn text_of(bytes: &[u8]) -> std::borrow::Cow<'_, str> {
    match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => String::from_utf8_lossy(bytes),
    }
}

/// Opens a saved output where it lies (`<file>.zst` through zstd): small ones are read whole,
/// larger ones stay on disk and are read as the parser goes. Only a regular file is read
/// ([`file::open`]: a FIFO or a device is refused, not waited on). `Exceeded` when it is larger
/// than `cap` (for a `.zst`, when its frame says so; otherwise reading stops at the cap).
pub fn read_saved(path: &Path, cap: Megabytes) -> Result<super::Output, SavedError> {
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
        return Ok(super::Output::Text(text));
    }
    Ok(super::Output::Spooled(Spool {
        file: Arc::new(SpoolFile {
            path: path.to_path_buf(),
            compressed,
            size,
            cap,
            temporary: None,
        }),
        head: head_of(&start).into(),
    }))
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Output;

    fn read_all(output: &Output) -> io::Result<Vec<u8>> {
        let mut all = Vec::new();
        output.reader()?.read_to_end(&mut all)?;
        Ok(all)
    }

    #[test]
    fn small_outputs_stay_in_memory_and_large_ones_spool_compressed() {
        let dir = SpoolDir::temporary();
        let line = b"session info: proto=17 proto_state=01 duration=12 expire=170\n";
        for (lines, spooled) in [(1usize, false), (IN_MEMORY / line.len() + 1, true)] {
            let mut writer = SpoolWriter::new(&dir, Megabytes(64));
            for _ in 0..lines {
                writer.write(line).unwrap();
            }
            let output = writer.finish().unwrap();
            assert_eq!(matches!(output, Output::Spooled(_)), spooled);
            assert_eq!(read_all(&output).unwrap(), line.repeat(lines));
            assert!(output.head().len() <= HEAD && output.head().ends_with('\n'));
            if let Output::Spooled(spool) = &output {
                assert!(spool.is_compressed() && spool.is_temporary());
                assert!(
                    fs::metadata(spool.path()).unwrap().len() < (lines * line.len()) as u64 / 5
                );
                let path = spool.path().to_path_buf();
                drop(output);
                assert!(!path.exists(), "a spool is removed with its last handle");
            }
        }
    }

    #[test]
    fn the_cap_stops_writing_and_reading() {
        let dir = SpoolDir::temporary();
        let mut writer = SpoolWriter::new(&dir, Megabytes(1));
        let chunk = vec![b'x'; 64 << 10];
        let mut result = Ok(());
        for _ in 0..17 {
            result = writer.write(&chunk);
        }
        assert_eq!(result, Err(SpoolError::Exceeded(Megabytes(1))));
        assert_eq!(result.unwrap_err().to_string(), "output exceeded 1 MB");

        // A saved file over the cap: refused by its size, or by its reader for a .zst that does
        // not say its size.
        let tmp = tempfile::tempdir().unwrap();
        let plain = tmp.path().join("big.txt");
        fs::write(&plain, vec![b'y'; (1 << 20) + 10]).unwrap();
        assert!(matches!(
            read_saved(&plain, Megabytes(1)),
            Err(SavedError::Exceeded { .. })
        ));
        let zst = tmp.path().join("big.txt.zst");
        let mut encoder =
            zstd::stream::write::Encoder::new(File::create(&zst).unwrap(), 3).unwrap();
        for _ in 0..3 {
            encoder.write_all(&vec![b'z'; 1 << 20]).unwrap();
        }
        encoder.finish().unwrap();
        let output = read_saved(&zst, Megabytes(2)).unwrap();
        let error = read_all(&output).unwrap_err();
        assert_eq!(error.to_string(), "output exceeded 2 MB");
        assert_eq!(
            read_all(&read_saved(&zst, Megabytes(3)).unwrap())
                .unwrap()
                .len(),
            3 << 20
        );
    }

    #[test]
    fn saved_outputs_are_read_plain_or_compressed() {
        let tmp = tempfile::tempdir().unwrap();
        let text = "Version: FortiGate-201G v7.6.7\nHostname: fw1\n";
        let zst = tmp.path().join("get-system-status.txt.zst");
        fs::write(&zst, zstd::encode_all(text.as_bytes(), 3).unwrap()).unwrap();
        let plain = tmp.path().join("get-system-status.txt");
        fs::write(&plain, text).unwrap();
        for path in [&zst, &plain] {
            let output = read_saved(path, Megabytes(1)).unwrap();
            assert_eq!(output, Output::Text(text.into()), "{}", path.display());
        }
        // Compressed in one go, as the `zstd` tool does a file: the frame says its size.
        let large = tmp.path().join("large.txt.zst");
        let body = "line of a large output\n".repeat(IN_MEMORY / 10);
        fs::write(&large, zstd::bulk::compress(body.as_bytes(), 3).unwrap()).unwrap();
        let output = read_saved(&large, Megabytes(16)).unwrap();
        let Output::Spooled(spool) = &output else {
            panic!("a large saved output stays on disk");
        };
        assert!(!spool.is_temporary());
        assert_eq!(spool.size(), Some(body.len() as u64));
        assert_eq!(read_all(&output).unwrap(), body.as_bytes());
        drop(output);
        assert!(large.exists(), "a saved output is never removed");
    }

    #[test]
    fn pieces_are_whole_lines_and_keep_a_key_block_whole() {
        let mut text = "a line of output\n".repeat(PIECE / 17);
        text.push_str("-----BEGIN RSA PRIVATE KEY-----\n");
        text.push_str(&"MIIEowIBAAKCAQEA\n".repeat(PIECE / 17));
        text.push_str("-----END RSA PRIVATE KEY-----\n");
        text.push_str(&"tail\n".repeat(PIECE / 5));
        let mut pieces = Vec::new();
        for_each_piece(text.as_bytes(), |p| {
            pieces.push(p.to_string());
            Ok(())
        })
        .unwrap();
        assert_eq!(pieces.concat(), text);
        assert!(pieces.len() > 1 && pieces.iter().all(|p| p.ends_with('\n')));
        let with_key = pieces.iter().filter(|p| p.contains("PRIVATE KEY")).count();
        assert_eq!(with_key, 1, "BEGIN and END in one piece");
    }

    #[test]
    fn the_spool_directory_goes_with_the_run() {
        let parent = tempfile::tempdir().unwrap();
        let dir = SpoolDir::under(parent.path());
        assert!(dir.path().is_none(), "created only when needed");
        let mut writer = SpoolWriter::new(&dir, Megabytes(8));
        writer.write(&vec![b'a'; IN_MEMORY + 1]).unwrap();
        let output = writer.finish().unwrap();
        let path = dir.path().unwrap();
        assert!(path.starts_with(parent.path()));
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        assert!(
            name.starts_with(".tmp-spool-") && name.ends_with(&format!("-{}", std::process::id()))
        );
        drop(dir);
        assert!(path.exists(), "a spool keeps its directory");
        drop(output);
        assert!(!path.exists(), "and the directory goes with the last one");
    }
}
