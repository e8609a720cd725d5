#![doc = include_str!("README.md")]

pub mod bounded;
pub mod box_facts;
pub mod config_diff;
pub mod eos;
pub mod fortigate;
mod input;
pub mod line_diff;
mod ntp_limits;
pub mod outcome;
pub mod port_speed;
pub mod previous;
pub mod probe;
pub mod reboot;
pub mod registry;
pub mod rule;
pub mod site;
mod version_pin;

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::{Arc, Mutex};

use serde::de::DeserializeOwned;

pub use bounded::Watch;
pub use input::{BaselineText, InputError, keys_of, paths_of};
pub use version_pin::VersionPin;

use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, FactError, Facts};

/// A built-in check: its id, the baseline input it reads, the queries it needs, its judgement.
pub trait Check: Send + Sync + 'static {
    /// The stable id, `<platform>.<area>.<assertion>`.
    const ID: &'static str;
    const PLATFORM: Platform;
    /// What the check reads from `expect:` (each field one baseline key).
    type Input: DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static;
    /// Whether it judges against an earlier reading ([`Facts::previous`]): the run gives it
    /// its reference (the newest reading it judged OK, or one accepted since), and `premarket
    /// accept` can replace that. A check that reads `previous` without saying so judges every
    /// run as the first.
    const COMPARES: bool = false;

    /// Rules the input's types cannot say (e.g. "a unicast UDP flow needs a service").
    fn validate(_input: &Self::Input) -> Result<(), Invalid> {
        Ok(())
    }

    /// The queries whose facts [`Check::evaluate`] reads, in the order they should be sent.
    fn queries(input: &Self::Input) -> Vec<Box<dyn AnyQuery>>;

    /// The verdict. A [`FactError`] (output missing or unreadable) becomes ERROR.
    fn evaluate(input: &Self::Input, facts: &Facts) -> Result<Verdict, FactError>;
}

/// A baseline input that its types allow but a check's rule forbids (no flow listed, an
/// empty version pin): the reason, which planning reports at the device's `expect:` block.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

impl From<&str> for Invalid {
    fn from(reason: &str) -> Self {
        Invalid(reason.to_string())
    }
}

/// A check with its input built: ready to name its queries and to judge.
pub trait Prepared: Send + Sync {
    fn queries(&self) -> Vec<Box<dyn AnyQuery>>;
    fn evaluate(&self, facts: &Facts) -> Verdict;

    /// Whether it judges against a reference ([`Check::COMPARES`]).
    fn compares(&self) -> bool {
        false
    }

    /// [`Prepared::evaluate`], telling `watch` which path it reads and stopping early once the
    /// run has given up on it. A check with nothing long to walk keeps this default.
    fn evaluate_watched(&self, facts: &Facts, _watch: &Watch) -> Verdict {
        self.evaluate(facts)
    }

    /// Why the check cannot judge yet: a draft baseline lacks a value it needs. `validate`
    /// warns with it; a run's verdict is ERROR with it, never OK.
    fn pending(&self) -> Option<&str> {
        None
    }
}

/// A check of a draft baseline (`draft: true`) that lacks a value it needs: it sends nothing
/// and is ERROR, saying which value, until the value is written.
pub(crate) struct Pending(pub String);

impl Prepared for Pending {
    fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
        Vec::new()
    }

    fn evaluate(&self, _: &Facts) -> Verdict {
        Verdict::error(self.0.clone())
    }

    fn pending(&self) -> Option<&str> {
        Some(&self.0)
    }
}

/// A check of any kind (built-in or declarative), before its input is built.
pub trait Definition: Send + Sync {
    fn id(&self) -> &str;
    fn platform(&self) -> Platform;
    /// The baseline keys it reads (a key no check reads is a typo).
    fn keys(&self) -> Vec<String>;
    /// The same keys with their types, defaults and meanings, and the keys nested in them
    /// (`premarket explain`), from the same source as [`Definition::keys`].
    fn reference(&self) -> Vec<premarket_config::reference::Key>;
    /// Every key it reads, dotted, the nested ones too (`ptp.max_clock_accuracy`): where a key
    /// written at the wrong depth belongs.
    fn key_paths(&self) -> Vec<String> {
        self.keys()
    }
    /// Builds the input from one device's baseline.
    fn prepare(&self, baseline: &BaselineText) -> Result<Arc<dyn Prepared>, InputError>;
}

/// A built-in [`Check`] seen as a [`Definition`]. It remembers the inputs it built, by the
/// text of the `expect:` block they came from: devices that share a block share the input.
pub struct Builtin<C> {
    check: PhantomData<C>,
    built: Mutex<Option<BuiltInputs>>,
}

/// Inputs built, by the text of the `expect:` block they were read from.
type BuiltInputs = HashMap<Arc<str>, Arc<dyn Prepared>>;

impl<C> Builtin<C> {
    pub const fn new() -> Self {
        Builtin {
            check: PhantomData,
            built: Mutex::new(None),
        }
    }
}

impl<C: Check> Default for Builtin<C> {
    fn default() -> Self {
        Builtin::new()
    }
}

struct PreparedBuiltin<C: Check> {
    input: C::Input,
}

impl<C: Check> Prepared for PreparedBuiltin<C> {
    fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
        C::queries(&self.input)
    }

    fn evaluate(&self, facts: &Facts) -> Verdict {
        C::evaluate(&self.input, facts).unwrap_or_else(Verdict::from)
    }

    fn compares(&self) -> bool {
        C::COMPARES
    }
}

impl<C: Check> Definition for Builtin<C> {
    fn id(&self) -> &str {
        C::ID
    }

    fn platform(&self) -> Platform {
        C::PLATFORM
    }

    fn keys(&self) -> Vec<String> {
        keys_of::<C::Input>()
            .iter()
            .map(|k| k.to_string())
            .collect()
    }

    fn reference(&self) -> Vec<premarket_config::reference::Key> {
        premarket_config::reference::keys_of::<C::Input>()
    }

    fn key_paths(&self) -> Vec<String> {
        paths_of::<C::Input>()
    }

    fn prepare(&self, baseline: &BaselineText) -> Result<Arc<dyn Prepared>, InputError> {
        let section = baseline.expect_section();
        if let (Some(section), Ok(built)) = (section, self.built.lock())
            && let Some(ready) = built.as_ref().and_then(|b| b.get(section))
        {
            return Ok(ready.clone());
        }
        // Read from the device's own file, so that a mistake is reported at its own position.
        // A draft's missing value is not remembered: another device's block may be the same
        // text without being a draft.
        let input: C::Input = match baseline.input_or_pending(C::ID)? {
            premarket_config::Reading::Ready(input) => input,
            premarket_config::Reading::Pending(waiting) => return Ok(Arc::new(Pending(waiting))),
        };
        C::validate(&input).map_err(|message| baseline.invalid(C::ID, message.0))?;
        let ready: Arc<dyn Prepared> = Arc::new(PreparedBuiltin::<C> { input });
        if let (Some(section), Ok(mut built)) = (section, self.built.lock()) {
            built
                .get_or_insert_with(HashMap::new)
                .insert(section.into(), ready.clone());
        }
        Ok(ready)
    }
}
