//! What a rule may cost, so that judging a hostile output (or a careless path) never runs past
//! the run's deadline or fills memory.
//!
//! Two budgets are checked before anything runs. A path's **nesting**, when the catalog is
//! read (`premarket validate` and every run): each descendant segment (`..`) and each filter
//! (`[?...]`) can multiply the work by the size of the output, and those nested one inside or
//! after another multiply together (`$..[?@..[?@..[?@..zz]]]` ran for minutes over a few
//! hundred kilobytes). The **input**, before a rule is judged: the JSON it walks has at most
//! [`MAX_NODES`] nodes nested at most [`MAX_DEPTH`] deep. What neither bounds (a filter's
//! `match()` compiles its regex at every node it meets) the run bounds in time: each check's
//! evaluation has a budget and the deadline ([`crate::bounded`]).
//!
//! The JSONPath library keeps its syntax tree private, so the nesting is read from the text,
//! once `serde_json_path` has accepted it: only the structure matters here (queries, segments,
//! brackets, filters, parentheses, string literals), not what a selector selects.

use serde_json::Value;

/// Descendant segments and filters a path may have one inside or after another.
pub const MAX_NESTING: usize = 3;
/// The longest path text read (a longer one is no rule a person maintains; the JSONPath
/// parser recurses on parentheses).
pub const MAX_PATH_LEN: usize = 512;
/// Nodes (values, members and elements) of the JSON a rule is judged over.
pub const MAX_NODES: usize = 1_000_000;
/// Levels of nesting of the JSON a rule is judged over; device outputs nest a dozen at most.
pub const MAX_DEPTH: usize = 32;

/// Why `path` (a JSONPath the library accepted) is past the nesting budget, if it is.
pub fn nesting(path: &str) -> Option<String> {
    if path.len() > MAX_PATH_LEN {
        return Some(format!(
            "a rule's path is at most {MAX_PATH_LEN} characters; this one has {}",
            path.len()
        ));
    }
    let mut scan = Scan {
        text: path.as_bytes(),
        at: 0,
        repeated: false,
    };
    let depth = scan.query();
    if depth > MAX_NESTING {
        return Some(format!(
            "`{path}` nests descendant segments (`..`) and filters (`[?...]`) {depth} deep, one \
             inside or after another; a rule's path may nest {MAX_NESTING}, as each can multiply \
             the work by the size of the output: name the members on the way (`$.interfaces.*`)"
        ));
    }
    if scan.repeated {
        return Some(format!(
            "`{path}` has two descendant segments (`..`) in one query; a query may have one, as \
             a second visits every node again for each level above it: name the members between \
             them"
        ));
    }
    None
}

/// A reading of a JSONPath's structure. Recursion follows the nesting of the text, which
/// [`MAX_PATH_LEN`] bounds.
struct Scan<'a> {
    text: &'a [u8],
    at: usize,
    /// A query had more than one descendant segment.
    repeated: bool,
}

impl Scan<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    fn peek_at(&self, ahead: usize) -> Option<u8> {
        self.text.get(self.at + ahead).copied()
    }

    fn blank(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    /// At `$` or `@`: the query's segments; its nesting (descendant segments plus the deepest
    /// bracket of each segment, added up along the query).
    fn query(&mut self) -> usize {
        self.at += 1;
        let mut depth = 0;
        let mut descendants = 0;
        loop {
            let before = self.at;
            self.blank();
            match (self.peek(), self.peek_at(1)) {
                (Some(b'.'), Some(b'.')) => {
                    self.at += 2;
                    descendants += 1;
                    depth += 1;
                    if self.peek() == Some(b'[') {
                        depth += self.bracket();
                    } else {
                        self.member_name();
                    }
                }
                (Some(b'.'), _) => {
                    self.at += 1;
                    self.member_name();
                }
                (Some(b'['), _) => depth += self.bracket(),
                _ => {
                    self.at = before;
                    break;
                }
            }
        }
        self.repeated |= descendants > 1;
        depth
    }

    /// A member name or `*` after `.` or `..`.
    fn member_name(&mut self) {
        while matches!(self.peek(), Some(c) if c == b'*' || c == b'_' || c.is_ascii_alphanumeric() || c >= 0x80)
        {
            self.at += 1;
        }
    }

    /// At `[`: its selectors; the deepest filter among them.
    fn bracket(&mut self) -> usize {
        self.at += 1;
        let mut deepest = 0;
        loop {
            self.blank();
            if self.peek() == Some(b'?') {
                self.at += 1;
                deepest = deepest.max(1 + self.expression(b","));
            } else {
                self.expression(b",");
            }
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return deepest;
                }
                _ => return deepest,
            }
        }
    }

    /// Up to a `]` or one of `stops` outside parentheses and strings: the deepest query in it.
    fn expression(&mut self, stops: &[u8]) -> usize {
        let mut deepest = 0;
        while let Some(c) = self.peek() {
            match c {
                b']' | b')' => break,
                c if stops.contains(&c) => break,
                b'\'' | b'"' => self.string(c),
                b'$' | b'@' => deepest = deepest.max(self.query()),
                b'(' => {
                    self.at += 1;
                    deepest = deepest.max(self.expression(b""));
                    if self.peek() == Some(b')') {
                        self.at += 1;
                    }
                }
                _ => self.at += 1,
            }
        }
        deepest
    }

    /// At an opening quote: past the closing one.
    fn string(&mut self, quote: u8) {
        self.at += 1;
        while let Some(c) = self.peek() {
            self.at += if c == b'\\' { 2 } else { 1 };
            if c == quote {
                return;
            }
        }
    }
}

/// Why `value` is more than a rule judges, if it is: more than [`MAX_NODES`] nodes, or nested
/// deeper than [`MAX_DEPTH`]. One pass without recursion, stopping at the first excess.
pub fn input(value: &Value) -> Option<String> {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    let mut nodes = 0usize;
    while let Some((node, depth)) = stack.pop() {
        nodes += 1;
        if nodes > MAX_NODES {
            return Some(format!(
                "the output read as JSON has more than {MAX_NODES} values; a rule judges at most that many"
            ));
        }
        if depth > MAX_DEPTH {
            return Some(format!(
                "the output read as JSON nests deeper than {MAX_DEPTH} levels; a rule judges \
                 nothing nested that deep (no device output is)"
            ));
        }
        match node {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(members) => stack.extend(members.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nesting_counts_descendants_and_filters_along_the_path() {
        // (path, refused for): every one is RFC 9535 JSONPath.
        let cases: &[(&str, Option<&str>)] = &[
            ("$", None),
            ("$.interfaceErrorCounters.*", None),
            ("$.peers[?@.condition == 'sys.peer']", None),
            ("$['udp-idle-timer']", None),
            ("$..inErrors", None),
            ("$..[?@.a == 1]", None),
            ("$..[?@..zz]", None),
            ("$.a[?@.b[?@.c]]", None),
            ("$..[?@.a[?@.b]]", None),
            ("$..[?@..a && @..b]", None),
            ("$..[?count(@..*) > 1 || length(@.name) > 3]", None),
            // Brackets, dots and filters inside strings are text.
            ("$['..[?..[?..[?'][?@.x == '..[?@..[?@..']", None),
            (r#"$..[?match(@, "\\w{1,100}x")]"#, None),
            ("$..[?@..[?@..[?@..zz]]]", Some("7 deep")),
            ("$..[?@..[?@.a]]", Some("4 deep")),
            ("$.a[?@.b[?@.c[?@.d[?@.e]]]]", Some("4 deep")),
            ("$..a..b", Some("two descendant segments")),
            ("$.x[?@..a..b]", Some("two descendant segments")),
            ("$..[?(@..[?(@..x)])]", Some("5 deep")),
            ("$[?@.a, ?@..[?@..b]]", Some("4 deep")),
        ];
        for (path, refused) in cases {
            assert!(
                serde_json_path::JsonPath::parse(path).is_ok(),
                "{path} is JSONPath"
            );
            match (nesting(path), refused) {
                (None, None) => {}
                (Some(why), Some(words)) => assert!(why.contains(words), "{path}: {why}"),
                (got, want) => panic!("{path}: {got:?}, wanted {want:?}"),
            }
        }
        let long = format!("$.a{}", ".b".repeat(MAX_PATH_LEN));
        assert!(nesting(&long).unwrap().contains("at most 512 characters"));
    }

    #[test]
    fn the_input_is_bounded_in_nodes_and_depth() {
        let deep = |levels: usize| {
            let text = format!("{}1{}", "[".repeat(levels), "]".repeat(levels));
            serde_json::from_str::<Value>(&text).unwrap()
        };
        assert_eq!(input(&deep(MAX_DEPTH)), None);
        assert!(
            input(&deep(MAX_DEPTH + 1))
                .unwrap()
                .contains("deeper than 32")
        );
        let wide = Value::Array(vec![Value::Null; MAX_NODES - 1]);
        assert_eq!(input(&wide), None);
        let wider = Value::Array(vec![Value::Null; MAX_NODES]);
        assert!(input(&wider).unwrap().contains("more than 1000000 values"));
    }
}
