//! A unified diff of two texts given as lines: `similar`'s Myers diff over line numbers (each
//! distinct line interned once; `similar`'s `TextDiff` front end costs a hundred times more on
//! 200,000 lines), bounded by a deadline, written as GNU `diff -u` writes it. No premarket types, so the benchmark can
//! build it alone (`benches/config_diff.rs`).

use std::collections::HashMap;
use std::fmt::Write;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, DiffTag, capture_diff_slices_deadline, group_diff_ops};

/// How long the diff may search for the smallest edit before it settles for a larger one
/// (still a correct diff: every line it calls changed is on one side only).
pub const DIFF_DEADLINE: Duration = Duration::from_secs(1);

/// The differences between two configurations.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diff {
    pub added: usize,
    pub removed: usize,
    /// The unified diff (3 lines of context), `---`/`+++` header first.
    pub unified: String,
}

impl Diff {
    /// Lines added plus lines removed.
    pub fn changed(&self) -> usize {
        self.added + self.removed
    }

    /// `1 line added, 2 removed`.
    pub fn describe(&self) -> String {
        format!("{} added, {} removed", lines(self.added), self.removed)
    }

    /// Each line added or removed, trimmed, after its sign: `+ set srcaddr "feed-B"`, `-
    /// description uplink`. What a configuration FAIL is about: an acknowledgement of one
    /// change never covers another.
    pub fn changed_lines(&self) -> impl Iterator<Item = String> + '_ {
        // The header's two lines (`--- old`, `+++ new`) come first.
        self.unified
            .lines()
            .skip(2)
            .filter_map(|l| match l.split_at_checked(1) {
                Some((sign @ ("+" | "-"), rest)) => Some(format!("{sign} {}", rest.trim())),
                _ => None,
            })
    }
}

/// `1 line`, `2 lines`.
pub fn lines(n: usize) -> String {
    if n == 1 {
        "1 line".into()
    } else {
        format!("{n} lines")
    }
}

/// The unified diff from `old` to `new` (named in its header, 3 lines of context), `None`
/// when they are equal.
pub fn diff<'a>(old: &[&'a str], new: &[&'a str], old_name: &str, new_name: &str) -> Option<Diff> {
    if old == new {
        return None;
    }
    let deadline = Instant::now() + DIFF_DEADLINE;
    // The common head and tail are equal as they stand (a night's edit leaves most of a
    // configuration there); only the middle is searched.
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (old_mid, new_mid) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    // Each distinct line of the middle as a number: Myers compares lines at every step of its
    // search, and configuration lines share long prefixes (`        set `), which numbers do
    // not.
    let mut ids: HashMap<&str, u32> = HashMap::with_capacity(old_mid.len().max(new_mid.len()));
    let mut number = |lines: &[&'a str]| -> Vec<u32> {
        lines
            .iter()
            .map(|l| {
                let next = u32::try_from(ids.len()).unwrap_or(u32::MAX);
                *ids.entry(l).or_insert(next)
            })
            .collect()
    };
    let (old_ids, new_ids) = (number(old_mid), number(new_mid));
    drop(ids);
    let mut ops = vec![];
    if head > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: head,
        });
    }
    for op in capture_diff_slices_deadline(Algorithm::Myers, &old_ids, &new_ids, Some(deadline)) {
        ops.push(shifted(op, head));
    }
    if tail > 0 {
        ops.push(DiffOp::Equal {
            old_index: old.len() - tail,
            new_index: new.len() - tail,
            len: tail,
        });
    }
    let (mut added, mut removed) = (0, 0);
    for op in &ops {
        let (_, o, n) = op.as_tag_tuple();
        match op.tag() {
            DiffTag::Equal => {}
            _ => {
                added += n.len();
                removed += o.len();
            }
        }
    }
    let mut unified = format!("--- {old_name}\n+++ {new_name}\n");
    for group in group_diff_ops(ops, CONTEXT) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else {
            continue;
        };
        let (o, n) = (first.old_range().start, first.new_range().start);
        let (o_len, n_len) = (last.old_range().end - o, last.new_range().end - n);
        let _ = writeln!(unified, "@@ -{} +{} @@", range(o, o_len), range(n, n_len));
        for op in &group {
            let (tag, o, n) = op.as_tag_tuple();
            if tag == DiffTag::Equal {
                for line in &old[o] {
                    let _ = writeln!(unified, " {line}");
                }
                continue;
            }
            for line in &old[o] {
                let _ = writeln!(unified, "-{line}");
            }
            for line in &new[n] {
                let _ = writeln!(unified, "+{line}");
            }
        }
    }
    Some(Diff {
        added,
        removed,
        unified,
    })
}

/// `op` of the middle, in the whole texts' line numbers.
fn shifted(op: DiffOp, by: usize) -> DiffOp {
    match op {
        DiffOp::Equal {
            old_index,
            new_index,
            len,
        } => DiffOp::Equal {
            old_index: old_index + by,
            new_index: new_index + by,
            len,
        },
        DiffOp::Delete {
            old_index,
            old_len,
            new_index,
        } => DiffOp::Delete {
            old_index: old_index + by,
            old_len,
            new_index: new_index + by,
        },
        DiffOp::Insert {
            old_index,
            new_index,
            new_len,
        } => DiffOp::Insert {
            old_index: old_index + by,
            new_index: new_index + by,
            new_len,
        },
        DiffOp::Replace {
            old_index,
            old_len,
            new_index,
            new_len,
        } => DiffOp::Replace {
            old_index: old_index + by,
            old_len,
            new_index: new_index + by,
            new_len,
        },
    }
}

/// Lines of context around each change.
const CONTEXT: usize = 3;

/// A hunk header's range as GNU diff writes it: `start,len` from 1, `start` alone for one
/// line, and the line before for none.
fn range(start: usize, len: usize) -> String {
    match len {
        0 => format!("{start},0"),
        1 => format!("{}", start + 1),
        _ => format!("{},{len}", start + 1),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hunks_are_written_as_gnu_diff_writes_them() {
        let old = ["a", "b", "c", "d", "e", "f", "g", "h", "i"];
        let mut new = old.to_vec();
        new[4] = "E";
        let d = diff(&old, &new, "x", "y").expect("a change");
        assert_eq!(
            d.unified,
            "--- x\n+++ y\n@@ -2,7 +2,7 @@\n b\n c\n d\n-e\n+E\n f\n g\n h\n"
        );
        assert_eq!((d.added, d.removed), (1, 1));
        let added = diff(&["a"], &["a", "b"], "x", "y").expect("a change");
        assert_eq!(added.unified, "--- x\n+++ y\n@@ -1 +1,2 @@\n a\n+b\n");
        let from_nothing = diff(&[], &["a"], "x", "y").expect("a change");
        assert_eq!(from_nothing.unified, "--- x\n+++ y\n@@ -0,0 +1 @@\n+a\n");
        assert!(diff(&old, &old, "x", "y").is_none());
    }
}
