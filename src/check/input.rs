//! Building a check's typed input from a device's baseline, once, when the run is planned.
//!
//! The device file is read again for each check with a structure that holds only that check's
//! keys, so serde-saphyr reports every mistake at its own `file:line:column` (a mistyped port in
//! the third flow points at that port). Which keys a check reads is taken from its input type
//! ([`keys_of`]), so a key that no check reads is caught as a typo without a second list.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

pub use premarket_config::{BaselineText, ConfigError as InputError};

/// The field names of a struct type `T` (its serde names), as serde would ask for them.
pub fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut fields: &'static [&'static str] = &[];
    let _ = T::deserialize(FieldNames {
        fields: &mut fields,
    });
    fields
}

/// A deserializer that records the fields a struct asks for, then stops.
struct FieldNames<'a> {
    fields: &'a mut &'static [&'static str],
}

#[derive(Debug)]
struct Stop;

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("field names recorded")
    }
}

impl std::error::Error for Stop {}

impl de::Error for Stop {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Stop
    }
}

impl<'de> Deserializer<'de> for FieldNames<'_> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        _: V,
    ) -> Result<V::Value, Stop> {
        *self.fields = fields;
        Err(Stop)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf option unit unit_struct newtype_struct seq tuple
        tuple_struct map enum identifier ignored_any
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Sample {
        lanz: bool,
        #[serde(rename = "cpu_max_percent")]
        cpu: Option<f64>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Nothing {}

    #[test]
    fn field_names_come_from_the_type() {
        assert_eq!(keys_of::<Sample>(), &["lanz", "cpu_max_percent"]);
        assert!(keys_of::<Nothing>().is_empty());
    }
}
