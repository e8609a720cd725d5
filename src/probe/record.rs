//! One captured frame with its time stamp, whatever file it came from, and the choice between
//! classic pcap and pcapng by the file's first bytes (never by its name).

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
pub enum Records<'a> {
    Pcap(pcap::Reader<'a>),
    Pcapng(pcapng::Reader<'a>),
}

impl<'a> Records<'a> {
    /// Opens `bytes` as pcap or pcapng, by magic number.
    pub fn open(bytes: &'a [u8]) -> Result<Self, CaptureError> {
        if pcapng::sniff(bytes) {
            Ok(Records::Pcapng(pcapng::Reader::new(bytes)?))
        } else if pcap::sniff(bytes) {
            Ok(Records::Pcap(pcap::Reader::new(bytes)?))
        } else {
            Err(CaptureError::NotACapture)
        }
    }

    /// The coarsest time stamp unit seen so far (for pcapng: over the interfaces read).
    pub fn tick(&self) -> Nanos {
        match self {
            Records::Pcap(r) => r.resolution.tick(),
            Records::Pcapng(r) => r.coarsest_tick(),
        }
    }

    pub fn format(&self) -> &'static str {
        match self {
            Records::Pcap(r) => match r.resolution {
                pcap::Resolution::Micro => "pcap (microsecond)",
                pcap::Resolution::Nano => "pcap (nanosecond)",
            },
            Records::Pcapng(_) => "pcapng",
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, CaptureError>;
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Records::Pcap(r) => r.next(),
            Records::Pcapng(r) => r.next(),
        }
    }
}
