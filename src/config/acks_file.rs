//! Writing `baselines/acks.yaml` as a reviewer would: an entry is appended or removed as text,
//! so every comment and every other entry stays as the reviewer left it (re-rendering the
//! file would drop the comments). Each edit is checked before it is written: the edited text
//! must read back as the same entries plus the new one (or less the removed one), else the
//! file is left alone and the message says to edit it by hand. The new text replaces the file
//! atomically (a temporary file renamed over it), so a run reading it sees one or the other.

use std::path::Path;

use serde_saphyr::Spanned;

use crate::acks::{EntryFile, parse};
use crate::yaml;

/// The first lines of a new acks.yaml.
const HEADER: &str = "\
# Known FAILs acknowledged until a date (`premarket ack`; README \"On-call\").
# An entry covers a FAIL of its check on its device that names nothing outside its `subjects`,
# until the start of its `until` day in the site's time zone; that day it is a FAIL again.
# Reviewed and versioned with the baselines; `premarket ack --remove N` deletes an entry.
";

/// A new entry, as `premarket ack` writes it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewAck {
    pub check: String,
    pub device: String,
    pub subjects: Vec<String>,
    pub until: chrono::NaiveDate,
    pub reason: String,
    pub ticket: Option<String>,
    pub by: String,
    pub at: String,
}

/// Why acks.yaml was not changed.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error(transparent)]
    Read(#[from] crate::ConfigError),
    #[error("{} has no entry {number} (it has {count}; `premarket ack --list` numbers them)", .path.display())]
    NoEntry {
        path: std::path::PathBuf,
        number: usize,
        count: usize,
    },
    #[error("{}: the edited file would not read back as intended ({why}); edit it by hand", .path.display())]
    NotVerified {
        path: std::path::PathBuf,
        why: String,
    },
    #[error("cannot write {}: {source}", .path.display())]
    Write {
        path: std::path::PathBuf,
        source: premarket_files::FileError,
    },
}

/// Appends `ack` to the file at `path` (created with a header when absent).
pub fn append(path: &Path, ack: &NewAck) -> Result<(), EditError> {
    let old = if path.exists() {
        yaml::read_text(path)?
    } else {
        HEADER.to_string()
    };
    let before = parse(path, &old)?;
    let mut text = old.clone();
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    if !text.is_empty() && !text.ends_with("\n\n") {
        text.push('\n');
    }
    text.push_str(&render(ack));
    let after = parse(path, &text).map_err(|e| not_verified(path, &e.to_string()))?;
    let kept = after.len() == before.len() + 1 && same(&after[..before.len()], &before);
    let added = after.last().is_some_and(|e| {
        let e = &e.value;
        value(&e.check) == Some(ack.check.as_str())
            && value(&e.device) == Some(ack.device.as_str())
            && e.subjects == ack.subjects
            && value(&e.reason) == Some(ack.reason.trim())
    });
    if !kept || !added {
        return Err(not_verified(
            path,
            "the entry would not be read as a new item of its list",
        ));
    }
    write(path, &text)
}

/// Removes entry `number` (from 1, as `ack --list` numbers them): the lines from its first to
/// its last key. Comments before and after it stay; so does one blank line between its
/// neighbours.
pub fn remove(path: &Path, number: usize) -> Result<(), EditError> {
    let old = yaml::read_text(path)?;
    let before = parse(path, &old)?;
    if number == 0 || number > before.len() {
        return Err(EditError::NoEntry {
            path: path.to_path_buf(),
            number,
            count: before.len(),
        });
    }
    let lines: Vec<&str> = old.split_inclusive('\n').collect();
    let index = number - 1;
    let line_of = |e: &Spanned<EntryFile>| usize::try_from(e.defined.line()).unwrap_or(1);
    let mut first = line_of(&before[index]).saturating_sub(1);
    // An item whose keys start on the line after its `-`.
    if first > 0 && !lines[first].trim_start().starts_with('-') && lines[first - 1].trim() == "-" {
        first -= 1;
    }
    let next = before
        .get(index + 1)
        .map_or(lines.len(), |n| line_of(n).saturating_sub(1));
    let content = |l: &str| !l.trim().is_empty() && !l.trim_start().starts_with('#');
    let last = (first..next.min(lines.len()))
        .rev()
        .find(|i| content(lines[*i]))
        .unwrap_or(first);
    let mut end = last + 1;
    let blank = |i: usize| lines.get(i).is_some_and(|l| l.trim().is_empty());
    if (first == 0 || blank(first - 1)) && blank(end) {
        end += 1;
    }
    let text: String = lines[..first].concat() + &lines[end..].concat();
    let after = parse(path, &text).map_err(|e| not_verified(path, &e.to_string()))?;
    let mut expected: Vec<&Spanned<EntryFile>> = before.iter().collect();
    expected.remove(index);
    let verified = after.len() == expected.len()
        && after
            .iter()
            .zip(&expected)
            .all(|(a, b)| plain(&a.value) == plain(&b.value));
    if !verified {
        return Err(not_verified(
            path,
            "removing the entry's lines would change another entry",
        ));
    }
    write(path, &text)
}

fn write(path: &Path, text: &str) -> Result<(), EditError> {
    premarket_files::write_atomic(path, text.as_bytes()).map_err(|source| EditError::Write {
        path: path.to_path_buf(),
        source,
    })
}

fn not_verified(path: &Path, why: &str) -> EditError {
    EditError::NotVerified {
        path: path.to_path_buf(),
        why: why.to_string(),
    }
}

/// The entry as YAML: names plain (they are checked names), everything a person wrote quoted.
fn render(ack: &NewAck) -> String {
    let quoted = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into());
    let mut out = format!("- check: {}\n  device: {}\n", ack.check, ack.device);
    if !ack.subjects.is_empty() {
        let list: Vec<String> = ack.subjects.iter().map(|s| quoted(s)).collect();
        out.push_str(&format!("  subjects: [{}]\n", list.join(", ")));
    }
    out.push_str(&format!("  until: {}\n", ack.until.format("%Y-%m-%d")));
    out.push_str(&format!("  reason: {}\n", quoted(ack.reason.trim())));
    if let Some(ticket) = &ack.ticket {
        out.push_str(&format!("  ticket: {}\n", quoted(ticket.trim())));
    }
    out.push_str(&format!("  by: {}\n", quoted(&ack.by)));
    out.push_str(&format!("  at: {}\n", quoted(&ack.at)));
    out
}

fn value(s: &Option<Spanned<String>>) -> Option<&str> {
    s.as_ref().map(|s| s.value.as_str())
}

/// An entry's values without where they were written, to compare entries across edits.
fn plain(e: &EntryFile) -> Vec<Option<&str>> {
    let mut values = vec![
        value(&e.check),
        value(&e.device),
        value(&e.until),
        value(&e.reason),
        value(&e.ticket),
        value(&e.by),
        value(&e.at),
    ];
    values.extend(e.subjects.iter().map(|s| Some(s.as_str())));
    values
}

fn same(a: &[Spanned<EntryFile>], b: &[Spanned<EntryFile>]) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| plain(&x.value) == plain(&y.value))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_ack(reason: &str) -> NewAck {
        NewAck {
            check: "eos.transceivers.light".into(),
            device: "sw1".into(),
            subjects: vec!["Ethernet3".into(), "say \"hi\": # not a comment".into()],
            until: chrono::NaiveDate::from_ymd_opt(2026, 12, 10).unwrap(),
            reason: reason.into(),
            ticket: Some("CHG123".into()),
            by: "alice".into(),
            at: "2026-12-03T08:41:07+08:00".into(),
        }
    }

    #[test]
    fn appended_and_removed_as_text_keeping_every_comment() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acks.yaml");
        append(&path, &new_ack("optic on order: RMA #4411")).unwrap();
        let first = std::fs::read_to_string(&path).unwrap();
        assert!(first.starts_with(HEADER), "{first}");
        let entries = parse(&path, &first).unwrap();
        assert_eq!(entries.len(), 1);
        assert_eq!(
            entries[0].value.reason.as_ref().unwrap().value,
            "optic on order: RMA #4411"
        );
        assert_eq!(entries[0].value.subjects, new_ack("").subjects);
        // A reviewer's comments around and inside the entries.
        let reviewed = format!(
            "{first}\n# the LANZ one waits for the window\n- check: eos.lanz.persisted  # saved Saturday\n  # by hand\n  device: sw1\n  until: 2026-12-12\n  reason: window\n# trailing note\n"
        );
        std::fs::write(&path, &reviewed).unwrap();
        append(&path, &new_ack("second")).unwrap();
        let three = std::fs::read_to_string(&path).unwrap();
        assert!(three.starts_with(&reviewed), "{three}");
        remove(&path, 2).unwrap();
        let two = std::fs::read_to_string(&path).unwrap();
        assert!(
            two.contains("# the LANZ one waits for the window\n"),
            "{two}"
        );
        assert!(two.contains("# trailing note\n"), "{two}");
        assert!(
            !two.contains("eos.lanz.persisted") && !two.contains("# by hand"),
            "{two}"
        );
        let left = parse(&path, &two).unwrap();
        assert_eq!(left.len(), 2);
        assert_eq!(left[1].value.reason.as_ref().unwrap().value, "second");
        assert!(matches!(
            remove(&path, 3),
            Err(EditError::NoEntry { count: 2, .. })
        ));
    }

    #[test]
    fn a_file_that_is_not_a_block_list_is_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("acks.yaml");
        let flow = "[]\n";
        std::fs::write(&path, flow).unwrap();
        let refused = append(&path, &new_ack("x")).unwrap_err();
        assert!(
            matches!(refused, EditError::NotVerified { .. }),
            "{refused}"
        );
        assert_eq!(std::fs::read_to_string(&path).unwrap(), flow);
    }
}
