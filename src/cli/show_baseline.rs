//! `premarket show-baseline --device D`: the baseline a device is judged against, as the checks
//! read it: its own file merged with the role files it `extends:`, each line beside the file
//! and line it comes from. With forty switches on one role file, this is how an operator sees
//! which of a device's values are its own and which it inherits (and where to change them).

use std::path::Path;

use super::Stop;
use crate::config::Config;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The device whose baseline to show.
    #[arg(long, value_name = "NAME", add = clap_complete::ArgValueCandidates::new(super::complete::device_names))]
    pub device: String,
}

pub fn run(dir: &Path, args: Args) -> Result<u8, Stop> {
    let (config, errors) = Config::load_partial(dir)?;
    let Some(device) = config.device(&args.device) else {
        // The device's own file may be what did not load: its mistakes say why.
        if !errors.is_empty() {
            return Err(crate::config::ConfigErrors(errors).into());
        }
        return Err(Stop::config(crate::plan::hint::unknown_device(
            &config,
            &args.device,
        )));
    };
    let baselines = dir.join("baselines");
    let name = |file: &Path| {
        file.strip_prefix(&baselines)
            .unwrap_or(file)
            .display()
            .to_string()
    };
    let origins = device.baseline.origins();
    let roles: Vec<String> = origins.files().iter().skip(1).map(|f| name(f)).collect();
    let extends = match roles.is_empty() {
        true => String::new(),
        false => format!(", extends {}", roles.join(" -> ")),
    };
    let text = device.baseline.text();
    let places: Vec<String> = (1..=text.lines().count() as u64)
        .map(|line| {
            let (file, at) = origins.line(line);
            format!("{}:{at}", name(file))
        })
        .collect();
    let width = places.iter().map(String::len).max().unwrap_or(0);
    outln!(
        "# {} ({}{extends}): each line with the file and line it comes from",
        device.name,
        name(&device.file)
    );
    for (place, line) in places.iter().zip(text.lines()) {
        outln!("{place:<width$}  {line}");
    }
    Ok(0)
}
