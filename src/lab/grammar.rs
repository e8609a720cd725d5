//! Command words as network CLIs read them: every word may be abbreviated to a unique prefix
//! (`sh run`, `diag sys sess list`). A platform lists its commands as word patterns; the
//! matcher says which one a typed line is, or why none is.

/// One word of a pattern.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Word {
    /// A keyword, abbreviable.
    Key(&'static str),
    /// Any single word (a number, a name, an address).
    Arg,
    /// Any number of words, including none (must be last).
    Rest,
}

/// Outcome of matching a line against a table.
#[derive(Debug, PartialEq, Eq)]
pub enum Match<'a, T> {
    /// The command, with the words that filled `Arg`/`Rest` slots.
    Found(&'a T, Vec<String>),
    /// The words are a valid start of a longer command.
    Incomplete,
    /// More than one keyword starts with a typed word.
    Ambiguous,
    /// No command; the index of the first word that fits nothing.
    Invalid(usize),
}

/// Matches `words` against `(pattern, value)` rows.
pub fn find<'a, T>(table: &'a [(&[Word], T)], words: &[&str]) -> Match<'a, T> {
    let mut alive: Vec<usize> = (0..table.len()).collect();
    for (i, typed) in words.iter().enumerate() {
        let typed_lower = typed.to_ascii_lowercase();
        // Candidates still alive after this word, and whether an exact keyword hit exists.
        let fits = |row: usize| -> Option<bool> {
            let pattern = table[row].0;
            match pattern
                .get(i)
                .or_else(|| pattern.last().filter(|w| **w == Word::Rest))
            {
                Some(Word::Key(k)) => {
                    if *k == typed_lower {
                        Some(true)
                    } else if k.starts_with(typed_lower.as_str()) {
                        Some(false)
                    } else {
                        None
                    }
                }
                Some(Word::Arg) | Some(Word::Rest) => Some(true),
                None => None,
            }
        };
        let next: Vec<(usize, bool)> = alive
            .iter()
            .filter_map(|&r| fits(r).map(|exact| (r, exact)))
            .collect();
        if next.is_empty() {
            return Match::Invalid(i);
        }
        // An exact keyword beats abbreviations of longer keywords (`show run` vs `running-config`).
        let exact: Vec<usize> = next.iter().filter(|(_, e)| *e).map(|(r, _)| *r).collect();
        let keywords: std::collections::BTreeSet<&str> = next
            .iter()
            .filter_map(|(r, _)| match table[*r].0.get(i) {
                Some(Word::Key(k)) => Some(*k),
                _ => None,
            })
            .collect();
        alive = if !exact.is_empty() {
            exact
        } else if keywords.len() > 1 {
            return Match::Ambiguous;
        } else {
            next.into_iter().map(|(r, _)| r).collect()
        };
    }
    let complete = alive.iter().find(|&&r| {
        let p = table[r].0;
        p.len() == words.len() || (p.last() == Some(&Word::Rest) && words.len() + 1 >= p.len())
    });
    match complete {
        Some(&r) => {
            let args = table[r]
                .0
                .iter()
                .zip(words.iter())
                .filter(|(w, _)| !matches!(w, Word::Key(_)))
                .map(|(_, t)| t.to_string())
                .chain(if table[r].0.last() == Some(&Word::Rest) {
                    words
                        .iter()
                        .skip(table[r].0.len())
                        .map(|s| s.to_string())
                        .collect::<Vec<_>>()
                } else {
                    Vec::new()
                })
                .collect();
            Match::Found(&table[r].1, args)
        }
        None if words.is_empty() => Match::Incomplete,
        None => Match::Incomplete,
    }
}

#[cfg(test)]
mod tests {
    use super::Word::*;
    use super::*;

    #[test]
    fn abbreviations() {
        let table: Vec<(&[Word], u8)> = vec![
            (&[Key("show"), Key("version")], 1),
            (&[Key("show"), Key("running-config")], 2),
            (&[Key("show"), Key("running-config"), Key("diffs")], 3),
            (&[Key("show"), Key("startup-config")], 4),
            (&[Key("terminal"), Key("length"), Arg], 5),
            (&[Key("clear"), Rest], 6),
            (&[Key("show"), Key("vlan")], 7),
        ];
        let m = |s: &str| match find(&table, &s.split_whitespace().collect::<Vec<_>>()) {
            Match::Found(v, args) => format!("{v}{args:?}"),
            other => format!("{other:?}"),
        };
        assert_eq!(m("show version"), "1[]");
        assert_eq!(m("sh ver"), "1[]");
        assert_eq!(m("sh run"), "2[]");
        assert_eq!(m("sh run diffs"), "3[]");
        assert_eq!(m("sh st"), "4[]");
        assert_eq!(m("sh s"), "4[]");
        assert_eq!(m("sh v"), "Ambiguous");
        assert_eq!(m("show"), "Incomplete");
        assert_eq!(m("show bogus"), "Invalid(1)");
        assert_eq!(m("term len 0"), "5[\"0\"]");
        assert_eq!(m("clear counters all"), "6[\"counters\", \"all\"]");
        assert_eq!(m("clear"), "6[]");
    }
}
