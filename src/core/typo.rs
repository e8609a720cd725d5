//! What to offer when a name matches nothing: the closest known name by edit distance, when it
//! is close enough to be a typo (`did you mean eos.lanz.persisted?`). Check ids, device names,
//! tags and acknowledgements all name things a person types.

/// The closest of `known` to `given`, when it is close enough to be a typo (a third of the
/// longer word's length, at least two edits).
pub fn closest<'a>(given: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    known
        .into_iter()
        .map(|k| (distance(given, k), k))
        .filter(|(d, k)| *d <= (given.len().max(k.len()) / 3).max(2))
        .min_by_key(|(d, k)| (*d, *k))
        .map(|(_, k)| k)
}

/// Levenshtein distance over characters.
pub fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (diagonal + usize::from(ca != *cb))
                .min(above + 1)
                .min(row[j] + 1);
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_closest_name_is_offered_when_it_is_close() {
        let ids = [
            "eos.lanz.persisted",
            "eos.lanz.running",
            "fortigate.ha.state",
        ];
        assert_eq!(distance("kitten", "sitting"), 3);
        assert_eq!(distance("", "abc"), 3);
        assert_eq!(
            closest("eos.lanz.persistd", ids),
            Some("eos.lanz.persisted")
        );
        assert_eq!(
            closest("eos.lans.persisted", ids),
            Some("eos.lanz.persisted")
        );
        assert_eq!(closest("eos.nothing.here", ids), None);
        assert_eq!(closest("sw9", ["fw1", "sw1"]), Some("sw1"));
        assert_eq!(closest("core7", ["fw1", "sw1"]), None);
    }
}
