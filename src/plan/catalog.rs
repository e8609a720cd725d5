//! The catalog resolved: each entry of `checks/*.yaml` tied to the check that carries it out
//! (a built-in one by id, or a declarative one read from the entry's `command` and `rule`; a
//! `platform: site` entry to a built-in check over several devices), and the baseline keys
//! those checks read.

use std::collections::BTreeSet;
use std::sync::Arc;

use premarket_check::rule::Declarative;
use premarket_check::site::SiteDefinition;
use premarket_check::{Definition, registry};
use premarket_config::{Config, ConfigError, Entry};
use premarket_core::Platform;

use crate::Baseline;

/// A catalog entry and its check.
pub struct Resolved {
    /// Shared by every device's plan of the check.
    pub entry: Arc<Entry>,
    pub definition: Arc<dyn Definition>,
}

/// A `platform: site` entry and its check over several devices.
pub struct ResolvedSite {
    pub entry: Arc<Entry>,
    pub definition: Arc<dyn SiteDefinition>,
}

/// Every catalog entry that resolved.
pub struct Catalog {
    pub checks: Vec<Resolved>,
    pub site: Vec<ResolvedSite>,
}

impl Catalog {
    /// Ties every entry to its check; an id that names no check, or a declarative check that
    /// does not read, is an error at the entry (every mistake is collected).
    pub fn resolve(config: &Config, errors: &mut Vec<ConfigError>) -> Catalog {
        let builtin = registry::builtin();
        let site_checks = registry::site();
        let mut checks = Vec::new();
        let mut site = Vec::new();
        for entry in &config.catalog {
            if entry.platform == Platform::Site {
                match resolve_site(entry, &site_checks) {
                    Ok(definition) => site.push(ResolvedSite {
                        entry: Arc::new(entry.clone()),
                        definition,
                    }),
                    Err(e) => errors.push(e),
                }
                continue;
            }
            let found = builtin.iter().find(|c| c.id() == entry.id);
            let definition: Arc<dyn Definition> = match (&entry.declared, found) {
                (Some(_), Some(_)) => {
                    errors.push(ConfigError::new(
                        entry.position.clone(),
                        format!(
                            "check id {} is a built-in check's: give the declarative check its own id",
                            entry.id
                        ),
                    ));
                    continue;
                }
                (Some(declared), None) => match Declarative::from_entry(entry, declared) {
                    Ok(check) => Arc::new(check),
                    Err(mistakes) => {
                        errors.extend(mistakes);
                        continue;
                    }
                },
                (None, Some(definition)) => definition.clone(),
                (None, None) => {
                    errors.push(ConfigError::new(
                        entry.position.clone(),
                        format!(
                            "unknown check id {}: no built-in check has that id (known: {}); a \
                             declarative check has `command` and `rule`",
                            entry.id,
                            registry::ids().join(", ")
                        ),
                    ));
                    continue;
                }
            };
            if definition.platform() != entry.platform {
                errors.push(ConfigError::new(
                    entry.position.clone(),
                    format!(
                        "check {} is for platform {}, not {}",
                        entry.id,
                        definition.platform(),
                        entry.platform
                    ),
                ));
                continue;
            }
            checks.push(Resolved {
                entry: Arc::new(entry.clone()),
                definition,
            });
        }
        Catalog { checks, site }
    }

    pub fn for_platform(&self, platform: Platform) -> impl Iterator<Item = &Resolved> {
        self.checks
            .iter()
            .filter(move |r| r.entry.platform == platform)
    }

    /// Every key the checks of `platform` read, the site checks' over its devices too.
    pub fn keys(&self, platform: Platform) -> BTreeSet<String> {
        let site = self
            .site
            .iter()
            .filter(|s| s.definition.platforms().contains(&platform))
            .flat_map(|s| s.definition.device_keys());
        self.for_platform(platform)
            .flat_map(|r| r.definition.keys())
            .chain(site)
            .collect()
    }

    /// A key under `site.yaml`'s `expect:` that no site check reads is a typo: an error at it.
    pub fn check_site_keys(&self, config: &Config, errors: &mut Vec<ConfigError>) {
        let known: BTreeSet<String> = self.site.iter().flat_map(|s| s.definition.keys()).collect();
        for (key, position) in config.site.baseline.keys() {
            if !known.contains(key) {
                let list: Vec<&str> = known.iter().map(String::as_str).collect();
                errors.push(ConfigError::new(
                    position.clone(),
                    format!(
                        "site {}: unknown key `expect.{key}`: no site check in the catalog reads it \
                         (keys read: {})",
                        config.site.name,
                        if list.is_empty() { "none".to_string() } else { list.join(", ") }
                    ),
                ));
            }
        }
    }

    /// A key under `expect:` that no check of the device's platform reads is a typo, or a key
    /// written at the wrong depth (named with where it belongs): an error at the key.
    pub fn check_keys(&self, device: &Baseline<'_>, errors: &mut Vec<ConfigError>) {
        let known = self.keys(device.platform);
        for (key, position) in device.baseline.keys() {
            if known.contains(key) {
                continue;
            }
            let homes = self.homes(device.platform, key);
            let list: Vec<&str> = known.iter().map(String::as_str).collect();
            let message = if !homes.is_empty() {
                format!(
                    "device {}: `{key}` belongs under {}, not directly under `expect`",
                    device.name,
                    homes.join(" or ")
                )
            } else if let Some(meant) = premarket_core::closest(key, list.iter().copied()) {
                format!(
                    "device {}: unknown key `expect.{key}`: no {} check in the catalog reads it; \
                     did you mean `{meant}`?",
                    device.name, device.platform
                )
            } else {
                format!(
                    "device {}: unknown key `expect.{key}`: no {} check in the catalog reads it \
                     (keys read: {})",
                    device.name,
                    device.platform,
                    list.join(", ")
                )
            };
            errors.push(ConfigError::new(position.clone(), message));
        }
    }

    /// Where a check of `platform` reads `key` below the top of `expect:`: `expect.ptp`, as
    /// the operator would write it.
    pub fn homes(&self, platform: Platform, key: &str) -> Vec<String> {
        let mut homes: Vec<String> = self
            .for_platform(platform)
            .flat_map(|r| r.definition.key_paths())
            .filter_map(|path| {
                let (parent, last) = path.rsplit_once('.')?;
                (last == key).then(|| format!("`expect.{parent}`"))
            })
            .collect();
        homes.sort();
        homes.dedup();
        homes
    }

    /// A key the file's indentation put at the wrong depth under `expect:`, said with where a
    /// check reads it (when that is elsewhere).
    pub fn place(&self, platform: Platform, error: &mut ConfigError) {
        let Some(m) = &error.misplaced else {
            return;
        };
        if m.under != "expect" && !m.under.starts_with("expect.") {
            return;
        }
        let here = format!("`{}`", m.under);
        let homes: Vec<String> = if self.keys(platform).contains(&m.key) {
            vec!["`expect`".to_string()]
        } else {
            self.homes(platform, &m.key)
        };
        let homes: Vec<String> = homes.into_iter().filter(|h| *h != here).collect();
        if !homes.is_empty() {
            // "`KEY` is at the wrong depth: it is written under ..." without its subject.
            let detail = error.message.split_once(": ").map_or("", |(_, d)| d);
            error.message = format!("`{}` belongs under {}; {detail}", m.key, homes.join(" or "));
        }
    }
}

/// The site check a `platform: site` entry names: built-in only (a site check reads several
/// devices' facts, which no declarative rule can).
fn resolve_site(
    entry: &Entry,
    site: &[Arc<dyn SiteDefinition>],
) -> Result<Arc<dyn SiteDefinition>, ConfigError> {
    if entry.declared.is_some() {
        return Err(ConfigError::new(
            entry.position.clone(),
            format!(
                "check {}: a site check is built-in; `command`, `parse` and `rule` are for one \
                 device's checks",
                entry.id
            ),
        ));
    }
    site.iter()
        .find(|c| c.id() == entry.id)
        .cloned()
        .ok_or_else(|| {
            let known: Vec<&str> = site.iter().map(|c| c.id()).collect();
            ConfigError::new(
                entry.position.clone(),
                format!(
                    "unknown site check {} (known: {})",
                    entry.id,
                    if known.is_empty() {
                        "none".to_string()
                    } else {
                        known.join(", ")
                    }
                ),
            )
        })
}
