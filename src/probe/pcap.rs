//! Classic pcap, read and written: both magics (microsecond `a1b2c3d4`, nanosecond
//! `a1b23c4d`) in both byte orders. premarket's live capture writes little-endian nanosecond
//! pcap, the form `tcpdump --time-stamp-precision=nano` and `exanic-capture -N` write too.

use std::io::{self, Write};

use super::record::{
    CaptureError, Decode, Endian, FrameAt, LINKTYPE_ETHERNET, Record, Unit, next_record,
};
use super::units::Nanos;

const MAGIC_MICRO: u32 = 0xa1b2_c3d4;
const MAGIC_NANO: u32 = 0xa1b2_3c4d;

/// Time stamp resolution of a classic pcap file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resolution {
    Micro,
    Nano,
}

impl Resolution {
    pub fn tick(self) -> Nanos {
        match self {
            Resolution::Micro => Nanos(1_000),
            Resolution::Nano => Nanos(1),
        }
    }
}

/// The length of a classic pcap's file header.
pub const HEADER_LEN: usize = 24;

impl Decode for Decoder {
    fn next(&mut self, buf: &[u8], _offset: usize) -> Result<Unit, CaptureError> {
        Ok(Decoder::next(self, buf))
    }
}

/// Whether `bytes` starts like a classic pcap file (either byte order, either resolution).
pub fn sniff(bytes: &[u8]) -> bool {
    let Some(m) = bytes.get(..4) else {
        return false;
    };
    let le = u32::from_le_bytes([m[0], m[1], m[2], m[3]]);
    let be = u32::from_be_bytes([m[0], m[1], m[2], m[3]]);
    [le, be]
        .iter()
        .any(|m| *m == MAGIC_MICRO || *m == MAGIC_NANO)
}

/// What the file header said: byte order and time stamp resolution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Decoder {
    endian: Endian,
    pub resolution: Resolution,
}

impl Decoder {
    /// Reads the 24-byte file header.
    pub fn header(bytes: &[u8]) -> Result<Self, CaptureError> {
        let header = bytes
            .get(..HEADER_LEN)
            .ok_or(CaptureError::Truncated { offset: 0 })?;
        let le = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
        let be = u32::from_be_bytes([header[0], header[1], header[2], header[3]]);
        let (endian, resolution) = match (le, be) {
            (MAGIC_MICRO, _) => (Endian::Little, Resolution::Micro),
            (MAGIC_NANO, _) => (Endian::Little, Resolution::Nano),
            (_, MAGIC_MICRO) => (Endian::Big, Resolution::Micro),
            (_, MAGIC_NANO) => (Endian::Big, Resolution::Nano),
            _ => return Err(CaptureError::NotACapture),
        };
        let linktype = endian.u32(&header[20..24]) & 0x0fff_ffff;
        if linktype != LINKTYPE_ETHERNET {
            return Err(CaptureError::LinkType(linktype));
        }
        Ok(Decoder { endian, resolution })
    }

    /// The record at the start of `buf`: a 16-byte header and the captured bytes.
    pub fn next(&self, buf: &[u8]) -> Unit {
        let Some(h) = buf.get(..16) else {
            return Unit::Need(16);
        };
        let e = self.endian;
        let (sec, frac, caplen, len) = (
            e.u32(&h[0..4]),
            e.u32(&h[4..8]),
            e.u32(&h[8..12]),
            e.u32(&h[12..16]),
        );
        let total = 16 + caplen as usize;
        if buf.len() < total {
            return Unit::Need(total);
        }
        let frac_ns = match self.resolution {
            Resolution::Micro => i64::from(frac) * 1_000,
            Resolution::Nano => i64::from(frac),
        };
        Unit::Frame {
            len: total,
            frame: FrameAt {
                ts: Nanos(i64::from(sec) * 1_000_000_000 + frac_ns),
                interface: 0,
                data: 16..total,
                orig_len: len,
            },
        }
    }
}

/// Reads records from a classic pcap held in memory.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    decoder: Decoder,
    pub resolution: Resolution,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Result<Self, CaptureError> {
        let decoder = Decoder::header(bytes)?;
        Ok(Reader {
            bytes,
            at: HEADER_LEN,
            decoder,
            resolution: decoder.resolution,
        })
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Record<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        next_record(&mut self.decoder, self.bytes, &mut self.at)
    }
}

/// Writes a classic pcap. premarket writes nanosecond little-endian; the other forms exist so
/// tests can produce what other tools write.
pub struct Writer<W: Write> {
    out: W,
    endian: Endian,
    resolution: Resolution,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W, endian: Endian, resolution: Resolution) -> io::Result<Self> {
        let mut w = Writer {
            out,
            endian,
            resolution,
        };
        let magic = match resolution {
            Resolution::Micro => MAGIC_MICRO,
            Resolution::Nano => MAGIC_NANO,
        };
        let mut h = Vec::with_capacity(24);
        h.extend_from_slice(&endian.put_u32(magic));
        h.extend_from_slice(&endian.put_u16(2));
        h.extend_from_slice(&endian.put_u16(4));
        h.extend_from_slice(&endian.put_u32(0)); // thiszone
        h.extend_from_slice(&endian.put_u32(0)); // sigfigs
        h.extend_from_slice(&endian.put_u32(65535));
        h.extend_from_slice(&endian.put_u32(LINKTYPE_ETHERNET));
        w.out.write_all(&h)?;
        Ok(w)
    }

    /// The common case: nanosecond, little-endian.
    pub fn nano(out: W) -> io::Result<Self> {
        Writer::new(out, Endian::Little, Resolution::Nano)
    }

    pub fn write(&mut self, ts: Nanos, data: &[u8]) -> io::Result<()> {
        let e = self.endian;
        let ns = ts.0.max(0);
        let sec = (ns / 1_000_000_000) as u32;
        let frac = match self.resolution {
            Resolution::Micro => ((ns % 1_000_000_000) / 1_000) as u32,
            Resolution::Nano => (ns % 1_000_000_000) as u32,
        };
        let len = data.len() as u32;
        let mut h = [0u8; 16];
        h[0..4].copy_from_slice(&e.put_u32(sec));
        h[4..8].copy_from_slice(&e.put_u32(frac));
        h[8..12].copy_from_slice(&e.put_u32(len));
        h[12..16].copy_from_slice(&e.put_u32(len));
        self.out.write_all(&h)?;
        self.out.write_all(data)
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(endian: Endian, resolution: Resolution) {
        let mut w = Writer::new(Vec::new(), endian, resolution).unwrap();
        w.write(Nanos(1_700_000_000_123_456_789), b"first frame...")
            .unwrap();
        w.write(Nanos(1_700_000_001_000_000_001), b"second")
            .unwrap();
        let bytes = w.into_inner();
        assert!(sniff(&bytes));
        let r = Reader::new(&bytes).unwrap();
        assert_eq!(r.resolution, resolution);
        let recs: Vec<_> = r.map(Result::unwrap).collect();
        assert_eq!(recs.len(), 2);
        assert_eq!(recs[0].data, b"first frame...");
        let want = match resolution {
            Resolution::Nano => [1_700_000_000_123_456_789, 1_700_000_001_000_000_001],
            Resolution::Micro => [1_700_000_000_123_456_000, 1_700_000_001_000_000_000],
        };
        assert_eq!([recs[0].ts.0, recs[1].ts.0], want);
    }

    #[test]
    fn both_magics_both_byte_orders_round_trip() {
        for endian in [Endian::Little, Endian::Big] {
            for resolution in [Resolution::Micro, Resolution::Nano] {
                round_trip(endian, resolution);
            }
        }
    }

    #[test]
    fn big_endian_nano_magic_is_what_it_says() {
        let bytes = Writer::new(Vec::new(), Endian::Big, Resolution::Nano)
            .unwrap()
            .into_inner();
        assert_eq!(&bytes[..4], &[0xa1, 0xb2, 0x3c, 0x4d]);
        let bytes = Writer::new(Vec::new(), Endian::Little, Resolution::Micro)
            .unwrap()
            .into_inner();
        assert_eq!(&bytes[..4], &[0xd4, 0xc3, 0xb2, 0xa1]);
    }

    #[test]
    fn truncated_records_are_errors_not_panics() {
        let mut w = Writer::nano(Vec::new()).unwrap();
        w.write(Nanos(5), &[1; 60]).unwrap();
        let bytes = w.into_inner();
        for cut in 25..bytes.len() {
            let got: Vec<_> = Reader::new(&bytes[..cut]).unwrap().collect();
            assert!(
                matches!(
                    got.last(),
                    Some(Err(CaptureError::Truncated { offset: 24 }))
                ),
                "cut at {cut}"
            );
        }
        assert!(matches!(
            Reader::new(&bytes[..10]),
            Err(CaptureError::Truncated { .. })
        ));
        assert!(matches!(
            Reader::new(&[0u8; 24]),
            Err(CaptureError::NotACapture)
        ));
    }

    #[test]
    fn non_ethernet_is_refused() {
        let mut bytes = Writer::nano(Vec::new()).unwrap().into_inner();
        bytes[20] = 113; // Linux cooked capture
        assert!(matches!(
            Reader::new(&bytes),
            Err(CaptureError::LinkType(113))
        ));
    }
}
