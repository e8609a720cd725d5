//! The terminal between the device and the driver: raw PTY bytes in, clean text out.
//!
//! Devices write for a screen: ANSI colour and cursor codes, backspaces, carriage returns that
//! overwrite a line, and a pager line (`--More--`) that waits for a key. [`Screen`] applies
//! those byte by byte as a terminal would, so the text it holds, and the number of pager
//! prompts it saw, do not depend on how the bytes were split into SSH packets (a property test
//! checks that). It never panics on hostile input.
//!
//! Only the current line can still change (a `\r`, a backspace, the pager), so the reader moves
//! every finished line out as it comes ([`Screen::drain_into`]) and the screen holds one line:
//! a huge output streams through it in bounded memory. A line longer than [`LONG_LINE`] is moved
//! out unfinished and can no longer be taken for a prompt.

use super::body::{IsPrompt, Stray, is_echo};

/// Longest last line considered as a prompt; anything longer is output still arriving.
const PROMPT_TAIL: usize = 256;
/// Spaces allowed around the pager text on its line.
const PAGER_SLACK: usize = 32;
/// The text a screen keeps room for between packets, in bytes (see [`Screen::drain_with`]).
const KEPT: usize = 8 << 10;
pub use super::body::LONG_LINE;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum State {
    Text,
    /// After `\r`: a following `\n` or `\r` ends the line; anything else overwrites it.
    CarriageReturn,
    Escape,
    /// `ESC [` ... final byte 0x40..=0x7e.
    Csi,
    /// `ESC ]` ... BEL or `ESC \`.
    Osc,
    OscEscape,
    /// `ESC (` or `ESC )` + one charset byte.
    Charset,
}

/// Clean text accumulated since the last [`Screen::take`].
#[derive(Debug)]
pub struct Screen {
    text: Vec<u8>,
    line_start: usize,
    state: State,
    pager: Vec<u8>,
    /// After a pager prompt, the one space the device prints after it is not output.
    swallow_space: bool,
    pages: usize,
    /// The start of the current line was already moved out: it is output, never a prompt.
    continued: bool,
}

impl Screen {
    pub fn new(pager: &str) -> Self {
        Screen {
            text: Vec::new(),
            line_start: 0,
            state: State::Text,
            pager: pager.as_bytes().to_vec(),
            swallow_space: false,
            pages: 0,
            continued: false,
        }
    }

    /// Feeds raw bytes; returns how many pager prompts they completed (each wants an answer).
    pub fn feed(&mut self, bytes: &[u8]) -> usize {
        let before = self.pages;
        let mut rest = bytes;
        while let Some((&b, after)) = rest.split_first() {
            // Most of an output is runs of printable text: copied whole, as `text_byte` would
            // copy each byte (a byte that may end the pager's text goes the long way).
            if self.state == State::Text && !self.swallow_space {
                let run = rest
                    .iter()
                    .position(|&c| !self.copied_as_is(c))
                    .unwrap_or(rest.len());
                if run > 0 {
                    let (text, after) = rest.split_at(run);
                    self.text.extend_from_slice(text);
                    rest = after;
                    continue;
                }
            }
            self.byte(b);
            rest = after;
        }
        self.pages - before
    }

    /// A byte `text_byte` only appends: printable, and not the pager text's last byte.
    fn copied_as_is(&self, b: u8) -> bool {
        matches!(b, b'\t' | 0x20..=0x7e | 0x80..=0xff) && self.pager.last() != Some(&b)
    }

    fn byte(&mut self, b: u8) {
        match self.state {
            State::Text => self.text_byte(b),
            State::CarriageReturn => match b {
                b'\n' => {
                    self.state = State::Text;
                    self.text_byte(b);
                }
                b'\r' => {}
                _ => {
                    self.text.truncate(self.line_start);
                    self.state = State::Text;
                    self.text_byte(b);
                }
            },
            State::Escape => {
                self.state = match b {
                    b'[' => State::Csi,
                    b']' => State::Osc,
                    b'(' | b')' => State::Charset,
                    _ => State::Text,
                }
            }
            State::Csi => {
                if (0x40..=0x7e).contains(&b) {
                    self.state = State::Text;
                }
            }
            State::Osc => match b {
                0x07 => self.state = State::Text,
                0x1b => self.state = State::OscEscape,
                _ => {}
            },
            State::OscEscape => self.state = if b == b'\\' { State::Text } else { State::Osc },
            State::Charset => self.state = State::Text,
        }
    }

    fn text_byte(&mut self, b: u8) {
        // Only the space right after the pager text belongs to it; indentation after an
        // erase sequence (`\r`, backspaces) is output.
        let swallow = std::mem::take(&mut self.swallow_space);
        match b {
            0x1b => self.state = State::Escape,
            b'\r' => {
                // `\r` + spaces + `\r` is how devices erase a pager line: blanks, not output.
                if self.text[self.line_start..].iter().all(|&c| c == b' ') {
                    self.text.truncate(self.line_start);
                }
                self.state = State::CarriageReturn;
            }
            b'\n' => {
                self.text.push(b'\n');
                self.line_start = self.text.len();
                self.continued = false;
            }
            0x08 if self.text.len() > self.line_start => {
                self.text.pop();
            }
            b' ' if swallow => {}
            b'\t' | 0x20..=0x7e | 0x80..=0xff => {
                self.text.push(b);
                if self.pager.last() == Some(&b) {
                    self.check_pager();
                }
            }
            // Other control bytes (BEL, NUL, DEL, ...) draw nothing.
            _ => {}
        }
    }

    fn check_pager(&mut self) {
        let line = &self.text[self.line_start..];
        if line.len() > self.pager.len() + PAGER_SLACK {
            return;
        }
        if line.trim_ascii() == self.pager.as_slice() {
            self.text.truncate(self.line_start);
            self.swallow_space = true;
            self.pages += 1;
        }
    }

    /// The last line (no newline after it) when it is short enough to be a prompt.
    pub fn last_line(&self) -> Option<String> {
        let line = &self.text[self.line_start..];
        (line.len() <= PROMPT_TAIL && !self.continued)
            .then(|| String::from_utf8_lossy(line).into_owned())
    }

    /// Whether the current (unfinished) line contains `needle`.
    pub fn line_contains(&self, needle: &[u8]) -> bool {
        memchr::memmem::find(&self.text[self.line_start..], needle).is_some()
    }

    /// Moves every finished line into `out` (and the current line too, when it grew past
    /// [`LONG_LINE`]); the screen keeps only what can still change.
    pub fn drain_into(&mut self, out: &mut Vec<u8>) {
        self.drain_with(|lines| out.extend_from_slice(lines));
    }

    /// [`Screen::drain_into`], handing the lines to `take` where they lie (no copy held
    /// beside the screen: with a thousand sessions at once, that copy was 31 MB).
    pub fn drain_with<R>(&mut self, take: impl FnOnce(&[u8]) -> R) -> R {
        let end = if self.text.len() - self.line_start > LONG_LINE {
            self.continued = true;
            self.text.len()
        } else {
            self.line_start
        };
        let taken = take(self.text.get(..end).unwrap_or_default());
        self.text.drain(..end);
        self.line_start -= end.min(self.line_start);
        // A packet's worth of text (32 KB) held through the wait for the next one, by a
        // thousand sessions waiting at once, was 34 MB: what is left is a line at most.
        if self.text.capacity() > KEPT && self.text.len() <= KEPT / 2 {
            self.text.shrink_to(KEPT / 2);
        }
        taken
    }

    /// Whether `needle` occurs in the text at or after byte `from`.
    pub fn find_from(&self, from: usize, needle: &[u8]) -> bool {
        self.text
            .get(from..)
            .is_some_and(|t| memchr::memmem::find(t, needle).is_some())
    }

    /// Bytes of text held.
    pub fn len(&self) -> usize {
        self.text.len()
    }

    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }

    /// Pager prompts seen so far.
    pub fn pages(&self) -> usize {
        self.pages
    }

    /// Everything since the last take, as text; the screen starts empty again.
    pub fn take(&mut self) -> String {
        let text = String::from_utf8_lossy(&self.text).into_owned();
        self.text.clear();
        self.line_start = 0;
        self.pages = 0;
        self.swallow_space = false;
        self.continued = false;
        text
    }
}

/// A device reply held whole, split into the echoed command, the output and the prompt that
/// ended it: the rule [`super::body::Body`] applies as the reply streams (a property test holds
/// the two to the same result).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reply {
    pub output: String,
    pub prompt: String,
    /// The excerpt of what came before the echo other than blank lines and prompts: printed
    /// after the previous prompt (see [`super::body::Stray`]).
    pub stray: String,
}

impl Reply {
    /// Splits `text` (everything after the previous prompt) into output and final prompt. With
    /// `sent`, the output begins after its echo (see [`super::body::is_echo`]); before it only
    /// blank lines and prompts are expected, anything else is stray, and with no echo at all
    /// nothing is output.
    pub fn split(text: &str, sent: Option<&str>, is_prompt: IsPrompt<'_>) -> Reply {
        let (body, prompt) = match text.rfind('\n') {
            Some(i) => (&text[..i], &text[i + 1..]),
            None => ("", text),
        };
        let mut stray = Stray::default();
        let mut start = 0;
        if let Some(sent) = sent {
            let mut echoed = false;
            for line in body.split_inclusive('\n') {
                start += line.len();
                let text = line.trim_end();
                if is_echo(text, sent, is_prompt) {
                    echoed = true;
                    break;
                }
                if !text.trim().is_empty() && !is_prompt(text) {
                    stray.add(line.as_bytes());
                }
            }
            if !echoed {
                start = body.len();
            }
        }
        Reply {
            output: body[start..].to_string(),
            prompt: prompt.to_string(),
            stray: stray.excerpt,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn screen(bytes: &[u8]) -> (String, usize) {
        let mut s = Screen::new("--More--");
        let pages = s.feed(bytes);
        (s.take(), pages)
    }

    #[test]
    fn cleans_terminal_sequences() {
        let cases: &[(&[u8], &str, usize)] = &[
            (b"abc\r\ndef\r\n", "abc\ndef\n", 0),
            (b"abc\r\r\ndef", "abc\ndef", 0),
            (b"\x1b[1;32mgreen\x1b[0m\r\n", "green\n", 0),
            (b"\x1b]0;title\x07text", "text", 0),
            (b"\x1b(Bplain", "plain", 0),
            (b"abcd\x08\x08XY\n", "abXY\n", 0),
            (b"a\n\x08b", "a\nb", 0),
            (b"line1\n --More-- ", "line1\n", 1),
            (b"line1\n--More-- \r         \rline2\n", "line1\nline2\n", 1),
            (b"line1\n --More-- \x08\x08\x08\x08\x08\x08\x08\x08\x08\x08          \x08\x08\x08\x08\x08\x08\x08\x08\x08\x08line2\n", "line1\nline2\n", 1),
            (b"description --More-- here\n", "description --More-- here\n", 0),
            (b"old\rnew", "new", 0),
            (b"a\r\n   \r\nb", "a\n\nb", 0),
            (b"line1\n --More-- \r          \r    set x\n", "line1\n    set x\n", 1),
            (b"\x00\x07bell\x7f", "bell", 0),
        ];
        for (raw, text, pages) in cases {
            assert_eq!(
                screen(raw),
                (text.to_string(), *pages),
                "{:?}",
                String::from_utf8_lossy(raw)
            );
        }
    }

    #[test]
    fn finished_lines_move_out_and_a_long_line_is_never_a_prompt() {
        let mut s = Screen::new("--More--");
        let mut out = Vec::new();
        s.feed(b"line1\r\nline2\r\npart");
        s.drain_into(&mut out);
        assert_eq!(out, b"line1\nline2\n");
        s.feed(b"ial\rover\r\nsw1#");
        s.drain_into(&mut out);
        assert_eq!(out, b"line1\nline2\nover\n");
        assert_eq!(s.last_line().as_deref(), Some("sw1#"));
        s.take();
        out.clear();
        s.feed(&[b'x'; LONG_LINE + 1]);
        s.drain_into(&mut out);
        s.feed(b"sw1#");
        assert_eq!(out.len(), LONG_LINE + 1);
        assert_eq!(
            s.last_line(),
            None,
            "the end of a long line is not a prompt"
        );
        s.feed(b"\nsw1#");
        assert_eq!(s.last_line().as_deref(), Some("sw1#"));
    }

    #[test]
    fn last_line_is_the_prompt_candidate() {
        let mut s = Screen::new("--More--");
        s.feed(b"show version\r\nArista\r\nsw1#");
        assert_eq!(s.last_line().as_deref(), Some("sw1#"));
        s.feed(&[b'x'; 300]);
        assert_eq!(s.last_line(), None);
    }

    #[test]
    fn reply_drops_echo_and_prompt_and_keeps_what_came_before_the_echo_apart() {
        let prompt = |l: &str| l.starts_with("sw1") && (l.ends_with('#') || l.ends_with('>'));
        let split = |text: &str| Reply::split(text, Some("show version"), &prompt);
        let r = split("show version\nArista DCS\nsw1#");
        assert_eq!(
            r,
            Reply {
                output: "Arista DCS".into(),
                prompt: "sw1#".into(),
                stray: String::new(),
            }
        );
        assert_eq!(split("show version\nsw1#").output, "");
        assert_eq!(split("sw1#").prompt, "sw1#");
        let r = split("no echo\nsw1#");
        assert_eq!((r.output.as_str(), r.stray.as_str()), ("", "no echo\n"));
        let r = split("\nsw1>show version\nArista\nsw1>");
        assert_eq!((r.output.as_str(), r.stray.as_str()), ("Arista", ""));
        let r = split("\nend\nsw1#\nsw1#show version\nArista\nsw1#");
        assert_eq!((r.output.as_str(), r.stray.as_str()), ("Arista", "end\n"));
        assert_eq!(Reply::split("a\nb\nsw1#", None, &prompt).output, "a\nb");
    }
}
