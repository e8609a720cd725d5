//! One reply's output as it streams off the screen: the echo of the command dropped, the
//! session's secrets masked, the rest written to a [`SpoolWriter`] (memory for the usual small
//! output, a compressed file for a huge one, an error past the per-command cap).
//!
//! It applies the rule [`Reply::split`](super::screen::Reply::split) applies to a whole reply,
//! line by line: lines up to and including the first that ends with the command are the echo
//! (and any stray prompt before it); without such a line everything is output; the line break
//! before the prompt is not output. The last finished line is held back until the next arrives,
//! so a secret the device broke over two lines is masked whole before either is written.

use super::redact::Redactor;
use premarket_core::Output;
use premarket_spool::{SpoolError, SpoolWriter};

/// Lines held while waiting for the echo; past this the echo is given up on and they are output.
const ECHO_WAIT: usize = 64 << 10;

pub struct Body<'r> {
    /// The line sent, while its echo has not been seen.
    echo: Option<String>,
    /// Some line contained the command: the reply has begun (the shell's prompt gate).
    echoed: bool,
    /// Lines before the echo: dropped when it comes, output if it never does.
    before_echo: Vec<u8>,
    /// Bytes of an unfinished line.
    partial: Vec<u8>,
    /// The last finished line, already masked, held for the next window.
    held: String,
    redactor: &'r Redactor,
    writer: SpoolWriter,
}

impl<'r> Body<'r> {
    /// A body for the reply to `sent` (`None`: no echo to drop, e.g. after a secret).
    pub fn new(sent: Option<&str>, redactor: &'r Redactor, writer: SpoolWriter) -> Body<'r> {
        Body {
            echo: sent.map(str::to_string),
            echoed: sent.is_none(),
            before_echo: Vec::new(),
            partial: Vec::new(),
            held: String::new(),
            redactor,
            writer,
        }
    }

    /// Whether the reply has begun: a line so far contained the command.
    pub fn echoed(&self) -> bool {
        self.echoed
    }

    /// Takes bytes drained from the screen (finished lines, or a long line's start).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), SpoolError> {
        self.partial.extend_from_slice(bytes);
        let end = match memchr::memrchr(b'\n', &self.partial) {
            Some(i) => i + 1,
            // A line longer than any screen line: passed on unfinished.
            None if self.partial.len() > super::screen::LONG_LINE => self.partial.len(),
            None => return Ok(()),
        };
        let lines: Vec<u8> = self.partial.drain(..end).collect();
        self.lines(&lines)
    }

    fn lines(&mut self, lines: &[u8]) -> Result<(), SpoolError> {
        let Some(sent) = &self.echo else {
            return self.output(lines);
        };
        let mut rest = lines;
        while !rest.is_empty() {
            let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            let (line, after) = rest.split_at(end);
            rest = after;
            if memchr::memmem::find(line, sent.as_bytes()).is_some() {
                self.echoed = true;
            }
            // The same test as on a whole reply (Unicode white space included).
            if String::from_utf8_lossy(line)
                .trim_end()
                .ends_with(sent.as_str())
            {
                // The echo: it and everything before it is not output.
                self.echo = None;
                self.before_echo = Vec::new();
                return self.output(rest);
            }
            self.before_echo.extend_from_slice(line);
            if self.before_echo.len() > ECHO_WAIT {
                return self.give_up_echo().and_then(|()| self.output(rest));
            }
        }
        Ok(())
    }

    /// No echo after all: what was held is output.
    fn give_up_echo(&mut self) -> Result<(), SpoolError> {
        self.echo = None;
        let before = std::mem::take(&mut self.before_echo);
        self.output(&before)
    }

    /// Masks secrets over the held line and `lines`, writes all but the last line, holds that.
    fn output(&mut self, lines: &[u8]) -> Result<(), SpoolError> {
        if lines.is_empty() {
            return Ok(());
        }
        let mut window = std::mem::take(&mut self.held);
        window.push_str(&String::from_utf8_lossy(lines));
        let window = self.redactor.clean(window);
        // The last finished line stays (a secret may go on in the next one).
        let body = window.strip_suffix('\n').unwrap_or(&window);
        let mut cut = body.rfind('\n').map_or(0, |i| i + 1);
        if window.len() - cut > super::screen::LONG_LINE {
            // A line without end is not held whole either.
            cut = window.len();
        }
        self.writer.write(&window.as_bytes()[..cut])?;
        self.held = window[cut..].to_string();
        Ok(())
    }

    /// The output, once the prompt ended the reply.
    pub fn finish(mut self) -> Result<Output, SpoolError> {
        // A line the prompt interrupted: the prompt's line, which the screen keeps; never here.
        let partial = std::mem::take(&mut self.partial);
        if !partial.is_empty() {
            self.lines(&partial)?;
        }
        if self.echo.is_some() {
            self.give_up_echo()?;
        }
        let held = std::mem::take(&mut self.held);
        // The line break before the prompt belongs to the prompt.
        self.writer
            .write(held.strip_suffix('\n').unwrap_or(&held).as_bytes())?;
        self.writer.finish()
    }
}

#[cfg(test)]
mod tests {
    use secrecy::SecretString;

    use super::*;
    use crate::screen::Reply;
    use premarket_core::Megabytes;
    use premarket_spool::{IN_MEMORY, SpoolDir};

    fn stream(chunks: &[&str], sent: Option<&str>, redactor: &Redactor) -> String {
        let writer = SpoolWriter::new(&SpoolDir::temporary(), Megabytes(64));
        let mut body = Body::new(sent, redactor, writer);
        for chunk in chunks {
            body.push(chunk.as_bytes()).unwrap();
        }
        let output = body.finish().unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut output.reader().unwrap(), &mut text).unwrap();
        text
    }

    #[test]
    fn streams_as_a_whole_reply_splits() {
        let none = Redactor::default();
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["show version\n", "Arista DCS\n"], Some("show version")),
            (&["show version\n"], Some("show version")),
            (&[], Some("show version")),
            (&["no echo\n"], Some("show version")),
            (&["\n", "sw1>show version\nArista\n"], Some("show version")),
            (&["a\n", "\n", "b\n"], None),
            (&["x show version y\n", "out\n"], Some("show version")),
        ];
        for (chunks, sent) in cases {
            let whole = format!("{}sw1#", chunks.concat());
            let want = Reply::split(&whole, *sent).output;
            assert_eq!(stream(chunks, *sent, &none), want, "{chunks:?}");
        }
    }

    #[test]
    fn a_secret_broken_over_two_lines_or_two_chunks_is_masked() {
        let mut redactor = Redactor::default();
        redactor.add(&SecretString::from("hunter22"));
        let out = stream(
            &["echo\n", "pw hunt\n", "er22 done\n", "hunter22\n"],
            Some("echo"),
            &redactor,
        );
        assert_eq!(out, "pw ********\n done\n********");
        assert!(!out.contains("hunt"));
    }

    #[test]
    fn a_large_reply_spools_and_the_cap_stops_it() {
        let none = Redactor::default();
        let line = "session info: proto=17 proto_state=01 duration=12\n";
        let mut body = Body::new(
            Some("diagnose sys session list"),
            &none,
            SpoolWriter::new(&SpoolDir::temporary(), Megabytes(2)),
        );
        body.push(b"diagnose sys session list\n").unwrap();
        let mut pushed = 0;
        let result = loop {
            if let Err(e) = body.push(line.as_bytes()) {
                break Err(e);
            }
            pushed += line.len();
            if pushed > IN_MEMORY + line.len() {
                break Ok(());
            }
        };
        assert_eq!(result, Ok(()));
        assert!(matches!(body.finish().unwrap(), Output::Spooled(_)));
        let mut capped = Body::new(
            None,
            &none,
            SpoolWriter::new(&SpoolDir::temporary(), Megabytes(1)),
        );
        let error = (0..)
            .find_map(|_| capped.push(line.as_bytes()).err())
            .unwrap();
        assert_eq!(error, SpoolError::Exceeded(Megabytes(1)));
    }
}
