//! `show running-config diffs`: a unified diff from startup-config to running-config. Empty
//! output means everything is saved.

use serde::{Deserialize, Serialize};

use super::text::{body, device_error};
use premarket_core::Command;
use premarket_parse::{ParseError, Query, Raw};

#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diffs {
    /// True when running-config equals startup-config.
    pub empty: bool,
    /// Lines only in running-config (unsaved additions), without the `+`.
    pub added: Vec<String>,
    /// Lines only in startup-config (unsaved removals), without the `-`.
    pub removed: Vec<String>,
    pub hunks: Vec<Hunk>,
}

/// One `@@` hunk.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Hunk {
    pub changes: Vec<Change>,
    /// Only `!` comment lines change (e.g. the `! device:` header after an upgrade).
    pub cosmetic: bool,
}

/// One changed line and the configuration section it belongs to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Change {
    /// `true` for a line only in running-config, `false` for one only in startup-config.
    pub added: bool,
    pub line: String,
    /// For an indented line, the block it sits in (`interface Ethernet1`); `None` for a
    /// top-level statement (global configuration) or when the hunk gives no context.
    pub section: Option<String>,
}

impl Change {
    /// A `!` comment or separator line: it changes nothing the switch does.
    pub fn is_comment(&self) -> bool {
        self.line.trim_start().starts_with('!')
    }
}

/// `show running-config diffs`: what a reload would lose (needs `enable`).
pub struct ShowRunningConfigDiffs;

impl Query for ShowRunningConfigDiffs {
    const KIND: &'static str = "eos.show-running-config-diffs";
    type Fact = Diffs;
    fn command(&self) -> Command {
        Command::new(ShowRunningConfigDiffs::TEXT)
    }
    fn parse(raw: &mut Raw<'_>) -> Result<Diffs, ParseError> {
        parse(raw.text()?)
    }
}

impl ShowRunningConfigDiffs {
    pub const TEXT: &'static str = "show running-config diffs";
}

pub fn parse(raw: &str) -> Result<Diffs, ParseError> {
    let lines = body(raw);
    device_error(&lines, raw)?;
    if lines.is_empty() {
        return Ok(Diffs {
            empty: true,
            ..Diffs::default()
        });
    }
    let mut diffs = Diffs::default();
    let mut hunk: Option<Hunk> = None;
    let mut section: Option<String> = None;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("--- ") || line.starts_with("+++ ") {
            continue;
        }
        if line.starts_with("@@") {
            diffs.hunks.extend(hunk.take());
            hunk = Some(Hunk::default());
            section = None;
            continue;
        }
        let Some(current) = hunk.as_mut() else {
            return Err(ParseError::at_line(
                "expected a unified diff (---, +++, @@ lines)",
                &lines.join("\n"),
                i,
            ));
        };
        let (marker, content) = line.split_at(line.chars().next().map_or(0, char::len_utf8));
        let content = content.to_string();
        let top_level =
            !content.starts_with(' ') && !content.is_empty() && !content.starts_with('!');
        match marker {
            "+" | "-" => {
                if top_level {
                    section = Some(content.clone());
                }
                let added = marker == "+";
                if added {
                    &mut diffs.added
                } else {
                    &mut diffs.removed
                }
                .push(content.clone());
                let section = if content.starts_with(' ') {
                    section.clone()
                } else {
                    None
                };
                current.changes.push(Change {
                    added,
                    line: content,
                    section,
                });
            }
            " " | "" => {
                if top_level {
                    section = Some(content);
                }
            }
            "\\" => {} // "\ No newline at end of file"
            _ => {
                return Err(ParseError::at_line(
                    "unexpected line in a unified diff",
                    &lines.join("\n"),
                    i,
                ));
            }
        }
    }
    diffs.hunks.extend(hunk);
    for h in &mut diffs.hunks {
        h.cosmetic = h.changes.iter().all(Change::is_comment);
    }
    diffs.empty = diffs.added.is_empty() && diffs.removed.is_empty();
    Ok(diffs)
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str = "sw1#show running-config diffs\n--- flash:/startup-config\n+++ system:/running-config\n@@ -1,4 +1,4 @@\n-! device: sw1 (cEOSLab, EOS-4.31.6M)\n+! device: sw1 (cEOSLab, EOS-4.32.0F)\n !\n hostname sw1\n@@ -20,6 +20,7 @@\n interface Ethernet1\n    description uplink\n+   shutdown\n !\n+queue-monitor length\n !\n";

    #[test]
    fn groups_by_section_and_marks_cosmetic() {
        let d = parse(DIFF).unwrap();
        assert!(!d.empty);
        assert_eq!(
            d.added,
            vec![
                "! device: sw1 (cEOSLab, EOS-4.32.0F)",
                "   shutdown",
                "queue-monitor length"
            ]
        );
        assert_eq!(d.hunks.len(), 2);
        assert!(d.hunks[0].cosmetic);
        assert!(!d.hunks[1].cosmetic);
        let sections: Vec<Option<&str>> = d.hunks[1]
            .changes
            .iter()
            .map(|c| c.section.as_deref())
            .collect();
        assert_eq!(sections, vec![Some("interface Ethernet1"), None]);
    }

    #[test]
    fn empty_and_errors() {
        assert!(parse("sw1#show running-config diffs\nsw1#").unwrap().empty);
        assert!(parse("% Invalid input (privileged mode required)").is_err());
        assert!(parse("hello\nworld").is_err());
    }
}
