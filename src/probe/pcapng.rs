//! pcapng, read and written: Section Header Blocks in either byte order, several Interface
//! Description Blocks each with its own `if_tsresol` (10^-v or 2^-v seconds; 10^-6 when
//! absent), Enhanced Packet Blocks (and the obsolete Packet Block). Simple Packet Blocks carry
//! no time stamp and are skipped; so are blocks the probe has no use for.

use std::io::{self, Write};

use super::record::{
    CaptureError, Decode, Endian, FrameAt, LINKTYPE_ETHERNET, Record, Unit, next_record,
};
use super::units::Nanos;

const SHB: u32 = 0x0a0d_0d0a;
const IDB: u32 = 1;
const PB: u32 = 2;
const EPB: u32 = 6;
const BYTE_ORDER: u32 = 0x1a2b_3c4d;
const OPT_END: u16 = 0;
const OPT_TSRESOL: u16 = 9;

/// Whether `bytes` starts with a Section Header Block.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.get(..4) == Some(&SHB.to_le_bytes()[..])
}

/// Time stamp units of one interface.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Interface {
    linktype: u16,
    /// Units per second.
    per_second: u64,
}

impl Interface {
    fn to_nanos(self, units: u64) -> Nanos {
        let ns = match self.per_second {
            1_000_000_000 => u128::from(units),
            1_000_000 => u128::from(units) * 1_000,
            per => u128::from(units) * 1_000_000_000 / u128::from(per),
        };
        Nanos(i64::try_from(ns).unwrap_or(i64::MAX))
    }

    fn tick(self) -> Nanos {
        Nanos(
            i64::try_from(1_000_000_000u64.div_ceil(self.per_second))
                .unwrap_or(i64::MAX)
                .max(1),
        )
    }
}

/// The `if_tsresol` byte as units per second; `None` when it does not fit in 64 bits.
fn per_second(tsresol: u8) -> Option<u64> {
    let v = u32::from(tsresol & 0x7f);
    if tsresol & 0x80 == 0 {
        10u64.checked_pow(v)
    } else {
        1u64.checked_shl(v).filter(|_| v < 64)
    }
}

/// An `if_tsresol` value as the unit it names: `2^-63 s`, `10^-9 s`, `1 s`.
fn unit(tsresol: u8) -> String {
    let v = tsresol & 0x7f;
    match (tsresol & 0x80 != 0, v) {
        (_, 0) => "1 s".to_string(),
        (true, v) => format!("2^-{v} s"),
        (false, v) => format!("10^-{v} s"),
    }
}

/// What the current section said: byte order and the interfaces described so far.
#[derive(Clone, Debug)]
pub struct Decoder {
    endian: Endian,
    interfaces: Vec<Interface>,
    coarsest: Nanos,
    /// The `if_tsresol` values met so far (6: the option left out), each once: the clock a
    /// verdict names.
    resolutions: Vec<u8>,
}

impl Decode for Decoder {
    fn next(&mut self, buf: &[u8], offset: usize) -> Result<Unit, CaptureError> {
        Decoder::next(self, buf, offset)
    }
}

impl Default for Decoder {
    fn default() -> Self {
        Decoder {
            endian: Endian::Little,
            interfaces: Vec::new(),
            coarsest: Nanos(1),
            resolutions: Vec::new(),
        }
    }
}

fn bad(offset: usize, reason: impl Into<String>) -> CaptureError {
    CaptureError::BadBlock {
        offset,
        reason: reason.into(),
    }
}

impl Decoder {
    /// The coarsest time stamp unit among the interfaces read so far.
    pub fn coarsest_tick(&self) -> Nanos {
        self.coarsest
    }

    /// The format and its clock as a person reads it: `pcapng (units of 2^-63 s)`.
    pub fn describe(&self) -> String {
        if self.resolutions.is_empty() {
            return "pcapng".to_string();
        }
        let units: Vec<String> = self.resolutions.iter().map(|v| unit(*v)).collect();
        format!("pcapng (units of {})", units.join(", "))
    }

    /// The block at the start of `buf` (`offset`: where `buf` starts in the file). Section
    /// headers and interface descriptions update the decoder and are skipped.
    pub fn next(&mut self, buf: &[u8], offset: usize) -> Result<Unit, CaptureError> {
        let Some(h) = buf.get(..8) else {
            return Ok(Unit::Need(8));
        };
        if u32::from_le_bytes([h[0], h[1], h[2], h[3]]) == SHB {
            // The section's byte order decides how its length reads.
            let Some(b) = buf.get(8..12) else {
                return Ok(Unit::Need(12));
            };
            self.endian = if u32::from_le_bytes([b[0], b[1], b[2], b[3]]) == BYTE_ORDER {
                Endian::Little
            } else if u32::from_be_bytes([b[0], b[1], b[2], b[3]]) == BYTE_ORDER {
                Endian::Big
            } else {
                return Err(bad(offset, "section header has no byte-order magic"));
            };
            self.interfaces.clear();
        }
        let e = self.endian;
        let (kind, total) = (e.u32(&h[0..4]), e.u32(&h[4..8]) as usize);
        if total < 12 || total % 4 != 0 {
            return Err(bad(
                offset,
                format!("block length {total} is not a multiple of 4 of at least 12"),
            ));
        }
        let Some(block) = buf.get(..total) else {
            return Ok(Unit::Need(total));
        };
        let body = &block[8..total - 4];
        match kind {
            IDB => {
                self.interface(offset, body)?;
                Ok(Unit::Skip(total))
            }
            // Both carry ts high, ts low, captured and original length at 4..20.
            EPB if body.len() >= 20 => {
                let frame = self.packet(offset, e.u32(&body[0..4]), &body[4..20], body.len())?;
                Ok(Unit::Frame { len: total, frame })
            }
            PB if body.len() >= 20 => {
                let id = u32::from(e.u16(&body[0..2]));
                let frame = self.packet(offset, id, &body[4..20], body.len())?;
                Ok(Unit::Frame { len: total, frame })
            }
            EPB | PB => Err(bad(offset, "packet block too short")),
            _ => Ok(Unit::Skip(total)),
        }
    }

    fn interface(&mut self, offset: usize, body: &[u8]) -> Result<(), CaptureError> {
        let e = self.endian;
        if body.len() < 8 {
            return Err(bad(offset, "interface description too short"));
        }
        let linktype = e.u16(&body[0..2]);
        let mut per = 1_000_000u64;
        let mut tsresol = 6;
        let mut opts = &body[8..];
        while opts.len() >= 4 {
            let (code, len) = (e.u16(&opts[0..2]), usize::from(e.u16(&opts[2..4])));
            if code == OPT_END {
                break;
            }
            let Some(value) = opts.get(4..4 + len) else {
                return Err(bad(offset, "option runs past the block"));
            };
            if code == OPT_TSRESOL {
                let Some(&v) = value.first() else {
                    return Err(bad(offset, "empty if_tsresol"));
                };
                per = per_second(v)
                    .filter(|p| *p > 0)
                    .ok_or_else(|| bad(offset, format!("if_tsresol {v:#x} out of range")))?;
                tsresol = v;
            }
            let padded = (4 + len).div_ceil(4) * 4;
            opts = opts.get(padded..).unwrap_or(&[]);
        }
        let iface = Interface {
            linktype,
            per_second: per,
        };
        self.coarsest = self.coarsest.max(iface.tick());
        self.interfaces.push(iface);
        if !self.resolutions.contains(&tsresol) {
            self.resolutions.push(tsresol);
        }
        Ok(())
    }

    /// A packet whose fields (ts high, ts low, captured length, original length) are `fields`
    /// and whose data starts at byte 28 of the block (8 of header, 20 of fixed body).
    fn packet(
        &self,
        offset: usize,
        id: u32,
        fields: &[u8],
        body_len: usize,
    ) -> Result<FrameAt, CaptureError> {
        let iface = *self.interfaces.get(id as usize).ok_or_else(|| {
            bad(
                offset,
                format!("packet names interface {id}, which was not described"),
            )
        })?;
        if u32::from(iface.linktype) != LINKTYPE_ETHERNET {
            return Err(CaptureError::LinkType(u32::from(iface.linktype)));
        }
        let e = self.endian;
        let (hi, lo, caplen, len) = (
            e.u32(&fields[0..4]),
            e.u32(&fields[4..8]),
            e.u32(&fields[8..12]),
            e.u32(&fields[12..16]),
        );
        if caplen as usize > body_len - 20 {
            return Err(bad(offset, "captured length past the block"));
        }
        let units = (u64::from(hi) << 32) | u64::from(lo);
        Ok(FrameAt {
            ts: iface.to_nanos(units),
            interface: id,
            data: 28..28 + caplen as usize,
            orig_len: len,
        })
    }
}

/// Reads records from a pcapng held in memory.
pub struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    decoder: Decoder,
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Result<Self, CaptureError> {
        if !sniff(bytes) {
            return Err(CaptureError::NotACapture);
        }
        let mut decoder = Decoder::default();
        if let Unit::Need(_) = decoder.next(bytes, 0)? {
            return Err(CaptureError::Truncated { offset: 0 });
        }
        Ok(Reader {
            bytes,
            at: 0,
            decoder,
        })
    }

    /// The coarsest time stamp unit among the interfaces read so far.
    pub fn coarsest_tick(&self) -> Nanos {
        self.decoder.coarsest_tick()
    }
}

impl<'a> Iterator for Reader<'a> {
    type Item = Result<Record<'a>, CaptureError>;

    fn next(&mut self) -> Option<Self::Item> {
        next_record(&mut self.decoder, self.bytes, &mut self.at)
    }
}

/// Writes pcapng with any number of Ethernet interfaces, each with its own resolution.
pub struct Writer<W: Write> {
    out: W,
    endian: Endian,
    interfaces: Vec<Interface>,
}

impl<W: Write> Writer<W> {
    pub fn new(out: W, endian: Endian) -> io::Result<Self> {
        let mut w = Writer {
            out,
            endian,
            interfaces: Vec::new(),
        };
        let mut body = Vec::new();
        body.extend_from_slice(&endian.put_u32(BYTE_ORDER));
        body.extend_from_slice(&endian.put_u16(1));
        body.extend_from_slice(&endian.put_u16(0));
        body.extend_from_slice(&[0xff; 8]); // section length unknown
        w.block(SHB, &body)?;
        Ok(w)
    }

    /// Adds an interface with `if_tsresol` = `tsresol` (`None`: the option is left out, which
    /// means microseconds). Returns its id.
    pub fn interface(&mut self, tsresol: Option<u8>) -> io::Result<u32> {
        let e = self.endian;
        let mut body = Vec::new();
        body.extend_from_slice(&e.put_u16(LINKTYPE_ETHERNET as u16));
        body.extend_from_slice(&e.put_u16(0));
        body.extend_from_slice(&e.put_u32(65535));
        let mut per = 1_000_000;
        if let Some(v) = tsresol {
            per = per_second(v).ok_or_else(|| io::Error::other("if_tsresol out of range"))?;
            body.extend_from_slice(&e.put_u16(OPT_TSRESOL));
            body.extend_from_slice(&e.put_u16(1));
            body.extend_from_slice(&[v, 0, 0, 0]);
            body.extend_from_slice(&e.put_u16(OPT_END));
            body.extend_from_slice(&e.put_u16(0));
        }
        self.block(IDB, &body)?;
        self.interfaces.push(Interface {
            linktype: LINKTYPE_ETHERNET as u16,
            per_second: per,
        });
        Ok(self.interfaces.len() as u32 - 1)
    }

    /// Writes a frame stamped `ts` on interface `id` (rounded down to the interface's unit).
    pub fn write(&mut self, id: u32, ts: Nanos, data: &[u8]) -> io::Result<()> {
        let e = self.endian;
        let iface = *self
            .interfaces
            .get(id as usize)
            .ok_or_else(|| io::Error::other("unknown interface"))?;
        let units =
            (u128::from(ts.0.max(0) as u64) * u128::from(iface.per_second) / 1_000_000_000) as u64;
        let mut body = Vec::with_capacity(20 + data.len() + 3);
        body.extend_from_slice(&e.put_u32(id));
        body.extend_from_slice(&e.put_u32((units >> 32) as u32));
        body.extend_from_slice(&e.put_u32(units as u32));
        body.extend_from_slice(&e.put_u32(data.len() as u32));
        body.extend_from_slice(&e.put_u32(data.len() as u32));
        body.extend_from_slice(data);
        while body.len() % 4 != 0 {
            body.push(0);
        }
        self.block(EPB, &body)
    }

    fn block(&mut self, kind: u32, body: &[u8]) -> io::Result<()> {
        let e = self.endian;
        let total = (body.len() + 12) as u32;
        let kind = if kind == SHB {
            SHB.to_le_bytes()
        } else {
            e.put_u32(kind)
        };
        self.out.write_all(&kind)?;
        self.out.write_all(&e.put_u32(total))?;
        self.out.write_all(body)?;
        self.out.write_all(&e.put_u32(total))
    }

    pub fn into_inner(self) -> W {
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsresol_decodes_powers_of_ten_and_two() {
        assert_eq!(per_second(6), Some(1_000_000));
        assert_eq!(per_second(9), Some(1_000_000_000));
        assert_eq!(per_second(0x80 | 30), Some(1 << 30));
        assert_eq!(per_second(0x80 | 64), None);
        assert_eq!(per_second(20), None);
    }

    #[test]
    fn several_interfaces_with_their_own_units_round_trip() {
        for endian in [Endian::Little, Endian::Big] {
            let mut w = Writer::new(Vec::new(), endian).unwrap();
            let micro = w.interface(None).unwrap();
            let nano = w.interface(Some(9)).unwrap();
            let binary = w.interface(Some(0x80 | 30)).unwrap();
            let six = w.interface(Some(6)).unwrap();
            let t = Nanos(1_700_000_000_123_456_789);
            for id in [micro, nano, binary, six] {
                w.write(id, t, &[id as u8; 61]).unwrap();
            }
            let bytes = w.into_inner();
            let mut r = Reader::new(&bytes).unwrap();
            let recs: Vec<_> = r.by_ref().map(Result::unwrap).collect();
            assert_eq!(recs.len(), 4);
            assert_eq!(recs[0].ts, Nanos(1_700_000_000_123_456_000));
            assert_eq!(recs[1].ts, t);
            // 2^-30 s is 0.93 ns: the round trip loses at most one unit.
            assert!((recs[2].ts.0 - t.0).abs() <= 1, "{:?}", recs[2].ts);
            assert_eq!(recs[3].ts, Nanos(1_700_000_000_123_456_000));
            assert_eq!(recs[2].data, &[2u8; 61][..]);
            assert_eq!(recs[3].interface, 3);
            assert_eq!(r.coarsest_tick(), Nanos(1_000));
        }
    }

    #[test]
    fn packet_on_an_undescribed_interface_is_an_error() {
        let mut w = Writer::new(Vec::new(), Endian::Little).unwrap();
        w.interface(Some(9)).unwrap();
        w.interfaces.push(Interface {
            linktype: 1,
            per_second: 1_000_000_000,
        });
        w.write(1, Nanos(1), &[0; 60]).unwrap();
        let bytes = w.into_inner();
        let got: Vec<_> = Reader::new(&bytes).unwrap().collect();
        assert!(matches!(
            got.as_slice(),
            [Err(CaptureError::BadBlock { .. })]
        ));
    }

    #[test]
    fn truncation_anywhere_is_an_error_not_a_panic() {
        let mut w = Writer::new(Vec::new(), Endian::Big).unwrap();
        let id = w.interface(Some(9)).unwrap();
        w.write(id, Nanos(10), &[7; 60]).unwrap();
        let bytes = w.into_inner();
        // 28 and 60 end the section and interface blocks: a valid file without packets.
        for cut in (12..bytes.len()).filter(|c| ![28, 60].contains(c)) {
            if let Ok(r) = Reader::new(&bytes[..cut]) {
                let got: Vec<_> = r.collect();
                assert!(got.iter().any(Result::is_err), "cut at {cut}");
            }
        }
    }
}
