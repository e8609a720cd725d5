//! EOS `| json` outputs: finding the document in what the CLI printed, and reading it strictly.
//!
//! Over SSH the document may follow the echoed `sw1#show x | json` line and precede the next
//! prompt; saved eAPI replies wrap it in a JSON-RPC envelope whose last `result` entry is the
//! command's (earlier ones answer `enable`). The reader refuses what the lenient default would
//! hide: an object that names one key twice with two values (serde_json keeps the last one
//! silently), an eAPI `error`, and EOS's own `errors` list. Nesting is bounded by serde_json's
//! recursion limit (128), so no input can drive the parser deep.

mod plain;

use std::fmt;

use serde::de::{self, DeserializeOwned, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::{Map, Value};

use super::text::{body, device_error, is_echo, is_prompt};
use premarket_parse::ParseError;
use premarket_parse::text::quote;

/// The JSON document inside `raw` (after echoed prompt lines, before a trailing prompt), or
/// `None` when `raw` does not hold one (the caller may read a text form instead).
fn document_text(raw: &str) -> Option<&str> {
    let start = raw.find(['{', '['])?;
    let end = raw.rfind(['}', ']'])?;
    let only_prompts_before = raw[..start]
        .lines()
        .all(|l| l.trim().is_empty() || is_prompt(l) || is_echo(l));
    (end > start && only_prompts_before).then(|| &raw[start..=end])
}

/// `None` when `raw` is not JSON; otherwise the command's document read strictly as `T`.
pub fn json<T: DeserializeOwned>(raw: &str, what: &str) -> Option<Result<T, ParseError>> {
    let doc = document_text(raw)?;
    Some(read(doc, raw, what))
}

/// The command's document as `T`; output that is not JSON is an error (the EOS error line when
/// the switch printed one).
pub fn required<T: DeserializeOwned>(raw: &str, what: &str) -> Result<T, ParseError> {
    match json(raw, what) {
        Some(parsed) => parsed,
        None => {
            let lines = body(raw);
            device_error(&lines, raw)?;
            Err(ParseError::new(
                format!("`{what}` output is not JSON (was `| json` dropped?)"),
                raw,
            ))
        }
    }
}

fn read<T: DeserializeOwned>(doc: &str, raw: &str, what: &str) -> Result<T, ParseError> {
    // A plain document reads in one pass; the strict way below builds a tree first and says
    // what is wrong when anything is (a failure here is said by it too).
    if plain::plain(doc)
        && let Ok(read) = serde_json::from_str::<T>(doc)
    {
        return Ok(read);
    }
    let value = serde_json::from_str::<Strict>(doc)
        .map_err(|e| ParseError::new(format!("`{what}` output is not valid JSON: {e}"), raw))?
        .0;
    let value = unwrap_envelope(value)
        .map_err(|reason| ParseError::new(format!("`{what}`: {reason}"), raw))?;
    serde_json::from_value::<T>(value).map_err(|e| {
        ParseError::new(
            format!(
                "`{what}` JSON without the expected keys: {}",
                quote(&e.to_string())
            ),
            raw,
        )
    })
}

/// The command's own document: the last `result` of an eAPI reply, or the document itself.
/// An eAPI `error` or an EOS `errors` list is the switch refusing the command.
fn unwrap_envelope(mut value: Value) -> Result<Value, Envelope> {
    if let Some(error) = value
        .get("error")
        .filter(|_| value.get("jsonrpc").is_some())
    {
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        return Err(Envelope::EapiError(message.to_string()));
    }
    let last = value
        .get_mut("result")
        .and_then(Value::as_array_mut)
        .and_then(Vec::pop);
    if let Some(last) = last {
        value = last;
    }
    if let Some(errors) = value.get("errors").and_then(Value::as_array) {
        let first = errors.first().and_then(Value::as_str).unwrap_or("");
        return Err(Envelope::Errors(first.to_string()));
    }
    if !value.is_object() {
        return Err(Envelope::NotObject);
    }
    Ok(value)
}

/// Why a JSON reply holds no document of the command's.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
enum Envelope {
    /// An eAPI `error`, with its message.
    #[error("the switch answered with an eAPI error: {}", quote(.0))]
    EapiError(String),
    /// The first of EOS's `errors`.
    #[error("the switch answered with an error: {}", quote(.0))]
    Errors(String),
    #[error("the JSON document is not an object")]
    NotObject,
}

/// Latest time taken as real, epoch seconds (2100-01-01): a later timestamp is garbled.
pub const MAX_EPOCH_S: f64 = 4_102_444_800.0;

/// A VLAN id as EOS keys it (`"100"`): 1-4094.
pub fn vlan(key: &str) -> Result<u16, NotAVlan> {
    key.parse::<u16>()
        .ok()
        .filter(|v| (1..=4094).contains(v))
        .ok_or_else(|| NotAVlan(key.to_string()))
}

/// A VLAN key that is no VLAN id, as printed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{} is not a VLAN id (1-4094)", quote(.0))]
pub struct NotAVlan(pub String);

/// A timestamp no switch reports (before 1970, after 2100, not a number).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
#[error("{0} is not a time a switch reports")]
pub struct NotATime(pub f64);

/// An epoch time in (fractional) seconds as whole microseconds, when it is one a switch could
/// report (from 1970 to 2100).
pub fn epoch_us(seconds: f64) -> Result<u64, NotATime> {
    if seconds.is_finite() && (0.0..=MAX_EPOCH_S).contains(&seconds) {
        Ok((seconds * 1e6).round() as u64)
    } else {
        Err(NotATime(seconds))
    }
}

/// `value` rounded to `decimals` places, so a fact's JSON reads back to the same number
/// (serde_json's default float parsing is exact only for short decimals).
pub fn rounded(value: f64, decimals: i32) -> f64 {
    let scale = 10f64.powi(decimals);
    (value * scale).round() / scale
}

/// A JSON value whose objects never name one key twice with two values.
struct Strict(Value);

impl<'de> Deserialize<'de> for Strict {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(StrictVisitor).map(Strict)
    }
}

struct StrictVisitor;

impl<'de> Visitor<'de> for StrictVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }

    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }

    fn visit_f64<E: de::Error>(self, v: f64) -> Result<Value, E> {
        serde_json::Number::from_f64(v)
            .map(Value::Number)
            .ok_or_else(|| E::custom("a number that is not finite"))
    }

    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }

    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::new();
        while let Some(Strict(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            let Strict(value) = map.next_value()?;
            match out.get(&key) {
                Some(old) if *old != value => {
                    return Err(de::Error::custom(format!(
                        "key {} appears twice with different values",
                        quote(&key)
                    )));
                }
                Some(_) => {}
                None => {
                    out.insert(key, value);
                }
            }
        }
        Ok(Value::Object(out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Doc {
        a: u64,
    }

    #[test]
    fn finds_the_document_and_unwraps_envelopes() {
        let cases = [
            "{\"a\": 1}",
            "sw1#show x | json\r\n{\r\n    \"a\": 1\r\n}\r\nsw1#",
            "{\"jsonrpc\": \"2.0\", \"id\": \"1\", \"result\": [{}, {\"a\": 1}]}",
            "{\"a\": 1, \"a\": 1}",
            "sw1#\nshow x | json\nsw1#show x | json\n{\n    \"a\": 1\n}\nsw1#",
        ];
        for raw in cases {
            assert_eq!(required::<Doc>(raw, "x").unwrap(), Doc { a: 1 }, "{raw}");
        }
    }

    #[test]
    fn refuses_what_lenient_parsing_hides() {
        let cases = [
            ("{\"a\": 1, \"a\": 2}", "twice"),
            ("{\"b\": {\"c\": 1, \"c\": true}, \"a\": 1}", "twice"),
            ("{\"a\": -1}", "expected keys"),
            ("{\"a\": 1e400}", "not valid JSON"),
            ("{\"a\": 99999999999999999999999}", "expected keys"),
            (
                "{\"jsonrpc\": \"2.0\", \"error\": {\"code\": 1002, \"message\": \"CLI command 2 of 2 'show x' failed: invalid command\"}}",
                "eAPI error",
            ),
            (
                "{\"errors\": [\"Not supported on this hardware platform\"]}",
                "Not supported",
            ),
            ("[1, 2]", "not an object"),
            ("% Invalid input (at token 1: 'x')", "Invalid input"),
            ("random words", "not JSON"),
            ("{\"a\": 1", "not JSON"),
        ];
        for (raw, words) in cases {
            let e = required::<Doc>(raw, "x").unwrap_err();
            assert!(e.reason.contains(words), "{raw}: {}", e.reason);
        }
        assert_eq!(vlan("100"), Ok(100));
        for bad in ["0", "4095", "-1", "x", "100.5"] {
            assert!(vlan(bad).is_err(), "{bad}");
        }
        assert_eq!(epoch_us(1_568_892_560.445_182), Ok(1_568_892_560_445_182));
        assert!(epoch_us(-1.0).is_err() && epoch_us(f64::NAN).is_err() && epoch_us(1e12).is_err());
        let r = rounded(-2.365_720_064_370_627_5, 4);
        assert_eq!(
            serde_json::from_str::<f64>(&serde_json::to_string(&r).unwrap()).unwrap(),
            r
        );
        let deep = format!("{}{}", "{\"a\":".repeat(100_000), "}".repeat(100_000));
        assert!(required::<Doc>(&deep, "x").is_err());
    }
}
