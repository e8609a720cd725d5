//! Which command each byte the device sends belongs to: the driver's bookkeeping for the rule
//! that a prompt ends an output only if nothing but the echo of the next line follows it.
//!
//! Between a prompt and the next echo the device may only draw its prompt again or print blank
//! lines. Anything else means that prompt was printed inside the output (a banner line holding
//! the prompt, then a pause), so the command it seemed to end is an ERROR "the device printed
//! after its prompt: output out of step", with what came after; when that line was not a
//! planned command (a setting, a context line) the session stops, as the device's state is no
//! longer known. The last line of a session is followed by Enter alone, whose reply must be
//! the prompt alone: the same rule for the last output. So every byte the device sends is in
//! one command's output or makes a command ERROR.

use super::body::Stray;
use premarket_core::CollectError;

#[derive(Debug, Default)]
pub(super) struct Framing {
    /// The line whose reply the last read took, as shown.
    last_line: String,
    /// The planned command whose output the last read was.
    answered: Option<usize>,
    /// Commands found out of step after their output was taken.
    late: Vec<(usize, CollectError)>,
}

impl Framing {
    /// A read begins: what it finds before its echo follows the prompt of the command returned.
    pub(super) fn begin(&mut self) -> Option<usize> {
        self.answered.take()
    }

    /// The last read was the output of planned command `i`.
    pub(super) fn answer(&mut self, i: usize) {
        self.answered = Some(i);
    }

    /// The last read took the reply to `line`.
    pub(super) fn read(&mut self, line: &str) {
        self.last_line = line.to_string();
    }

    /// Judges what came after the prompt of `previous` and before the reply to `next`: nothing
    /// is in step; anything else makes `previous` an ERROR, or is the session's error when the
    /// last line was not a planned command.
    pub(super) fn judge(
        &mut self,
        previous: Option<usize>,
        stray: &Stray,
        next: &str,
    ) -> Result<(), CollectError> {
        if stray.is_empty() {
            return Ok(());
        }
        let next = if next.is_empty() {
            "an empty line".to_string()
        } else {
            format!("`{next}`")
        };
        let error = CollectError::Other(format!(
            "`{}`: the device printed after its prompt: output out of step ({} bytes came after the prompt that seemed to end it, before the reply to {next}: {:?}); that prompt was inside the output, so the output is not judged on part of it",
            self.last_line,
            stray.bytes,
            stray.excerpt.trim_end()
        ));
        match previous {
            Some(i) if self.late.iter().any(|(j, _)| *j == i) => Ok(()),
            Some(i) => {
                self.late.push((i, error));
                Ok(())
            }
            None => Err(error),
        }
    }

    /// The commands found out of step, with their errors.
    pub(super) fn take_late(&mut self) -> Vec<(usize, CollectError)> {
        std::mem::take(&mut self.late)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stray_text_errs_the_command_it_followed_once_or_the_session() {
        let mut framing = Framing::default();
        let stray = Stray {
            excerpt: "no queue-monitor length\n".into(),
            bytes: 24,
        };
        framing.read("show startup-config");
        framing.answer(3);
        let previous = framing.begin();
        assert_eq!(framing.begin(), None);
        assert!(framing.judge(previous, &stray, "show version").is_ok());
        assert!(framing.judge(previous, &stray, "").is_ok());
        let late = framing.take_late();
        assert_eq!(late.len(), 1, "{late:?}");
        let (i, e) = &late[0];
        assert_eq!(*i, 3);
        let e = e.to_string();
        assert!(
            e.starts_with("`show startup-config`: the device printed after its prompt: output out of step (24 bytes")
                && e.contains("before the reply to `show version`: \"no queue-monitor length\")"),
            "{e}"
        );
        framing.read("terminal length 0");
        let e = framing.judge(None, &stray, "").unwrap_err().to_string();
        assert!(
            e.starts_with("`terminal length 0`: the device printed after its prompt"),
            "{e}"
        );
        assert!(e.contains("before the reply to an empty line"), "{e}");
        assert!(framing.judge(None, &Stray::default(), "x").is_ok());
    }
}
