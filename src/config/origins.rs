//! Where each line of a device's baseline came from, when the baseline was assembled from the
//! device's file and the role files it `extends:` ([`super::extends`]).
//!
//! Every later stage reads the assembled text with serde-saphyr as if it were one file, so a
//! mistake is found at a line and column of that text; this map turns it back into the file,
//! line and column where the operator wrote the value. A device that extends nothing keeps its
//! own text and an empty map: positions pass through unchanged.

use std::path::{Path, PathBuf};

use super::error::{ConfigError, Position};

/// The files of an assembled baseline and, for each of its lines, where that line was written.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Origins {
    /// The device's file first, then each role file in the order they are extended.
    files: Vec<PathBuf>,
    /// Per line of the assembled text (the first at index 0); empty: the text is the first
    /// file's own.
    lines: Vec<LineOrigin>,
}

/// One assembled line: which file, which line of it, and how many columns it moved right
/// (negative: left) to sit at its depth in the assembled text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LineOrigin {
    pub file: usize,
    pub line: u64,
    pub shift: i64,
}

impl Origins {
    /// A text that is `file`'s own.
    pub fn own(file: &Path) -> Origins {
        Origins {
            files: vec![file.to_path_buf()],
            lines: Vec::new(),
        }
    }

    pub(crate) fn assembled(files: Vec<PathBuf>, lines: Vec<LineOrigin>) -> Origins {
        Origins { files, lines }
    }

    /// Whether the text was assembled from more than one file.
    pub fn is_assembled(&self) -> bool {
        !self.lines.is_empty()
    }

    /// The files the text came from, the device's first.
    pub fn files(&self) -> &[PathBuf] {
        &self.files
    }

    /// Where 1-based `line`:`column` of the assembled text was written. Line 0 (unknown) stays
    /// unknown, in the device's file.
    pub fn position(&self, line: u64, column: u64) -> Position {
        let first = self.files.first().map_or(Path::new(""), PathBuf::as_path);
        if self.lines.is_empty() || line == 0 {
            return Position::new(first, line, column);
        }
        let index = usize::try_from(line - 1).unwrap_or(usize::MAX);
        match self.lines.get(index) {
            Some(origin) => {
                let column = (i64::try_from(column).unwrap_or(i64::MAX) - origin.shift).max(1);
                Position::new(
                    &self.files[origin.file],
                    origin.line,
                    u64::try_from(column).unwrap_or(1),
                )
            }
            // Past the end: what serde reports for a value missing at the end of the document.
            None => Position::new(first, 0, 0),
        }
    }

    /// [`Origins::position`] of a place serde-saphyr reported.
    pub fn location(&self, location: serde_saphyr::Location) -> Position {
        self.position(location.line(), location.column())
    }

    /// `position` (a place in the assembled text, named by the device's file) where it was
    /// written; a position in any other file is already where it was written.
    pub fn translate(&self, position: Position) -> Position {
        match self.files.first() {
            Some(first) if self.is_assembled() && position.file == *first => {
                self.position(position.line, position.column)
            }
            _ => position,
        }
    }

    /// Each of `errors` at the place it was written ([`Origins::translate`]).
    pub(crate) fn translate_all(&self, errors: Vec<ConfigError>) -> Vec<ConfigError> {
        errors
            .into_iter()
            .map(|e| ConfigError {
                position: self.translate(e.position),
                ..e
            })
            .collect()
    }

    /// The origin of each line of the assembled text (1-based line of the text, its file and
    /// line), for `show-baseline`.
    pub fn line(&self, line: u64) -> (&Path, u64) {
        let position = self.position(line, 1);
        let file = self
            .files
            .iter()
            .find(|f| **f == position.file)
            .map_or(Path::new(""), PathBuf::as_path);
        (file, position.line)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_assembled_line_points_back_at_its_file_line_and_column() {
        let origins = Origins::assembled(
            vec!["sw7.yaml".into(), "leaf.yaml".into()],
            vec![
                LineOrigin {
                    file: 0,
                    line: 2,
                    shift: 0,
                },
                LineOrigin {
                    file: 1,
                    line: 5,
                    shift: -2,
                },
                LineOrigin {
                    file: 1,
                    line: 6,
                    shift: 2,
                },
            ],
        );
        assert_eq!(origins.position(1, 7).to_string(), "sw7.yaml:2:7");
        assert_eq!(origins.position(2, 3).to_string(), "leaf.yaml:5:5");
        assert_eq!(origins.position(3, 5).to_string(), "leaf.yaml:6:3");
        assert_eq!(origins.position(3, 1).to_string(), "leaf.yaml:6:1");
        assert_eq!(origins.position(0, 0).to_string(), "sw7.yaml:0:0");
        assert_eq!(
            origins.translate(Position::new(Path::new("other.yaml"), 2, 2)),
            Position::new(Path::new("other.yaml"), 2, 2)
        );
        let own = Origins::own(Path::new("sw1.yaml"));
        assert_eq!(own.position(4, 9).to_string(), "sw1.yaml:4:9");
        assert!(!own.is_assembled());
    }
}
