//! One captured frame with its time stamp, whatever file it came from, and the choice between
//! classic pcap and pcapng by the file's first bytes (never by its name).
//!
//! Both formats are read by a decoder that looks at the start of a buffer and says what is
//! there ([`Unit`]): a frame, a block to skip, or how many bytes it needs. The same decoders
//! serve a capture held in memory ([`Records`], tests and small files) and one read in chunks
//! (`probe::stream`, the analyser), so a 160 MB capture never has to be in memory at once.

use std::ops::Range;

use super::units::Nanos;
use super::{pcap, pcapng};

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

/// The decoder of either format, chosen by the first bytes.
#[derive(Clone, Debug)]
pub enum Decoder {
    Pcap(pcap::Decoder),
    Pcapng(pcapng::Decoder),
}

impl Decoder {
    /// Bytes needed to tell the format and read its file header.
    pub const SNIFF_LEN: usize = 24;

    /// The decoder for a file starting with `head` (at least [`Self::SNIFF_LEN`] bytes unless
    /// the file is shorter), and how many bytes its file header takes.
    pub fn sniff(head: &[u8]) -> Result<(Decoder, usize), CaptureError> {
        if pcapng::sniff(head) {
            Ok((Decoder::Pcapng(pcapng::Decoder::default()), 0))
        } else if pcap::sniff(head) {
            Ok((
                Decoder::Pcap(pcap::Decoder::header(head)?),
                pcap::HEADER_LEN,
            ))
        } else {
            Err(CaptureError::NotACapture)
        }
    }

    /// The unit at the start of `buf`; `offset` is where `buf` starts in the file.
    pub fn next(&mut self, buf: &[u8], offset: usize) -> Result<Unit, CaptureError> {
        match self {
            Decoder::Pcap(d) => Ok(d.next(buf)),
            Decoder::Pcapng(d) => d.next(buf, offset),
        }
    }

    /// The coarsest time stamp unit seen so far.
    pub fn tick(&self) -> Nanos {
        match self {
            Decoder::Pcap(d) => d.resolution.tick(),
            Decoder::Pcapng(d) => d.coarsest_tick(),
        }
    }

    pub fn format(&self) -> &'static str {
        match self {
            Decoder::Pcap(d) => match d.resolution {
                pcap::Resolution::Micro => "pcap (microsecond)",
                pcap::Resolution::Nano => "pcap (nanosecond)",
            },
            Decoder::Pcapng(_) => "pcapng",
        }
    }
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

/// The records of a capture held in memory.
pub struct Records<'a> {
    bytes: &'a [u8],
    at: usize,
    decoder: Decoder,
}

impl<'a> Records<'a> {
    /// Opens `bytes` as pcap or pcapng, by magic number.
    pub fn open(bytes: &'a [u8]) -> Result<Self, CaptureError> {
        let (mut decoder, at) = Decoder::sniff(bytes)?;
        // A pcapng file must at least start with a whole section header.
        if let Decoder::Pcapng(_) = decoder {
            match decoder.next(bytes, 0)? {
                Unit::Need(_) => return Err(CaptureError::Truncated { offset: 0 }),
                Unit::Frame { .. } | Unit::Skip(_) => {}
            }
        }
        Ok(Records { bytes, at, decoder })
    }

    /// The coarsest time stamp unit seen so far (for pcapng: over the interfaces read).
    pub fn tick(&self) -> Nanos {
        self.decoder.tick()
    }

    pub fn format(&self) -> &'static str {
        self.decoder.format()
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, CaptureError>;
    fn next(&mut self) -> Option<Self::Item> {
        next_record(&mut self.decoder, self.bytes, &mut self.at)
    }
}

/// The next record of a capture held in memory, skipping units without a frame. A unit cut
/// short by the end of the bytes is [`CaptureError::Truncated`]; after any error the rest is
/// skipped.
pub(crate) fn next_record<'a>(
    decoder: &mut Decoder,
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
