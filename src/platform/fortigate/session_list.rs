//! `diagnose sys session list`: one block per session, from `session info:` to the next, ending
//! with `total session N`. A busy box lists hundreds of thousands of sessions, so the parser
//! streams: [`SessionReader`] reads any [`BufRead`] in bounded memory and yields one [`Session`]
//! at a time, keeping only the fields checks read. The pipeline folds the sessions into a
//! bounded [`super::SessionSummary`] as they stream; [`parse`] keeps every session, for small
//! lists only.
//!
//! The grammar is word based, not line based, so the same code reads device output, web copies
//! that lost their line breaks or indentation, CRLF, and output with `--More--` pager remnants
//! (`\r` and backspaces count as white space; the pager word is skipped).
//!
//! Offload (per direction, original `O` and reply `R`): the `ofld-O`/`ofld-R` labels after
//! `npu_state` when printed (`no_offload` means neither); otherwise bits `0x400`/`0x800` of
//! `npu_state`; otherwise a non-zero `npu info: offload=O/R` (old builds print `npu_state=00000000`
//! even for offloaded sessions). The `reflect info` sub-block of transparent-mode sessions
//! belongs to the reflected copy and is ignored.
//!
//! Hostile or damaged output is an error, never a plausible session: a field the checks read
//! that is unreadable (a sign, an overflow, `proto=999`) or printed twice with two values, a
//! block without `proto=` or `policy_id=` (cut, or not a session), a `total session` line that
//! disagrees with the blocks read or exceeds any real session table ([`MAX_SESSIONS`]).

use std::collections::VecDeque;
use std::io::BufRead;
use std::net::{IpAddr, Ipv4Addr};

use serde::{Deserialize, Serialize};

use super::kv::{hex, middle, number, pair, split, words_by_line};
use super::ttl::Ttl;
use premarket_parse::{ParseError, text};

/// The most sessions a `total session` line may claim: 2^32 - 1. FortiOS numbers policies and
/// counters in 32 bits, and no FortiGate's session table comes near four billion entries; a
/// larger count is a garbled line, not a box.
pub const MAX_SESSIONS: u64 = u32::MAX as u64;

/// One session, original direction.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Session {
    /// IP protocol number (6 TCP, 17 UDP, 1 ICMP).
    pub proto: Option<u8>,
    /// `proto_state=` as printed (two hex digits: `01` a UDP session that saw both directions,
    /// `00` one-way UDP such as a market-data feed).
    #[serde(default)]
    pub proto_state: Option<String>,
    pub src: Option<IpAddr>,
    pub sport: Option<u16>,
    pub dst: Option<IpAddr>,
    pub dport: Option<u16>,
    /// `4294967295` is local/implicit traffic.
    pub policy_id: Option<u32>,
    /// Seconds since the session was created.
    pub duration: Option<u64>,
    /// Seconds left before the session is removed for being idle, or `never` (`session-ttl
    /// never`); JSON: a number or `"never"`.
    pub expire: Option<Ttl>,
    /// Configured TTL: seconds or `never`; `0` for UDP/ICMP means the idle timer applies.
    pub timeout: Option<Ttl>,
    /// Packets counted in each direction (on NP7 only those the CPU saw, unless traffic logging
    /// keeps per-session accounting).
    pub org_packets: Option<u64>,
    pub reply_packets: Option<u64>,
    /// `npu_state` as printed, with its labels (`0x4000c00 ofld-O ofld-R`).
    pub npu_state: Option<String>,
    /// `npu info: offload=O/R` (NP type per direction, 0 when not offloaded).
    pub npu_offload: Option<[u64; 2]>,
    pub offload_org: bool,
    pub offload_reply: bool,
    /// Which printed field the offload decision rests on.
    pub offload_basis: OffloadBasis,
    /// `no_ofld_reason:` words (`disabled-by-policy`, `offload-denied`, `helper`, ...).
    pub no_ofld_reason: Vec<String>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum OffloadBasis {
    /// `ofld-O` / `ofld-R` / `no_offload` printed after `npu_state`.
    Labels,
    /// Bits 0x400 / 0x800 of `npu_state`.
    NpuState,
    /// `npu info: offload=O/R`.
    NpuInfo,
    /// No offload information printed at all (a VM, or a box without an NP).
    #[default]
    Nothing,
}

impl Session {
    /// Offloaded in every direction that carried traffic: the original always (it created the
    /// session), the reply when it counted packets.
    pub fn offloaded(&self) -> bool {
        self.offload_org && (self.offload_reply || self.reply_packets.unwrap_or(0) == 0)
    }
}

/// A whole list held in memory: the sessions and the `total session N` line. For small lists
/// only (one flow's session, a test); the pipeline reads the list as a bounded
/// [`super::SessionSummary`].
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionList {
    pub total: Option<u64>,
    pub sessions: Vec<Session>,
}

/// Parses a whole output held in memory into every session it lists.
pub fn parse(raw: &str) -> Result<SessionList, ParseError> {
    let mut reader = SessionReader::new(raw.as_bytes());
    let mut sessions = Vec::new();
    let mut first_error = None;
    for session in reader.by_ref() {
        match session {
            Ok(s) if first_error.is_none() => sessions.push(s),
            Ok(_) => {}
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    // A count that disagrees says more (the list was cut) than the damaged block it leaves.
    let total = reader.finish()?;
    match first_error {
        Some(e) => Err(e),
        None => Ok(SessionList { total, sessions }),
    }
}

/// Excerpt placeholder of a scanner error: the 0-based block it is about (the reader replaces
/// it with the block's text from its tail buffer).
const BLOCK: &str = "session block #";

/// Longest run of bytes kept while waiting for a line end; longer lines are scanned in pieces
/// cut at white space, so memory stays bounded whatever the input.
const MAX_LINE: usize = 1 << 20;

/// The start of the output kept for its error checks (`Unknown action`, `Command fail`).
const HEAD: usize = 2048;

/// The end of the output kept for error excerpts: several session blocks (~1.2 kB each).
const TAIL: usize = 32 * 1024;

/// Streams sessions out of a reader in bounded memory: a line being read, the first
/// [`HEAD`] bytes and the last [`TAIL`] bytes (for error excerpts), whatever the list's size.
pub struct SessionReader<R> {
    reader: R,
    partial: Vec<u8>,
    scanner: Scanner,
    eof: bool,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl<R: BufRead> SessionReader<R> {
    pub fn new(reader: R) -> Self {
        SessionReader {
            reader,
            partial: Vec::new(),
            scanner: Scanner::default(),
            eof: false,
            head: Vec::new(),
            tail: Vec::new(),
        }
    }

    /// `total session N` once read (usually the last line).
    pub fn total(&self) -> Option<u64> {
        self.scanner
            .total
            .as_ref()
            .and_then(|t| t.as_ref().ok().copied())
    }

    /// Whether anything looked like a session list (a block or the total line).
    pub fn seen_list(&self) -> bool {
        self.scanner.seen
    }

    /// Session blocks started so far.
    pub fn blocks(&self) -> u64 {
        self.scanner.blocks as u64
    }

    /// After the last session: the list's own verdict on itself. A device error in the first
    /// lines, output with no block and no total line, or a `total session N` that disagrees
    /// with the blocks read (the list was cut) is an error; otherwise the total line, if any.
    pub fn finish(&mut self) -> Result<Option<u64>, ParseError> {
        let head = String::from_utf8_lossy(&self.head);
        let lines: Vec<_> = text::lines(&head).take(6).map(super::text::clean).collect();
        super::text::device_error(&lines)?;
        if !self.seen_list() {
            return Err(ParseError::new(
                "no `session info:` block and no `total session` line: not a session list",
                &head,
            ));
        }
        let blocks = self.blocks();
        match self.total() {
            Some(total) if total != blocks => Err(ParseError {
                reason: format!(
                    "the list says `total session {total}` but {blocks} session(s) were read (output cut?)"
                ),
                excerpt: self.tail_excerpt(),
            }),
            total => Ok(total),
        }
    }

    /// The last lines read.
    fn tail_excerpt(&self) -> String {
        let tail = String::from_utf8_lossy(&self.tail);
        let lines: Vec<&str> = text::lines(&tail)
            .filter(|l| !l.trim().is_empty())
            .collect();
        let from = lines.len().saturating_sub(8);
        text::excerpt(&lines[from..].join("\n"), 8)
    }

    /// The text of 0-based block `ordinal`, found in the tail buffer by counting blocks back
    /// from the newest.
    fn block_excerpt(&self, ordinal: usize) -> String {
        let tail = String::from_utf8_lossy(&self.tail);
        let starts: Vec<usize> = tail.match_indices("session info").map(|(i, _)| i).collect();
        let after = self.scanner.blocks.saturating_sub(ordinal + 1);
        match starts.len().checked_sub(after + 1).map(|i| starts[i]) {
            Some(at) => text::excerpt(&tail[at..], 10),
            None => self.tail_excerpt(),
        }
    }

    /// Reads until at least one session is ready or the input ends. Whole lines of each buffer
    /// are scanned in one pass; only a line cut by the buffer's end is copied.
    fn fill(&mut self) -> std::io::Result<()> {
        while self.scanner.ready.is_empty() && !self.eof {
            let available = self.reader.fill_buf()?;
            if available.is_empty() {
                self.eof = true;
                self.scanner.chunk(&self.partial);
                self.partial.clear();
                self.scanner.finish();
                break;
            }
            let mut start = 0;
            if !self.partial.is_empty() {
                match memchr::memchr(b'\n', available) {
                    Some(at) => {
                        self.partial.extend_from_slice(&available[..=at]);
                        self.scanner.chunk(&self.partial);
                        self.partial.clear();
                        start = at + 1;
                    }
                    None => {
                        self.partial.extend_from_slice(available);
                        start = available.len();
                    }
                }
            }
            match memchr::memrchr(b'\n', &available[start..]) {
                Some(at) => {
                    self.scanner.chunk(&available[start..=start + at]);
                    self.partial.extend_from_slice(&available[start + at + 1..]);
                }
                None => self.partial.extend_from_slice(&available[start..]),
            }
            let consumed = available.len();
            // Remembered after they are scanned, so a block's text is in the tail when its
            // error is reported.
            remember(&mut self.head, &mut self.tail, available);
            self.reader.consume(consumed);
            if self.partial.len() > MAX_LINE {
                let cut = self
                    .partial
                    .iter()
                    .rposition(|b| super::kv::is_space(*b))
                    .unwrap_or(self.partial.len());
                self.scanner.words(&self.partial[..cut]);
                self.partial.drain(..cut);
                if self.partial.len() > MAX_LINE {
                    // One word longer than a megabyte is not FortiOS output; drop it.
                    self.partial.clear();
                }
            }
        }
        Ok(())
    }
}

/// Keeps the first [`HEAD`] bytes and (amortised) the last [`TAIL`] bytes of the stream.
fn remember(head: &mut Vec<u8>, tail: &mut Vec<u8>, bytes: &[u8]) {
    if head.len() < HEAD {
        let take = (HEAD - head.len()).min(bytes.len());
        head.extend_from_slice(&bytes[..take]);
    }
    if bytes.len() >= TAIL {
        tail.clear();
        tail.extend_from_slice(&bytes[bytes.len() - TAIL..]);
        return;
    }
    if tail.len() + bytes.len() > 2 * TAIL {
        let drop = tail.len() + bytes.len() - TAIL;
        tail.drain(..drop.min(tail.len()));
    }
    tail.extend_from_slice(bytes);
}

impl<R: BufRead> Iterator for SessionReader<R> {
    type Item = Result<Session, ParseError>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Err(e) = self.fill() {
            self.eof = true;
            return Some(Err(ParseError::new(
                format!("cannot read the session list: {e}"),
                "",
            )));
        }
        let item = self.scanner.ready.pop_front()?;
        Some(item.map_err(|mut error| {
            let block = error
                .excerpt
                .strip_prefix(BLOCK)
                .and_then(|n| n.parse::<usize>().ok());
            error.excerpt = match block {
                Some(ordinal) => self.block_excerpt(ordinal),
                None => self.tail_excerpt(),
            };
            error
        }))
    }
}

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
struct Scanner {
    current: Option<Builder>,
    ready: VecDeque<Result<Session, ParseError>>,
    /// `total session N`: the number, or why it cannot be one.
    total: Option<Result<u64, String>>,
    blocks: usize,
    seen: bool,
    mode: Mode,
    /// Inside a `reflect info` sub-block: its npu fields are not the session's.
    reflect: bool,
    hook: Option<Dir>,
}

impl Scanner {
    /// Whole lines (a line break ends label and reason lists and a pending hook tuple).
    fn chunk(&mut self, text: &[u8]) {
        self.words(text);
        self.end_line();
    }

    fn end_line(&mut self) {
        self.mode = Mode::Plain;
        self.hook = None;
    }

    /// Words of `text`, which may end inside a line.
    fn words(&mut self, text: &[u8]) {
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

    fn finish(&mut self) {
        if let Some(b) = self.current.take() {
            let ordinal = b.ordinal;
            self.ready.push_back(decide(b).map_err(|reason| ParseError {
                reason: format!("session block {}: {reason}", ordinal + 1),
                excerpt: format!("{BLOCK}{ordinal}"),
            }));
        }
        if let Some(Err(reason)) = self.total.take_if(|t| t.is_err()) {
            self.ready.push_back(Err(ParseError {
                reason,
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
                            format!(
                                "`total session {}` is not a session count a FortiGate can hold",
                                text::quote(&String::from_utf8_lossy(digits))
                            )
                        });
                    let again = match (&self.total, &total) {
                        (Some(Ok(a)), Ok(b)) => a != b,
                        _ => false,
                    };
                    self.total = Some(if again {
                        Err("two `total session` lines with different counts".to_string())
                    } else {
                        total
                    });
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
            _ if w.starts_with(super::text::PAGER.as_bytes()) => {}
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
        && !w.starts_with(super::text::PAGER.as_bytes())
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

fn decide(b: Builder) -> Result<Session, String> {
    if let Some(error) = b.error {
        return Err(error);
    }
    if b.session.proto.is_none() || b.session.policy_id.is_none() {
        return Err(
            "a block without `proto=` or `policy_id=`: the list was cut, or this is not a session"
                .to_string(),
        );
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

    const TWO: &str = "FGT201G # diagnose sys session list\n\nsession info: proto=17 proto_state=01 duration=40 expire=178 timeout=0 flags=00000000 socktype=0 sockport=0 av_idx=0 use=3\nstate=may_dirty npu \nstatistic(bytes/packets/allow_err): org=92/2/1 reply=0/0/0 tuples=2\norgin->sink: org pre->post, reply pre->post dev=5->6/6->5 gwy=0.0.0.0/0.0.0.0\nhook=pre dir=org act=noop 10.1.1.10:40000->10.2.2.20:5000(0.0.0.0:0)\nhook=post dir=reply act=noop 10.2.2.20:5000->10.1.1.10:40000(0.0.0.0:0)\nmisc=0 policy_id=1 pol_uuid_idx=1 auth_info=0 chk_client_info=0 vd=0\nnpu_state=0x4000400 ofld-O\nnpu info: flag=0x81/0x00, offload=9/0, ips_offload=0/0\nno_ofld_reason: \nsession info: proto=17 proto_state=01 duration=3 expire=177 timeout=0\nstatistic(bytes/packets/allow_err): org=460/10/1 reply=0/0/0 tuples=2\nhook=post dir=org act=snat 10.1.1.11:40001->10.2.2.20:5000(192.0.2.1:40001)\nmisc=0 policy_id=2 vd=0\nnpu_state=0x4000001 no_offload\nno_ofld_reason:  disabled-by-policy\ntotal session 2\n\nFGT201G # ";

    #[test]
    fn reads_tuples_counters_and_offload() {
        let list = parse(TWO).unwrap();
        assert_eq!(list.total, Some(2));
        let [a, b] = list.sessions.as_slice() else {
            panic!("{list:?}")
        };
        assert_eq!(
            (a.proto, a.sport, a.dport, a.policy_id, a.expire),
            (
                Some(17),
                Some(40000),
                Some(5000),
                Some(1),
                Some(Ttl::Seconds(178))
            )
        );
        assert_eq!(a.src, Some("10.1.1.10".parse().unwrap()));
        assert_eq!((a.org_packets, a.reply_packets), (Some(2), Some(0)));
        assert!(a.offload_org && !a.offload_reply && a.offloaded());
        assert_eq!(a.npu_state.as_deref(), Some("0x4000400 ofld-O"));
        assert!(a.no_ofld_reason.is_empty());
        assert_eq!(b.src, Some("10.1.1.11".parse().unwrap()));
        assert!(!b.offload_org && !b.offloaded());
        assert_eq!(b.no_ofld_reason, vec!["disabled-by-policy"]);
        assert_eq!(b.offload_basis, OffloadBasis::Labels);
    }

    #[test]
    fn paged_crlf_and_flattened_give_the_same_facts() {
        let plain = parse(TWO).unwrap();
        let crlf = parse(&TWO.replace('\n', "  \r\n")).unwrap();
        let paged = parse(&TWO.replace("misc=0", "--More-- \r          \rmisc=0").replace("npu info", "--More--\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}\u{8}        \u{8}\u{8}\u{8}npu info")).unwrap();
        let flat = parse(&TWO.replace('\n', " ")).unwrap();
        let unindented = parse(
            &TWO.lines()
                .map(|l| format!("    {l}"))
                .collect::<Vec<_>>()
                .join("\n"),
        )
        .unwrap();
        assert_eq!(plain, crlf);
        assert_eq!(plain, paged);
        assert_eq!(plain, flat);
        assert_eq!(plain, unindented);
    }

    #[test]
    fn decision_rule() {
        let one = |npu: &str| {
            parse(&format!("session info: proto=6 expire=1\nstatistic(bytes/packets/allow_err): org=1/1/0 reply=1/1/0 tuples=2\nmisc=0 policy_id=1\n{npu}\ntotal session 1\n")).unwrap().sessions.remove(0)
        };
        let both = |s: &Session| (s.offload_org, s.offload_reply, s.offload_basis);
        assert_eq!(
            both(&one("npu_state=0x4000c00 ofld-O ofld-R")),
            (true, true, OffloadBasis::Labels)
        );
        assert_eq!(
            both(&one("npu_state=0x000c00")),
            (true, true, OffloadBasis::NpuState)
        );
        assert_eq!(
            both(&one(
                "npu_state=00000000\nnpu info: flag=0x81/0x81, offload=4/4, ips_offload=0/0"
            )),
            (true, true, OffloadBasis::NpuInfo)
        );
        assert_eq!(
            both(&one("npu_state=0x001108")),
            (false, false, OffloadBasis::NpuState)
        );
        assert_eq!(
            both(&one("npu_state=0x4000c01 no_offload")),
            (false, false, OffloadBasis::Labels)
        );
        assert_eq!(both(&one("")), (false, false, OffloadBasis::Nothing));
        let reflect = one(
            "npu_state=0x000100\nno_ofld_reason:  npu-flag-off\nreflect info 0:\ndev=18->17/17->18\nnpu_state=0x000c00\nnpu info: flag=0x81/0x81, offload=9/9\nno_ofld_reason: other\ntotal reflect session num: 1",
        );
        assert_eq!(both(&reflect), (false, false, OffloadBasis::NpuState));
        assert_eq!(reflect.no_ofld_reason, vec!["npu-flag-off"]);
    }

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

    #[test]
    fn empty_garbage_and_cut() {
        assert_eq!(
            parse("FGT # diagnose sys session list\ntotal session 0\nFGT # ")
                .unwrap()
                .sessions
                .len(),
            0
        );
        assert!(parse("total session: 0").is_ok());
        assert!(parse("").is_err());
        assert!(parse("hello world").is_err());
        assert!(parse("Unknown action 0").is_err());
        assert!(parse("session info: proto=6 policy_id=1\ntotal session 3\n").is_err());
        assert!(parse("session info: proto=6 duration=3 expire=1\ntotal session 1\n").is_err());
    }

    #[test]
    fn never_expires() {
        let never = TWO.replacen("expire=178 timeout=0", "expire=never timeout=never", 1);
        let a = parse(&never).unwrap().sessions.remove(0);
        assert_eq!((a.expire, a.timeout), (Some(Ttl::Never), Some(Ttl::Never)));
        let json = serde_json::to_value(&a).unwrap();
        assert_eq!(
            (&json["expire"], &json["timeout"]),
            (&"never".into(), &"never".into())
        );
        assert_eq!(serde_json::from_value::<Session>(json).unwrap(), a);
    }

    #[test]
    fn impossible_and_disagreeing_values_are_errors() {
        for (from, to) in [
            ("expire=178", "expire=-178"),
            ("expire=178", "expire=forever"),
            (
                "proto=17 proto_state=01 duration=40",
                "proto=999 proto_state=01 duration=40",
            ),
            ("duration=40", "duration=99999999999999999999"),
            ("policy_id=1 ", "policy_id=4294967296 "),
            ("org=92/2/1", "org=92/-2/1"),
            ("npu_state=0x4000400", "npu_state=0xZZ"),
            ("offload=9/0", "offload=9/x"),
            ("policy_id=1 ", "policy_id=1 policy_id=2 "),
            ("expire=178", "expire=178 expire=100"),
            ("total session 2", "total session 99999999999"),
            ("total session 2", "total session 2\ntotal session 3"),
        ] {
            assert!(TWO.contains(from), "{from}");
            let bad = TWO.replacen(from, to, 1);
            let e = parse(&bad).expect_err(to);
            assert!(!e.excerpt.is_empty(), "{to}: no excerpt");
        }
        let repeated = TWO.replacen("policy_id=1 ", "policy_id=1 policy_id=1 ", 1);
        assert_eq!(parse(&repeated).unwrap(), parse(TWO).unwrap());
        let e = parse(&TWO.replacen("policy_id=2", "policy_id=2 policy_id=3", 1)).unwrap_err();
        assert!(e.reason.contains("session block 2"), "{}", e.reason);
        assert!(e.excerpt.contains("10.1.1.11"), "{}", e.excerpt);
    }

    #[test]
    fn streams_from_a_reader_in_small_pieces() {
        let reader = std::io::BufReader::with_capacity(7, TWO.as_bytes());
        let sessions: Vec<Session> = SessionReader::new(reader)
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(sessions, parse(TWO).unwrap().sessions);
    }
}
