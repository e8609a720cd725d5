//! One captured frame with its time stamp, whatever file it came from: the words both capture
//! formats share (`pcap`, `pcapng`) and the loop that reads frames held in memory.
//!
//! Both formats are read by a decoder that looks at the start of a buffer and says what is
//! there ([`Unit`]): a frame, a block to skip, or how many bytes it needs. The same decoders
//! serve a capture held in memory (`format::Records`, tests and small files) and one read in
//! chunks (`probe::stream`, the analyser), so a 160 MB capture never has to be in memory at once.
//! The choice between the two formats is `format`, above both.

use std::ops::Range;

use super::units::Nanos;

/// The link type of Ethernet frames, the only one the probe reads and writes.
pub const LINKTYPE_ETHERNET: u32 = 1;

/// A decoder of one capture format: what is at the start of `buf` (`offset` is where `buf`
/// starts in the file).
pub trait Decode {
    fn next(&mut self, buf: &[u8], offset: usize) -> Result<Unit, CaptureError>;
}

/// A captured frame: when, on which interface of the file, and its bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record<'a> {
    pub ts: Nanos,
    pub interface: u32,
    pub data: &'a [u8],
    pub orig_len: u32,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum CaptureError {
    #[error("not a pcap or pcapng file (unknown magic number)")]
    NotACapture,
    #[error("file ends inside the record at byte {offset}")]
    Truncated { offset: usize },
    #[error("link type {0} is not Ethernet (1); capture on the Ethernet interface")]
    LinkType(u32),
    #[error("pcapng block at byte {offset}: {reason}")]
    BadBlock { offset: usize, reason: String },
    #[error(
        "the record at byte {offset} claims {len} bytes, more than any frame or block (at most {max})"
    )]
    TooLong {
        offset: usize,
        len: usize,
        max: usize,
    },
}

/// A frame found by a decoder, as positions in the unit that holds it (so the caller can keep
/// it across a refill of its buffer without borrowing).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrameAt {
    pub ts: Nanos,
    pub interface: u32,
    /// The frame's bytes within the unit.
    pub data: Range<usize>,
    pub orig_len: u32,
}

/// What a decoder found at the start of a buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Unit {
    /// A record of `len` bytes that carries a frame.
    Frame { len: usize, frame: FrameAt },
    /// A unit of this many bytes without a frame (a section header, an interface, a block the
    /// probe has no use for).
    Skip(usize),
    /// The unit is this many bytes long in all; the buffer holds fewer.
    Need(usize),
}

/// Byte order of a capture file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Endian {
    Little,
    Big,
}

impl Endian {
    pub fn u16(self, b: &[u8]) -> u16 {
        let a = [b[0], b[1]];
        match self {
            Endian::Little => u16::from_le_bytes(a),
            Endian::Big => u16::from_be_bytes(a),
        }
    }

    pub fn u32(self, b: &[u8]) -> u32 {
        let a = [b[0], b[1], b[2], b[3]];
        match self {
            Endian::Little => u32::from_le_bytes(a),
            Endian::Big => u32::from_be_bytes(a),
        }
    }

    pub fn put_u16(self, v: u16) -> [u8; 2] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }

    pub fn put_u32(self, v: u32) -> [u8; 4] {
        match self {
            Endian::Little => v.to_le_bytes(),
            Endian::Big => v.to_be_bytes(),
        }
    }
}

/// The next record of a capture held in memory, skipping units without a frame. A unit cut
/// short by the end of the bytes is [`CaptureError::Truncated`]; after any error the rest is
/// skipped.
pub(crate) fn next_record<'a>(
    decoder: &mut impl Decode,
    bytes: &'a [u8],
    at: &mut usize,
) -> Option<Result<Record<'a>, CaptureError>> {
    loop {
        let offset = *at;
        let rest = bytes.get(offset..).filter(|r| !r.is_empty())?;
        let unit = decoder.next(rest, offset);
        match unit {
            Ok(Unit::Skip(len)) => *at = offset + len,
            Ok(Unit::Frame { len, frame }) => {
                *at = offset + len;
                let data = rest.get(frame.data).unwrap_or_default();
                return Some(Ok(Record {
                    ts: frame.ts,
                    interface: frame.interface,
                    data,
                    orig_len: frame.orig_len,
                }));
            }
            Ok(Unit::Need(_)) => {
                *at = bytes.len();
                return Some(Err(CaptureError::Truncated { offset }));
            }
            Err(e) => {
                *at = bytes.len();
                return Some(Err(e));
            }
        }
    }
}
