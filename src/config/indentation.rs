//! A key at the wrong depth, found from the indentation of the lines around where the YAML
//! parser stopped. The parser says "mapping values are not allowed in this context" or "did
//! not find expected key", and often one line below the key that is wrong: a key pulled out of
//! its block ends that block, and the next line, still indented for the block, no longer reads.
//! Here the line that breaks the indentation is named, with the keys it is written under, so
//! that the mistake is reported on its own line (and a stage that knows the baseline's keys can
//! say where it belongs), and the file is read on without it.

/// One line that holds something (not blank, not only a comment).
struct Line<'a> {
    /// 1-based.
    number: usize,
    indent: usize,
    /// Without its indentation and a trailing comment.
    text: &'a str,
}

impl Line<'_> {
    /// `key` of `key: value` or `key:` (not of a list item).
    fn key(&self) -> Option<&str> {
        if self.text.starts_with('-') {
            return None;
        }
        let (key, _) = split(self.text)?;
        Some(key)
    }

    /// Whether the lines indented under it are its children: `key:` with nothing after it, or
    /// a list item (`- ` starts a value of its own).
    fn opens_block(&self) -> bool {
        let item = self.text.strip_prefix('-').map(str::trim_start);
        match item.unwrap_or(self.text) {
            "" => true,
            text => split(text).is_some_and(|(_, value)| value.is_empty()) || item.is_some(),
        }
    }
}

/// `key: value` split at its first `: ` (or final `:`), the value without a comment.
fn split(text: &str) -> Option<(&str, &str)> {
    let colon = text
        .char_indices()
        .find(|&(i, c)| c == ':' && text[i + 1..].chars().next().is_none_or(|n| n == ' '))?
        .0;
    let value = text[colon + 1..].trim();
    let value = value.split(" #").next().unwrap_or(value).trim();
    Some((text[..colon].trim(), value))
}

fn lines(text: &str) -> Vec<Line<'_>> {
    text.lines()
        .enumerate()
        .filter_map(|(i, raw)| {
            let text = raw.trim_start();
            if text.is_empty() || text.starts_with('#') {
                return None;
            }
            Some(Line {
                number: i + 1,
                indent: raw.len() - text.len(),
                text: text.trim_end(),
            })
        })
        .collect()
}

/// A key written at the wrong depth.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Misplaced {
    /// Where the key is (1-based line and column).
    pub line: usize,
    pub column: usize,
    pub key: String,
    /// The keys it is written under, dotted (`expect`); empty at the top.
    pub under: String,
    /// What is wrong, in words.
    pub message: String,
    /// The lines to leave out to read the rest: the key's, and its children's when it has any.
    pub lines: Vec<usize>,
}

/// The key at the wrong depth that made the parser stop at line `stopped_at`, if the
/// indentation there shows one.
pub(crate) fn misplaced(text: &str, stopped_at: usize) -> Option<Misplaced> {
    let lines = lines(text);
    let e = lines.iter().rposition(|l| l.number <= stopped_at)?;
    let (at, before) = (&lines[e], lines.get(e.checked_sub(1)?)?);
    // The depths open where the line is: each enclosing block's, and a list item's own.
    let mut open = vec![0];
    for line in &lines[..e] {
        while open.len() > 1 && open.last().is_some_and(|&top| top > line.indent) {
            open.pop();
        }
        if open.last().is_some_and(|&top| line.indent > top) {
            open.push(line.indent);
        }
        if line.text.starts_with("- ") {
            open.push(line.indent + 2);
        }
    }
    let top = open.last().copied().unwrap_or(0);
    let fits = if at.indent > top {
        before.opens_block()
    } else {
        open.contains(&at.indent)
    };
    if fits {
        return None;
    }
    let neighbours = e.checked_sub(2).map(|i| &lines[i]);
    let (wrong, message) = match neighbours {
        // Deeper than a line that holds a value, and as deep as the line above that one: the
        // line between was pulled out of the block they share.
        Some(n) if at.indent > top && n.indent == at.indent && before.indent < at.indent => {
            let key = before.key()?;
            let block = path(&lines, e - 2);
            (
                e - 1,
                format!(
                    "`{key}` is at the wrong depth: it is written under `{}`, between keys of \
                     `{}` (the next line no longer reads)",
                    or_top(&path(&lines, e - 1)),
                    or_top(&block),
                ),
            )
        }
        _ if at.indent > top => {
            let (key, value_of) = (at.key()?, before.key().unwrap_or(before.text));
            (
                e,
                format!(
                    "`{key}` is at the wrong depth: it is indented under `{value_of}`, which holds \
                     a value"
                ),
            )
        }
        _ => (
            e,
            format!(
                "`{}` is at the wrong depth: its indentation matches no key above it",
                at.key()?
            ),
        ),
    };
    let line = &lines[wrong];
    let key = line.key()?.to_string();
    let mut blank = vec![line.number];
    if wrong == e && line.opens_block() {
        blank.extend(
            lines[e + 1..]
                .iter()
                .take_while(|l| l.indent > line.indent)
                .map(|l| l.number),
        );
    }
    Some(Misplaced {
        line: line.number,
        column: line.indent + 1,
        key,
        under: path(&lines, wrong),
        message,
        lines: blank,
    })
}

/// The keys of the blocks line `i` is written in, dotted, up to the first list item (a less
/// indented key that holds a value is no block of it: a line pushed under one is still in the
/// block around both).
fn path(lines: &[Line<'_>], i: usize) -> String {
    let mut indent = lines[i].indent;
    let mut keys = Vec::new();
    for line in lines[..i].iter().rev() {
        if line.indent >= indent || !line.opens_block() {
            continue;
        }
        let Some(key) = line.key() else {
            break;
        };
        keys.push(key);
        indent = line.indent;
    }
    keys.reverse();
    keys.join(".")
}

fn or_top(path: &str) -> &str {
    if path.is_empty() { "the top" } else { path }
}

#[cfg(test)]
mod tests {
    use super::*;

    const PTP: &str = "expect:\n  ptp:\n    grandmasters: [\"a\"]\n    slave_port: Ethernet1\n    max_offset_ns: 100\n  lanz: true\n";

    #[test]
    fn the_line_that_breaks_the_indentation_is_named() {
        // The line, key and parents found.
        type Found<'a> = Option<(usize, &'a str, &'a str)>;
        // (text, where the parser stopped, what is found)
        let cases: &[(String, usize, Found)] = &[
            // Pulled out of `ptp:` above its last key: the parser stops one line further down.
            (
                PTP.replace("    slave_port", "  slave_port"),
                5,
                Some((4, "slave_port", "expect")),
            ),
            // Pushed under a line that holds a value.
            (
                PTP.replace("    max_offset_ns", "      max_offset_ns"),
                5,
                Some((5, "max_offset_ns", "expect.ptp")),
            ),
            // Between two depths.
            (
                PTP.replace("  lanz", " lanz"),
                6,
                Some((6, "lanz", "expect")),
            ),
            // A comment between does not matter.
            (
                PTP.replace("    max_offset_ns", "    # the limit\n      max_offset_ns"),
                6,
                Some((6, "max_offset_ns", "expect.ptp")),
            ),
            // Under a list item, at the item's depth: fine as far as indentation goes.
            (
                "expect:\n  feeds:\n    - vlan: 100\n      ports: [a]\n".to_string(),
                4,
                None,
            ),
            // Indentation is right: some other mistake.
            (PTP.to_string(), 3, None),
        ];
        for (text, stopped, want) in cases {
            let found = misplaced(text, *stopped);
            assert_eq!(
                found
                    .as_ref()
                    .map(|m| (m.line, m.key.as_str(), m.under.as_str())),
                *want,
                "{text}"
            );
        }
    }

    #[test]
    fn the_message_says_what_is_wrong_and_the_key_s_children_go_with_it() {
        let text = PTP.replace("    slave_port", "  slave_port");
        let found = misplaced(&text, 5).expect("found");
        assert_eq!(
            found.message,
            "`slave_port` is at the wrong depth: it is written under `expect`, between keys of \
             `expect.ptp` (the next line no longer reads)"
        );
        assert_eq!((found.column, found.lines.as_slice()), (3, &[4][..]));
        let text = "a: 1\n   b:\n     c: 2\n     d: 3\ne: 4\n";
        let found = misplaced(text, 2).expect("found");
        assert_eq!(found.key, "b");
        assert_eq!(found.lines, vec![2, 3, 4]);
    }
}
