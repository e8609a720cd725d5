//! The one FortiOS `key=value` tokenizer every parser shares.
//!
//! FortiOS prints diagnostics as words separated by spaces, many of them `key=value`, sometimes
//! with a trailing comma (`offload=9/9,`), sometimes spaced (`rpdb_link_id = 00000000`). It works
//! on bytes so the streaming session-list parser can use it without decoding text; `\r` and
//! backspaces (pager remnants) count as white space.
//!
//! Numbers are read strictly: a value a parser keeps is either what the box printed or an
//! error ([`counter`], [`percent`]); a sign, `NaN` or an overflow never becomes "not printed".

use premarket_parse::text::quote;

/// Whether `b` separates words: space and every control byte (tab, CR, LF, backspace ...).
#[inline]
pub fn is_space(b: u8) -> bool {
    b <= b' '
}

/// The white-space separated words of `line`.
#[inline]
pub fn words(line: &[u8]) -> Words<'_> {
    Words { rest: line }
}

/// Iterator of [`words`]. The session-list benchmark's hot path: word ends are found eight
/// bytes at a time.
pub struct Words<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for Words<'a> {
    type Item = &'a [u8];

    #[inline]
    fn next(&mut self) -> Option<&'a [u8]> {
        let start = self.rest.iter().position(|b| !is_space(*b))?;
        let rest = &self.rest[start..];
        let end = word_end(rest);
        self.rest = &rest[end..];
        Some(&rest[..end])
    }
}

/// The words of several lines, each with whether a line break came before it (the streaming
/// session-list parser reads a whole buffer at once instead of line by line).
#[inline]
pub fn words_by_line(text: &[u8]) -> LineWords<'_> {
    LineWords { rest: text }
}

/// Iterator of [`words_by_line`].
pub struct LineWords<'a> {
    rest: &'a [u8],
}

impl<'a> Iterator for LineWords<'a> {
    type Item = (&'a [u8], bool);

    #[inline]
    fn next(&mut self) -> Option<(&'a [u8], bool)> {
        let mut start = 0;
        let mut newline = false;
        while let Some(&b) = self.rest.get(start) {
            if !is_space(b) {
                break;
            }
            newline |= b == b'\n';
            start += 1;
        }
        if start == self.rest.len() {
            self.rest = &[];
            return None;
        }
        let rest = &self.rest[start..];
        let end = word_end(rest);
        self.rest = &rest[end..];
        Some((&rest[..end], newline))
    }
}

/// The first `byte` in a short `text`, eight bytes at a time (memchr's set-up costs more than
/// the search on words of a dozen bytes).
#[inline]
pub fn find(text: &[u8], byte: u8) -> Option<usize> {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let pattern = ONES * u64::from(byte);
    let mut at = 0;
    while let Some(chunk) = text.get(at..at + 8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let v = u64::from_le_bytes(bytes) ^ pattern;
        // A high bit where a byte is zero (equal to `byte`); the lowest one is exact.
        let zero = v.wrapping_sub(ONES) & !v & HIGH;
        if zero != 0 {
            return Some(at + (zero.trailing_zeros() / 8) as usize);
        }
        at += 8;
    }
    text[at..].iter().position(|b| *b == byte).map(|i| at + i)
}

/// The index of the first byte `<= b' '` in `text` (its length when none).
#[inline]
fn word_end(text: &[u8]) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut at = 0;
    while let Some(chunk) = text.get(at..at + 8) {
        let mut bytes = [0u8; 8];
        bytes.copy_from_slice(chunk);
        let x = u64::from_le_bytes(bytes);
        // A high bit for each byte below 0x21. Borrows can only mark bytes after the first
        // real one, so the lowest mark is exact.
        let below = x.wrapping_sub(ONES * 0x21) & !x & HIGH;
        if below != 0 {
            return at + (below.trailing_zeros() / 8) as usize;
        }
        at += 8;
    }
    at + text[at..]
        .iter()
        .position(|b| is_space(*b))
        .unwrap_or(text.len() - at)
}

/// `key=value` split at the first `=`; a trailing `,` is dropped from the value.
#[inline]
pub fn split(word: &[u8]) -> Option<(&[u8], &[u8])> {
    let at = find(word, b'=')?;
    let value = &word[at + 1..];
    Some((&word[..at], value.strip_suffix(b",").unwrap_or(value)))
}

/// Every `key=value` of a text line, including the spaced `key = value` form. Words without
/// `=` are skipped.
pub fn pairs(line: &str) -> Vec<(&str, &str)> {
    let words: Vec<&str> = line
        .split(|c: char| c.is_whitespace() || c == '\u{8}')
        .filter(|w| !w.is_empty())
        .collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < words.len() {
        if words.get(i + 1) == Some(&"=") {
            if let Some(value) = words.get(i + 2) {
                out.push((words[i], value.trim_end_matches(',')));
            }
            i += 3;
            continue;
        }
        if let Some((key, value)) = words[i].split_once('=')
            && !key.is_empty()
        {
            out.push((key, value.trim_end_matches(',')));
        }
        i += 1;
    }
    out
}

/// The value of `key` in `line`, if present.
pub fn get<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    pairs(line)
        .into_iter()
        .find(|(k, _)| *k == key)
        .map(|(_, v)| v)
}

/// A decimal number from ASCII digits (no sign, no spaces); `None` on anything else or overflow.
#[inline]
pub fn number(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let mut n: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        n = n * 10 + u64::from(d - b'0');
    }
    Some(n)
}

/// A hexadecimal number with or without `0x` (`0x4000c00`, `00000000`).
#[inline]
pub fn hex(text: &[u8]) -> Option<u64> {
    let digits = text
        .strip_prefix(b"0x")
        .or_else(|| text.strip_prefix(b"0X"))
        .unwrap_or(text);
    if digits.is_empty() || digits.len() > 16 {
        return None;
    }
    let mut n: u64 = 0;
    for &d in digits {
        let v = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        n = (n << 4) | u64::from(v);
    }
    Some(n)
}

/// `a/b` as two numbers (`offload=9/9`, `ephemeral=0/131062`).
#[inline]
pub fn pair(text: &[u8]) -> Option<(u64, u64)> {
    let at = memchr::memchr(b'/', text)?;
    Some((number(&text[..at])?, number(&text[at + 1..])?))
}

/// `a/b/c` (`org=1406688/22871/1`): the second number (packets in the statistic line).
#[inline]
pub fn middle(text: &[u8]) -> Option<u64> {
    let mut parts = text.split(|b| *b == b'/');
    let _first = parts.next()?;
    number(parts.next()?)
}

/// A decimal number from text, ignoring a trailing `%` or `,`.
pub fn num(text: &str) -> Option<u64> {
    number(text.trim().trim_end_matches([',', '%']).as_bytes())
}

/// A counter as printed (`30`, `30,`): digits only and within `u64`, else why not (a sign, a
/// fraction or an overflow is never a real counter).
pub fn counter(text: &str) -> Result<u64, NotACounter> {
    num(text).ok_or_else(|| NotACounter(text.to_string()))
}

/// A value where FortiOS prints a counter, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} is not a counter", quote(.0))]
pub struct NotACounter(pub String);

/// A value where FortiOS prints a share, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} is not a percentage from 0 to 100", quote(.0))]
pub struct NotAPercent(pub String);

/// A share as printed (`47.4`, `47.4%`): a finite number from 0 to 100, else why not.
pub fn percent(text: &str) -> Result<f64, NotAPercent> {
    let digits = text.trim().trim_end_matches([',', '%']);
    // `parse::<f64>` also reads `NaN`, `inf` and `1e2`: only plain decimals are FortiOS's.
    let plain = !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit() || b == b'.')
        && digits.bytes().filter(|b| *b == b'.').count() <= 1;
    match digits.parse::<f64>() {
        // Rounded so the fact's JSON reads back to the same number (FortiOS prints at most one
        // decimal; a longer one is kept to 0.0001).
        Ok(p) if plain && (0.0..=100.0).contains(&p) => Ok((p * 1e4).round() / 1e4),
        _ => Err(NotAPercent(text.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens() {
        let line = "npu info: flag=0x81/0x81, offload=9/9, ips_offload=0/0,  rpdb_link_id = 00000000 helper=";
        assert_eq!(
            pairs(line),
            vec![
                ("flag", "0x81/0x81"),
                ("offload", "9/9"),
                ("ips_offload", "0/0"),
                ("rpdb_link_id", "00000000"),
                ("helper", "")
            ]
        );
        assert_eq!(get("misc=0 policy_id=4 vd=0", "policy_id"), Some("4"));
        let w: Vec<&[u8]> = words(b" a\tb\r\x08c  ").collect();
        assert_eq!(w, vec![&b"a"[..], b"b", b"c"]);
        let long: Vec<&[u8]> = words("npu_state=0x4000c00\tofld-O  statistic(bytes/packets/allow_err):\x08org=1/2/3 \u{e9}t\u{e9}=1".as_bytes()).collect();
        assert_eq!(long.len(), 5);
        assert_eq!(long[2], b"statistic(bytes/packets/allow_err):");
        assert_eq!(long[4], "\u{e9}t\u{e9}=1".as_bytes());
        let lines: Vec<(&[u8], bool)> = words_by_line(b"a b\r\n c\n\nd ").collect();
        assert_eq!(
            lines,
            vec![
                (&b"a"[..], false),
                (b"b", false),
                (b"c", true),
                (b"d", true)
            ]
        );
        assert_eq!(split(b"offload=8/8,"), Some((&b"offload"[..], &b"8/8"[..])));
    }

    #[test]
    fn find_matches_position() {
        let texts: [&[u8]; 6] = [
            b"",
            b"=",
            b"abc",
            b"policy_id=4",
            b"0123456789abcdef=x",
            "\u{e9}\u{e9}\u{e9}\u{e9}=".as_bytes(),
        ];
        for text in texts {
            for byte in [b'=', b'a', b'x', 0xa9] {
                assert_eq!(
                    find(text, byte),
                    text.iter().position(|b| *b == byte),
                    "{text:?} {byte}"
                );
            }
        }
    }

    #[test]
    fn numbers() {
        assert_eq!(number(b"4294967295"), Some(4_294_967_295));
        assert_eq!(number(b"12a"), None);
        assert_eq!(number(b"99999999999999999999"), None);
        assert_eq!(hex(b"0x4000c00"), Some(0x400_0c00));
        assert_eq!(hex(b"00000000"), Some(0));
        assert_eq!(hex(b"0x"), None);
        assert_eq!(pair(b"0/131062"), Some((0, 131_062)));
        assert_eq!(middle(b"1406688/22871/1"), Some(22_871));
        assert_eq!(num("47%"), Some(47));
        assert_eq!(counter("30,"), Ok(30));
        for bad in ["-1", "1.5", "99999999999999999999", "", "x"] {
            assert!(counter(bad).is_err(), "{bad}");
        }
        assert_eq!(percent("47.4%"), Ok(47.4));
        assert_eq!(percent("100"), Ok(100.0));
        for bad in [
            "101", "NaN", "nan%", "inf", "-1", "1e2", "", "4.4.4", "50%%x",
        ] {
            assert!(percent(bad).is_err(), "{bad}");
        }
    }
}
