//! The word grammar of a session block: `session info:` starts one, `key=value` words fill the
//! fields the checks read, `dir=org`/`dir=reply` hook the 5-tuple that follows, the words after
//! `npu_state=` and `no_ofld_reason:` are lists, and `total session N` ends the list. Word
//! based, not line based, so lost line breaks, CRLF and pager remnants read the same; each
//! finished block is decided here (offload per direction, and whether the block can be trusted).

use std::collections::VecDeque;
use std::net::{IpAddr, Ipv4Addr};

use super::session::{MAX_SESSIONS, OffloadBasis, Session};
use crate::fortigate;
use crate::fortigate::kv::{hex, middle, number, pair, split, words_by_line};
use crate::fortigate::ttl::Ttl;
use premarket_parse::{ParseError, text};

/// Excerpt placeholder of a scanner error: the 0-based block it is about (the reader replaces
/// it with the block's text from its tail buffer).
pub(super) const BLOCK: &str = "session block #";

/// Where the scanner is inside a multi-word marker or a word list.
#[derive(Clone, Copy, Default, PartialEq, Eq)]
enum Mode {
    #[default]
    Plain,
    /// After `session` (expecting `info:`).
    Session,
    /// After `npu` (expecting `info:`).
    Npu,
    /// After `total` (expecting `session`).
    Total,
    /// After `total session` (expecting the number).
    TotalSession,
    /// After `reflect` (expecting `info`).
    Reflect,
    /// Words after `npu_state=...`.
    Labels,
    /// Words after `no_ofld_reason:`.
    Reasons,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Org,
    Reply,
}

/// The session being read, with what the decision needs beyond [`Session`].
#[derive(Default)]
struct Builder {
    /// 0-based position of the block in the list, for error excerpts.
    ordinal: usize,
    /// The first reason the block cannot be trusted.
    error: Option<String>,
    session: Session,
    npu_state: Option<u64>,
    label_o: bool,
    label_r: bool,
    label_none: bool,
    tuple_from_org: bool,
}

#[derive(Default)]
pub(super) struct Scanner {
    current: Option<Builder>,
    pub(super) ready: VecDeque<Result<Session, ParseError>>,
    /// `total session N`: the number, or why it cannot be one.
    pub(super) total: Option<Result<u64, TotalError>>,
    pub(super) blocks: usize,
    pub(super) seen: bool,
    mode: Mode,
    /// Inside a `reflect info` sub-block: its npu fields are not the session's.
    reflect: bool,
    hook: Option<Dir>,
}

impl Scanner {
    /// Whole lines (a line break ends label and reason lists and a pending hook tuple).
    pub(super) fn chunk(&mut self, text: &[u8]) {
        self.words(text);
        self.end_line();
    }

    fn end_line(&mut self) {
        self.mode = Mode::Plain;
        self.hook = None;
    }

    /// Words of `text`, which may end inside a line.
    pub(super) fn words(&mut self, text: &[u8]) {
        for (word, newline) in words_by_line(text) {
            if newline {
                self.end_line();
            }
            // Most words are fields no check reads; skip them before the full dispatch.
            if self.mode == Mode::Plain && self.hook.is_none() && !wanted(word) {
                continue;
            }
            self.word(word);
        }
    }

    pub(super) fn finish(&mut self) {
        if let Some(b) = self.current.take() {
            let ordinal = b.ordinal;
            self.ready.push_back(decide(b).map_err(|reason| ParseError {
                reason: format!("session block {}: {reason}", ordinal + 1),
                excerpt: format!("{BLOCK}{ordinal}"),
            }));
        }
        if let Some(Err(reason)) = self.total.take_if(|t| t.is_err()) {
            self.ready.push_back(Err(ParseError {
                reason: reason.to_string(),
                excerpt: String::new(),
            }));
        }
    }

    fn start(&mut self) {
        self.finish();
        self.current = Some(Builder {
            ordinal: self.blocks,
            ..Builder::default()
        });
        self.blocks += 1;
        self.seen = true;
        self.reflect = false;
        self.hook = None;
    }

    fn word(&mut self, w: &[u8]) {
        match self.mode {
            Mode::Plain => {}
            Mode::Session => {
                self.mode = Mode::Plain;
                if w == b"info:" || w == b"info" {
                    self.start();
                    return;
                }
            }
            Mode::Npu => {
                self.mode = Mode::Plain;
                if w.starts_with(b"info") {
                    return;
                }
            }
            Mode::Total => {
                if w == b"session" || w == b"session:" {
                    self.mode = Mode::TotalSession;
                    return;
                }
                self.mode = Mode::Plain;
            }
            Mode::TotalSession => {
                self.mode = Mode::Plain;
                let digits = w.strip_prefix(b":").unwrap_or(w);
                if !digits.is_empty() {
                    let total = number(digits)
                        .filter(|n| *n <= MAX_SESSIONS)
                        .ok_or_else(|| {
                            TotalError::NotACount(String::from_utf8_lossy(digits).into_owned())
                        });
                    let again = match (&self.total, &total) {
                        (Some(Ok(a)), Ok(b)) => a != b,
                        _ => false,
                    };
                    self.total = Some(if again { Err(TotalError::Twice) } else { total });
                    // An error is reported at the next block or at the end.
                    self.seen = true;
                    return;
                }
            }
            Mode::Reflect => {
                self.mode = Mode::Plain;
                if w.starts_with(b"info") {
                    self.reflect = true;
                    return;
                }
            }
            Mode::Labels => {
                if is_list_word(w) {
                    if let Some(b) = self.current.as_mut() {
                        match w {
                            b"ofld-O" => b.label_o = true,
                            b"ofld-R" => b.label_r = true,
                            b"no_offload" => b.label_none = true,
                            _ => {}
                        }
                        if let Some(raw) = b.session.npu_state.as_mut() {
                            raw.push(' ');
                            raw.push_str(&String::from_utf8_lossy(w));
                        }
                    }
                    return;
                }
                self.mode = Mode::Plain;
            }
            Mode::Reasons => {
                if is_list_word(w) {
                    if let Some(b) = self.current.as_mut().filter(|_| !self.reflect) {
                        b.session
                            .no_ofld_reason
                            .push(String::from_utf8_lossy(w).into_owned());
                    }
                    return;
                }
                self.mode = Mode::Plain;
            }
        }
        if self.hook.is_none() && !wanted(w) {
            return;
        }
        match w {
            b"session" => self.mode = Mode::Session,
            b"npu" => self.mode = Mode::Npu,
            b"total" => self.mode = Mode::Total,
            b"reflect" => self.mode = Mode::Reflect,
            _ if w.starts_with(b"no_ofld_reason:") => {
                self.mode = Mode::Reasons;
                let rest = &w[b"no_ofld_reason:".len()..];
                if !rest.is_empty() {
                    self.word(rest);
                }
            }
            _ if w.starts_with(fortigate::text::PAGER.as_bytes()) => {}
            _ => match split(w) {
                Some((key, value)) => self.pair(key, value),
                None => {
                    if self.hook.is_some() && arrow(w).is_some() {
                        self.tuple(w);
                    }
                }
            },
        }
    }

    fn pair(&mut self, key: &[u8], value: &[u8]) {
        // The `reflect info` sub-block describes the reflected copy, not this session.
        if self.reflect {
            return;
        }
        let Some(b) = self.current.as_mut() else {
            return;
        };
        let s = &mut b.session;
        let e = &mut b.error;
        match key {
            b"proto" => once(
                e,
                "proto",
                &mut s.proto,
                number(value).and_then(|n| u8::try_from(n).ok()),
                value,
            ),
            b"proto_state" => once(
                e,
                "proto_state",
                &mut s.proto_state,
                (!value.is_empty() && value.len() <= 4 && value.iter().all(u8::is_ascii_hexdigit))
                    .then(|| String::from_utf8_lossy(value).into_owned()),
                value,
            ),
            b"duration" => once(e, "duration", &mut s.duration, number(value), value),
            b"expire" => once(e, "expire", &mut s.expire, ttl(value), value),
            b"timeout" => once(e, "timeout", &mut s.timeout, ttl(value), value),
            b"org" => once(e, "org", &mut s.org_packets, middle(value), value),
            b"reply" => once(e, "reply", &mut s.reply_packets, middle(value), value),
            b"policy_id" => once(
                e,
                "policy_id",
                &mut s.policy_id,
                number(value).and_then(|n| u32::try_from(n).ok()),
                value,
            ),
            b"dir" => {
                self.hook = match value {
                    b"org" => Some(Dir::Org),
                    b"reply" => Some(Dir::Reply),
                    _ => None,
                }
            }
            b"npu_state" => {
                let bits = hex(value);
                if s.npu_state.is_some() || bits.is_none() {
                    once(e, "npu_state", &mut b.npu_state, bits, value);
                    return;
                }
                let mut raw = String::with_capacity(value.len() + 16);
                raw.push_str(&String::from_utf8_lossy(value));
                s.npu_state = Some(raw);
                b.npu_state = bits;
                self.mode = Mode::Labels;
            }
            b"offload" => once(
                e,
                "offload",
                &mut s.npu_offload,
                pair(value).map(|(o, r)| [o, r]),
                value,
            ),
            _ => {}
        }
    }

    /// `SRC:SPORT->DST:DPORT(NAT:PORT)` after `dir=org` (or reversed after `dir=reply`).
    fn tuple(&mut self, w: &[u8]) {
        let Some(dir) = self.hook else { return };
        let Some(b) = self.current.as_mut() else {
            return;
        };
        if b.tuple_from_org || (dir == Dir::Reply && b.session.src.is_some()) {
            self.hook = None;
            return;
        }
        let w = w.split(|c| *c == b'(').next().unwrap_or(w);
        let Some(at) = memchr::memmem::find(w, b"->") else {
            return;
        };
        let (Some((a, pa)), Some((z, pz))) = (endpoint(&w[..at]), endpoint(&w[at + 2..])) else {
            return;
        };
        let s = &mut b.session;
        if dir == Dir::Org {
            (s.src, s.sport, s.dst, s.dport) = (Some(a), Some(pa), Some(z), Some(pz));
            b.tuple_from_org = true;
        } else {
            (s.src, s.sport, s.dst, s.dport) = (Some(z), Some(pz), Some(a), Some(pa));
        }
        self.hook = None;
    }
}

/// Whether a word outside a list can matter, from its first three bytes: `session`, `npu`/
/// `npu_state`, `no_ofld_reason:`, `total`, `timeout`, `reflect`, `reply`, `proto`, `policy_id`,
/// `duration`, `dir`, `expire`, `org`, `offload`, `--More--`. Most other words stop here.
#[inline(always)]
fn wanted(w: &[u8]) -> bool {
    const fn key(p: &[u8; 3]) -> u32 {
        u32::from_le_bytes([p[0], p[1], p[2], 0])
    }
    const SES: u32 = key(b"ses");
    const NPU: u32 = key(b"npu");
    const NO: u32 = key(b"no_");
    const TOT: u32 = key(b"tot");
    const TIM: u32 = key(b"tim");
    const REF: u32 = key(b"ref");
    const REP: u32 = key(b"rep");
    const PRO: u32 = key(b"pro");
    const POL: u32 = key(b"pol");
    const DUR: u32 = key(b"dur");
    const DIR: u32 = key(b"dir");
    const EXP: u32 = key(b"exp");
    const ORG: u32 = key(b"org");
    const OFF: u32 = key(b"off");
    const MORE: u32 = key(b"--M");
    let [a, b, c, ..] = w else { return false };
    matches!(
        key(&[*a, *b, *c]),
        SES | NPU | NO | TOT | TIM | REF | REP | PRO | POL | DUR | DIR | EXP | ORG | OFF | MORE
    )
}

/// Records a field read from a block: the first reading, an identical repeat, or the block's
/// first error (an unreadable value, or a repeat that disagrees).
#[inline]
fn once<T: PartialEq>(
    error: &mut Option<String>,
    key: &str,
    slot: &mut Option<T>,
    value: Option<T>,
    printed: &[u8],
) {
    let problem = match (value, slot.as_ref()) {
        (None, _) => "is unreadable",
        (Some(v), None) => {
            *slot = Some(v);
            return;
        }
        (Some(v), Some(old)) if v == *old => return,
        (Some(_), Some(_)) => "is printed twice with different values",
    };
    if error.is_none() {
        *error = Some(format!(
            "`{key}={}` {problem}",
            text::quote(&String::from_utf8_lossy(printed))
        ));
    }
}

/// `expire=`/`timeout=`: seconds or `never`.
#[inline]
fn ttl(value: &[u8]) -> Option<Ttl> {
    if value == b"never" {
        return Some(Ttl::Never);
    }
    number(value).map(Ttl::Seconds)
}

/// A word that belongs to a label or reason list: not a marker, not `key=value`, not `key:`.
fn is_list_word(w: &[u8]) -> bool {
    !matches!(w, b"session" | b"npu" | b"total" | b"reflect")
        && !w.iter().any(|c| matches!(c, b'=' | b':' | b'(' | b')'))
        && !w.starts_with(fortigate::text::PAGER.as_bytes())
}

/// Where `->` starts in a word (words are short: a plain scan).
fn arrow(w: &[u8]) -> Option<usize> {
    w.windows(2).position(|pair| pair == b"->")
}

/// `10.0.0.1:5000` (IPv4; the IPv6 list is another command).
fn endpoint(text: &[u8]) -> Option<(IpAddr, u16)> {
    let at = text.iter().rposition(|b| *b == b':')?;
    let port = u16::try_from(number(&text[at + 1..])?).ok()?;
    Some((IpAddr::V4(ipv4(&text[..at])?), port))
}

/// Dotted-quad IPv4 from ASCII bytes, without going through `str`.
fn ipv4(text: &[u8]) -> Option<Ipv4Addr> {
    let mut octets = [0u8; 4];
    let mut parts = text.split(|b| *b == b'.');
    for octet in &mut octets {
        let part = parts.next()?;
        if part.len() > 3 {
            return None;
        }
        *octet = u8::try_from(number(part)?).ok()?;
    }
    parts.next().is_none().then(|| Ipv4Addr::from(octets))
}

/// Why the `total session N` line gives no count.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(super) enum TotalError {
    #[error(
        "`total session {}` is not a session count a FortiGate can hold",
        text::quote(.0)
    )]
    NotACount(String),
    #[error("two `total session` lines with different counts")]
    Twice,
}

/// Why a block is no session.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum BlockError {
    /// A field of the block did not read (the scanner's words).
    #[error("{0}")]
    Field(String),
    #[error("a block without `proto=` or `policy_id=`: the list was cut, or this is not a session")]
    Cut,
}

fn decide(b: Builder) -> Result<Session, BlockError> {
    if let Some(error) = b.error {
        return Err(BlockError::Field(error));
    }
    if b.session.proto.is_none() || b.session.policy_id.is_none() {
        return Err(BlockError::Cut);
    }
    let mut s = b.session;
    let labelled = b.label_o || b.label_r || b.label_none;
    let bits = b.npu_state.filter(|v| v & 0xC00 != 0);
    let info = s.npu_offload.filter(|[o, r]| *o != 0 || *r != 0);
    (s.offload_org, s.offload_reply, s.offload_basis) = if labelled {
        (b.label_o, b.label_r, OffloadBasis::Labels)
    } else if let Some(v) = bits {
        (v & 0x400 != 0, v & 0x800 != 0, OffloadBasis::NpuState)
    } else if let Some([o, r]) = info {
        (o != 0, r != 0, OffloadBasis::NpuInfo)
    } else if b.npu_state.is_some() {
        (false, false, OffloadBasis::NpuState)
    } else if s.npu_offload.is_some() {
        (false, false, OffloadBasis::NpuInfo)
    } else {
        (false, false, OffloadBasis::Nothing)
    };
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints() {
        assert_eq!(
            endpoint(b"10.1.2.3:5000"),
            Some(("10.1.2.3".parse().unwrap(), 5000))
        );
        for bad in [
            &b"10.1.2:5"[..],
            b"10.1.2.3.4:5",
            b"10.1.2.256:5",
            b"1.2.3.4:70000",
            b"1.2.3.4",
            b"a.b.c.d:1",
            b"1.2.3.0001:1",
        ] {
            assert_eq!(endpoint(bad), None, "{}", String::from_utf8_lossy(bad));
        }
    }
}
