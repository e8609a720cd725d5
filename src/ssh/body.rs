//! One reply's output as it streams off the screen: the echo of the command dropped, the rest
//! written to a [`SpoolWriter`] (memory for the usual small output, a compressed file in the
//! run's private spool directory for a huge one, an error past the per-command cap).
//!
//! It applies the rule [`Reply::split`](super::screen::Reply::split) applies to a whole reply,
//! line by line. The reply to a line begins with its echo: the first line that is the command,
//! alone or after the prompt the device drew again. Before the echo the device may only draw its
//! prompt again or print blank lines; any other line was printed after the previous prompt, so
//! the previous output did not end there. Such lines are never output and never dropped unseen:
//! they are kept as [`Stray`] (an excerpt and a count), and the driver makes the command whose
//! prompt they followed an ERROR. Without an echo to wait for (after a secret) everything is
//! output; after Enter alone nothing is, and every line is judged as before an echo. The line
//! break before the prompt is not output.
//!
//! The output is kept as the device printed it: it is judged as read, so a secret the device
//! also prints (a password that is an interface name) cannot hide what a check reads. Secrets
//! are masked where text leaves premarket (the report, email, archive, logs), by the one
//! [`super::redact::Redactor`].

/// A line without an end that grows past this is moved out unfinished (a device printing
/// without line breaks must not fill memory).
pub const LONG_LINE: usize = 64 << 10;
use premarket_core::Output;
use premarket_spool::{SpoolError, SpoolWriter};

/// Most characters of stray text kept for the error message.
const EXCERPT: usize = 240;

/// Whether a line is the device's prompt.
pub type IsPrompt<'r> = &'r (dyn Fn(&str) -> bool + Sync);

/// Text the device printed after its prompt and before the echo of the next line.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Stray {
    /// Its first lines (secrets are masked by whoever shows it).
    pub excerpt: String,
    pub bytes: usize,
}

impl Stray {
    pub(super) fn add(&mut self, line: &[u8]) {
        self.bytes += line.len();
        let room = EXCERPT.saturating_sub(self.excerpt.chars().count());
        if room > 0 {
            let text = String::from_utf8_lossy(line);
            self.excerpt.extend(text.trim_end().chars().take(room));
            self.excerpt.push('\n');
        }
    }

    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }
}

pub struct Body<'r> {
    /// The line sent, while its echo has not been seen.
    echo: Option<String>,
    is_prompt: IsPrompt<'r>,
    stray: Stray,
    /// Bytes of an unfinished line.
    partial: Vec<u8>,
    /// A line break not written yet: the one before the prompt is not output.
    newline: bool,
    writer: SpoolWriter,
}

impl<'r> Body<'r> {
    /// A body for the reply to `sent` (`None`: no echo to drop, e.g. after a secret).
    pub fn new(sent: Option<&str>, is_prompt: IsPrompt<'r>, writer: SpoolWriter) -> Body<'r> {
        Body {
            echo: sent.map(str::to_string),
            is_prompt,
            stray: Stray::default(),
            partial: Vec::new(),
            newline: false,
            writer,
        }
    }

    /// Starts over: what came so far was not the reply (a login banner before the prompt).
    pub fn restart(&mut self, sent: Option<&str>, writer: SpoolWriter) {
        *self = Body::new(sent, self.is_prompt, writer);
    }

    /// Whether the reply has begun: the echo was seen (or none was awaited). Enter alone has
    /// no echo to wait for; its whole reply must be blank lines and prompts.
    pub fn echoed(&self) -> bool {
        self.echo.as_deref().is_none_or(str::is_empty)
    }

    /// What came between the previous prompt and the echo, other than blank lines and prompts.
    pub fn stray(&self) -> &Stray {
        &self.stray
    }

    /// Takes bytes drained from the screen (finished lines, or a long line's start).
    pub fn push(&mut self, bytes: &[u8]) -> Result<(), SpoolError> {
        self.partial.extend_from_slice(bytes);
        let end = match memchr::memrchr(b'\n', &self.partial) {
            Some(i) => i + 1,
            // A line longer than any screen line: passed on unfinished.
            None if self.partial.len() > LONG_LINE => self.partial.len(),
            None => return Ok(()),
        };
        let lines: Vec<u8> = self.partial.drain(..end).collect();
        self.lines(&lines)
    }

    fn lines(&mut self, lines: &[u8]) -> Result<(), SpoolError> {
        let mut rest = lines;
        while let Some(sent) = &self.echo {
            if rest.is_empty() {
                return Ok(());
            }
            let end = memchr::memchr(b'\n', rest).map_or(rest.len(), |i| i + 1);
            let (line, after) = rest.split_at(end);
            rest = after;
            let text = String::from_utf8_lossy(line);
            let text = text.trim_end();
            if is_echo(text, sent, self.is_prompt) {
                self.echo = None;
            } else if !text.trim().is_empty() && !(self.is_prompt)(text) {
                self.stray.add(line);
            }
        }
        self.output(rest)
    }

    /// Writes `lines`, holding back a final line break.
    fn output(&mut self, lines: &[u8]) -> Result<(), SpoolError> {
        if lines.is_empty() {
            return Ok(());
        }
        if std::mem::take(&mut self.newline) {
            self.writer.write(b"\n")?;
        }
        let text = match lines.strip_suffix(b"\n") {
            Some(text) => {
                self.newline = true;
                text
            }
            None => lines,
        };
        self.writer.write(text)
    }

    /// The output, once the prompt ended the reply. A line the prompt interrupted is the
    /// prompt's line, which the screen keeps: never here.
    pub fn finish(mut self) -> Result<Output, SpoolError> {
        let partial = std::mem::take(&mut self.partial);
        if !partial.is_empty() {
            self.lines(&partial)?;
        }
        // The line break before the prompt belongs to the prompt.
        self.writer.finish()
    }
}

/// The echo of `sent`: the command alone on its line, or after the prompt drawn again. Enter
/// alone (`sent` empty) has none: every line of its reply is judged as before an echo.
pub fn is_echo(line: &str, sent: &str, is_prompt: IsPrompt<'_>) -> bool {
    if sent.is_empty() {
        return false;
    }
    let line = line.trim_end();
    let Some(before) = line.strip_suffix(sent) else {
        return false;
    };
    before.trim().is_empty() || is_prompt(before)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::screen::Reply;
    use premarket_core::Megabytes;
    use premarket_spool::{IN_MEMORY, SpoolDir};

    fn prompt(line: &str) -> bool {
        line.starts_with("sw1") && (line.ends_with('#') || line.ends_with('>'))
    }

    fn stream(chunks: &[&str], sent: Option<&str>) -> (String, Stray) {
        let writer = SpoolWriter::new(&SpoolDir::temporary(), Megabytes(64));
        let mut body = Body::new(sent, &prompt, writer);
        for chunk in chunks {
            body.push(chunk.as_bytes()).unwrap();
        }
        let stray = body.stray().clone();
        let output = body.finish().unwrap();
        let mut text = String::new();
        std::io::Read::read_to_string(&mut output.reader().unwrap(), &mut text).unwrap();
        (text, stray)
    }

    #[test]
    fn streams_as_a_whole_reply_splits() {
        let cases: &[(&[&str], Option<&str>)] = &[
            (&["show version\n", "Arista DCS\n"], Some("show version")),
            (&["show version\n"], Some("show version")),
            (&[], Some("show version")),
            (&["no echo\n"], Some("show version")),
            (&["\n", "sw1>show version\nArista\n"], Some("show version")),
            (
                &["sw1#\n", "show version\nArista\n\n"],
                Some("show version"),
            ),
            (&["a\n", "\n", "b\n"], None),
            (&["x show version y\n", "out\n"], Some("show version")),
            (
                &["late output\nsw1#show version\n", "out\n"],
                Some("show version"),
            ),
        ];
        for (chunks, sent) in cases {
            let whole = format!("{}sw1#", chunks.concat());
            let reply = Reply::split(&whole, *sent, &prompt);
            let (output, stray) = stream(chunks, *sent);
            assert_eq!(output, reply.output, "{chunks:?}");
            assert_eq!(stray.excerpt, reply.stray, "{chunks:?}");
        }
    }

    #[test]
    fn text_after_the_previous_prompt_is_stray_never_output() {
        let (output, stray) = stream(
            &[
                "\n",
                "no queue-monitor length\nend\n",
                "sw1#show version\nArista\n",
            ],
            Some("show version"),
        );
        assert_eq!(output, "Arista");
        assert_eq!(stray.excerpt, "no queue-monitor length\nend\n");
        assert_eq!(stray.bytes, "no queue-monitor length\nend\n".len());
        let (_, stray) = stream(&["\n", "sw1#\n", "show version\n"], Some("show version"));
        assert!(
            stray.is_empty(),
            "a prompt drawn again is not stray: {stray:?}"
        );
        // Enter alone: blank lines and prompts are its reply; anything else is stray.
        let (output, stray) = stream(&["\n", "sw1#\n", "\n"], Some(""));
        assert_eq!((output.as_str(), stray.bytes), ("", 0));
        let (output, stray) = stream(&["\n", "end\n", "sw1#\n", "\n"], Some(""));
        assert_eq!((output.as_str(), stray.excerpt.as_str()), ("", "end\n"));
    }

    /// A secret the device prints is output as printed: judged as read, masked only where
    /// text leaves premarket (a password that is an interface name must not hide the port).
    #[test]
    fn what_the_device_prints_is_kept_as_printed() {
        let (out, _) = stream(
            &["echo\n", "Ethernet2 is up\n", "microburst on Ethernet2\n"],
            Some("echo"),
        );
        assert_eq!(out, "Ethernet2 is up\nmicroburst on Ethernet2");
    }

    #[test]
    fn a_large_reply_spools_and_the_cap_stops_it() {
        let line = "session info: proto=17 proto_state=01 duration=12\n";
        let mut body = Body::new(
            Some("diagnose sys session list"),
            &prompt,
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
            &prompt,
            SpoolWriter::new(&SpoolDir::temporary(), Megabytes(1)),
        );
        let error = (0..)
            .find_map(|_| capped.push(line.as_bytes()).err())
            .unwrap();
        assert_eq!(error, SpoolError::Exceeded(Megabytes(1)));
    }
}
