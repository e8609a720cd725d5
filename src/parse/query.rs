//! A device command defined once: its text, its parser and the fact its parser produces.
//!
//! A platform writes one file per command with a type that implements [`Query`] (the command
//! may carry arguments: a policy id, a session filter) and lists it in its [`QuerySpec`]s, from
//! which `premarket parse`, the read-only allowlist and the offline file names follow. Checks
//! name the queries they need and read the typed facts back from [`super::Facts`].

use std::any::Any;
use std::fmt;

use serde::Serialize;

use super::{Availability, Model, ParseError, Raw};
use premarket_core::Command;

/// A parsed output, as stored: any serialisable value, read back by its concrete type.
pub trait Fact: Any + Send + Sync + fmt::Debug {
    fn to_json(&self) -> serde_json::Value;
    /// As the archive records it (JSON text).
    fn to_record(&self) -> super::FactJson;
    fn as_any(&self) -> &dyn Any;
}

impl<T: Serialize + Any + Send + Sync + fmt::Debug> Fact for T {
    fn to_json(&self) -> serde_json::Value {
        serde_json::to_value(self)
            .unwrap_or_else(|e| serde_json::Value::String(format!("unserializable: {e}")))
    }
    fn to_record(&self) -> super::FactJson {
        super::FactJson::of(self)
    }
    fn as_any(&self) -> &dyn Any {
        self
    }
}

/// One device command and how to read its output.
pub trait Query: Send + Sync + 'static {
    /// A stable name for this kind of query (`eos.show-version`): the key of its facts in the
    /// archive and in `premarket parse` listings.
    const KIND: &'static str;
    /// Whether the run archive keeps this query's fact, so that the next run can judge what
    /// grew since (counters). Off by default: most facts are only needed now.
    const ARCHIVED: bool = false;
    /// What the parser produces.
    type Fact: Serialize + Send + Sync + fmt::Debug + 'static;
    /// The exact lines sent: the context (if any) and the command.
    fn command(&self) -> Command;
    /// Reads the command's output. Text that is not what the command prints is an error.
    fn parse(raw: &mut Raw<'_>) -> Result<Self::Fact, ParseError>;
    /// On which models the command exists; `None`: on every model of the platform.
    const AVAILABILITY: Option<Availability> = None;
    /// This query's availability: [`Query::AVAILABILITY`], unless its argument changes it
    /// (one query type for two NP generations' port lists overrides this).
    fn available_on(&self) -> Option<Availability> {
        Self::AVAILABILITY
    }
    /// The device's model, for the platform's identity query (`show version`).
    fn identify(_fact: &Self::Fact) -> Option<Model> {
        None
    }
    /// The same from an archived fact (the previous run's record), for `plan`.
    fn identify_record(_fact: &serde_json::Value) -> Option<Model> {
        None
    }
}

/// Where a query's fact is filed: the command sent and the kind of reading made of its output.
/// Two queries may read one command two ways (typed, and as JSON for a YAML check); the
/// command is still sent once.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize)]
pub struct QueryKey {
    pub command: Command,
    pub kind: String,
}

/// A query whose fact type is hidden, so that queries of different kinds fit in one list.
pub trait AnyQuery: Send + Sync {
    /// The command sent (`key().command`) and the kind of reading made of its output.
    fn key(&self) -> QueryKey;
    fn parse_any(&self, raw: &mut Raw<'_>) -> Result<Box<dyn Fact>, ParseError>;
    /// Whether the run archive keeps the fact for the next run ([`Query::ARCHIVED`]).
    fn archived(&self) -> bool;
    /// On which models the command exists ([`Query::available_on`]).
    fn availability(&self) -> Option<Availability> {
        None
    }
    /// The device's model from this query's fact, for an identity query.
    fn identify(&self, _fact: &dyn Fact) -> Option<Model> {
        None
    }
    /// The device's model from an archived record of this query's fact.
    fn identify_record(&self, _fact: &serde_json::Value) -> Option<Model> {
        None
    }
}

impl<Q: Query> AnyQuery for Q {
    fn key(&self) -> QueryKey {
        QueryKey {
            command: self.command(),
            kind: Q::KIND.to_string(),
        }
    }

    fn parse_any(&self, raw: &mut Raw<'_>) -> Result<Box<dyn Fact>, ParseError> {
        Q::parse(raw).map(|fact| Box::new(fact) as Box<dyn Fact>)
    }

    fn archived(&self) -> bool {
        Q::ARCHIVED
    }

    fn availability(&self) -> Option<Availability> {
        self.available_on()
    }

    fn identify(&self, fact: &dyn Fact) -> Option<Model> {
        fact.as_any()
            .downcast_ref::<Q::Fact>()
            .and_then(Q::identify)
    }

    fn identify_record(&self, fact: &serde_json::Value) -> Option<Model> {
        Q::identify_record(fact)
    }
}

/// The argument a command shape takes after its fixed words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A table entry number (`show firewall policy 12`).
    Number,
    /// A plain name, or a double-quoted one with spaces (`show firewall service custom "MD feed"`).
    Name,
}

/// The text of a command as a platform lists it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// Exactly this line.
    Exact(&'static str),
    /// These words, optionally followed by one argument.
    WithArg(&'static str, Arg),
}

impl Shape {
    /// Whether `line` is this command (white space between words is not significant).
    pub fn matches(self, line: &str) -> bool {
        let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
        match self {
            Shape::Exact(text) => line == text,
            Shape::WithArg(text, arg) => match line.strip_prefix(text) {
                Some("") => true,
                Some(rest) => rest
                    .strip_prefix(' ')
                    .is_some_and(|value| arg.accepts(value)),
                None => false,
            },
        }
    }

    /// The fixed words.
    pub fn text(self) -> &'static str {
        match self {
            Shape::Exact(t) | Shape::WithArg(t, _) => t,
        }
    }
}

impl Arg {
    pub fn accepts(self, value: &str) -> bool {
        match self {
            Arg::Number => {
                (1..=10).contains(&value.len()) && value.bytes().all(|b| b.is_ascii_digit())
            }
            Arg::Name => {
                let plain = |t: &str| {
                    !t.is_empty()
                        && t.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b"_.-/:+@".contains(&b))
                };
                match value.strip_prefix('"').and_then(|r| r.strip_suffix('"')) {
                    Some(inner) => inner.len() <= 79 && inner.split(' ').all(plain),
                    None => value.len() <= 79 && plain(value),
                }
            }
        }
    }
}

/// A platform's listing of one kind of query: what `premarket parse PLATFORM COMMAND` and the
/// allowlist know about it.
#[derive(Clone, Copy)]
pub struct QuerySpec {
    pub kind: &'static str,
    pub shape: Shape,
    /// Parses an output and returns the fact as JSON (what `premarket parse` prints and what
    /// YAML checks read for commands that are not EOS `| json`).
    pub parse_json: fn(&mut Raw<'_>) -> Result<serde_json::Value, ParseError>,
    /// On which models the command exists (a YAML check over it is gated alike).
    pub availability: Option<Availability>,
}

impl fmt::Debug for QuerySpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("QuerySpec")
            .field("kind", &self.kind)
            .field("shape", &self.shape)
            .finish()
    }
}

impl QuerySpec {
    /// The listing of query type `Q` under `shape`.
    pub const fn of<Q: Query>(shape: Shape) -> QuerySpec {
        QuerySpec {
            kind: Q::KIND,
            shape,
            parse_json: json_of::<Q>,
            availability: Q::AVAILABILITY,
        }
    }
}

/// Parses with `Q` and turns the fact into JSON.
pub fn json_of<Q: Query>(raw: &mut Raw<'_>) -> Result<serde_json::Value, ParseError> {
    let fact = Q::parse(raw)?;
    serde_json::to_value(&fact)
        .map_err(|e| ParseError::new(format!("the fact cannot be shown as JSON: {e}"), ""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shapes_match_words_and_their_argument() {
        let policy = Shape::WithArg("show firewall policy", Arg::Number);
        assert!(policy.matches("show firewall policy"));
        assert!(policy.matches("show  firewall policy 12"));
        assert!(!policy.matches("show firewall policy 12 13"));
        assert!(!policy.matches("show firewall policy x"));
        assert!(!policy.matches("show firewall policy6"));
        let service = Shape::WithArg("show firewall service custom", Arg::Name);
        assert!(service.matches("show firewall service custom \"MD feed\""));
        assert!(!service.matches("show firewall service custom a\"b"));
        assert!(Shape::Exact("get system status").matches("get system status"));
        assert!(!Shape::Exact("get system status").matches("get system status | grep x"));
    }
}
