//! Reading a large output in pieces of whole lines, so that line-based work (redaction, a
//! search) runs over it in bounded memory without cutting a private key block in two.

use std::io::{self, BufRead};

use super::disk::IN_MEMORY;

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
