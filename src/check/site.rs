//! Stage 5 for the site as a whole: checks over several devices' facts (the site scope).
//!
//! Most checks judge one device. Some facts only mean something together: the A and B sides of
//! a market-data feed must not meet on one switch, one ingress port or one uplink, and each side
//! is known from another switch's baseline and LLDP table. A [`SiteCheck`] reads its own keys
//! from `site.yaml`'s `expect:` and, from each device of its platforms, its keys from that
//! device's `expect:` (both when the run is planned, every mistake at its `file:line:column`);
//! it names the queries it needs on each device, which are sent in that device's one session
//! with the device's own checks (a command both need is sent once); and it judges once per run,
//! after every device was inspected, with a pure `evaluate` over the devices' facts. Its verdict
//! stands under the site's name. A device it needs that could not be inspected is its ERROR,
//! naming the device; one not inspected in this run at all (left out by the selection) too.

use std::collections::HashMap;
use std::marker::PhantomData;
use std::sync::Arc;

use serde::de::DeserializeOwned;

use super::{BaselineText, InputError, Invalid, Prepared, keys_of};
use crate::outcome::part_error;
use premarket_core::{Platform, Verdict};
use premarket_parse::{AnyQuery, Facts, Query};

/// A check over several devices: its id, what it reads from the site's and the devices'
/// baselines, the queries it needs on each device, its judgement.
pub trait SiteCheck: Send + Sync + 'static {
    /// The stable id, `site.<area>.<assertion>`.
    const ID: &'static str;
    /// The platforms whose devices take part.
    const PLATFORMS: &'static [Platform];
    /// What it reads from `site.yaml`'s `expect:` (each field one key).
    type Input: DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static;
    /// What it reads from each device's `expect:` (each field one key; optional ones for a
    /// device that takes no part).
    type DeviceInput: DeserializeOwned + schemars::JsonSchema + Send + Sync + 'static;

    /// Rules the site input's types cannot say.
    fn validate(_input: &Self::Input) -> Result<(), Invalid> {
        Ok(())
    }

    /// Whether a device takes part (its baseline gives the check something to judge).
    fn takes_part(input: &Self::Input, device: &Self::DeviceInput) -> bool;

    /// The queries it needs on a device that takes part (possibly none: its baseline alone
    /// may be what the check reads).
    fn queries(input: &Self::Input, device: &Self::DeviceInput) -> Vec<Box<dyn AnyQuery>>;

    /// The verdict over the devices that take part, in the site's order.
    fn evaluate(input: &Self::Input, members: &[Member<'_, Self::DeviceInput>]) -> Verdict;
}

/// A device taking part in a site check.
pub struct Member<'a, D> {
    pub name: &'a str,
    /// What its baseline says, for this check.
    pub input: &'a D,
    /// Its facts, or why there are none.
    pub facts: Inspected<'a>,
}

/// What became of a device's inspection, as a site check sees it.
#[derive(Clone, Copy)]
pub enum Inspected<'a> {
    Facts(&'a Facts),
    /// Its inspection ended without facts (a bug in premarket): why.
    Failed(&'a str),
    /// Not inspected in this run (the selection left it out), or the check asked for nothing
    /// on it.
    NotInRun,
}

impl<D> Member<'_, D> {
    /// The fact `query` read on this device; otherwise the part's ERROR (SKIP where its model
    /// lacks the command) naming the device.
    pub fn get<Q: Query>(&self, query: &Q) -> Result<&Q::Fact, Box<Verdict>> {
        match self.facts {
            Inspected::Facts(facts) => facts
                .get(query)
                .map_err(|e| Box::new(part_error(self.name, &e))),
            Inspected::Failed(why) => {
                Err(Box::new(Verdict::error(format!("{}: {why}", self.name))))
            }
            Inspected::NotInRun => Err(Box::new(
                Verdict::error(format!(
                    "{}: not inspected in this run (the selection left it out), so the site \
                     cannot be judged",
                    self.name
                ))
                .remedy(
                    "Run the site check on its own (`premarket check ID`), without `--device`.",
                ),
            )),
        }
    }
}

/// The facts of the devices inspected in this run, by device name (or why a device has none):
/// what site checks read.
#[derive(Default)]
pub struct SiteFacts {
    devices: HashMap<String, Result<Arc<Facts>, String>>,
}

impl SiteFacts {
    pub fn insert(&mut self, device: &str, facts: Result<Arc<Facts>, String>) {
        self.devices.insert(device.to_string(), facts);
    }

    pub fn get(&self, device: &str) -> Inspected<'_> {
        match self.devices.get(device) {
            Some(Ok(facts)) => Inspected::Facts(facts),
            Some(Err(why)) => Inspected::Failed(why),
            None => Inspected::NotInRun,
        }
    }
}

/// A site check of any kind, before its inputs are built.
pub trait SiteDefinition: Send + Sync {
    fn id(&self) -> &str;
    /// The platforms whose devices take part (their baselines are read).
    fn platforms(&self) -> &'static [Platform];
    /// The keys it reads from `site.yaml`'s `expect:`.
    fn keys(&self) -> Vec<String>;
    /// The keys it reads from a taking-part device's `expect:`.
    fn device_keys(&self) -> Vec<String>;
    /// [`SiteDefinition::keys`] and [`SiteDefinition::device_keys`] with their types, defaults
    /// and meanings (`premarket explain`), from the same types.
    fn reference(&self) -> Vec<premarket_config::reference::Key>;
    fn device_reference(&self) -> Vec<premarket_config::reference::Key>;
    /// Builds the inputs from the site's baseline and each device's (name, baseline), every
    /// mistake at once.
    fn prepare(
        &self,
        site: &BaselineText,
        devices: &[(&str, &BaselineText)],
    ) -> Result<Arc<dyn SitePrepared>, Vec<InputError>>;
}

/// A site check with its inputs built.
pub trait SitePrepared: Send + Sync {
    /// The devices that take part and the queries each needs, in the site's order.
    fn needs(&self) -> Vec<(String, Vec<Box<dyn AnyQuery>>)>;
    fn evaluate(&self, site: &SiteFacts) -> Verdict;
}

/// A built-in [`SiteCheck`] seen as a [`SiteDefinition`].
pub struct SiteBuiltin<C>(PhantomData<C>);

impl<C> SiteBuiltin<C> {
    pub const fn new() -> Self {
        SiteBuiltin(PhantomData)
    }
}

impl<C: SiteCheck> Default for SiteBuiltin<C> {
    fn default() -> Self {
        SiteBuiltin::new()
    }
}

struct PreparedSite<C: SiteCheck> {
    input: C::Input,
    /// Every device of the check's platforms with its input, in the site's order.
    devices: Vec<(String, C::DeviceInput)>,
}

impl<C: SiteCheck> SitePrepared for PreparedSite<C> {
    fn needs(&self) -> Vec<(String, Vec<Box<dyn AnyQuery>>)> {
        self.devices
            .iter()
            .filter(|(_, device)| C::takes_part(&self.input, device))
            .map(|(name, device)| (name.clone(), C::queries(&self.input, device)))
            .filter(|(_, queries)| !queries.is_empty())
            .collect()
    }

    fn evaluate(&self, site: &SiteFacts) -> Verdict {
        let members: Vec<Member<'_, C::DeviceInput>> = self
            .devices
            .iter()
            .filter(|(_, device)| C::takes_part(&self.input, device))
            .map(|(name, input)| Member {
                name,
                input,
                facts: site.get(name),
            })
            .collect();
        C::evaluate(&self.input, &members)
    }
}

impl<C: SiteCheck> SiteDefinition for SiteBuiltin<C> {
    fn id(&self) -> &str {
        C::ID
    }

    fn platforms(&self) -> &'static [Platform] {
        C::PLATFORMS
    }

    fn keys(&self) -> Vec<String> {
        keys_of::<C::Input>()
            .iter()
            .map(|k| k.to_string())
            .collect()
    }

    fn device_keys(&self) -> Vec<String> {
        keys_of::<C::DeviceInput>()
            .iter()
            .map(|k| k.to_string())
            .collect()
    }

    fn reference(&self) -> Vec<premarket_config::reference::Key> {
        premarket_config::reference::keys_of::<C::Input>()
    }

    fn device_reference(&self) -> Vec<premarket_config::reference::Key> {
        premarket_config::reference::keys_of::<C::DeviceInput>()
    }

    fn prepare(
        &self,
        site: &BaselineText,
        devices: &[(&str, &BaselineText)],
    ) -> Result<Arc<dyn SitePrepared>, Vec<InputError>> {
        let mut errors = Vec::new();
        let input = site
            .input::<C::Input>(C::ID)
            .and_then(|input| {
                C::validate(&input).map_err(|why| site.invalid(C::ID, why.0))?;
                Ok(input)
            })
            .map_err(|e| errors.push(e))
            .ok();
        let mut read = Vec::new();
        for (name, baseline) in devices {
            match baseline.input::<C::DeviceInput>(C::ID) {
                Ok(device) => read.push((name.to_string(), device)),
                Err(e) => errors.push(e),
            }
        }
        match input {
            Some(input) if errors.is_empty() => Ok(Arc::new(PreparedSite::<C> {
                input,
                devices: read,
            })),
            _ => Err(errors),
        }
    }
}

/// A site check bound to the facts it reads, as a [`Prepared`] check: the run's bounded
/// evaluation ([`crate::bounded`]) then judges it as any check, on its thread, within its
/// budget and the deadline (the device facts it is handed are not read).
pub fn bind(check: Arc<dyn SitePrepared>, site: Arc<SiteFacts>) -> Arc<dyn Prepared> {
    Arc::new(Bound { check, site })
}

struct Bound {
    check: Arc<dyn SitePrepared>,
    site: Arc<SiteFacts>,
}

impl Prepared for Bound {
    fn queries(&self) -> Vec<Box<dyn AnyQuery>> {
        Vec::new()
    }

    fn evaluate(&self, _: &Facts) -> Verdict {
        self.check.evaluate(&self.site)
    }
}
