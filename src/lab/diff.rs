//! A unified diff of two texts, as EOS prints `show running-config diffs` (`--- flash:/startup-config`,
//! `+++ system:/running-config`, `@@ -a,b +c,d @@` hunks with three lines of context). Configs are a
//! few hundred lines, so a plain LCS table is fast enough.

/// Lines of context around each change.
const CONTEXT: usize = 3;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Op {
    Same,
    Del,
    Add,
}

/// The unified diff from `old` to `new`; empty when they are equal.
pub fn unified(old: &str, new: &str, old_name: &str, new_name: &str) -> String {
    let a: Vec<&str> = old.lines().collect();
    let b: Vec<&str> = new.lines().collect();
    let ops = script(&a, &b);
    if ops.iter().all(|(op, _, _)| *op == Op::Same) {
        return String::new();
    }
    let mut out = format!("--- {old_name}\n+++ {new_name}\n");
    // Group changes whose context windows touch into hunks.
    let changed: Vec<usize> = ops
        .iter()
        .enumerate()
        .filter(|(_, (op, _, _))| *op != Op::Same)
        .map(|(i, _)| i)
        .collect();
    let mut hunks: Vec<(usize, usize)> = Vec::new();
    for &i in &changed {
        let start = i.saturating_sub(CONTEXT);
        let end = (i + CONTEXT + 1).min(ops.len());
        match hunks.last_mut() {
            Some(last) if start <= last.1 => last.1 = end,
            _ => hunks.push((start, end)),
        }
    }
    for (start, end) in hunks {
        let slice = &ops[start..end];
        let old_count = slice.iter().filter(|(op, _, _)| *op != Op::Add).count();
        let new_count = slice.iter().filter(|(op, _, _)| *op != Op::Del).count();
        // 1-based first line numbers; positions come from the first op of the hunk.
        let old_start = slice.first().map(|(_, ai, _)| *ai + 1).unwrap_or(1);
        let new_start = slice.first().map(|(_, _, bi)| *bi + 1).unwrap_or(1);
        out.push_str(&format!(
            "@@ -{old_start},{old_count} +{new_start},{new_count} @@\n"
        ));
        for (op, ai, bi) in slice {
            match op {
                Op::Same => out.push_str(&format!(" {}\n", a[*ai])),
                Op::Del => out.push_str(&format!("-{}\n", a[*ai])),
                Op::Add => out.push_str(&format!("+{}\n", b[*bi])),
            }
        }
    }
    out
}

/// Edit script: (op, index in a, index in b). For Add, the a index is where it is inserted.
fn script(a: &[&str], b: &[&str]) -> Vec<(Op, usize, usize)> {
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut ops = Vec::with_capacity(n + m);
    while i < n || j < m {
        if i < n && j < m && a[i] == b[j] {
            ops.push((Op::Same, i, j));
            i += 1;
            j += 1;
        } else if i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1]) {
            ops.push((Op::Del, i, j));
            i += 1;
        } else {
            ops.push((Op::Add, i, j));
            j += 1;
        }
    }
    ops
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn equal_is_empty() {
        assert_eq!(unified("a\nb\n", "a\nb\n", "x", "y"), "");
    }

    #[test]
    fn one_added_line() {
        let old = "1\n2\n3\n4\n5\n6\n7\n8\n";
        let new = "1\n2\n3\n4\nnew\n5\n6\n7\n8\n";
        let d = unified(old, new, "flash:/startup-config", "system:/running-config");
        assert_eq!(
            d,
            "--- flash:/startup-config\n+++ system:/running-config\n@@ -2,6 +2,7 @@\n 2\n 3\n 4\n+new\n 5\n 6\n 7\n"
        );
    }

    #[test]
    fn changed_first_line() {
        let d = unified("a\nb\nc\nd\ne\n", "A\nb\nc\nd\ne\n", "o", "n");
        assert!(d.contains("@@ -1,4 +1,4 @@\n-a\n+A\n b\n c\n d\n"), "{d}");
    }
}
