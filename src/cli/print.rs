//! Printing to the terminal that never panics. `println!` and `eprintln!` panic when the reader
//! has gone (`premarket demo 2>&1 | head -2` closes both streams after two lines): the run
//! would end with exit 101 in the middle of its channels, and its own exit code would be lost.
//! Here a closed stream is not an error worth a word: the text is dropped and the run goes on
//! to its archive, its email and its exit code. The `clippy::print_stdout` and
//! `clippy::print_stderr` lints keep the panicking macros out of the command line.

use std::fmt;
use std::io::Write;

/// Writes to standard output; a closed pipe is ignored.
pub fn out(args: fmt::Arguments<'_>) {
    let mut stdout = std::io::stdout().lock();
    let _ = stdout.write_fmt(args).and_then(|()| stdout.flush());
}

/// Writes to standard error; a closed pipe is ignored.
pub fn err(args: fmt::Arguments<'_>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_fmt(args).and_then(|()| stderr.flush());
}

/// `println!` that never panics.
macro_rules! outln {
    () => {
        $crate::cli::print::out(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::print::out(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// `print!` that never panics.
macro_rules! out {
    ($($arg:tt)*) => {
        $crate::cli::print::out(format_args!($($arg)*))
    };
}

/// `eprintln!` that never panics.
macro_rules! errln {
    ($($arg:tt)*) => {
        $crate::cli::print::err(format_args!("{}\n", format_args!($($arg)*)))
    };
}
