//! The checks over several devices (site checks) in the plan: each is planned once per run
//! from the site's `expect:` and the baselines of the devices taking part, and names the
//! queries it needs on each of them, which join that device's session (a device that takes
//! part only for a site check is planned with no check of its own).

use std::sync::Arc;

use premarket_check::site::SitePrepared;
use premarket_config::{BaselineText, Config, ConfigError, Device, Entry};
use premarket_parse::AnyQuery;

use crate::{Catalog, ResolvedSite, Selection};

/// A check over several devices, planned once per run.
#[derive(Clone)]
pub struct SitePlanned {
    /// The catalog's entry.
    pub entry: Arc<Entry>,
    pub prepared: Arc<dyn SitePrepared>,
    /// The devices that take part, each with the queries it is sent for this check.
    pub needs: Vec<(String, Vec<Arc<dyn AnyQuery>>)>,
    /// Devices taking part that the selection (`--device`) leaves out: the check is then not
    /// judged (its queries still go to the selected devices, so a capture holds them).
    pub left_out: Vec<String>,
    /// Devices taking part whose baselines have mistakes and whose part of the input could not
    /// be built (the check was planned without them): it cannot be judged OK.
    pub set_aside: Vec<String>,
}

impl SitePlanned {
    /// Judged in this run: every device taking part is inspected.
    pub fn judged(&self) -> bool {
        self.left_out.is_empty()
    }
}

/// The selected site checks, their inputs built from the site's baseline and the devices'
/// (every loaded device, each with whether its baseline is free of mistakes: one with mistakes
/// elsewhere takes part, so that the check names it as not inspected instead of judging
/// without it). One whose devices `--device` does not all select is not judged (the site as a
/// whole is not inspected), but still sends its queries to those selected; one whose devices
/// it selects none of is left out. A check whose input cannot be built over every device is
/// built again over the valid ones (the others' mistakes are theirs, said in their blocks); a
/// mistake left then is the site's.
pub(crate) fn plan(
    catalog: &Catalog,
    config: &Config,
    selection: &Selection,
    devices: &[(&Device, bool)],
    errors: &mut Vec<ConfigError>,
) -> Vec<SitePlanned> {
    let mut planned = Vec::new();
    for ResolvedSite { entry, definition } in &catalog.site {
        if !selection.wants(entry) {
            continue;
        }
        let over = |valid_only: bool| {
            let taking_part: Vec<(&str, &BaselineText)> = devices
                .iter()
                .filter(|(d, valid)| {
                    definition.platforms().contains(&d.platform) && (*valid || !valid_only)
                })
                .map(|(d, _)| (d.name.as_str(), &d.baseline))
                .collect();
            definition.prepare(&config.site.baseline, &taking_part)
        };
        let mut set_aside = Vec::new();
        let prepared = match over(false) {
            Ok(prepared) => Ok(prepared),
            Err(_) if devices.iter().any(|(_, valid)| !valid) => {
                set_aside = devices
                    .iter()
                    .filter(|(d, valid)| !valid && definition.platforms().contains(&d.platform))
                    .map(|(d, _)| d.name.to_string())
                    .collect();
                over(true)
            }
            Err(mistakes) => Err(mistakes),
        };
        let prepared = match prepared {
            Ok(prepared) => prepared,
            Err(mistakes) => {
                errors.extend(mistakes);
                continue;
            }
        };
        let needs: Vec<(String, Vec<Arc<dyn AnyQuery>>)> = prepared
            .needs()
            .into_iter()
            .map(|(name, queries)| (name, queries.into_iter().map(Arc::from).collect()))
            .collect();
        let left_out: Vec<String> = needs
            .iter()
            .map(|(name, _)| name.clone())
            .filter(|name| !selection.wants_device(name))
            .collect();
        // `--device` naming none of the devices taking part: nothing of it runs here.
        if !selection.devices.is_empty() && left_out.len() == needs.len() {
            continue;
        }
        planned.push(SitePlanned {
            entry: entry.clone(),
            prepared,
            needs,
            left_out,
            set_aside,
        });
    }
    planned
}

/// The queries the site checks need on device `name`.
pub(crate) fn queries(site: &[SitePlanned], name: &str) -> Vec<Arc<dyn AnyQuery>> {
    site.iter()
        .flat_map(|s| &s.needs)
        .filter(|(device, _)| device == name)
        .flat_map(|(_, queries)| queries.iter().cloned())
        .collect()
}
