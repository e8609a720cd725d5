//! A command's collected output as a parser reads it: whole, for the small outputs most commands
//! print, or line by line, for the ones that can be huge (a FortiGate session list).

use std::io::BufRead;

use super::ParseError;

/// The output of one command, handed to its parsers.
pub struct Raw<'a> {
    text: &'a str,
}

impl<'a> Raw<'a> {
    pub fn new(text: &'a str) -> Raw<'a> {
        Raw { text }
    }

    /// The whole output as text.
    pub fn text(&mut self) -> Result<&'a str, ParseError> {
        Ok(self.text)
    }

    /// The output as a stream of bytes, for parsers that keep only what they need.
    pub fn reader(&mut self) -> Box<dyn BufRead + 'a> {
        Box::new(self.text.as_bytes())
    }
}
