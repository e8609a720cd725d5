//! `diagnose sys ha checksum cluster`: each member's configuration checksums, per table, so an
//! out-of-sync cluster can be told which tables differ (samples
//! `handoff/fortios/diagnose-sys-ha-checksum-cluster-*`):
//!
//! ```text
//! ================== FG3H0ZZZNNNNNNN1 ==================
//!
//! is_manage_primary()=1, is_root_primary()=1
//! debugzone
//! global: 2e b4 fb 43 fb 7a 98 7f db ed c0 47 5b 35 e4 1f
//! root: bb 66 88 7d df ab 27 f0 b3 a8 a7 72 f4 a0 f3 2d
//! all: c9 4b 3b e2 1b e6 25 89 df d2 95 31 ba 8b 47 bb
//!
//! checksum
//! global: 2e b4 fb 43 fb 7a 98 7f db ed c0 47 5b 35 e4 1f
//! ...
//! ```
//! One block per member; `is_manage_master()` before the 6.4-era renaming; banner widths,
//! blank lines and a trailing space after each digest vary between releases and copies. Tables
//! are `global`, each VDOM, and `all`, in the order printed (the order matters: checksums are
//! cumulative, so every table after the first differing one differs too, KB 193061).

use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use super::text::{body, device_error, joined};
use premarket_core::Command;
use premarket_parse::text::quote;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct HaChecksums {
    pub members: Vec<ChecksumMember>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChecksumMember {
    pub serial: String,
    /// `is_manage_primary()=1` (`is_manage_master()` on older releases); `None` when not printed.
    pub primary: Option<bool>,
    /// The `debugzone` tables, in order.
    pub debugzone: Vec<TableSum>,
    /// The `checksum` tables, in order.
    pub checksum: Vec<TableSum>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSum {
    /// `global`, a VDOM name, or `all`.
    pub table: String,
    /// The digest's bytes as printed, single-spaced.
    pub digest: String,
}

impl ChecksumMember {
    /// Tables whose `debugzone` and `checksum` digests differ inside this member: a checksum
    /// calculation error (`diagnose sys ha checksum recalculate`), not a sync problem.
    pub fn miscalculated(&self) -> Vec<&str> {
        self.checksum
            .iter()
            .filter(|t| {
                self.debugzone
                    .iter()
                    .any(|d| d.table == t.table && d.digest != t.digest)
            })
            .map(|t| t.table.as_str())
            .collect()
    }

    /// The tables of `reference` (in its order) whose checksum this member does not share.
    pub fn differing<'a>(&self, reference: &'a ChecksumMember) -> Vec<&'a str> {
        reference
            .checksum
            .iter()
            .filter(|r| {
                !self
                    .checksum
                    .iter()
                    .any(|t| t.table == r.table && t.digest == r.digest)
            })
            .map(|r| r.table.as_str())
            .collect()
    }
}

impl HaChecksums {
    /// The member the others are compared with: the managing primary, else the first listed.
    pub fn reference(&self) -> Option<&ChecksumMember> {
        self.members
            .iter()
            .find(|m| m.primary == Some(true))
            .or_else(|| self.members.first())
    }
}

/// `diagnose sys ha checksum cluster`.
pub struct DiagHaChecksum;

impl Query for DiagHaChecksum {
    const KIND: &'static str = "fortigate.diagnose-sys-ha-checksum-cluster";
    type Fact = HaChecksums;
    fn command(&self) -> Command {
        Command::new(Self::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<HaChecksums, ParseError> {
        parse(raw.text()?)
    }
}

impl DiagHaChecksum {
    pub const TEXT: &'static str = "diagnose sys ha checksum cluster";
}

static BANNER: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^=+\s*(\S+)\s*=+$").expect("static regex"));
static PRIMARY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^is_manage_(?:primary|master)\(\)=([01])").expect("static regex")
});
static TABLE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([A-Za-z0-9_.-]+):((?:\s+[0-9a-fA-F]{2})+)\s*$").expect("static regex")
});

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Debugzone,
    Checksum,
}

pub fn parse(raw: &str) -> Result<HaChecksums, ParseError> {
    let lines = body(raw);
    device_error(&lines)?;
    let text = joined(&lines);
    let mut out = HaChecksums::default();
    let mut section = Section::None;
    for (i, line) in lines.iter().enumerate() {
        let at = |e: String| ParseError::at_line(e, &text, i);
        let line = line.trim();
        if let Some(c) = BANNER.captures(line) {
            if out.members.iter().any(|m| m.serial == c[1]) {
                return Err(at(format!("member {} is listed twice", quote(&c[1]))));
            }
            out.members.push(ChecksumMember {
                serial: c[1].to_string(),
                primary: None,
                debugzone: Vec::new(),
                checksum: Vec::new(),
            });
            section = Section::None;
            continue;
        }
        let Some(member) = out.members.last_mut() else {
            return Err(at(format!("{} before any member banner", quote(line))));
        };
        if let Some(c) = PRIMARY.captures(line) {
            member.primary = Some(&c[1] == "1");
            continue;
        }
        match line {
            "debugzone" => section = Section::Debugzone,
            "checksum" => section = Section::Checksum,
            _ => {
                let Some(c) = TABLE.captures(line) else {
                    return Err(at(format!("unexpected line {}", quote(line))));
                };
                let sum = TableSum {
                    table: c[1].to_string(),
                    digest: c[2].split_whitespace().collect::<Vec<_>>().join(" "),
                };
                let tables = match section {
                    Section::Debugzone => &mut member.debugzone,
                    Section::Checksum => &mut member.checksum,
                    Section::None => {
                        return Err(at(format!(
                            "table {} outside a debugzone or checksum section",
                            quote(&sum.table)
                        )));
                    }
                };
                if tables.iter().any(|t| t.table == sum.table) {
                    return Err(at(format!("table {} is listed twice", quote(&sum.table))));
                }
                tables.push(sum);
            }
        }
    }
    if out.members.is_empty() {
        return Err(ParseError::new(
            "no member banner: not diagnose sys ha checksum cluster output",
            &text,
        ));
    }
    if let Some(m) = out.members.iter().find(|m| m.checksum.is_empty()) {
        return Err(ParseError::new(
            format!("member {} has no checksum tables (output cut?)", m.serial),
            &text,
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO: &str = "fw1 # diagnose sys ha checksum cluster\n\n================== FG100D3G13xxxxxx =================\n is_manage_master()=0, is_root_master()=0\n\ndebugzone\nglobal: 89 f2 f0 0b e8 eb 0d ee f8 55 8b 47 27 7a 27 1e\nroot: cf 85 55 fe a7 e5 7c 6f a6 88 e5 a9 ea 26 e6 92\nall: f4 62 b2 ce 81 9a c9 04 8f 67 07 ec a7 44 60 1f\n\nchecksum\nglobal: 89 f2 f0 0b e8 eb 0d ee f8 55 8b 47 27 7a 27 1e\nroot: cf 85 55 fe a7 e5 7c 6f a6 88 e5 a9 ea 26 e6 92\nall: f4 62 b2 ce 81 9a c9 04 8f 67 07 ec a7 44 60 1f\n\n================== FG100D3G12xxxxxx ==================\nis_manage_master()=1, is_root_master()=1\n\ndebugzone\nglobal: 89 f2 f0 0b e8 eb 0d ee f8 55 8b 47 27 7a 27 1e \nroot: d8 f5 57 46 f0 b8 45 1e 00 be 45 92 a2 07 14 90 \nall: a7 8d cc c7 32 b5 81 a2 55 49 52 21 57 f9 3c 3b \n\nchecksum\nglobal: 89 f2 f0 0b e8 eb 0d ee f8 55 8b 47 27 7a 27 1e \nroot: d8 f5 57 46 f0 b8 45 1e 00 be 45 92 a2 07 14 90 \nall: a7 8d cc c7 32 b5 81 a2 55 49 52 21 57 f9 3c 3b \nfw1 # ";

    #[test]
    fn members_tables_and_what_differs() {
        let sums = parse(TWO).unwrap();
        assert_eq!(sums.members.len(), 2);
        let primary = sums.reference().unwrap();
        assert_eq!(primary.serial, "FG100D3G12xxxxxx");
        let other = &sums.members[0];
        assert_eq!(other.differing(primary), ["root", "all"]);
        assert!(other.miscalculated().is_empty());
        let recalc = TWO.replacen(
            "root: cf 85 55 fe a7 e5 7c 6f a6 88 e5 a9 ea 26 e6 92",
            "root: 00 85 55 fe a7 e5 7c 6f a6 88 e5 a9 ea 26 e6 92",
            1,
        );
        assert_eq!(parse(&recalc).unwrap().members[0].miscalculated(), ["root"]);
        // 7.x wording.
        let v7 = TWO.replace("master", "primary");
        assert_eq!(
            parse(&v7).unwrap().reference().unwrap().serial,
            "FG100D3G12xxxxxx"
        );
    }

    #[test]
    fn damage_is_an_error() {
        for bad in [
            TWO.replace("root: cf 85", "root: zz 85"),
            TWO.replacen("\nchecksum\n", "\n", 1),
            TWO.replacen("all: f4 62", "global: f4 62", 1),
            TWO.replacen(
                "================== FG100D3G12xxxxxx",
                "================== FG100D3G13xxxxxx",
                1,
            ),
            "global: 89 f2\n".to_string(),
            "Unknown action 0\n".to_string(),
            String::new(),
        ] {
            assert!(parse(&bad).is_err(), "{bad}");
        }
    }
}
