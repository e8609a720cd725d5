//! The operators of a rule: their names as written, the value each takes, and how a device
//! value is judged against it.
//!
//! Device values come from JSON (numbers, strings, booleans) or from a text reader (always
//! strings), so a number may arrive as `"42"`: numeric operators read a decimal string as the
//! number it spells. Anything else of the wrong type is an error naming the value, never a
//! silent pass or fail.

use std::cmp::Ordering;
use std::fmt;

use regex::Regex;
use serde_json::Value;

/// An operator (or `keys:`), as named in the catalog.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Equals,
    NotEquals,
    OneOf,
    Matches,
    AtLeast,
    AtMost,
    Present,
    CountAtLeast,
    CountAtMost,
    IncreaseAtMost,
    /// Beside `each`: the member names to keep.
    Keys,
}

impl Op {
    /// The operators a leaf may carry (`keys` belongs to `each`).
    pub const LEAF: [Op; 10] = [
        Op::Equals,
        Op::NotEquals,
        Op::OneOf,
        Op::Matches,
        Op::AtLeast,
        Op::AtMost,
        Op::Present,
        Op::CountAtLeast,
        Op::CountAtMost,
        Op::IncreaseAtMost,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Op::Equals => "equals",
            Op::NotEquals => "not_equals",
            Op::OneOf => "one_of",
            Op::Matches => "matches",
            Op::AtLeast => "at_least",
            Op::AtMost => "at_most",
            Op::Present => "present",
            Op::CountAtLeast => "count_at_least",
            Op::CountAtMost => "count_at_most",
            Op::IncreaseAtMost => "increase_at_most",
            Op::Keys => "keys",
        }
    }

    /// The kind of value it compares with, as the reference of a baseline key says it.
    pub fn value_type(self) -> &'static str {
        match self {
            Op::Equals | Op::NotEquals => "value",
            Op::OneOf => "list of values",
            Op::Matches => "string (a regex)",
            Op::AtLeast | Op::AtMost | Op::IncreaseAtMost => "number",
            Op::CountAtLeast | Op::CountAtMost => "integer",
            Op::Present => "boolean",
            Op::Keys => "list of names",
        }
    }

    pub fn from_name(name: &str) -> Option<Op> {
        Op::LEAF
            .into_iter()
            .chain([Op::Keys])
            .find(|op| op.name() == name)
    }
}

/// A number as a device or a rule writes it: integers exactly (counters exceed 2^53), the rest
/// as floating point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Num {
    Int(i128),
    Float(f64),
}

impl Num {
    /// A JSON number, or a string that spells a decimal number (text readers give strings).
    pub fn read(value: &Value) -> Option<Num> {
        match value {
            Value::Number(n) => n
                .as_i64()
                .map(|i| Num::Int(i.into()))
                .or_else(|| n.as_u64().map(|u| Num::Int(u.into())))
                .or_else(|| n.as_f64().map(Num::Float)),
            Value::String(s) => Num::parse(s.trim()),
            _ => None,
        }
    }

    fn parse(text: &str) -> Option<Num> {
        let digits = text.strip_prefix(['-', '+']).unwrap_or(text);
        if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return None;
        }
        if let Ok(i) = text.parse::<i128>() {
            return Some(Num::Int(i));
        }
        text.parse::<f64>()
            .ok()
            .filter(|f| f.is_finite())
            .map(Num::Float)
    }

    fn as_f64(self) -> f64 {
        match self {
            Num::Int(i) => i as f64,
            Num::Float(f) => f,
        }
    }

    /// `self - other`.
    pub fn minus(self, other: Num) -> Num {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Num::Int(a.saturating_sub(b)),
            (a, b) => Num::Float(a.as_f64() - b.as_f64()),
        }
    }
}

impl PartialOrd for Num {
    fn partial_cmp(&self, other: &Num) -> Option<Ordering> {
        match (self, other) {
            (Num::Int(a), Num::Int(b)) => Some(a.cmp(b)),
            (a, b) => a.as_f64().partial_cmp(&b.as_f64()),
        }
    }
}

impl fmt::Display for Num {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Num::Int(i) => write!(f, "{i}"),
            Num::Float(x) => write!(f, "{x}"),
        }
    }
}

/// Why an operator cannot take the value a rule (or the baseline key it names) gives it.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    #[error("{op} needs {needs}, not {given}")]
    Needs {
        op: &'static str,
        needs: &'static str,
        given: String,
    },
    #[error("matches: `{pattern}` is not a regex: {error}")]
    NotRegex { pattern: String, error: String },
}

/// Why a device value cannot be judged by a value operator: its type is wrong for it. The
/// messages read after the node's name (`Ethernet3 is a list, at_most needs a number`).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Mismatch {
    #[error("is {given}, matches needs text")]
    NotText { given: String },
    #[error(
        "is {given}, and the rule compares it with a boolean (YAML reads yes/no/on/off/true/false \
         unquoted as booleans: quote the rule's value to compare text)"
    )]
    TextForBoolean { given: String },
    #[error("is {given}, and the rule compares it with {want}")]
    Compared { given: String, want: String },
    #[error("is {given}, {op} needs a number")]
    NotNumber { given: String, op: &'static str },
}

/// An operator with its value, ready to judge.
#[derive(Clone, Debug)]
pub enum Cond {
    Equals(Value),
    NotEquals(Value),
    OneOf(Vec<Value>),
    Matches(Regex),
    AtLeast(Num),
    AtMost(Num),
    Present(bool),
    CountAtLeast(u64),
    CountAtMost(u64),
    IncreaseAtMost(Num),
    Keys(Vec<String>),
}

impl Cond {
    /// `op` with `value`; the error says what `op` needs and what it was given.
    pub fn build(op: Op, value: &Value) -> Result<Cond, BuildError> {
        let needs = |needs: &'static str| BuildError::Needs {
            op: op.name(),
            needs,
            given: describe(value),
        };
        match op {
            Op::Equals | Op::NotEquals => {
                if !is_scalar(value) {
                    return Err(needs("a string, a number or a boolean"));
                }
                Ok(match op {
                    Op::Equals => Cond::Equals(value.clone()),
                    _ => Cond::NotEquals(value.clone()),
                })
            }
            Op::OneOf => match value {
                Value::Array(items) if !items.is_empty() && items.iter().all(is_scalar) => {
                    Ok(Cond::OneOf(items.clone()))
                }
                _ => Err(needs("a non-empty list of strings, numbers or booleans")),
            },
            Op::Matches => match value {
                Value::String(pattern) => regex::RegexBuilder::new(pattern)
                    .size_limit(1 << 20)
                    .build()
                    .map(Cond::Matches)
                    .map_err(|e| BuildError::NotRegex {
                        pattern: pattern.clone(),
                        error: e.to_string(),
                    }),
                _ => Err(needs("a regex (a string)")),
            },
            Op::AtLeast | Op::AtMost | Op::IncreaseAtMost => {
                let n = match value {
                    Value::Number(_) => Num::read(value),
                    _ => None,
                }
                .ok_or_else(|| needs("a number"))?;
                Ok(match op {
                    Op::AtLeast => Cond::AtLeast(n),
                    Op::AtMost => Cond::AtMost(n),
                    _ => Cond::IncreaseAtMost(n),
                })
            }
            Op::Present => value
                .as_bool()
                .map(Cond::Present)
                .ok_or_else(|| needs("true or false")),
            Op::CountAtLeast | Op::CountAtMost => {
                let n = value
                    .as_u64()
                    .ok_or_else(|| needs("a whole number, 0 or more"))?;
                Ok(match op {
                    Op::CountAtLeast => Cond::CountAtLeast(n),
                    _ => Cond::CountAtMost(n),
                })
            }
            Op::Keys => match value {
                Value::Array(items) if items.iter().all(Value::is_string) => Ok(Cond::Keys(
                    items
                        .iter()
                        .filter_map(|i| i.as_str().map(str::to_string))
                        .collect(),
                )),
                _ => Err(needs("a list of member names (strings)")),
            },
        }
    }

    /// Whether `value` satisfies a value operator; `Err` when it has the wrong type for it.
    /// (`present`, the counts, `increase_at_most` and `keys` are judged by the evaluator.)
    pub fn holds(&self, value: &Value) -> Result<bool, Mismatch> {
        match self {
            Cond::Equals(want) => same(want, value),
            Cond::NotEquals(want) => same(want, value).map(|same| !same),
            Cond::OneOf(wants) => {
                for want in wants {
                    if same(want, value)? {
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            Cond::Matches(re) => match value {
                Value::String(s) => Ok(re.is_match(s)),
                Value::Number(_) | Value::Bool(_) => Ok(re.is_match(&value.to_string())),
                _ => Err(Mismatch::NotText {
                    given: describe(value),
                }),
            },
            Cond::AtLeast(n) => compare(value, "at_least").map(|v| v >= *n),
            Cond::AtMost(n) => compare(value, "at_most").map(|v| v <= *n),
            Cond::Present(_)
            | Cond::CountAtLeast(_)
            | Cond::CountAtMost(_)
            | Cond::IncreaseAtMost(_)
            | Cond::Keys(_) => Ok(true),
        }
    }
}

impl fmt::Display for Cond {
    /// The condition as a FAIL states what was wanted: `at most 0`, `one of "a", "b"`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cond::Equals(v) => write!(f, "equal to {}", show(v)),
            Cond::NotEquals(v) => write!(f, "other than {}", show(v)),
            Cond::OneOf(vs) => write!(
                f,
                "one of {}",
                vs.iter().map(show).collect::<Vec<_>>().join(", ")
            ),
            Cond::Matches(re) => write!(f, "matching /{}/", re.as_str()),
            Cond::AtLeast(n) => write!(f, "at least {n}"),
            Cond::AtMost(n) => write!(f, "at most {n}"),
            Cond::Present(true) => f.write_str("present"),
            Cond::Present(false) => f.write_str("absent"),
            Cond::CountAtLeast(n) => write!(f, "at least {n} node(s)"),
            Cond::CountAtMost(n) => write!(f, "at most {n} node(s)"),
            Cond::IncreaseAtMost(n) => {
                write!(f, "an increase of at most {n} since the previous run")
            }
            Cond::Keys(keys) => write!(f, "{}", keys.join(", ")),
        }
    }
}

fn is_scalar(value: &Value) -> bool {
    matches!(value, Value::String(_) | Value::Number(_) | Value::Bool(_))
}

/// Whether a device value equals a rule's value. Numbers compare as numbers (also when the
/// device printed them as text), strings exactly, booleans with booleans.
fn same(want: &Value, value: &Value) -> Result<bool, Mismatch> {
    let compared = || Mismatch::Compared {
        given: describe(value),
        want: describe(want),
    };
    match (want, value) {
        (Value::Bool(a), Value::Bool(b)) => Ok(a == b),
        (Value::Bool(_), Value::String(_)) => Err(Mismatch::TextForBoolean {
            given: describe(value),
        }),
        (Value::String(a), Value::String(b)) => Ok(a == b),
        (Value::Number(_) | Value::String(_), Value::Number(_) | Value::String(_)) => {
            match (Num::read(want), Num::read(value)) {
                (Some(a), Some(b)) => Ok(a.partial_cmp(&b) == Some(Ordering::Equal)),
                _ => Err(compared()),
            }
        }
        _ => Err(compared()),
    }
}

fn compare(value: &Value, op: &'static str) -> Result<Num, Mismatch> {
    Num::read(value).ok_or_else(|| Mismatch::NotNumber {
        given: describe(value),
        op,
    })
}

/// A value for a message: `a string ("abc")`, `a number (5)`, `a list`.
pub fn describe(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(_) => format!("a boolean ({value})"),
        Value::Number(_) => format!("a number ({value})"),
        Value::String(_) => format!("a string ({})", show(value)),
        Value::Array(_) => "a list".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// A value as a message shows it: compact JSON, at most 80 characters.
pub fn show(value: &Value) -> String {
    premarket_parse::text::clip(&value.to_string(), 80)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cond(op: &str, value: Value) -> Cond {
        Cond::build(Op::from_name(op).unwrap(), &value).unwrap()
    }

    #[test]
    fn value_operators() {
        // (operator, rule value, device value, holds)
        let cases = [
            ("equals", json!("synchronised"), json!("synchronised"), true),
            (
                "equals",
                json!("synchronised"),
                json!("unsynchronised"),
                false,
            ),
            ("equals", json!(0), json!(0), true),
            ("equals", json!(0), json!("0"), true),
            ("equals", json!(1.5), json!("1.50"), true),
            ("equals", json!("3"), json!(3), true),
            ("equals", json!(true), json!(true), true),
            ("equals", json!(true), json!(false), false),
            ("not_equals", json!("down"), json!("up"), true),
            ("not_equals", json!("down"), json!("down"), false),
            (
                "one_of",
                json!(["sys.peer", "candidate"]),
                json!("candidate"),
                true,
            ),
            (
                "one_of",
                json!(["sys.peer", "candidate"]),
                json!("reject"),
                false,
            ),
            ("matches", json!("^4\\.3[12]"), json!("4.32.2F"), true),
            ("matches", json!("^4\\.3[12]"), json!("4.33.1F"), false),
            ("matches", json!("^10$"), json!(10), true),
            ("at_most", json!(0), json!(0), true),
            ("at_most", json!(0), json!(3), false),
            ("at_most", json!(10), json!("7"), true),
            ("at_least", json!(-50), json!(-49.5), true),
            ("at_least", json!(-50), json!("-51"), false),
            ("at_most", json!(u64::MAX), json!(u64::MAX), true),
            (
                "at_most",
                json!(9_007_199_254_740_992_u64),
                json!(9_007_199_254_740_993_u64),
                false,
            ),
        ];
        for (op, want, value, holds) in cases {
            assert_eq!(
                cond(op, want.clone()).holds(&value),
                Ok(holds),
                "{op} {want} on {value}"
            );
        }
    }

    #[test]
    fn wrong_types_are_errors_not_verdicts() {
        let cases = [
            (
                "equals",
                json!(true),
                json!("yes"),
                "quote the rule's value",
            ),
            ("equals", json!(0), json!("zero"), "a string (\"zero\")"),
            ("equals", json!("up"), json!({"a": 1}), "an object"),
            ("at_most", json!(0), json!("n/a"), "at_most needs a number"),
            ("at_least", json!(0), json!(null), "null"),
            ("matches", json!("x"), json!([1]), "a list"),
        ];
        for (op, want, value, says) in cases {
            let err = cond(op, want).holds(&value).unwrap_err().to_string();
            assert!(err.contains(says), "{op} on {value}: {err}");
        }
    }

    #[test]
    fn values_the_operators_refuse() {
        let cases = [
            (
                "at_most",
                json!("ten"),
                "at_most needs a number, not a string",
            ),
            ("count_at_least", json!(-1), "a whole number"),
            ("one_of", json!([]), "non-empty list"),
            ("equals", json!(null), "equals needs a string"),
            ("matches", json!("(unclosed"), "is not a regex"),
            ("present", json!("yes"), "true or false"),
            ("keys", json!("Ethernet1"), "a list of member names"),
        ];
        for (op, value, says) in cases {
            let err = Cond::build(Op::from_name(op).unwrap(), &value)
                .unwrap_err()
                .to_string();
            assert!(err.contains(says), "{op} {value}: {err}");
        }
        assert_eq!(Op::from_name("at_mst"), None);
    }
}
