//! JSON as an EOS switch prints it after `| json`: keys in the order the device model gives
//! them (not sorted), four spaces of indentation, floats in their shortest form. Real CLI
//! transcripts (vEOS 4.18, EOS 4.15, cEOSLab 4.34) all indent by four; `serde_json`'s pretty
//! printer indents by two, which a parser tuned on the lab could wrongly come to rely on.

use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// One JSON value with ordered objects.
#[derive(Clone, Debug, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

impl J {
    /// An object from `(key, value)` pairs, in order.
    pub fn obj<K: Into<String>>(pairs: impl IntoIterator<Item = (K, J)>) -> J {
        J::Obj(pairs.into_iter().map(|(k, v)| (k.into(), v)).collect())
    }

    pub fn arr(items: impl IntoIterator<Item = J>) -> J {
        J::Arr(items.into_iter().collect())
    }

    /// The text the switch prints: four-space indentation and a final newline.
    pub fn render(&self) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
        // Writing into a Vec cannot fail, and every value here is representable.
        if self.serialize(&mut ser).is_err() {
            return "{}\n".to_string();
        }
        let mut text = String::from_utf8_lossy(&out).into_owned();
        text.push('\n');
        text
    }
}

impl Serialize for J {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            J::Null => s.serialize_unit(),
            J::Bool(b) => s.serialize_bool(*b),
            J::Int(i) => s.serialize_i64(*i),
            J::Float(f) => s.serialize_f64(*f),
            J::Str(t) => s.serialize_str(t),
            J::Arr(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for item in items {
                    seq.serialize_element(item)?;
                }
                seq.end()
            }
            J::Obj(pairs) => {
                let mut map = s.serialize_map(Some(pairs.len()))?;
                for (k, v) in pairs {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

impl From<bool> for J {
    fn from(v: bool) -> J {
        J::Bool(v)
    }
}

impl From<i64> for J {
    fn from(v: i64) -> J {
        J::Int(v)
    }
}

impl From<u64> for J {
    fn from(v: u64) -> J {
        J::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<u32> for J {
    fn from(v: u32) -> J {
        J::Int(v.into())
    }
}

impl From<i32> for J {
    fn from(v: i32) -> J {
        J::Int(v.into())
    }
}

impl From<usize> for J {
    fn from(v: usize) -> J {
        J::Int(i64::try_from(v).unwrap_or(i64::MAX))
    }
}

impl From<f64> for J {
    fn from(v: f64) -> J {
        J::Float(v)
    }
}

impl From<&str> for J {
    fn from(v: &str) -> J {
        J::Str(v.to_string())
    }
}

impl From<String> for J {
    fn from(v: String) -> J {
        J::Str(v)
    }
}

impl<T: Into<J>> From<Vec<T>> for J {
    fn from(v: Vec<T>) -> J {
        J::Arr(v.into_iter().map(Into::into).collect())
    }
}

/// `obj! { "key" => value, ... }`: an ordered object; values convert with `Into<J>`.
macro_rules! obj {
    ($($k:expr => $v:expr),* $(,)?) => {
        $crate::eos::json::J::Obj(vec![$(($k.to_string(), $crate::eos::json::J::from($v))),*])
    };
}
pub(crate) use obj;

impl From<J> for serde_json::Value {
    fn from(j: J) -> serde_json::Value {
        serde_json::to_value(&j).unwrap_or(serde_json::Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn four_spaces_and_model_order() {
        let doc = obj! {
            "zeta" => 1u32,
            "alpha" => obj! { "list" => J::arr([J::from(1.5), J::from("x")]), "empty" => J::arr([]) },
            "none" => J::obj(Vec::<(String, J)>::new()),
            "up" => 1_688_840_924.755_607_8f64,
        };
        assert_eq!(
            doc.render(),
            "{\n    \"zeta\": 1,\n    \"alpha\": {\n        \"list\": [\n            1.5,\n            \"x\"\n        ],\n        \"empty\": []\n    },\n    \"none\": {},\n    \"up\": 1688840924.7556078\n}\n"
        );
        let back: serde_json::Value = serde_json::from_str(&doc.render()).unwrap();
        assert_eq!(back["alpha"]["list"][1], "x");
    }
}
