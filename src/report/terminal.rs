//! The terminal channel: the report on standard output, as text for people or JSON for
//! scripts. A reader that goes away (`premarket run | head`) ends the output quietly: the
//! run's other channels and its exit code do not depend on who reads stdout.

use std::io::{IsTerminal, Write};

use super::channel::{BoxFuture, Channel, Context, Delivered};
use super::{Report, json, text};

/// How the report is printed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

/// Prints the report on standard output.
pub struct Terminal {
    pub format: Format,
}

impl Channel for Terminal {
    fn name(&self) -> &'static str {
        "terminal"
    }

    fn deliver<'a>(&'a self, report: &'a mut Report, ctx: &'a Context) -> BoxFuture<'a, Delivered> {
        Box::pin(async move {
            let shown = match self.format {
                Format::Json => json::render(report),
                Format::Text => text::render(
                    report,
                    ctx.tz,
                    text::use_colour(std::io::stdout().is_terminal()),
                ),
            };
            print_quietly(&shown);
            Delivered::default()
        })
    }
}

/// Writes to standard output; a closed pipe is not an error worth a word.
pub fn print_quietly(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(text.as_bytes()).and_then(|()| out.flush());
}
