//! Streaming the list out of any [`BufRead`] in bounded memory: whole lines of each buffer go to
//! the [`Scanner`] in one pass, only a line cut by the buffer's end is copied, and the first and
//! last bytes are kept so that an error can show the block it is about. [`SessionReader::finish`]
//! holds the blocks read against the list's own `total session N` line.

use std::io::BufRead;

use super::scanner::{BLOCK, Scanner};
use super::session::Session;
use crate::fortigate;
use premarket_parse::{ParseError, text};

/// Longest run of bytes kept while waiting for a line end; longer lines are scanned in pieces
/// cut at white space, so memory stays bounded whatever the input.
const MAX_LINE: usize = 1 << 20;

/// The start of the output kept for its error checks (`Unknown action`, `Command fail`).
const HEAD: usize = 2048;

/// The end of the output kept for error excerpts: several session blocks (~1.2 kB each).
const TAIL: usize = 32 * 1024;

/// Streams sessions out of a reader in bounded memory: a line being read, the first
/// `HEAD` bytes and the last `TAIL` bytes (for error excerpts), whatever the list's size.
pub struct SessionReader<R> {
    reader: R,
    partial: Vec<u8>,
    scanner: Scanner,
    eof: bool,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl<R: BufRead> SessionReader<R> {
    pub fn new(reader: R) -> Self {
        SessionReader {
            reader,
            partial: Vec::new(),
            scanner: Scanner::default(),
            eof: false,
            head: Vec::new(),
            tail: Vec::new(),
        }
    }

    /// `total session N` once read (usually the last line).
    pub fn total(&self) -> Option<u64> {
        self.scanner
            .total
            .as_ref()
            .and_then(|t| t.as_ref().ok().copied())
    }

    /// Whether anything looked like a session list (a block or the total line).
    pub fn seen_list(&self) -> bool {
        self.scanner.seen
    }

    /// Session blocks started so far.
    pub fn blocks(&self) -> u64 {
        self.scanner.blocks as u64
    }

    /// After the last session: the list's own verdict on itself. A device error in the first
    /// lines, output with no block and no total line, or a `total session N` that disagrees
    /// with the blocks read (the list was cut) is an error; otherwise the total line, if any.
    pub fn finish(&mut self) -> Result<Option<u64>, ParseError> {
        let head = String::from_utf8_lossy(&self.head);
        let lines: Vec<_> = text::lines(&head)
            .take(6)
            .map(fortigate::text::clean)
            .collect();
        fortigate::text::device_error(&lines)?;
        if !self.seen_list() {
            return Err(ParseError::new(
                "no `session info:` block and no `total session` line: not a session list",
                &head,
            ));
        }
        let blocks = self.blocks();
        match self.total() {
            Some(total) if total != blocks => Err(ParseError {
                reason: format!(
                    "the list says `total session {total}` but {blocks} session(s) were read (output cut?)"
                ),
                excerpt: self.tail_excerpt(),
            }),
            total => Ok(total),
        }
    }

    /// The last lines read.
    fn tail_excerpt(&self) -> String {
        let tail = String::from_utf8_lossy(&self.tail);
        let lines: Vec<&str> = text::lines(&tail)
            .filter(|l| !l.trim().is_empty())
            .collect();
        let from = lines.len().saturating_sub(8);
        text::excerpt(&lines[from..].join("\n"), 8)
    }

    /// The text of 0-based block `ordinal`, found in the tail buffer by counting blocks back
    /// from the newest.
    fn block_excerpt(&self, ordinal: usize) -> String {
        let tail = String::from_utf8_lossy(&self.tail);
        let starts: Vec<usize> = tail.match_indices("session info").map(|(i, _)| i).collect();
        let after = self.scanner.blocks.saturating_sub(ordinal + 1);
        match starts.len().checked_sub(after + 1).map(|i| starts[i]) {
            Some(at) => text::excerpt(&tail[at..], 10),
            None => self.tail_excerpt(),
        }
    }

    /// Reads until at least one session is ready or the input ends. Whole lines of each buffer
    /// are scanned in one pass; only a line cut by the buffer's end is copied.
    fn fill(&mut self) -> std::io::Result<()> {
        while self.scanner.ready.is_empty() && !self.eof {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                self.eof = true;
                self.scanner.chunk(&self.partial);
                self.partial.clear();
                self.scanner.finish();
                break;
            }
            let mut start = 0;
            if !self.partial.is_empty() {
                match memchr::memchr(b'\n', available) {
                    Some(at) => {
                        self.partial.extend_from_slice(&available[..=at]);
                        self.scanner.chunk(&self.partial);
                        self.partial.clear();
                        start = at + 1;
                    }
                    None => {
                        self.partial.extend_from_slice(available);
                        start = available.len();
                    }
                }
            }
            match memchr::memrchr(b'\n', &available[start..]) {
                Some(at) => {
                    self.scanner.chunk(&available[start..=start + at]);
                    self.partial.extend_from_slice(&available[start + at + 1..]);
                }
                None => self.partial.extend_from_slice(&available[start..]),
            }
            let consumed = available.len();
            // Remembered after they are scanned, so a block's text is in the tail when its
            // error is reported.
            remember(&mut self.head, &mut self.tail, available);
            self.reader.consume(consumed);
            if self.partial.len() > MAX_LINE {
                let cut = self
                    .partial
                    .iter()
                    .rposition(|b| fortigate::kv::is_space(*b))
                    .unwrap_or(self.partial.len());
                self.scanner.words(&self.partial[..cut]);
                self.partial.drain(..cut);
                if self.partial.len() > MAX_LINE {
                    // One word longer than a megabyte is not FortiOS output; drop it.
                    self.partial.clear();
                }
            }
        }
        Ok(())
    }
}

/// Keeps the first [`HEAD`] bytes and (amortised) the last [`TAIL`] bytes of the stream.
fn remember(head: &mut Vec<u8>, tail: &mut Vec<u8>, bytes: &[u8]) {
    if head.len() < HEAD {
        let take = (HEAD - head.len()).min(bytes.len());
        head.extend_from_slice(&bytes[..take]);
    }
    if bytes.len() >= TAIL {
        tail.clear();
        tail.extend_from_slice(&bytes[bytes.len() - TAIL..]);
        return;
    }
    if tail.len() + bytes.len() > 2 * TAIL {
        let drop = tail.len() + bytes.len() - TAIL;
        tail.drain(..drop.min(tail.len()));
    }
    tail.extend_from_slice(bytes);
}

impl<R: BufRead> Iterator for SessionReader<R> {
    type Item = Result<Session, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Err(e) = self.fill() {
            self.eof = true;
            return Some(Err(ParseError::new(
                format!("cannot read the session list: {e}"),
                "",
            )));
        }
        let item = self.scanner.ready.pop_front()?;
        Some(item.map_err(|mut error| {
            let block = error
                .excerpt
                .strip_prefix(BLOCK)
                .and_then(|n| n.parse::<usize>().ok());
            error.excerpt = match block {
                Some(ordinal) => self.block_excerpt(ordinal),
                None => self.tail_excerpt(),
            };
            error
        }))
    }
}
