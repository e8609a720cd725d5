//! Building a check's typed input from a device's baseline, once, when the run is planned.
//!
//! The device file is read again for each check with a structure that holds only that check's
//! keys, so serde-saphyr reports every mistake at its own `file:line:column` (a mistyped port in
//! the third flow points at that port). Which keys a check reads is taken from its input type
//! ([`keys_of`]), so a key that no check reads is caught as a typo without a second list; and
//! the nested keys too ([`paths_of`]), so a key at the wrong depth is named with where it
//! belongs.

use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

pub use premarket_config::{BaselineText, ConfigError as InputError};

/// The field names of a struct type `T` (its serde names), as serde would ask for them.
pub fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    let mut found = None;
    let _ = T::deserialize(Walker {
        route: &[],
        prefix: String::new(),
        found: &mut found,
    });
    found.map_or(&[], |(_, fields)| fields)
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

/// Every dotted key path of `T` (`ptp`, `ptp.max_clock_accuracy`, `multicast_feeds.vlan`): the
/// fields of each struct it holds, through options, lists and boxes. A key written at the
/// wrong depth is then named with where it belongs. Each pass of `Walker` follows one route
/// of field indexes down and records the fields of the struct at its end.
pub fn paths_of<T: DeserializeOwned>() -> Vec<String> {
    let mut paths = Vec::new();
    let mut routes: Vec<Vec<usize>> = vec![Vec::new()];
    while let Some(route) = routes.pop() {
        let mut found = None;
        let _ = T::deserialize(Walker {
            route: &route,
            prefix: String::new(),
            found: &mut found,
        });
        let Some((prefix, fields)) = found else {
            continue;
        };
        for (i, field) in fields.iter().enumerate() {
            paths.push(if prefix.is_empty() {
                field.to_string()
            } else {
                format!("{prefix}.{field}")
            });
            // A type that holds itself would lead down for ever.
            if route.len() < MAX_DEPTH {
                routes.push(route.iter().copied().chain([i]).collect());
            }
        }
    }
    paths.sort();
    paths
}

/// Deeper than any baseline's keys go.
const MAX_DEPTH: usize = 6;

/// A deserializer that goes down `route` (one field index per struct) and records the fields
/// of the struct at its end, with their dotted prefix.
struct Walker<'a> {
    route: &'a [usize],
    prefix: String,
    found: &'a mut Option<(String, &'static [&'static str])>,
}

impl<'de, 'a> Deserializer<'de> for Walker<'a> {
    type Error = Stop;

    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
        Err(Stop)
    }

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Stop> {
        let Some((&i, rest)) = self.route.split_first() else {
            *self.found = Some((self.prefix, fields));
            return Err(Stop);
        };
        let field = fields.get(i).ok_or(Stop)?;
        let prefix = if self.prefix.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.prefix)
        };
        visitor.visit_map(OneField {
            key: Some(field),
            value: Some(Walker {
                route: rest,
                prefix,
                found: self.found,
            }),
        })
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_some(self)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Stop> {
        visitor.visit_seq(OneItem { item: Some(self) })
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _: &'static str,
        visitor: V,
    ) -> Result<V::Value, Stop> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct tuple tuple_struct map enum identifier ignored_any
    }
}

/// The one field of a struct the walk goes down.
struct OneField<'a> {
    key: Option<&'static str>,
    value: Option<Walker<'a>>,
}

impl<'de> de::MapAccess<'de> for OneField<'_> {
    type Error = Stop;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Stop> {
        match self.key.take() {
            Some(key) => seed
                .deserialize(de::value::BorrowedStrDeserializer::new(key))
                .map(Some),
            None => Err(Stop),
        }
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Stop> {
        seed.deserialize(self.value.take().ok_or(Stop)?)
    }
}

/// The one item of a list the walk goes down.
struct OneItem<'a> {
    item: Option<Walker<'a>>,
}

impl<'de> de::SeqAccess<'de> for OneItem<'_> {
    type Error = Stop;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Stop> {
        match self.item.take() {
            Some(walker) => seed.deserialize(walker).map(Some),
            None => Err(Stop),
        }
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

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Nested {
        lanz: bool,
        ptp: Option<Ptp>,
        feeds: Vec<Feed>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Ptp {
        max_offset_ns: u64,
        #[serde(default)]
        max_clock_accuracy: u8,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Feed {
        vlan: u16,
        a: Box<Side>,
    }

    #[allow(dead_code)]
    #[derive(Deserialize)]
    struct Side {
        group: String,
    }

    #[test]
    fn key_paths_go_through_options_lists_and_boxes() {
        assert_eq!(
            paths_of::<Nested>(),
            [
                "feeds",
                "feeds.a",
                "feeds.a.group",
                "feeds.vlan",
                "lanz",
                "ptp",
                "ptp.max_clock_accuracy",
                "ptp.max_offset_ns",
            ]
        );
        assert_eq!(paths_of::<Sample>(), ["cpu_max_percent", "lanz"]);
    }

    #[test]
    fn field_names_come_from_the_type() {
        assert_eq!(keys_of::<Sample>(), &["lanz", "cpu_max_percent"]);
        assert!(keys_of::<Nothing>().is_empty());
    }
}
