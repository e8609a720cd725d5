//! A YAML value kept with the place of every node in it, for parts of a configuration file whose
//! grammar belongs to a later stage (a declarative check's `rule:` and `parse:`).
//!
//! Config loads the catalog but does not know what a rule may say; the check stage reads the
//! rule from this tree and can still point each mistake (an unknown operator, a JSONPath that
//! does not parse) at its own `file:line:column`.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_saphyr::Spanned;

/// A YAML node and where it is written.
pub type Tree = Spanned<TreeValue>;

/// A YAML value whose children carry their places.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TreeValue {
    Null,
    Bool(bool),
    Number(serde_json::Number),
    String(String),
    List(Vec<Tree>),
    /// Keys in file order (a key written twice is refused when the file is read).
    Map(Vec<(Spanned<String>, Tree)>),
}

impl TreeValue {
    /// A short name of the kind of value, for messages ("a list", "a number").
    pub fn kind(&self) -> &'static str {
        match self {
            TreeValue::Null => "null",
            TreeValue::Bool(_) => "a boolean",
            TreeValue::Number(_) => "a number",
            TreeValue::String(_) => "a string",
            TreeValue::List(_) => "a list",
            TreeValue::Map(_) => "a mapping",
        }
    }

    /// The value without places, as JSON (what a rule compares device values with).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value;
        match self {
            TreeValue::Null => Value::Null,
            TreeValue::Bool(b) => Value::Bool(*b),
            TreeValue::Number(n) => Value::Number(n.clone()),
            TreeValue::String(s) => Value::String(s.clone()),
            TreeValue::List(items) => {
                Value::Array(items.iter().map(|i| i.value.to_json()).collect())
            }
            TreeValue::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.value.clone(), v.value.to_json()))
                    .collect(),
            ),
        }
    }
}

impl<'de> Deserialize<'de> for TreeValue {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TreeVisitor)
    }
}

struct TreeVisitor;

impl<'de> Visitor<'de> for TreeVisitor {
    type Value = TreeValue;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a YAML value")
    }

    fn visit_unit<E>(self) -> Result<TreeValue, E> {
        Ok(TreeValue::Null)
    }

    fn visit_none<E>(self) -> Result<TreeValue, E> {
        Ok(TreeValue::Null)
    }

    fn visit_bool<E>(self, v: bool) -> Result<TreeValue, E> {
        Ok(TreeValue::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<TreeValue, E> {
        Ok(TreeValue::Number(v.into()))
    }

    fn visit_u64<E>(self, v: u64) -> Result<TreeValue, E> {
        Ok(TreeValue::Number(v.into()))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<TreeValue, E> {
        serde_json::Number::from_f64(v)
            .map(TreeValue::Number)
            .ok_or_else(|| E::custom(format!("{v} is not a number a rule can compare with")))
    }

    fn visit_str<E>(self, v: &str) -> Result<TreeValue, E> {
        Ok(TreeValue::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<TreeValue, E> {
        Ok(TreeValue::String(v))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TreeValue, A::Error> {
        let mut items = Vec::new();
        while let Some(item) = seq.next_element::<Tree>()? {
            items.push(item);
        }
        Ok(TreeValue::List(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TreeValue, A::Error> {
        let mut entries: Vec<(Spanned<String>, Tree)> = Vec::new();
        while let Some(key) = map.next_key::<Spanned<String>>()? {
            if entries.iter().any(|(k, _)| k.value == key.value) {
                return Err(de::Error::custom(format!("duplicate key `{}`", key.value)));
            }
            let value = map.next_value::<Tree>()?;
            entries.push((key, value));
        }
        Ok(TreeValue::Map(entries))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_node_keeps_its_place() {
        let text = "rule:\n  each: $.a.*\n  all:\n    - { path: $.b, at_most: 0 }\n";
        #[derive(Deserialize)]
        struct File {
            rule: Tree,
        }
        let file: File = serde_saphyr::from_str(text).unwrap();
        let TreeValue::Map(entries) = &file.rule.value else {
            panic!("a mapping: {:?}", file.rule);
        };
        assert_eq!(entries[0].0.value, "each");
        assert_eq!(
            (
                entries[0].1.referenced.line(),
                entries[0].1.referenced.column()
            ),
            (2, 9)
        );
        let TreeValue::List(all) = &entries[1].1.value else {
            panic!("a list");
        };
        let TreeValue::Map(leaf) = &all[0].value else {
            panic!("a mapping");
        };
        assert_eq!(leaf[1].0.value, "at_most");
        assert_eq!(leaf[1].0.referenced.line(), 4);
        assert_eq!(leaf[1].1.value, TreeValue::Number(0.into()));
        assert_eq!(
            file.rule.value.to_json(),
            serde_json::json!({"each": "$.a.*", "all": [{"path": "$.b", "at_most": 0}]})
        );
    }

    #[test]
    fn duplicate_keys_are_refused() {
        assert!(serde_saphyr::from_str::<Tree>("a: 1\na: 2\n").is_err());
    }
}
