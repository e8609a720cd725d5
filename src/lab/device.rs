//! What the SSH front end needs from an emulated device: a prompt, and an answer per typed
//! line. Each platform's CLI (`eos`, `fortigate`) implements [`Cli`] as a pure state
//! machine, so it can be unit-tested without SSH; the shell in `shell.rs` adds echo, pager,
//! delays and connection faults around it.

use std::sync::{Arc, Mutex};

/// What happens after an answer is printed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Print the prompt and read the next command.
    Prompt,
    /// Print this prompt (e.g. `Password: `) and read a line without echo for [`Cli::secret`].
    Secret(String),
    /// Close the session (`exit`, `logout`).
    Exit,
}

/// Output made piece by piece while it is written: a listing of 200,000 sessions never sits whole
/// in the lab's memory, and is made only as fast as the client reads it. Each piece is one or
/// more whole lines.
pub struct Stream(Box<dyn Iterator<Item = String> + Send>);

impl Stream {
    pub fn new(pieces: impl Iterator<Item = String> + Send + 'static) -> Self {
        Stream(Box::new(pieces))
    }

    /// Every piece joined.
    #[cfg(test)]
    pub fn collect_text(self) -> String {
        self.0.collect()
    }
}

impl Iterator for Stream {
    type Item = String;
    fn next(&mut self) -> Option<String> {
        self.0.next()
    }
}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stream(..)")
    }
}

/// The device's answer to one line.
#[derive(Debug)]
pub struct Answer {
    /// Output text, lines separated by `\n` (the shell turns them into `\r\n`).
    pub text: String,
    /// More output after `text`, made while it is written (huge listings).
    pub stream: Option<Stream>,
    pub next: Next,
    /// Page this output after this many lines (`--More--`); `None` = no pager.
    pub page: Option<usize>,
    /// A data command (show/get/diagnose) rather than session setup; faults such as `hang`
    /// and `drop` strike on these.
    pub data: bool,
}

impl Answer {
    pub fn text(text: impl Into<String>) -> Self {
        Answer {
            text: text.into(),
            stream: None,
            next: Next::Prompt,
            page: None,
            data: false,
        }
    }

    pub fn empty() -> Self {
        Answer::text("")
    }

    pub fn data(text: impl Into<String>, page: Option<usize>) -> Self {
        Answer {
            text: text.into(),
            stream: None,
            next: Next::Prompt,
            page,
            data: true,
        }
    }

    /// A data answer whose output is made while it is written.
    pub fn streamed(stream: Stream, page: Option<usize>) -> Self {
        Answer {
            stream: Some(stream),
            ..Answer::data(String::new(), page)
        }
    }

    /// The whole output as one string (unit tests).
    #[cfg(test)]
    pub fn full_text(self) -> String {
        let mut text = self.text;
        if let Some(stream) = self.stream {
            text.push_str(&stream.collect_text());
        }
        text
    }

    pub fn then(mut self, next: Next) -> Self {
        self.next = next;
        self
    }
}

/// One CLI session on an emulated device.
pub trait Cli: Send {
    /// Text shown once after login, before the first prompt.
    fn banner(&self) -> String;
    /// The prompt as the device prints it (`sw1>`, `fw1 # `).
    fn prompt(&self) -> String;
    /// Runs one typed line.
    fn run(&mut self, line: &str) -> Answer;
    /// The line typed at a [`Next::Secret`] prompt.
    fn secret(&mut self, line: &str) -> Answer;
    /// The terminal's height changed (PTY request or window change).
    fn set_rows(&mut self, rows: usize);
}

/// A command a lab device received that would change a real device (configuration, save,
/// reload, session clear, ...). The lab answers as the device would and records it, so tests
/// can assert that premarket never tried one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfigAttempt {
    pub device: String,
    pub command: String,
}

/// Every command each device received, and the config-changing ones, shared by all sessions.
#[derive(Clone, Debug, Default)]
pub struct Journal {
    inner: Arc<Mutex<JournalInner>>,
}

#[derive(Debug, Default)]
struct JournalInner {
    commands: Vec<(String, String)>,
    attempts: Vec<ConfigAttempt>,
}

impl Journal {
    pub fn command(&self, device: &str, line: &str) {
        if let Ok(mut j) = self.inner.lock() {
            j.commands.push((device.to_string(), line.to_string()));
        }
    }

    pub fn attempt(&self, device: &str, line: &str) {
        tracing::warn!(
            device,
            command = line,
            "lab: config-changing command attempted"
        );
        if let Ok(mut j) = self.inner.lock() {
            j.attempts.push(ConfigAttempt {
                device: device.to_string(),
                command: line.to_string(),
            });
        }
    }

    /// Commands received by `device`, in order.
    pub fn commands(&self, device: &str) -> Vec<String> {
        self.inner
            .lock()
            .map(|j| {
                j.commands
                    .iter()
                    .filter(|(d, _)| d == device)
                    .map(|(_, c)| c.clone())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Every config-changing command attempted on any device.
    pub fn attempts(&self) -> Vec<ConfigAttempt> {
        self.inner
            .lock()
            .map(|j| j.attempts.clone())
            .unwrap_or_default()
    }
}

/// Splits `show x | include y | no-more` into the command and its pipes.
pub fn split_pipes(line: &str) -> (String, Vec<String>) {
    let mut parts = line.split('|').map(str::trim);
    let command = parts
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    (command, parts.map(str::to_string).collect())
}

/// Keeps the lines of `text` that match `pattern` (or do not, with `invert`). An invalid
/// regular expression is matched literally.
pub fn grep(text: &str, pattern: &str, invert: bool, ignore_case: bool) -> String {
    let re = regex::RegexBuilder::new(pattern)
        .case_insensitive(ignore_case)
        .build()
        .or_else(|_| {
            regex::RegexBuilder::new(&regex::escape(pattern))
                .case_insensitive(ignore_case)
                .build()
        });
    let Ok(re) = re else { return text.to_string() };
    let mut out = String::new();
    for line in text.lines() {
        if re.is_match(line) != invert {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pipes_and_grep() {
        let (c, p) = split_pipes("show  version |  json ");
        assert_eq!((c.as_str(), p), ("show version", vec!["json".to_string()]));
        assert_eq!(grep("a\n\nb x\n", ".", false, false), "a\nb x\n");
        assert_eq!(grep("a\nB\n", "b", true, true), "a\n");
        assert_eq!(grep("a(\nb\n", "a(", false, false), "a(\n");
    }

    #[test]
    fn journal() {
        let j = Journal::default();
        j.command("fw1", "get system status");
        j.attempt("fw1", "diagnose sys session clear");
        assert_eq!(j.commands("fw1"), vec!["get system status"]);
        assert!(j.commands("sw1").is_empty());
        assert_eq!(j.attempts().len(), 1);
    }
}
