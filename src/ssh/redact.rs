//! Keeps secrets out of everything premarket prints or stores. There is one [`Redactor`] and
//! one way it matches, whatever the exit: a device reply as it streams off the SSH screen, a
//! spooled output copied into the archive, the report's texts, the email, the logs.
//!
//! It matches what a reader would see, not the bytes as sent. A device may echo a secret broken
//! over lines, packets, colour codes or characters that draw nothing, and a reader still reads
//! it whole, so between any two characters of a secret the match skips a *break*: up to
//! [`MAX_GAP`] bytes of separators, which are
//! - every control byte (C0 controls including CR, LF and TAB, DEL, and the C1 controls);
//! - an escape sequence: ESC and the byte after it, and for `ESC [` the whole CSI sequence up to
//!   its final byte (colour and cursor codes);
//! - spaces after a line break (the indentation of a wrapped line).
//!
//! Any other byte, a plain space included, breaks the match: `hunter 22` is not `hunter22`.
//! The secret is replaced by [`MASK`] followed by the line breaks it spanned, so the text keeps
//! its lines. The matching runs on a [`Stream`] (an Aho-Corasick automaton over the bytes that
//! are not separators, linear in the input), which holds back only what a split secret could
//! still span: the last bytes that could begin one, at most the longest secret's length, with
//! the breaks between them. A break longer than [`MAX_GAP`] ends any match in progress, so the
//! memory held stays bounded however the device splits its output.

use std::borrow::Cow;
use std::collections::{HashSet, VecDeque};
use std::sync::{Arc, OnceLock};

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::nfa::contiguous::NFA;
use aho_corasick::{Anchored, MatchKind};
use secrecy::ExposeSecret;

use super::target::Target;
use premarket_core::CollectError;

/// What stands for a secret.
pub const MASK: &str = "********";
/// Most separator bytes between two characters of a secret (a CRLF and a wrapped line's
/// indentation, a few colour codes); past this the two pieces are not read as one.
pub const MAX_GAP: usize = 64;

/// The secrets to remove; cheap to clone (the automaton is shared).
#[derive(Default)]
pub struct Redactor {
    secrets: Vec<String>,
    /// The same secrets, so that adding one is not a search of them all.
    known: HashSet<String>,
    /// Built when first needed after a secret was added: a run adds a fleet's secrets one by
    /// one (every secret it reads goes to the log writer's redactor too), and a matcher built
    /// per secret added was quadratic in the fleet.
    matcher: OnceLock<Option<Arc<Matcher>>>,
}

struct Matcher {
    /// A contiguous NFA, not a DFA: it builds in time linear in the secrets (a DFA of a long
    /// secret of one repeated character takes quadratic time) and still searches linearly.
    automaton: NFA,
    /// Bytes of the longest pattern.
    longest: usize,
    /// The bytes that can begin a pattern.
    firsts: Vec<u8>,
    /// For each of `firsts`, the bytes that can come right after it in a pattern.
    seconds: Vec<[bool; 256]>,
}

impl Clone for Redactor {
    /// The clone shares the matcher, built first if it is not yet (a session clones its
    /// redactor for every command: each clone would build its own).
    fn clone(&self) -> Redactor {
        let _ = self.matcher();
        Redactor {
            secrets: self.secrets.clone(),
            known: self.known.clone(),
            matcher: self.matcher.clone(),
        }
    }
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Redactor({} secrets)", self.secrets.len())
    }
}

impl Redactor {
    /// Learns every secret of `target`.
    pub fn for_target(target: &Target) -> Redactor {
        let mut redactor = Redactor::default();
        // The bastions' secrets too: a device's output or an error may echo any of them.
        for login in std::iter::once(target).chain(target.via.iter().map(|b| &b.login)) {
            let enable = login.enable_secret.as_ref().map(|s| &s.value);
            redactor.add_all(
                [&login.password, &login.key_passphrase]
                    .into_iter()
                    .flatten()
                    .chain(enable)
                    .map(|secret| secret.expose_secret()),
            );
        }
        redactor
    }

    /// Also removes `secret` wherever it appears. Its control characters and the spaces around
    /// it are not part of what is matched (they are separators, or what surrounds it).
    pub fn add(&mut self, secret: &str) {
        self.add_all([secret]);
    }

    /// [`Redactor::add`] for each of `secrets`. A secret with a `"` or a `\` is also matched as
    /// it reads inside a JSON string (`\"`, `\\`): devices print JSON (`| json`), and the
    /// archive keeps facts as JSON.
    pub fn add_all<'s>(&mut self, secrets: impl IntoIterator<Item = &'s str>) {
        let before = self.secrets.len();
        for secret in secrets {
            let pattern: String = secret.chars().filter(|c| !c.is_control()).collect();
            let pattern = pattern.trim_matches(' ');
            let in_json = pattern.replace('\\', "\\\\").replace('"', "\\\"");
            for pattern in [pattern, in_json.as_str()] {
                if !pattern.is_empty() && !self.known.contains(pattern) {
                    self.known.insert(pattern.to_string());
                    self.secrets.push(pattern.to_string());
                }
            }
        }
        if self.secrets.len() > before {
            self.matcher = OnceLock::new();
        }
    }

    /// The matcher of every secret added so far (`None`: no secret).
    fn matcher(&self) -> Option<&Matcher> {
        self.matcher
            .get_or_init(|| Matcher::new(&self.secrets).map(Arc::new))
            .as_deref()
    }

    /// Every secret of `other` too.
    pub fn merge(&mut self, other: &Redactor) {
        self.add_all(other.secrets.iter().map(String::as_str));
    }

    pub fn is_empty(&self) -> bool {
        self.secrets.is_empty()
    }

    /// A stream that masks these secrets in bytes fed to it piece by piece.
    pub fn stream(&self) -> Stream<'_> {
        Stream::new(self.matcher())
    }

    /// `text` with every secret masked (for text held whole: a prompt, an error, a report).
    pub fn literals(&self, text: &str) -> String {
        if self.matcher().is_none() {
            return text.to_string();
        }
        let mut stream = self.stream();
        let mut out = Vec::with_capacity(text.len());
        stream.push(text.as_bytes(), &mut out);
        stream.finish(&mut out);
        // Masks begin and end on whole characters: the text stays UTF-8.
        String::from_utf8(out).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into())
    }

    /// [`Redactor::literals`], borrowed when nothing in `text` was a secret: what holds text
    /// for the whole run (the report's raw outputs) keeps the one copy it already shares.
    pub fn literals_kept<'t>(&self, text: &'t str) -> Cow<'t, str> {
        if self.matcher().is_none() {
            return Cow::Borrowed(text);
        }
        let masked = self.literals(text);
        if masked == text {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(masked)
        }
    }

    /// An error whose text held a secret becomes the same text with it masked.
    pub fn clean_error(&self, e: CollectError) -> CollectError {
        match self.literals_kept(&e.to_string()) {
            Cow::Borrowed(_) => e,
            Cow::Owned(cleaned) => CollectError::Other(cleaned),
        }
    }
}

impl Matcher {
    fn new(secrets: &[String]) -> Option<Matcher> {
        // Built from a few short literals: it cannot fail, but a failure must not panic.
        let automaton = NFA::builder()
            .match_kind(MatchKind::Standard)
            .build(secrets)
            .ok()?;
        let mut firsts: Vec<u8> = secrets.iter().filter_map(|s| s.bytes().next()).collect();
        firsts.sort_unstable();
        firsts.dedup();
        let mut seconds = vec![[false; 256]; firsts.len()];
        for secret in secrets {
            let bytes = secret.as_bytes();
            let Some(i) = bytes.first().and_then(|f| firsts.binary_search(f).ok()) else {
                continue;
            };
            match bytes.get(1) {
                Some(&second) => seconds[i][usize::from(second)] = true,
                // A one-byte secret: anything may follow it.
                None => seconds[i] = [true; 256],
            }
        }
        Some(Matcher {
            automaton,
            longest: secrets.iter().map(String::len).max().unwrap_or(1),
            firsts,
            seconds,
        })
    }

    /// The next byte at or after `from` that can begin a secret (`bytes.len()` if none): one
    /// of `firsts`, followed by the secret's second byte, by a byte that may begin a separator,
    /// or by nothing yet.
    fn next_start(&self, bytes: &[u8], mut from: usize) -> usize {
        loop {
            let at = self.next_first(bytes, from);
            let Some(&after) = bytes.get(at + 1) else {
                return at;
            };
            let may_separate = after < 0x20 || after == 0x7f || after == C1_LEAD;
            let first = self.firsts.binary_search(&bytes[at]).unwrap_or_default();
            if may_separate || self.seconds[first][usize::from(after)] {
                return at;
            }
            from = at + 1;
        }
    }

    /// The next byte at or after `from` that can begin a secret (`bytes.len()` if none).
    /// Outside a secret nothing else matters: a separator only counts between two of its
    /// characters, so an escape sequence there is read as text, which can only mask more.
    fn next_first(&self, bytes: &[u8], from: usize) -> usize {
        let rest = &bytes[from..];
        let found = match self.firsts[..] {
            [a] => memchr::memchr(a, rest),
            [a, b] => memchr::memchr2(a, b, rest),
            [a, b, c] => memchr::memchr3(a, b, c, rest),
            _ => rest
                .iter()
                .position(|b| self.firsts.binary_search(b).is_ok()),
        };
        found.map_or(bytes.len(), |i| from + i)
    }
}

const ESC: u8 = 0x1b;
/// The first byte of the C1 controls (U+0080..U+009F) in UTF-8.
const C1_LEAD: u8 = 0xc2;

/// How the bytes after an escape are read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Lex {
    Text,
    /// After ESC: the next byte belongs to the escape.
    Escape,
    /// `ESC [` ...: up to and including the final byte (0x40..=0x7e).
    Csi,
    /// After 0xc2: a C1 control if the next byte is 0x80..=0x9f, a character otherwise.
    C1,
}

/// Masks secrets in a byte stream fed in pieces of any size; see the module comment.
pub struct Stream<'r> {
    matcher: Option<&'r Matcher>,
    start: StateID,
    state: StateID,
    lex: Lex,
    /// A line break since the last kept byte: spaces are indentation.
    after_break: bool,
    /// Separator bytes since the last kept byte.
    gap: usize,
    /// Bytes not released yet; `base` is the stream offset of the first.
    pending: Vec<u8>,
    base: u64,
    /// Stream offsets of the last kept bytes, at most the longest secret's length.
    kept: VecDeque<u64>,
    /// Masked ranges `[start, end)` not written yet, in order; the last may still grow.
    masks: VecDeque<(u64, u64)>,
}

impl<'r> Stream<'r> {
    fn new(matcher: Option<&'r Matcher>) -> Stream<'r> {
        let start = matcher
            .and_then(|m| m.automaton.start_state(Anchored::No).ok())
            .unwrap_or_default();
        Stream {
            matcher,
            start,
            state: start,
            lex: Lex::Text,
            after_break: false,
            gap: 0,
            pending: Vec::new(),
            base: 0,
            kept: VecDeque::new(),
            masks: VecDeque::new(),
        }
    }

    /// Feeds `bytes`; what can no longer be part of a secret is appended to `out`.
    pub fn push(&mut self, bytes: &[u8], out: &mut Vec<u8>) {
        let Some(matcher) = self.matcher else {
            out.extend_from_slice(bytes);
            return;
        };
        let start = self.pending.len();
        self.pending.extend_from_slice(bytes);
        let mut i = start;
        while i < self.pending.len() {
            // Between secrets (no kept byte can begin one), skip to the next byte that can.
            if self.lex == Lex::Text && self.kept.is_empty() {
                let next = matcher.next_start(&self.pending, i);
                if next > i {
                    self.state = self.start;
                    self.after_break = false;
                    i = next;
                }
                if i == self.pending.len() {
                    break;
                }
            }
            let at = self.base + i as u64;
            self.byte(matcher, self.pending[i], at);
            i += 1;
        }
        self.release(matcher, out);
    }

    /// The end of the stream: everything held is written, secrets masked.
    pub fn finish(mut self, out: &mut Vec<u8>) {
        let Some(matcher) = self.matcher else {
            return;
        };
        if self.lex == Lex::C1 {
            let at = self.base + self.pending.len() as u64 - 1;
            self.keep(matcher, C1_LEAD, at);
        }
        self.kept.clear();
        self.lex = Lex::Text;
        self.release(matcher, out);
    }

    /// Bytes held back, waiting to tell whether they are part of a secret.
    pub fn held(&self) -> usize {
        self.pending.len()
    }

    /// The most [`Stream::held`] can be: twice what a split secret could span.
    pub fn bound(&self) -> usize {
        self.matcher.map_or(0, |m| 2 * span(m) + 1)
    }

    fn byte(&mut self, matcher: &Matcher, b: u8, at: u64) {
        match self.lex {
            Lex::Escape => {
                self.lex = if b == b'[' { Lex::Csi } else { Lex::Text };
                return self.separator();
            }
            Lex::Csi => {
                if (0x40..=0x7e).contains(&b) {
                    self.lex = Lex::Text;
                }
                return self.separator();
            }
            Lex::C1 => {
                self.lex = Lex::Text;
                if (0x80..=0x9f).contains(&b) {
                    // The lead byte and this one: one control character.
                    self.separator();
                    return self.separator();
                }
                self.keep(matcher, C1_LEAD, at - 1);
            }
            Lex::Text => {}
        }
        match b {
            ESC => {
                self.lex = Lex::Escape;
                self.separator();
            }
            b'\n' | b'\r' => {
                self.after_break = true;
                self.separator();
            }
            0x00..=0x1f | 0x7f => self.separator(),
            b' ' if self.after_break => self.separator(),
            C1_LEAD => self.lex = Lex::C1,
            _ => self.keep(matcher, b, at),
        }
    }

    fn separator(&mut self) {
        self.gap += 1;
        if self.gap > MAX_GAP && !self.kept.is_empty() {
            // Too far apart to be read as one: no match spans this break.
            self.kept.clear();
            self.state = self.start;
        }
    }

    fn keep(&mut self, matcher: &Matcher, b: u8, at: u64) {
        self.gap = 0;
        self.after_break = false;
        let automaton = &matcher.automaton;
        self.state = automaton.next_state(Anchored::No, self.state, b);
        self.kept.push_back(at);
        if automaton.is_match(self.state) {
            let longest = (0..automaton.match_len(self.state))
                .map(|i| automaton.pattern_len(automaton.match_pattern(self.state, i)))
                .max()
                .unwrap_or(1);
            let start = self.kept[self.kept.len().saturating_sub(longest)];
            self.mark(start, at + 1);
        }
        if automaton.is_start(self.state) {
            self.kept.clear();
        }
        // A later match starts at one of the last `longest - 1` kept bytes at the earliest.
        while self.kept.len() >= matcher.longest {
            self.kept.pop_front();
        }
    }

    /// Adds `[start, end)` to the masks; overlapping ones become one.
    fn mark(&mut self, mut start: u64, mut end: u64) {
        while let Some(&(s, e)) = self.masks.back() {
            if start >= e {
                break;
            }
            (start, end) = (start.min(s), end.max(e));
            self.masks.pop_back();
        }
        self.masks.push_back((start, end));
    }

    /// Writes what no secret can reach any more: up to the first byte that may still begin
    /// one, each finished mask as [`MASK`] and its line breaks.
    fn release(&mut self, matcher: &Matcher, out: &mut Vec<u8>) {
        let end = self.base + self.pending.len() as u64;
        let mut safe = self.kept.front().copied().unwrap_or(end);
        if self.lex == Lex::C1 {
            safe = safe.min(end - 1);
        }
        let mut written = self.base;
        while let Some(&(start, stop)) = self.masks.front() {
            if start >= safe {
                break;
            }
            self.copy(written, start, out);
            if stop <= safe {
                self.mask(start, stop, out);
                written = stop;
                self.masks.pop_front();
                continue;
            }
            // Still growing (overlapping matches); past a bound, what it covers goes out now.
            if safe - start > span(matcher) as u64 {
                self.mask(start, safe, out);
                if let Some(first) = self.masks.front_mut() {
                    first.0 = safe;
                }
                written = safe;
            } else {
                written = start;
            }
            self.drain(written);
            return;
        }
        self.copy(written, safe, out);
        self.drain(safe);
    }

    fn copy(&self, from: u64, to: u64, out: &mut Vec<u8>) {
        let (from, to) = ((from - self.base) as usize, (to - self.base) as usize);
        if from < to {
            out.extend_from_slice(&self.pending[from..to]);
        }
    }

    fn mask(&self, from: u64, to: u64, out: &mut Vec<u8>) {
        let (from, to) = ((from - self.base) as usize, (to - self.base) as usize);
        let breaks = memchr::memchr_iter(b'\n', &self.pending[from..to]).count();
        out.extend_from_slice(MASK.as_bytes());
        out.extend(std::iter::repeat_n(b'\n', breaks));
    }

    fn drain(&mut self, to: u64) {
        let n = (to - self.base) as usize;
        self.pending.drain(..n);
        self.base = to;
    }
}

/// What one secret split at every character with the longest breaks could span.
fn span(matcher: &Matcher) -> usize {
    matcher.longest * (1 + MAX_GAP)
}

#[cfg(test)]
mod tests;
