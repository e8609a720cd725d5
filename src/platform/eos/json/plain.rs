//! Whether an EOS JSON document can be read straight into its type: valid JSON, an object, no
//! object anywhere naming one key twice, and none of the keys of an eAPI envelope or an EOS
//! error (`jsonrpc`, `error`, `result`, `errors`) at its top. Such a document (every document a
//! healthy switch prints over SSH) reads into the command's type in one pass; anything else
//! goes the strict way ([`super::read`]), which says what is wrong. Nothing is built here: keys
//! are borrowed from the text where they hold no escapes, values are skipped.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

/// Keys that make a top-level object an envelope or an error report.
const ENVELOPE: [&str; 4] = ["jsonrpc", "error", "result", "errors"];

/// `true` when `doc` is a plain document (see the module).
pub(super) fn plain(doc: &str) -> bool {
    matches!(
        serde_json::from_str::<Checked>(doc),
        Ok(Checked {
            object: true,
            envelope: false
        })
    )
}

/// What one value was: an object, and whether it holds an envelope's keys.
struct Checked {
    object: bool,
    envelope: bool,
}

impl<'de> Deserialize<'de> for Checked {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(CheckedVisitor)
    }
}

struct CheckedVisitor;

/// Not an object: nothing to check.
const SCALAR: Checked = Checked {
    object: false,
    envelope: false,
};

impl<'de> Visitor<'de> for CheckedVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Checked, E> {
        Ok(SCALAR)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Checked, E> {
        Ok(SCALAR)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Checked, E> {
        Ok(SCALAR)
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Checked, E> {
        // The strict reader refuses a number that is not finite: so does this one.
        if v.is_finite() {
            Ok(SCALAR)
        } else {
            Err(E::custom("a number that is not finite"))
        }
    }

    fn visit_str<E>(self, _: &str) -> Result<Checked, E> {
        Ok(SCALAR)
    }

    fn visit_unit<E>(self) -> Result<Checked, E> {
        Ok(SCALAR)
    }

    fn visit_none<E>(self) -> Result<Checked, E> {
        Ok(SCALAR)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Checked, A::Error> {
        while seq.next_element::<Checked>()?.is_some() {}
        Ok(SCALAR)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Checked, A::Error> {
        let mut keys: Vec<Cow<'de, str>> = Vec::new();
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            map.next_value::<Checked>()?;
            keys.push(key);
        }
        let envelope = keys.iter().any(|k| ENVELOPE.contains(&k.as_ref()));
        keys.sort_unstable();
        if keys.windows(2).any(|w| w[0] == w[1]) {
            return Err(de::Error::custom("a key appears twice"));
        }
        Ok(Checked {
            object: true,
            envelope,
        })
    }
}

/// An object's key, borrowed from the text when it holds no escape.
struct Key<'de>(Cow<'de, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(KeyVisitor)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Key<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a key")
    }

    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Borrowed(v)))
    }

    fn visit_str<E>(self, v: &str) -> Result<Key<'de>, E> {
        Ok(Key(Cow::Owned(v.to_string())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_plain_object_is_plain() {
        let cases = [
            ("{\"a\": 1, \"b\": {\"c\": [1, {\"d\": null}]}}", true),
            ("{\"a\\u0062\": 1, \"ab\": 2}", false),
            ("{\"a\": 1, \"a\": 1}", false),
            ("{\"b\": [{\"c\": 1, \"c\": 1}]}", false),
            ("{\"jsonrpc\": \"2.0\", \"result\": [{}]}", false),
            ("{\"errors\": [\"x\"]}", false),
            ("{\"b\": {\"errors\": []}}", true),
            ("[1, 2]", false),
            ("{\"a\": 1e400}", false),
            ("{\"a\": 1", false),
            ("1", false),
        ];
        for (doc, want) in cases {
            assert_eq!(plain(doc), want, "{doc}");
        }
    }
}
