//! Control messages of `recvmsg` on an AF_PACKET socket, decoded from the raw control buffer
//! (pure code over bytes, so it is tested without a socket).
//!
//! - `(SOL_SOCKET, SCM_TIMESTAMPING)`: `struct scm_timestamping { struct timespec ts[3]; }`;
//!   `ts[0]` software, `ts[1]` legacy (zero), `ts[2]` raw hardware. A zero `ts[2]` means no
//!   hardware stamp. Never subtract a hardware stamp from a software one.
//! - `(SOL_PACKET, PACKET_AUXDATA)`: `struct tpacket_auxdata { u32 tp_status, tp_len,
//!   tp_snaplen; u16 tp_mac, tp_net, tp_vlan_tci, tp_vlan_tpid; }`. The kernel strips the outer
//!   802.1Q tag before packet taps see the frame, so the VLAN is only here
//!   (`TP_STATUS_VLAN_VALID`).

use super::units::Nanos;

pub const SOL_SOCKET: i32 = 1;
pub const SCM_TIMESTAMPING: i32 = 37;
pub const SOL_PACKET: i32 = 263;
pub const PACKET_AUXDATA: i32 = 8;
pub const TP_STATUS_VLAN_VALID: u32 = 1 << 4;
pub const TP_STATUS_VLAN_TPID_VALID: u32 = 1 << 6;

const WORD: usize = std::mem::size_of::<usize>();
/// `CMSG_ALIGN(sizeof(struct cmsghdr))`: length word plus two ints, rounded to a word.
const HEADER: usize = (WORD + 8).div_ceil(WORD) * WORD;
const TIMESPEC: usize = 2 * std::mem::size_of::<libc::time_t>();

/// Which clock stamped a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stamp {
    Hardware(Nanos),
    Software(Nanos),
}

/// What the control messages of one received frame said.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Control {
    pub software: Option<Nanos>,
    pub hardware: Option<Nanos>,
    /// `(tci, tpid)` when the kernel removed a tag.
    pub vlan: Option<(u16, u16)>,
}

impl Control {
    /// The stamp to use: hardware when the NIC gave one, else software.
    pub fn stamp(&self) -> Option<Stamp> {
        self.hardware
            .map(Stamp::Hardware)
            .or(self.software.map(Stamp::Software))
    }
}

fn word(b: &[u8]) -> usize {
    let mut a = [0u8; WORD];
    a.copy_from_slice(&b[..WORD]);
    usize::from_ne_bytes(a)
}

fn i32_at(b: &[u8], at: usize) -> Option<i32> {
    Some(i32::from_ne_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

fn timespec(b: &[u8]) -> Option<Nanos> {
    let half = TIMESPEC / 2;
    let read = |at: usize| -> Option<i64> {
        let s = b.get(at..at + half)?;
        Some(match half {
            8 => i64::from_ne_bytes(s.try_into().ok()?),
            _ => i64::from(i32::from_ne_bytes(s.try_into().ok()?)),
        })
    };
    let (sec, nsec) = (read(0)?, read(half)?);
    (sec != 0 || nsec != 0).then(|| Nanos(sec.saturating_mul(1_000_000_000).saturating_add(nsec)))
}

/// Decodes a control buffer (`msg_control` cut to `msg_controllen`). Unknown or malformed
/// messages are skipped; a length that runs past the buffer ends the walk.
pub fn decode(buf: &[u8]) -> Control {
    let mut out = Control::default();
    let mut at = 0;
    while at + HEADER <= buf.len() {
        let len = word(&buf[at..]);
        if len < HEADER || at + len > buf.len() {
            break;
        }
        let (Some(level), Some(kind)) = (i32_at(buf, at + WORD), i32_at(buf, at + WORD + 4)) else {
            break;
        };
        let data = &buf[at + HEADER..at + len];
        match (level, kind) {
            (SOL_SOCKET, SCM_TIMESTAMPING) if data.len() >= 3 * TIMESPEC => {
                out.software = timespec(&data[0..TIMESPEC]);
                out.hardware = timespec(&data[2 * TIMESPEC..3 * TIMESPEC]);
            }
            (SOL_PACKET, PACKET_AUXDATA) if data.len() >= 20 => {
                let status = u32::from_ne_bytes([data[0], data[1], data[2], data[3]]);
                let tci = u16::from_ne_bytes([data[16], data[17]]);
                let tpid = u16::from_ne_bytes([data[18], data[19]]);
                if status & TP_STATUS_VLAN_VALID != 0 {
                    let tpid = if status & TP_STATUS_VLAN_TPID_VALID != 0 && tpid != 0 {
                        tpid
                    } else {
                        0x8100
                    };
                    out.vlan = Some((tci, tpid));
                }
            }
            _ => {}
        }
        at += len.div_ceil(WORD) * WORD;
    }
    out
}

/// Builds a control buffer the way the kernel lays it out (for tests of [`decode`]).
pub fn encode(messages: &[(i32, i32, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    for (level, kind, data) in messages {
        let len = HEADER + data.len();
        out.extend_from_slice(&len.to_ne_bytes());
        out.extend_from_slice(&level.to_ne_bytes());
        out.extend_from_slice(&kind.to_ne_bytes());
        out.resize(out.len().div_ceil(WORD) * WORD, 0);
        out.extend_from_slice(data);
        out.resize(out.len().div_ceil(WORD) * WORD, 0);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(sec: i64, nsec: i64) -> Vec<u8> {
        let mut v = Vec::new();
        v.extend_from_slice(&(sec as libc::time_t).to_ne_bytes());
        v.extend_from_slice(&(nsec as libc::c_long).to_ne_bytes());
        v
    }

    fn auxdata(status: u32, tci: u16, tpid: u16) -> Vec<u8> {
        let mut v = Vec::new();
        for x in [status, 64, 64] {
            v.extend_from_slice(&x.to_ne_bytes());
        }
        for x in [0u16, 14, tci, tpid] {
            v.extend_from_slice(&x.to_ne_bytes());
        }
        v
    }

    #[test]
    fn software_stamp_and_vlan_from_auxdata() {
        let stamps = [ts(1_700_000_000, 123_456_789), ts(0, 0), ts(0, 0)].concat();
        let buf = encode(&[
            (SOL_SOCKET, SCM_TIMESTAMPING, stamps),
            (
                SOL_PACKET,
                PACKET_AUXDATA,
                auxdata(
                    TP_STATUS_VLAN_VALID | TP_STATUS_VLAN_TPID_VALID,
                    0x2014,
                    0x8100,
                ),
            ),
        ]);
        assert_eq!(HEADER, 16);
        let c = decode(&buf);
        assert_eq!(c.software, Some(Nanos(1_700_000_000_123_456_789)));
        assert_eq!(c.hardware, None);
        assert_eq!(c.vlan, Some((0x2014, 0x8100)));
        assert_eq!(
            c.stamp(),
            Some(Stamp::Software(Nanos(1_700_000_000_123_456_789)))
        );
    }

    #[test]
    fn hardware_stamp_wins_when_present() {
        let stamps = [ts(5, 1), ts(0, 0), ts(7, 42)].concat();
        let c = decode(&encode(&[(SOL_SOCKET, SCM_TIMESTAMPING, stamps)]));
        assert_eq!(c.stamp(), Some(Stamp::Hardware(Nanos(7_000_000_042))));
    }

    #[test]
    fn auxdata_without_vlan_valid_has_no_vlan() {
        let c = decode(&encode(&[(
            SOL_PACKET,
            PACKET_AUXDATA,
            auxdata(0, 0x0014, 0x8100),
        )]));
        assert_eq!(c.vlan, None);
        let c = decode(&encode(&[(
            SOL_PACKET,
            PACKET_AUXDATA,
            auxdata(TP_STATUS_VLAN_VALID, 20, 0),
        )]));
        assert_eq!(c.vlan, Some((20, 0x8100)));
    }

    #[test]
    fn garbage_never_panics() {
        let good = encode(&[(
            SOL_SOCKET,
            SCM_TIMESTAMPING,
            [ts(1, 1), ts(0, 0), ts(0, 0)].concat(),
        )]);
        for cut in 0..good.len() {
            let _ = decode(&good[..cut]);
        }
        let mut lying = good.clone();
        lying[0] = 0xff; // length past the buffer
        assert_eq!(decode(&lying), Control::default());
        assert_eq!(decode(&[0u8; 64]), Control::default());
    }
}
