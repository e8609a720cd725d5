//! The choice between classic pcap and pcapng by the file's first bytes (never by its name),
//! and a capture held in memory read as either.

use super::record::{CaptureError, Decode, Record, Unit, next_record};
use super::units::Nanos;
use super::{pcap, pcapng};

/// The decoder of either format, chosen by the first bytes.
#[derive(Clone, Debug)]
pub enum Decoder {
    Pcap(pcap::Decoder),
    Pcapng(pcapng::Decoder),
}

impl Decode for Decoder {
    fn next(&mut self, buf: &[u8], offset: usize) -> Result<Unit, CaptureError> {
        Decoder::next(self, buf, offset)
    }
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
            Decoder::Pcap(d) => Ok(pcap::Decoder::next(d, buf)),
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

    /// The format and its clock: `pcap (microsecond)`, `pcapng (units of 10^-9 s)`.
    pub fn format(&self) -> String {
        match self {
            Decoder::Pcap(d) => match d.resolution {
                pcap::Resolution::Micro => "pcap (microsecond)".to_string(),
                pcap::Resolution::Nano => "pcap (nanosecond)".to_string(),
            },
            Decoder::Pcapng(d) => d.describe(),
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

    pub fn format(&self) -> String {
        self.decoder.format()
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Result<Record<'a>, CaptureError>;
    fn next(&mut self) -> Option<Self::Item> {
        next_record(&mut self.decoder, self.bytes, &mut self.at)
    }
}
