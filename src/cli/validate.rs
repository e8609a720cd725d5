//! `premarket validate`: load everything, report every problem at once, contact nothing.

use std::path::Path;

use super::{Exit, load};
use crate::plan::{Plan, Selection};

pub fn run(dir: &Path) -> Result<u8, Exit> {
    let config = load(dir)?;
    // Planning everything also finds selected checks whose baseline values are missing.
    let plan = Plan::new(&config, &Selection::default())?;
    println!(
        "configuration OK: site {}, {} device(s), {} check(s) in the catalog, {} planned check(s)",
        config.site.name,
        config.devices.len(),
        config.catalog.len(),
        plan.check_count()
    );
    Ok(0)
}
