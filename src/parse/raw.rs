//! A command's collected output as a parser reads it: whole, for the small outputs most commands
//! print, or as a stream, for the ones that can be huge (a FortiGate session list). A spooled
//! output is never held whole: [`Raw::reader`] streams it from disk, and [`Raw::text`] reads at
//! most [`TEXT_LIMIT`] of it, which no command read as a whole ever prints.

use std::io::{self, BufRead, Read};

use super::ParseError;
use premarket_core::Output;

/// The most a parser that reads an output whole is given. Every such command prints far less;
/// more is a device gone wrong, not an output to parse.
pub const TEXT_LIMIT: usize = 64 << 20;

/// The output of one command, handed to its parsers.
pub struct Raw<'a> {
    source: Source<'a>,
    /// A spooled output read whole by [`Raw::text`].
    loaded: Option<String>,
}

enum Source<'a> {
    Text(&'a str),
    Output(&'a Output),
}

impl<'a> Raw<'a> {
    pub fn new(text: &'a str) -> Raw<'a> {
        Raw {
            source: Source::Text(text),
            loaded: None,
        }
    }

    /// A collected output, in memory or spooled.
    pub fn output(output: &'a Output) -> Raw<'a> {
        match output {
            Output::Text(text) => Raw::new(text),
            Output::Spooled(_) => Raw {
                source: Source::Output(output),
                loaded: None,
            },
        }
    }

    /// The whole output as text; an error for a spooled output larger than [`TEXT_LIMIT`].
    pub fn text(&mut self) -> Result<&str, ParseError> {
        let output = match self.source {
            Source::Text(text) => return Ok(text),
            Source::Output(output) => output,
        };
        if self.loaded.is_none() {
            self.loaded = Some(load(output)?);
        }
        Ok(self.loaded.as_deref().unwrap_or_default())
    }

    /// The output as a stream of bytes, for parsers that keep only what they need. A spooled
    /// output that cannot be read gives its error on the first read.
    pub fn reader(&mut self) -> Box<dyn BufRead + 'a> {
        match self.source {
            Source::Text(text) => Box::new(text.as_bytes()),
            Source::Output(output) => match output.reader() {
                Ok(reader) => reader,
                Err(e) => Box::new(io::BufReader::new(Failing(Some(e)))),
            },
        }
    }
}

/// A spooled output read whole, up to [`TEXT_LIMIT`].
fn load(output: &Output) -> Result<String, ParseError> {
    let unreadable =
        |e: io::Error| ParseError::new(format!("cannot read the output: {e}"), output.head());
    let mut bytes = Vec::new();
    output
        .reader()
        .map_err(unreadable)?
        .take(TEXT_LIMIT as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(unreadable)?;
    if bytes.len() > TEXT_LIMIT {
        let size = output.size().map_or_else(
            || "more than 64 MB".to_string(),
            |s| format!("{} MB", s >> 20),
        );
        return Err(ParseError::new(
            format!(
                "the output is {size}, larger than this command ever prints (premarket reads at most {} MB of it)",
                TEXT_LIMIT >> 20
            ),
            output.head(),
        ));
    }
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// A reader that only reports why the output could not be opened.
struct Failing(Option<io::Error>);

impl Read for Failing {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        Err(self
            .0
            .take()
            .unwrap_or_else(|| io::Error::other("the output could not be opened")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use premarket_core::Megabytes;
    use premarket_spool::{IN_MEMORY, SpoolDir, SpoolWriter};

    fn spooled(line: &str, bytes: usize) -> Output {
        let mut writer = SpoolWriter::new(&SpoolDir::temporary(), Megabytes(1024));
        let mut written = 0;
        while written < bytes {
            writer.write(line.as_bytes()).unwrap();
            written += line.len();
        }
        writer.finish().unwrap()
    }

    #[test]
    fn a_spooled_output_streams_and_reads_whole_up_to_the_limit() {
        let output = spooled("total session 1\n", IN_MEMORY + 10);
        assert!(matches!(output, Output::Spooled(_)));
        let mut raw = Raw::output(&output);
        let lines = raw.reader().lines().count();
        assert_eq!(lines, IN_MEMORY / 16 + 1);
        let text = raw.text().unwrap();
        assert!(text.starts_with("total session 1\n") && text.len() > IN_MEMORY);
    }

    #[test]
    fn text_refuses_an_output_larger_than_any_command_prints() {
        let output = spooled(&format!("{}\n", "x".repeat(1023)), TEXT_LIMIT + 4096);
        let error = Raw::output(&output).text().unwrap_err();
        assert!(
            error
                .reason
                .contains("larger than this command ever prints"),
            "{}",
            error.reason
        );
        assert!(
            error.excerpt.starts_with("xxx"),
            "the excerpt is the output's start"
        );
    }
}
