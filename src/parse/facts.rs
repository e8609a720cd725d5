//! The facts of one device: for every planned query, its parsed fact or why there is none.

use std::collections::HashMap;
use std::sync::Arc;

use chrono::{DateTime, Utc};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::model::{self, Applies};
use super::{AnyQuery, Fact, Model, ParseError, Query, QueryKey, Raw};
use premarket_core::{CollectError, Command, Output, Verdict};

/// Why a check could not get the fact it needs. Never OK: an ERROR verdict, or SKIP with the
/// reason when the command does not exist on the device's model.
#[derive(Clone, Debug, thiserror::Error)]
pub enum FactError {
    #[error("`{command}` was not collected: {error}")]
    NotCollected {
        command: String,
        error: CollectError,
    },
    #[error("`{command}` returned output premarket cannot read: {error}")]
    Unparsable { command: String, error: ParseError },
    #[error("`{command}` was parsed as another kind of fact (a bug in premarket)")]
    WrongType { command: String },
    #[error("`{command}` was not planned for this check (a bug in premarket)")]
    NotPlanned { command: String },
    /// The command does not exist on this model (known from its identity command, or said by
    /// the device where the model is not known to have it): SKIP, with why.
    #[error("{reason}")]
    NotAvailable { command: String, reason: String },
    /// The device said it has no such command, but its model is known to have it.
    #[error(
        "`{command}` was refused although {who} has this command: {said} (check the software release and the account's command authorization)"
    )]
    Refused {
        command: String,
        who: String,
        said: String,
    },
}

impl FactError {
    /// The raw text to show as evidence.
    pub fn excerpt(&self) -> &str {
        match self {
            FactError::Unparsable { error, .. } => &error.excerpt,
            FactError::Refused { said, .. } => said,
            _ => "",
        }
    }

    /// The command does not exist on this model: the check (or the part) is SKIP, not ERROR.
    pub fn not_available(&self) -> bool {
        matches!(self, FactError::NotAvailable { .. })
    }
}

/// Parsed facts of one device, filed by query, with what an earlier run recorded for the check
/// that reads them. What this run read is shared, not copied: each check gets a view of its own
/// ([`Facts::with_previous`]) holding its own reference (two checks reading the same query can
/// judge against readings of different runs), at the cost of one pointer.
#[derive(Clone, Default)]
pub struct Facts {
    read: Arc<Reading>,
    /// What this check judges against: the records of its reference run (see
    /// [`Previous`]); empty on the first reading.
    previous: Previous,
}

/// What one run read on a device.
#[derive(Clone, Default)]
struct Reading {
    parsed: HashMap<QueryKey, Result<Arc<dyn Fact>, FactError>>,
    /// The collected output of each command, for evidence excerpts (a spooled one shows its
    /// head).
    raw: HashMap<Command, Output>,
    /// When the outputs were collected (set by the run driver; checks have no clock).
    collected_at: Option<DateTime<Utc>>,
    /// What the device said it is (its identity query's fact), when a planned query says.
    model: Option<Model>,
    /// The device's name in the site (set by the run driver), for words a person reads.
    device: Option<String>,
}

/// One archived fact: which query read it, in which run, and its value as JSON.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recorded {
    pub key: QueryKey,
    pub run_id: String,
    /// When that run collected the output (absent in records of older premarket versions).
    #[serde(default)]
    pub collected_at: Option<DateTime<Utc>>,
    pub fact: FactJson,
    /// One of the device's secrets was masked in it when it was archived (the device prints
    /// the secret): it is not what the device said, and a later run cannot compare with it.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub masked: bool,
}

/// A recorded fact as JSON text. Held as text, not as a `serde_json::Value`: a switch's
/// counters as a `Value` took several times their text's memory (a thousand devices' records
/// of the previous run and of this one, two hundred MB), and every reading cloned the tree.
/// Read back by type ([`FactJson::read`]) or as a `Value` where a rule walks it
/// ([`FactJson::value`]).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FactJson(Box<serde_json::value::RawValue>);

impl FactJson {
    /// `fact` as JSON; one that cannot be written as JSON says why, as a string.
    pub fn of<T: Serialize + ?Sized>(fact: &T) -> FactJson {
        let raw = serde_json::value::to_raw_value(fact)
            .or_else(|e| serde_json::value::to_raw_value(&format!("unserializable: {e}")));
        FactJson(raw.unwrap_or_default())
    }

    /// The fact read back as a `T` (an `Err` when the record no longer reads as one).
    pub fn read<T: DeserializeOwned>(&self) -> Result<T, serde_json::Error> {
        serde_json::from_str(self.0.get())
    }

    /// The fact as a JSON value, for the rules' JSONPath (`Null` if it cannot be read).
    pub fn value(&self) -> serde_json::Value {
        self.read().unwrap_or_default()
    }

    pub fn text(&self) -> &str {
        self.0.get()
    }
}

impl From<serde_json::Value> for FactJson {
    fn from(value: serde_json::Value) -> Self {
        FactJson::of(&value)
    }
}

/// Equal when the JSON is the same text (records are written by one serialiser).
impl PartialEq for FactJson {
    fn eq(&self, other: &Self) -> bool {
        self.text() == other.text()
    }
}

/// Archived facts of a device, one per query: what a comparison judges against. For a check,
/// the records of its reference (the newest run that judged it OK, or a later `premarket
/// accept`); for the plan, the newest record of each query (the model the previous run saw).
/// Shared, not copied: the plan, the model gate and the facts of a device all hold it, and a
/// switch's records run to tens of kilobytes.
#[derive(Clone, Debug, Default)]
pub struct Previous {
    facts: Arc<HashMap<QueryKey, Recorded>>,
}

impl Previous {
    /// Keeps the first record of each query: give them newest first.
    pub fn from_newest_first(records: impl IntoIterator<Item = Recorded>) -> Previous {
        let mut facts = HashMap::new();
        for record in records {
            facts.entry(record.key.clone()).or_insert(record);
        }
        Previous {
            facts: Arc::new(facts),
        }
    }

    pub fn get(&self, key: &QueryKey) -> Option<&Recorded> {
        self.facts.get(key)
    }
}

impl Facts {
    /// The same reading judged against `previous` (a check's own reference): shares what was
    /// read, copies nothing.
    pub fn with_previous(&self, previous: Previous) -> Facts {
        Facts {
            read: self.read.clone(),
            previous,
        }
    }

    /// What was read, to change while the facts are filed (before any check holds them; were a
    /// view shared already, it would be copied, not changed under it).
    fn reading(&mut self) -> &mut Reading {
        Arc::make_mut(&mut self.read)
    }

    /// Files one command's output as read by each of `queries` (all of which send `command`).
    pub fn insert(
        &mut self,
        command: &Command,
        output: Result<&Output, &CollectError>,
        queries: &[&dyn AnyQuery],
    ) {
        let read = self.reading();
        match output {
            Ok(output) => {
                for query in queries {
                    let parsed = query
                        .parse_any(&mut Raw::output(output))
                        .map(Arc::from)
                        .map_err(|error| FactError::Unparsable {
                            command: command.to_string(),
                            error,
                        });
                    read.parsed.insert(query.key(), parsed);
                }
                read.raw.insert(command.clone(), output.clone());
            }
            Err(error) => {
                for query in queries {
                    let missing = FactError::NotCollected {
                        command: command.to_string(),
                        error: error.clone(),
                    };
                    read.parsed.insert(query.key(), Err(missing));
                }
            }
        }
    }

    /// Reads the device's model from the identity queries among `queries`, then files every
    /// query whose command the model lacks as not available, and a device's "no such command"
    /// answer as not available (the model is not known to have it) or refused (it is).
    pub fn judge_models(&mut self, queries: &[&dyn AnyQuery]) {
        let read = self.reading();
        read.model = queries.iter().find_map(|q| {
            let fact = read.parsed.get(&q.key())?.as_ref().ok()?;
            q.identify(fact.as_ref())
        });
        let model = read.model.clone();
        let model = model.as_ref();
        for query in queries {
            let key = query.key();
            let command = key.command.to_string();
            if let Some(reason) = model::withheld(&[*query], model) {
                read.parsed
                    .insert(key, Err(FactError::NotAvailable { command, reason }));
                continue;
            }
            let Some(Err(FactError::NotCollected { error, .. })) = read.parsed.get(&key) else {
                continue;
            };
            let who = model.map_or_else(|| "this device".to_string(), ToString::to_string);
            let judged = match error {
                CollectError::NotApplicable(reason) => FactError::NotAvailable {
                    command,
                    reason: reason.clone(),
                },
                CollectError::Unsupported(said) => match model::applies(*query, model) {
                    Applies::Yes => FactError::Refused {
                        command,
                        who: model.map_or_else(
                            || "every model of its platform".to_string(),
                            ToString::to_string,
                        ),
                        said: said.clone(),
                    },
                    Applies::No(_) | Applies::Unknown => FactError::NotAvailable {
                        reason: format!("not available on {who}: {said}"),
                        command,
                    },
                },
                _ => continue,
            };
            read.parsed.insert(key, Err(judged));
        }
    }

    /// What the device said it is, when one of its planned queries is its identity query.
    pub fn model(&self) -> Option<&Model> {
        self.read.model.as_ref()
    }

    /// The typed fact of `query`.
    pub fn get<Q: Query>(&self, query: &Q) -> Result<&Q::Fact, FactError> {
        let fact = self.entry(&query.key())?;
        fact.as_any()
            .downcast_ref::<Q::Fact>()
            .ok_or_else(|| FactError::WrongType {
                command: query.command().to_string(),
            })
    }

    /// The fact of any query, as JSON (for YAML checks and the archive).
    pub fn json(&self, query: &dyn AnyQuery) -> Result<serde_json::Value, FactError> {
        self.entry(&query.key()).map(|fact| fact.to_json())
    }

    fn entry(&self, key: &QueryKey) -> Result<&dyn Fact, FactError> {
        match self.read.parsed.get(key) {
            None => Err(FactError::NotPlanned {
                command: key.command.to_string(),
            }),
            Some(Err(e)) => Err(e.clone()),
            Some(Ok(fact)) => Ok(fact.as_ref()),
        }
    }

    /// The raw output of `command`, as collected, for evidence excerpts: whole when it is in
    /// memory, its head when it was spooled.
    pub fn raw(&self, command: &Command) -> Option<&str> {
        self.read.raw.get(command).map(Output::head)
    }

    /// Sets what this check judges against (the run driver reads it from the archive).
    pub fn set_previous(&mut self, previous: Previous) {
        self.previous = previous;
    }

    /// Sets when the outputs were collected (the run driver's clock, not the check's).
    pub fn set_collected_at(&mut self, at: DateTime<Utc>) {
        self.reading().collected_at = Some(at);
    }

    /// Sets the device's name in the site (the run driver's; no check judges by it).
    pub fn set_device(&mut self, name: &str) {
        self.reading().device = Some(name.to_string());
    }

    /// The device's name in the site, when the run driver set it: a diff's header names it.
    pub fn device(&self) -> Option<&str> {
        self.read.device.as_deref()
    }

    /// When the outputs were collected, for checks that compare with an earlier run's time
    /// (uptime against the time since then).
    pub fn collected_at(&self) -> Option<DateTime<Utc>> {
        self.read.collected_at
    }

    /// The fact `query` read in the reference this check judges against (the newest run that
    /// judged it OK, or an accepted reading), with that record (its run id and collection
    /// time); `None` on the first reading. A record that no longer reads as the
    /// fact type (premarket was upgraded) is an `Err` with the reason.
    pub fn previous<Q: Query>(
        &self,
        query: &Q,
    ) -> Option<(Result<Q::Fact, serde_json::Error>, &Recorded)>
    where
        Q::Fact: DeserializeOwned,
    {
        let record = self.previous.get(&query.key())?;
        Some((record.fact.read(), record))
    }

    /// The reference's JSON of any query (for YAML checks), as [`Facts::previous`].
    pub fn previous_json(&self, key: &QueryKey) -> Option<&Recorded> {
        self.previous.get(key)
    }

    /// The facts of `queries` that the archive keeps ([`Query::ARCHIVED`]), as JSON, for
    /// `run_id`.
    pub fn to_record(&self, queries: &[&dyn AnyQuery], run_id: &str) -> Vec<Recorded> {
        queries
            .iter()
            .filter(|q| q.archived())
            .filter_map(|q| {
                let key = q.key();
                let fact = self.entry(&key).ok()?.to_record();
                Some(Recorded {
                    key,
                    run_id: run_id.to_string(),
                    collected_at: self.read.collected_at,
                    fact,
                    masked: false,
                })
            })
            .collect()
    }
}

impl From<FactError> for Verdict {
    fn from(error: FactError) -> Self {
        if error.not_available() {
            return Verdict::skip(error.to_string());
        }
        let evidence = error.excerpt().to_string();
        Verdict::error(error.to_string()).evidence(evidence)
    }
}
