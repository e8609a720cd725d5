//! `premarket validate`: load everything, report every problem at once, contact nothing.

use std::path::Path;

use super::Stop;
use crate::config::{Config, ConfigErrors};
use crate::plan::{Plan, PlanError, Selection};

pub fn run(dir: &Path) -> Result<u8, Stop> {
    let (config, mut errors) = Config::load_partial(dir)?;
    // Planning every check also finds checks whose baseline values are missing.
    let planned = match Plan::new(&config, &Selection::default()) {
        Ok(plan) => plan.check_count(),
        Err(PlanError::Config(ConfigErrors(more))) => {
            errors.extend(more);
            0
        }
        // With devices already broken, "nothing selected" is only a consequence of those errors.
        Err(_) if !errors.is_empty() => 0,
        Err(other) => return Err(other.into()),
    };
    if !errors.is_empty() {
        errors.sort_by(|a, b| {
            (&a.position.file, a.position.line).cmp(&(&b.position.file, b.position.line))
        });
        return Err(ConfigErrors(errors).into());
    }
    println!(
        "configuration OK: site {}, {} device(s), {} check(s) in the catalog, {planned} planned check(s)",
        config.site.name,
        config.devices.len(),
        config.catalog.len(),
    );
    Ok(0)
}
