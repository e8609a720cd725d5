//! Chunk-boundary property tests for the prompt/pager reader: SSH packets split device output
//! anywhere (inside an ANSI code, a `\r\n`, the pager text), and the text the reader produces,
//! the pager prompts it answers and the prompt it finds must not depend on where.

use premarket::core::Megabytes;
use premarket::spool::{SpoolDir, SpoolWriter};
use premarket::ssh::body::Body;
use premarket::ssh::screen::{Reply, Screen};
use proptest::prelude::*;

/// Pieces device output is made of, hostile ones included.
fn piece() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        "[ -~]{0,40}".prop_map(String::into_bytes),
        Just(b"\r\n".to_vec()),
        Just(b"\n".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\r\n".to_vec()),
        Just(b"\x08".to_vec()),
        Just(b" \x08".to_vec()),
        Just(b"\x1b[1;32m".to_vec()),
        Just(b"\x1b[0m".to_vec()),
        Just(b"\x1b[K".to_vec()),
        Just(b"\x1b]0;title\x07".to_vec()),
        Just(b"\x1b(B".to_vec()),
        Just(b"\r\n --More-- ".to_vec()),
        Just(b"\r\n--More-- \r          \r".to_vec()),
        Just(b"\x00\x07\x7f".to_vec()),
        proptest::collection::vec(any::<u8>(), 0..8),
    ]
}

fn stream() -> impl Strategy<Value = Vec<u8>> {
    proptest::collection::vec(piece(), 0..40).prop_map(|p| p.concat())
}

/// Feeds `bytes` split at `cuts`; returns the text, the pager prompts and the last line.
fn read(bytes: &[u8], cuts: &[usize]) -> (String, usize, Option<String>) {
    let mut screen = Screen::new("--More--");
    let mut pages = 0;
    let mut at = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    for cut in cuts.into_iter().chain(std::iter::once(bytes.len())) {
        pages += screen.feed(&bytes[at..cut.max(at)]);
        at = cut.max(at);
    }
    let last = screen.last_line();
    (screen.take(), pages, last)
}

/// The scripted prompt of these tests.
fn prompt(line: &str) -> bool {
    line == "sw1#"
}

/// Feeds `bytes` split at `cuts` as the shell reads them: after every packet the finished lines
/// leave the screen for the reply's body. Returns the body's output and the last line.
fn streamed(bytes: &[u8], cuts: &[usize], sent: Option<&str>) -> (String, Option<String>) {
    let mut screen = Screen::new("--More--");
    let writer = SpoolWriter::new(&SpoolDir::temporary(), Megabytes(16));
    let mut body = Body::new(sent, &prompt, writer);
    let mut drained = Vec::new();
    let mut at = 0;
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
    cuts.sort_unstable();
    for cut in cuts.into_iter().chain(std::iter::once(bytes.len())) {
        screen.feed(&bytes[at..cut.max(at)]);
        at = cut.max(at);
        screen.drain_into(&mut drained);
        body.push(&drained).expect("within the cap");
        drained.clear();
    }
    let last = screen.last_line();
    let output = body.finish().expect("within the cap");
    (output.text().expect("small").to_string(), last)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_chunking_gives_the_same_text_pages_and_prompt(bytes in stream(), cuts in proptest::collection::vec(any::<usize>(), 0..12)) {
        let whole = read(&bytes, &[]);
        let chunked = read(&bytes, &cuts);
        prop_assert_eq!(&whole, &chunked);
        let byte_by_byte: Vec<usize> = (0..bytes.len()).collect();
        prop_assert_eq!(&whole, &read(&bytes, &byte_by_byte));
    }

    #[test]
    fn streaming_a_reply_gives_what_splitting_it_whole_gives(
        bytes in stream(),
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
        echo in proptest::option::of(Just("show x")),
    ) {
        let mut bytes = bytes;
        if echo.is_some() {
            bytes.splice(0..0, b"show x\r\n".iter().copied());
        }
        let (text, _, last) = read(&bytes, &[]);
        let whole = Reply::split(&text, echo, &prompt);
        prop_assert_eq!(streamed(&bytes, &cuts, echo), (whole.output, last));
    }

    #[test]
    fn a_paged_reply_reads_the_same_however_it_is_split(
        lines in proptest::collection::vec("[a-z0-9 =:.]{0,30}", 1..30),
        page in 1usize..6,
        cuts in proptest::collection::vec(any::<usize>(), 0..12),
    ) {
        // What a device sends for `show x` with a pager every `page` lines, ending at the prompt.
        let mut raw = b"show x\r\n".to_vec();
        for (i, line) in lines.iter().enumerate() {
            if i > 0 && i % page == 0 {
                raw.extend_from_slice(b" --More-- \r          \r");
            }
            raw.extend_from_slice(line.as_bytes());
            raw.extend_from_slice(b"\r\n");
        }
        raw.extend_from_slice(b"sw1#");
        let (text, pages, last) = read(&raw, &cuts);
        prop_assert_eq!(pages, (lines.len() - 1) / page);
        prop_assert_eq!(last.as_deref(), Some("sw1#"));
        let reply = Reply::split(&text, Some("show x"), &prompt);
        prop_assert_eq!(streamed(&raw, &cuts, Some("show x")), (reply.output.clone(), last.clone()));
        // A line of blanks reads as empty (devices erase the pager line with blanks).
        let expected: Vec<&str> = lines.iter().map(|l| if l.trim().is_empty() { "" } else { l.as_str() }).collect();
        prop_assert_eq!(reply.output, expected.join("\n"));
        prop_assert_eq!(reply.prompt, "sw1#");
    }
}
