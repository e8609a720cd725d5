//! The probe's frames: build the 64-byte UDP request the sender emits, and parse any captured
//! frame far enough to pair its two copies.
//!
//! Captured frames carry their 802.1Q tag inline (exanic-capture, tcpdump and premarket's own
//! writer all keep or re-insert it); QinQ (0x88a8 or a second 0x8100) is tolerated and both ids
//! are read. The bytes after the tags are what the two copies have in common, so they are the
//! pairing key for any sender; premarket's own sender also writes magic, run and sequence
//! number into the payload, which makes the key exact.

use std::net::Ipv4Addr;

use serde::Serialize;

use super::units::{Port, Vlan};

/// "PMKT": marks a payload written by premarket's sender.
pub const MAGIC: u32 = 0x504d_4b54;
/// Length of the payload premarket writes (magic, run, round, flags, seq, pad).
pub const PAYLOAD_LEN: usize = 18;
/// An untagged request: 14 Ethernet + 20 IPv4 + 8 UDP + 18 payload = 60 bytes, 64 on the wire.
pub const FRAME_LEN: usize = 60;

const ETH_IPV4: u16 = 0x0800;
const TPID_8021Q: u16 = 0x8100;
const TPID_8021AD: u16 = 0x88a8;
const TPID_QINQ_OLD: u16 = 0x9100;
/// The IPv4 protocol number of UDP.
pub const IP_UDP: u8 = 17;

/// What premarket's sender writes in each request.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Payload {
    pub run: u16,
    pub round: u8,
    pub flags: u8,
    pub seq: u64,
}

impl Payload {
    pub fn encode(&self) -> [u8; PAYLOAD_LEN] {
        let mut b = [0u8; PAYLOAD_LEN];
        b[0..4].copy_from_slice(&MAGIC.to_be_bytes());
        b[4..6].copy_from_slice(&self.run.to_be_bytes());
        b[6] = self.round;
        b[7] = self.flags;
        b[8..16].copy_from_slice(&self.seq.to_be_bytes());
        b
    }

    /// The payload, if `bytes` starts with premarket's magic.
    pub fn decode(bytes: &[u8]) -> Option<Payload> {
        let b = bytes.get(..PAYLOAD_LEN)?;
        if u32::from_be_bytes([b[0], b[1], b[2], b[3]]) != MAGIC {
            return None;
        }
        let mut seq = [0u8; 8];
        seq.copy_from_slice(&b[8..16]);
        Some(Payload {
            run: u16::from_be_bytes([b[4], b[5]]),
            round: b[6],
            flags: b[7],
            seq: u64::from_be_bytes(seq),
        })
    }
}

/// The session key a firewall uses for a UDP flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
pub struct FiveTuple {
    pub src: Ipv4Addr,
    pub dst: Ipv4Addr,
    pub sport: Port,
    pub dport: Port,
    pub proto: u8,
}

impl std::fmt::Display for FiveTuple {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let proto = if self.proto == IP_UDP {
            "udp".to_string()
        } else {
            format!("proto {}", self.proto)
        };
        write!(
            f,
            "{proto} {}:{} -> {}:{}",
            self.src, self.sport, self.dst, self.dport
        )
    }
}

/// What the sender puts in every frame apart from the payload.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameSpec {
    /// A never-learned unicast MAC, so the switch floods the request.
    pub dst_mac: [u8; 6],
    pub src_mac: [u8; 6],
    /// Tags to insert (outer first); the live sender sends untagged, the generator tags.
    pub vlans: [Option<Vlan>; 2],
    pub src_ip: Ipv4Addr,
    pub dst_ip: Ipv4Addr,
    pub sport: Port,
    pub dport: Port,
}

impl Default for FrameSpec {
    fn default() -> Self {
        FrameSpec {
            dst_mac: [0x02, 0x50, 0x4d, 0x4b, 0x54, 0x01],
            src_mac: [0x02, 0x50, 0x4d, 0x4b, 0x54, 0x02],
            vlans: [None, None],
            src_ip: Ipv4Addr::new(198, 18, 0, 1),
            dst_ip: Ipv4Addr::new(198, 18, 0, 2),
            sport: Port(40000),
            dport: Port(31999),
        }
    }
}

/// Builds one request: Ethernet, optional tags, IPv4 and UDP with valid checksums, payload.
pub fn build(spec: &FrameSpec, payload: &Payload) -> Vec<u8> {
    let mut f = Vec::with_capacity(FRAME_LEN + 8);
    f.extend_from_slice(&spec.dst_mac);
    f.extend_from_slice(&spec.src_mac);
    for vlan in spec.vlans.iter().flatten() {
        f.extend_from_slice(&TPID_8021Q.to_be_bytes());
        f.extend_from_slice(&vlan.0.to_be_bytes());
    }
    f.extend_from_slice(&ETH_IPV4.to_be_bytes());
    let ip_start = f.len();
    let udp_len = (8 + PAYLOAD_LEN) as u16;
    let total = 20 + udp_len;
    let mut ip = [0u8; 20];
    ip[0] = 0x45;
    ip[2..4].copy_from_slice(&total.to_be_bytes());
    ip[6] = 0x40; // don't fragment
    ip[8] = 64;
    ip[9] = IP_UDP;
    ip[12..16].copy_from_slice(&spec.src_ip.octets());
    ip[16..20].copy_from_slice(&spec.dst_ip.octets());
    let sum = checksum(&[&ip]);
    ip[10..12].copy_from_slice(&sum.to_be_bytes());
    f.extend_from_slice(&ip);
    let body = payload.encode();
    let mut udp = [0u8; 8];
    udp[0..2].copy_from_slice(&spec.sport.0.to_be_bytes());
    udp[2..4].copy_from_slice(&spec.dport.0.to_be_bytes());
    udp[4..6].copy_from_slice(&udp_len.to_be_bytes());
    let mut pseudo = [0u8; 12];
    pseudo[0..4].copy_from_slice(&spec.src_ip.octets());
    pseudo[4..8].copy_from_slice(&spec.dst_ip.octets());
    pseudo[9] = IP_UDP;
    pseudo[10..12].copy_from_slice(&udp_len.to_be_bytes());
    let mut sum = checksum(&[&pseudo, &udp, &body]);
    if sum == 0 {
        sum = 0xffff;
    }
    udp[6..8].copy_from_slice(&sum.to_be_bytes());
    f.extend_from_slice(&udp);
    f.extend_from_slice(&body);
    debug_assert_eq!(f.len() - ip_start, total as usize);
    while f.len() < FRAME_LEN {
        f.push(0);
    }
    f
}

/// Inserts an 802.1Q tag after the MAC addresses (what the switch does on the trunk, and what
/// the capture does with the tag the kernel moved into auxdata).
pub fn insert_tag(frame: &[u8], tpid: u16, tci: u16) -> Vec<u8> {
    let mut out = Vec::with_capacity(frame.len() + 4);
    let cut = frame.len().min(12);
    out.extend_from_slice(&frame[..cut]);
    out.extend_from_slice(&tpid.to_be_bytes());
    out.extend_from_slice(&tci.to_be_bytes());
    out.extend_from_slice(&frame[cut..]);
    out
}

/// The Internet checksum over several slices read as one.
fn checksum(parts: &[&[u8]]) -> u16 {
    let mut sum = 0u32;
    let mut odd: Option<u8> = None;
    for part in parts {
        for &b in *part {
            match odd.take() {
                Some(hi) => sum += u32::from(u16::from_be_bytes([hi, b])),
                None => odd = Some(b),
            }
        }
    }
    if let Some(hi) = odd {
        sum += u32::from(hi) << 8;
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(sum as u16)
}

/// A captured frame, read as far as the probe needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parsed<'a> {
    /// Outer and inner VLAN ids (QinQ), as found inline.
    pub vlans: [Option<Vlan>; 2],
    /// The bytes after the last tag (from the EtherType), cut to the IP length when the frame
    /// is IPv4 so Ethernet padding or a captured FCS does not split a pair.
    pub body: &'a [u8],
    /// The 5-tuple when the frame is IPv4 UDP (or another IPv4 protocol: ports 0).
    pub flow: Option<FiveTuple>,
    /// premarket's own payload, when the magic is there.
    pub payload: Option<Payload>,
}

#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum FrameError {
    #[error("frame of {0} bytes is shorter than an Ethernet header")]
    Short(usize),
    #[error("more than 4 VLAN tags")]
    TooManyTags,
}

fn be16(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(at)?, *b.get(at + 1)?]))
}

/// Parses a captured frame. Never panics on short or odd input: what cannot be read is `None`.
pub fn parse(data: &[u8]) -> Result<Parsed<'_>, FrameError> {
    if data.len() < 14 {
        return Err(FrameError::Short(data.len()));
    }
    let mut at = 12;
    let mut vlans = [None, None];
    let mut tags = 0;
    while let Some(TPID_8021Q | TPID_8021AD | TPID_QINQ_OLD) = be16(data, at) {
        let Some(tci) = be16(data, at + 2) else {
            return Err(FrameError::Short(data.len()));
        };
        if tags < 2 {
            vlans[tags] = Some(Vlan::from_tci(tci));
        }
        tags += 1;
        if tags > 4 {
            return Err(FrameError::TooManyTags);
        }
        at += 4;
    }
    let ethertype = be16(data, at).ok_or(FrameError::Short(data.len()))?;
    let mut body = &data[at..];
    let mut flow = None;
    let mut payload = None;
    if ethertype == ETH_IPV4 {
        let ip = &data[at + 2..];
        if ip.len() >= 20 && ip[0] >> 4 == 4 {
            let ihl = usize::from(ip[0] & 0x0f) * 4;
            let total = usize::from(u16::from_be_bytes([ip[2], ip[3]]));
            if total >= ihl && total <= ip.len() {
                body = &data[at..at + 2 + total];
            }
            let src = Ipv4Addr::new(ip[12], ip[13], ip[14], ip[15]);
            let dst = Ipv4Addr::new(ip[16], ip[17], ip[18], ip[19]);
            let proto = ip[9];
            let (sport, dport) = match (proto, be16(ip, ihl), be16(ip, ihl + 2)) {
                (IP_UDP, Some(s), Some(d)) => (s, d),
                _ => (0, 0),
            };
            flow = Some(FiveTuple {
                src,
                dst,
                sport: Port(sport),
                dport: Port(dport),
                proto,
            });
            if proto == IP_UDP {
                payload = ip.get(ihl + 8..).and_then(Payload::decode);
            }
        }
    }
    Ok(Parsed {
        vlans,
        body,
        flow,
        payload,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn payload(seq: u64) -> Payload {
        Payload {
            run: 7,
            round: 1,
            flags: 0,
            seq,
        }
    }

    #[test]
    fn untagged_request_is_60_bytes_and_round_trips() {
        let spec = FrameSpec::default();
        let f = build(&spec, &payload(42));
        assert_eq!(f.len(), FRAME_LEN);
        let p = parse(&f).unwrap();
        assert_eq!(p.vlans, [None, None]);
        assert_eq!(p.payload, Some(payload(42)));
        let flow = p.flow.unwrap();
        assert_eq!(
            (flow.sport, flow.dport, flow.proto),
            (Port(40000), Port(31999), 17)
        );
        assert_eq!(flow.src, spec.src_ip);
    }

    #[test]
    fn checksums_verify() {
        let f = build(&FrameSpec::default(), &payload(1));
        // A correct header sums to 0xffff, i.e. the checksum of it is 0.
        assert_eq!(checksum(&[&f[14..34]]), 0);
        let mut pseudo = [0u8; 12];
        pseudo[0..8].copy_from_slice(&f[26..34]);
        pseudo[9] = 17;
        pseudo[10..12].copy_from_slice(&f[38..40]);
        assert_eq!(checksum(&[&pseudo, &f[34..60]]), 0);
    }

    #[test]
    fn tagged_and_qinq_frames_give_their_ids_and_the_same_body() {
        let plain = build(&FrameSpec::default(), &payload(9));
        let one = insert_tag(&plain, TPID_8021Q, 0x2000 | 10);
        let two = insert_tag(&one, TPID_8021AD, 100);
        let p0 = parse(&plain).unwrap();
        let p1 = parse(&one).unwrap();
        let p2 = parse(&two).unwrap();
        assert_eq!(p1.vlans, [Some(Vlan(10)), None]);
        assert_eq!(p2.vlans, [Some(Vlan(100)), Some(Vlan(10))]);
        assert_eq!(p0.body, p1.body);
        assert_eq!(p1.body, p2.body);
        assert_eq!(p2.payload, Some(payload(9)));
    }

    #[test]
    fn padding_and_fcs_do_not_change_the_body() {
        let mut f = build(&FrameSpec::default(), &payload(3));
        let body = parse(&f).unwrap().body.to_vec();
        f.extend_from_slice(&[0xde, 0xad, 0xbe, 0xef]);
        assert_eq!(parse(&f).unwrap().body, &body[..]);
    }

    #[test]
    fn hostile_input_never_panics() {
        assert_eq!(parse(&[0; 5]), Err(FrameError::Short(5)));
        let mut f = vec![0u8; 12];
        f.extend_from_slice(&[0x81, 0x00, 0x00]);
        assert!(parse(&f).is_err());
        for len in 0..70 {
            let full = build(&FrameSpec::default(), &payload(1));
            let _ = parse(&full[..len.min(full.len())]);
        }
        let mut lying = build(&FrameSpec::default(), &payload(1));
        lying[16] = 0xff; // IP total length beyond the frame
        lying[14] = 0x4f; // IHL 60 bytes
        let p = parse(&lying).unwrap();
        assert_eq!(p.payload, None);
    }

    #[test]
    fn foreign_payload_has_no_key() {
        assert_eq!(Payload::decode(&[0u8; 18]), None);
        assert_eq!(Payload::decode(&MAGIC.to_be_bytes()), None);
    }
}
