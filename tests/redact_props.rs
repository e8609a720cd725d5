//! The redactor holds whatever a device does with the bytes. A secret is split at every
//! position (and once more at a random one), the pieces joined by line breaks, indentation and
//! control characters, after a line whose length runs up to and beyond the body's 64 KiB
//! buffer, and fed in random packets. The SSH byte path (screen, then body) keeps the output as
//! the device printed it, to be judged as read; what a reader would see of what leaves
//! premarket never holds the secret: the report's redactor over that output, and over the same
//! raw text (the path of saved outputs, evidence, the archive and email).

use crate::ssh_common;

use std::io::Read;

use premarket::core::Megabytes;
use premarket::spool::{SpoolDir, SpoolWriter};
use premarket::ssh::body::Body;
use premarket::ssh::screen::Screen;
use proptest::prelude::*;
use ssh_common::reader_view;

/// The body's buffer: a line longer than this is passed on before it ends.
const BUFFER: usize = 64 << 10;

/// What a device may put between two pieces of a secret and a terminal shows as a break or
/// nothing at all.
fn separator() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("\r\n"),
        Just("\n"),
        Just("\r\r\n"),
        Just("\r\n    "),
        Just("\n\t"),
        Just("\x07"),
        Just("\x00"),
        Just("\x1b[1;31m"),
        Just("\r\n\x1b[0m  "),
    ]
}

/// The length of the line the secret starts on: short, or about the buffer, or beyond it.
fn line_length() -> impl Strategy<Value = usize> {
    prop_oneof![
        0usize..100,
        (BUFFER - 40)..(BUFFER + 40),
        (BUFFER + 1000)..(BUFFER + 6000),
    ]
}

struct Case {
    secret: String,
    /// The raw bytes the device sends, echo of `show x` first, prompt last.
    raw: Vec<u8>,
}

fn case(secret: &str, line: usize, cuts: [usize; 2], seps: [&str; 2]) -> Case {
    let mut raw = b"show x\r\n".to_vec();
    raw.extend(std::iter::repeat_n(b'x', line));
    let mut at = 0;
    for (cut, sep) in cuts.iter().zip(seps) {
        raw.extend_from_slice(&secret.as_bytes()[at..*cut]);
        raw.extend_from_slice(sep.as_bytes());
        at = *cut;
    }
    raw.extend_from_slice(&secret.as_bytes()[at..]);
    raw.extend_from_slice(b" tail\r\nlast line\r\nsw1#");
    Case {
        secret: secret.to_string(),
        raw,
    }
}

/// The SSH byte path: packets cut at `packets`, each fed to the screen, finished lines moved to
/// the body as the shell does. Returns the output and the prompt line, as printed.
fn ssh_path(case: &Case, packets: &[usize]) -> String {
    let mut screen = Screen::new("--More--");
    let writer = SpoolWriter::new(&SpoolDir::temporary(), Megabytes(16));
    let prompt = |line: &str| line == "sw1#";
    let mut body = Body::new(Some("show x"), &prompt, writer);
    let mut drained = Vec::new();
    let mut cuts: Vec<usize> = packets.iter().map(|c| c % (case.raw.len() + 1)).collect();
    cuts.sort_unstable();
    let mut at = 0;
    for cut in cuts.into_iter().chain([case.raw.len()]) {
        screen.feed(&case.raw[at..cut.max(at)]);
        at = cut.max(at);
        screen.drain_into(&mut drained);
        body.push(&drained).expect("within the cap");
        drained.clear();
    }
    let prompt = screen.take();
    let output = body.finish().expect("within the cap");
    let mut text = String::new();
    output
        .reader()
        .expect("readable")
        .read_to_string(&mut text)
        .expect("text");
    format!("{text}\n{prompt}")
}

/// The report's redactor over `text` (what offline outputs, evidence, the archive and email go
/// through), fed in pieces.
fn report_path(secret: &str, text: &[u8]) -> String {
    let mut redactor = premarket::report::redact::Redactor::default();
    redactor.add(secret);
    let mut stream = redactor.stream();
    let mut out = Vec::new();
    for piece in text.chunks(7) {
        stream.push(piece, &mut out);
        assert!(
            stream.held() <= stream.bound(),
            "held {} bytes",
            stream.held()
        );
    }
    stream.finish(&mut out);
    let streamed = String::from_utf8_lossy(&out).into_owned();
    assert_eq!(streamed, redactor.literals(&String::from_utf8_lossy(text)));
    streamed
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn a_secret_split_anywhere_over_any_packets_is_in_no_output(
        secret in "[!-~]{8,24}",
        line in line_length(),
        second in any::<usize>(),
        seps in (separator(), separator()),
        packets in proptest::collection::vec(any::<usize>(), 0..10),
    ) {
        for first in 1..secret.len() {
            // The second cut at or after the first: two or three pieces.
            let second = first + second % (secret.len() - first + 1);
            let case = case(&secret, line, [first, second], [seps.0, seps.1]);
            let ssh = report_path(&case.secret, ssh_path(&case, &packets).as_bytes());
            prop_assert!(
                !reader_view(&ssh).contains(&secret),
                "the SSH path leaked {:?} split at {} and {} with {:?}: ...{:?}",
                secret, first, second, seps, &ssh[ssh.len().saturating_sub(120)..]
            );
            prop_assert!(ssh.contains("last line"), "the output went on after the secret");
            let report = report_path(&case.secret, &case.raw);
            prop_assert!(
                !reader_view(&report).contains(&secret),
                "the report path leaked {:?} split at {} and {} with {:?}",
                secret, first, second, seps
            );
        }
    }
}
