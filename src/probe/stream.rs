//! Captures read in chunks, several at once in time-stamp order: the analyser's input.
//!
//! A million requests make a 160 MB capture; reading it whole (or mapping it, whose pages count
//! as resident too) made the analyser's peak memory the file's size. Here each file is read
//! through a buffer of about a megabyte, one record or block at a time, by the same decoders
//! that read a capture held in memory ([`super::record`]). Several files are merged by time
//! stamp, so the before and after copies of a request meet within moments of each other even
//! when each side was captured to its own file, and pairing can settle requests as it goes.

use std::io::{self, Read};

use super::format::Decoder;
use super::record::{CaptureError, FrameAt, Record, Unit};
use super::units::Nanos;

/// How much is read at a time.
const CHUNK: usize = 1 << 20;

/// The largest record or block accepted: far above any frame (jumbo frames are 9 kB, pcap's
/// snap length at most 256 kB), and small enough that a lying length cannot exhaust memory.
pub const MAX_UNIT: usize = 16 << 20;

#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    #[error("{0}")]
    Io(#[from] io::Error),
    #[error("{0}")]
    Capture(#[from] CaptureError),
}

/// One capture file read in chunks.
pub struct CaptureFile<R> {
    input: R,
    buf: Vec<u8>,
    /// The unread bytes are `buf[start..end]`.
    start: usize,
    end: usize,
    eof: bool,
    /// Where `buf[start]` is in the file (for error messages).
    offset: usize,
    decoder: Decoder,
    /// The frame found by [`Self::peek`] and the length of its unit, not yet taken.
    pending: Option<(FrameAt, usize)>,
}

impl<R: Read> CaptureFile<R> {
    /// Reads the file header; the file's format is told by its first bytes.
    pub fn open(input: R) -> Result<Self, StreamError> {
        let mut file = CaptureFile {
            input,
            buf: vec![0; CHUNK],
            start: 0,
            end: 0,
            eof: false,
            offset: 0,
            decoder: Decoder::Pcapng(Default::default()),
            pending: None,
        };
        file.fill(Decoder::SNIFF_LEN)?;
        let (decoder, header) = Decoder::sniff(&file.buf[..file.end])?;
        file.decoder = decoder;
        file.start = header;
        file.offset = header;
        // Like a capture held in memory: a pcapng must at least hold its section header.
        // (Decoding it again from `peek` only sets the byte order once more.)
        while let Decoder::Pcapng(_) = file.decoder {
            match file.decoder.next(&file.buf[..file.end], 0)? {
                Unit::Need(len) if !file.eof && len <= MAX_UNIT => file.fill(len)?,
                Unit::Need(_) => return Err(CaptureError::Truncated { offset: 0 }.into()),
                Unit::Frame { .. } | Unit::Skip(_) => break,
            }
        }
        Ok(file)
    }

    /// The coarsest time stamp unit seen so far.
    pub fn tick(&self) -> Nanos {
        self.decoder.tick()
    }

    pub fn format(&self) -> String {
        self.decoder.format()
    }

    /// Reads until `want` bytes from `start` are buffered or the input ends.
    fn fill(&mut self, want: usize) -> io::Result<()> {
        if self.start + want > self.buf.len() {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            if want > self.buf.len() {
                self.buf.resize(want, 0);
            }
        }
        while self.end - self.start < want && !self.eof {
            match self.input.read(&mut self.buf[self.end..]) {
                Ok(0) => self.eof = true,
                Ok(n) => self.end += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// After an error the rest of the file is not read.
    fn stop(&mut self) {
        self.start = self.end;
        self.eof = true;
    }

    fn advance(&mut self, len: usize) {
        self.start += len;
        self.offset += len;
    }

    /// The time stamp of the next frame, reading as much as it takes; `None` at the end.
    pub fn peek(&mut self) -> Option<Result<Nanos, StreamError>> {
        if let Some((frame, _)) = &self.pending {
            return Some(Ok(frame.ts));
        }
        loop {
            let available = &self.buf[self.start..self.end];
            let result = match self.decoder.next(available, self.offset) {
                Ok(Unit::Skip(len)) => {
                    self.advance(len);
                    continue;
                }
                Ok(Unit::Frame { len, frame }) => {
                    let ts = frame.ts;
                    self.pending = Some((frame, len));
                    return Some(Ok(ts));
                }
                Ok(Unit::Need(_)) if available.is_empty() && self.eof => return None,
                Ok(Unit::Need(_)) if self.eof => Err(CaptureError::Truncated {
                    offset: self.offset,
                }
                .into()),
                Ok(Unit::Need(len)) if len > MAX_UNIT => Err(CaptureError::TooLong {
                    offset: self.offset,
                    len,
                    max: MAX_UNIT,
                }
                .into()),
                Ok(Unit::Need(len)) => match self.fill(len) {
                    Ok(()) => continue,
                    Err(e) => Err(e.into()),
                },
                Err(e) => Err(e.into()),
            };
            self.stop();
            return Some(result);
        }
    }

    /// The frame [`Self::peek`] found (peeking first if it was not called).
    pub fn take(&mut self) -> Option<Result<Record<'_>, StreamError>> {
        if self.pending.is_none() {
            match self.peek()? {
                Ok(_) => {}
                Err(e) => return Some(Err(e)),
            }
        }
        let (frame, len) = self.pending.take()?;
        let unit = self.start;
        self.advance(len);
        let data = self
            .buf
            .get(unit + frame.data.start..unit + frame.data.end)
            .unwrap_or_default();
        Some(Ok(Record {
            ts: frame.ts,
            interface: frame.interface,
            data,
            orig_len: frame.orig_len,
        }))
    }
}

/// Several captures read together, the earliest frame first (ties: the file given first).
/// Each file is assumed to be in time order, as capture tools write them; a file that is not
/// still pairs, only with more requests waiting (see `probe::pair`).
pub struct Merge<R> {
    files: Vec<CaptureFile<R>>,
}

impl<R: Read> Merge<R> {
    pub fn new(files: Vec<CaptureFile<R>>) -> Self {
        Merge { files }
    }

    pub fn files(&self) -> &[CaptureFile<R>] {
        &self.files
    }

    /// The next frame and the index of its file, or a file's error (that file then ends).
    pub fn next_record(&mut self) -> Option<(usize, Result<Record<'_>, StreamError>)> {
        if self.files.len() == 1 {
            return self.files.get_mut(0)?.take().map(|r| (0, r));
        }
        let mut earliest: Option<(usize, Nanos)> = None;
        for (i, file) in self.files.iter_mut().enumerate() {
            match file.peek() {
                None => {}
                Some(Err(e)) => return Some((i, Err(e))),
                Some(Ok(ts)) if earliest.is_none_or(|(_, t)| ts < t) => earliest = Some((i, ts)),
                Some(Ok(_)) => {}
            }
        }
        let (i, _) = earliest?;
        let record = self.files.get_mut(i)?.take()?;
        Some((i, record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::format::Records;
    use crate::pcap;
    use crate::pcapng;
    use crate::record::Endian;

    /// A reader that hands out at most `step` bytes per call, to cut records anywhere.
    struct Trickle<'a> {
        bytes: &'a [u8],
        step: usize,
    }

    impl Read for Trickle<'_> {
        fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
            let n = self.step.min(out.len()).min(self.bytes.len());
            out[..n].copy_from_slice(&self.bytes[..n]);
            self.bytes = &self.bytes[n..];
            Ok(n)
        }
    }

    fn all(file: &mut CaptureFile<impl Read>) -> Vec<Result<(i64, Vec<u8>), String>> {
        let mut out = Vec::new();
        while let Some(r) = file.take() {
            out.push(
                r.map(|r| (r.ts.0, r.data.to_vec()))
                    .map_err(|e| e.to_string()),
            );
        }
        out
    }

    fn from_memory(bytes: &[u8]) -> Vec<Result<(i64, Vec<u8>), String>> {
        Records::open(bytes)
            .unwrap()
            .map(|r| {
                r.map(|r| (r.ts.0, r.data.to_vec()))
                    .map_err(|e| e.to_string())
            })
            .collect()
    }

    fn pcap_bytes(frames: usize) -> Vec<u8> {
        let mut w = pcap::Writer::nano(Vec::new()).unwrap();
        for i in 0..frames {
            w.write(Nanos(1_000 * i as i64), &vec![i as u8; 60 + i % 7])
                .unwrap();
        }
        w.into_inner()
    }

    fn pcapng_bytes(frames: usize) -> Vec<u8> {
        let mut w = pcapng::Writer::new(Vec::new(), Endian::Big).unwrap();
        let a = w.interface(Some(9)).unwrap();
        let b = w.interface(None).unwrap();
        for i in 0..frames {
            let id = if i % 2 == 0 { a } else { b };
            w.write(id, Nanos(1_000 * i as i64), &[i as u8; 61])
                .unwrap();
        }
        w.into_inner()
    }

    #[test]
    fn chunked_reading_gives_what_reading_in_memory_gives() {
        for bytes in [pcap_bytes(50), pcapng_bytes(50)] {
            let want = from_memory(&bytes);
            assert_eq!(want.len(), 50);
            for step in [1, 3, 17, 100, 1 << 20] {
                let mut file = CaptureFile::open(Trickle {
                    bytes: &bytes,
                    step,
                })
                .unwrap();
                assert_eq!(all(&mut file), want, "step {step}");
            }
        }
    }

    #[test]
    fn a_file_cut_anywhere_ends_with_the_same_error_as_in_memory() {
        for bytes in [pcap_bytes(3), pcapng_bytes(3)] {
            for cut in 0..bytes.len() {
                let part = &bytes[..cut];
                let memory = Records::open(part).map(|r| {
                    r.map(|r| r.map(|r| r.ts.0).map_err(|e| e.to_string()))
                        .collect::<Vec<_>>()
                });
                let streamed = CaptureFile::open(part).map(|mut f| {
                    let mut v = Vec::new();
                    while let Some(r) = f.take() {
                        v.push(r.map(|r| r.ts.0).map_err(|e| e.to_string()));
                    }
                    v
                });
                match (memory, streamed) {
                    (Ok(m), Ok(s)) => assert_eq!(m, s, "cut at {cut}"),
                    (Err(m), Err(s)) => assert_eq!(m.to_string(), s.to_string(), "cut at {cut}"),
                    (m, s) => panic!("cut at {cut}: in memory {m:?}, streamed {s:?}"),
                }
            }
        }
    }

    #[test]
    fn a_lying_length_is_an_error_not_an_allocation() {
        let mut bytes = pcap_bytes(2);
        bytes[24 + 8..24 + 12].copy_from_slice(&u32::MAX.to_le_bytes());
        let mut file = CaptureFile::open(&bytes[..]).unwrap();
        let got = all(&mut file);
        assert_eq!(got.len(), 1);
        assert!(got[0].as_ref().unwrap_err().contains("more than any frame"));
    }

    #[test]
    fn files_merge_in_time_stamp_order() {
        let write = |times: &[i64]| {
            let mut w = pcap::Writer::nano(Vec::new()).unwrap();
            for t in times {
                w.write(Nanos(*t), &[*t as u8; 60]).unwrap();
            }
            w.into_inner()
        };
        let (a, b) = (write(&[10, 30, 50]), write(&[20, 30, 40, 60]));
        let files = vec![
            CaptureFile::open(&a[..]).unwrap(),
            CaptureFile::open(&b[..]).unwrap(),
        ];
        let mut merge = Merge::new(files);
        let mut got = Vec::new();
        while let Some((i, r)) = merge.next_record() {
            got.push((i, r.unwrap().ts.0));
        }
        assert_eq!(
            got,
            [
                (0, 10),
                (1, 20),
                (0, 30),
                (1, 30),
                (1, 40),
                (0, 50),
                (1, 60)
            ]
        );
    }
}
