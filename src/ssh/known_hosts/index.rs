//! A known_hosts file read once for a whole run. Reading the file line by line for each device
//! made a run quadratic in the fleet: a thousand devices listed in a thousand-line file cost a
//! million line reads. The index files each line under the literal names its host field lists
//! (lowercased); a line OpenSSH matches some other way (a hashed name, a `*`/`?` glob, a
//! `!negation`, a field that cannot be read) is consulted for every name. Each consulted line
//! is then judged by the same code as [`super::entries`], in file order, so the answer (and
//! the first error) is the one a full read gives.

use std::collections::HashMap;
use std::ops::Range;

use super::{Entry, Error, Listed, entry_at, listed_by, split_line};

/// OpenSSH gives up on a whole pattern list at a pattern this long (`match_pattern_list`):
/// such a line is left to the full judgement.
const LONGEST_PATTERN: usize = 1023;

#[derive(Debug)]
pub struct Index {
    text: Vec<u8>,
    /// Each line's bytes in `text`, by 0-based line number.
    lines: Vec<Range<usize>>,
    /// Lowercased literal name -> the lines that list it, in file order.
    by_name: HashMap<Vec<u8>, Vec<usize>>,
    /// Lines consulted for every name, in file order.
    everywhere: Vec<usize>,
}

impl Index {
    pub fn new(text: Vec<u8>) -> Index {
        let mut lines = Vec::new();
        let mut start = 0;
        for raw in text.split(|&b| b == b'\n') {
            lines.push(start..start + raw.len());
            start += raw.len() + 1;
        }
        let mut by_name: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        let mut everywhere = Vec::new();
        for (number, range) in lines.iter().enumerate() {
            let raw = text.get(range.clone()).unwrap_or_default();
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let Some(fields) = split_line(raw) else {
                continue;
            };
            match fields.hosts.and_then(literal_names) {
                Some(names) => {
                    for name in names {
                        let listed = by_name.entry(name).or_default();
                        // `a,a` files the line once.
                        if listed.last() != Some(&number) {
                            listed.push(number);
                        }
                    }
                }
                None => everywhere.push(number),
            }
        }
        Index {
            text,
            lines,
            by_name,
            everywhere,
        }
    }

    /// The entries that name `name`, in file order (as [`super::entries`] over the file).
    pub fn entries(&self, name: &str) -> Result<Vec<Entry>, Error> {
        let listed = self
            .by_name
            .get(name.to_ascii_lowercase().as_bytes())
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut consulted: Vec<usize> = listed.iter().chain(&self.everywhere).copied().collect();
        consulted.sort_unstable();
        let mut found = Vec::new();
        for number in consulted {
            let range = self.lines.get(number).cloned().unwrap_or_default();
            let raw = self.text.get(range).unwrap_or_default();
            found.extend(entry_at(number + 1, raw, name)?);
        }
        Ok(found)
    }

    /// What the file lists for `host` on `port` (as [`super::listed`]).
    pub fn listed(&self, host: &str, port: u16) -> Result<Listed, Error> {
        listed_by(|name| self.entries(name), host, port)
    }
}

/// The names a host field lists when every pattern is a plain name (no hash, glob or negation),
/// lowercased as OpenSSH compares them; `None` otherwise.
fn literal_names(hosts: &[u8]) -> Option<Vec<Vec<u8>>> {
    if hosts.starts_with(b"|") {
        return None;
    }
    // A trailing comma ends the list, as in `pattern_list_matches`.
    let list = hosts.strip_suffix(b",").unwrap_or(hosts);
    list.split(|&b| b == b',')
        .map(|pattern| {
            let plain = pattern.len() < LONGEST_PATTERN
                && !pattern.iter().any(|b| matches!(b, b'*' | b'?' | b'!'));
            plain.then(|| pattern.to_ascii_lowercase())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::entries;
    use super::super::test_keys::*;
    use super::*;

    /// Every kind of line a site's file holds, and lines that are broken.
    fn file() -> String {
        [
            format!("sw1.example {A}"),
            format!("# comment naming sw1.example {B}"),
            String::new(),
            format!("FW1.Example,10.0.0.1 {A}"),
            format!("[10.0.0.1]:2222 {E}"),
            format!("{HASHED_SW1} {B}"),
            format!("*.example,!sw9.example {E}"),
            format!("sw?.example {B}"),
            format!("@revoked sw2.example {A}"),
            format!("@cert-authority *.example {B}"),
            "sw3.example ssh-ed25519 not-base64".to_string(),
            format!("sw1.example,sw1.example {E}\r"),
            format!("\t sw4.example\t{A} comment"),
            format!("sw5.example, {A}"),
        ]
        .join("\n")
    }

    #[test]
    fn the_index_answers_as_reading_the_whole_file_does() {
        // A marked line whose hash cannot be read may be any host's: an error for every name.
        let broken = format!("{}\n@revoked |1|bad|hash {A}", file());
        for text in [file(), broken] {
            same_answers(&text);
        }
        let index = Index::new(file().into_bytes());
        // The table reaches every branch: entries found, none, and an error.
        let found = |name| index.entries(name).map(|e| e.len());
        assert_eq!(
            found("fw1.example"),
            Ok(3),
            "literal, @cert-authority and glob"
        );
        assert_eq!(found("nobody.else"), Ok(0));
        assert!(found("sw3.example").is_err(), "its key cannot be read");
    }

    fn same_answers(text: &str) {
        let index = Index::new(text.as_bytes().to_vec());
        let names = [
            "sw1.example",
            "SW1.example",
            "fw1.example",
            "10.0.0.1",
            "[10.0.0.1]:2222",
            "sw2.example",
            "sw3.example",
            "sw4.example",
            "sw5.example",
            "sw9.example",
            "nobody.else",
            "",
        ];
        for name in names {
            let whole = entries(text.as_bytes(), name);
            let indexed = index.entries(name);
            assert_eq!(indexed, whole, "{name}");
        }
    }

    #[test]
    fn only_plain_names_are_filed_by_name() {
        assert_eq!(
            literal_names(b"A.example,10.0.0.1,"),
            Some(vec![b"a.example".to_vec(), b"10.0.0.1".to_vec()])
        );
        for consulted_everywhere in [
            &b"|1|salt|hash"[..],
            b"*.example",
            b"sw?.example",
            b"a.example,!b.example",
        ] {
            assert_eq!(literal_names(consulted_everywhere), None);
        }
    }
}
