//! `premarket run` and `premarket check ID`: the inspection itself.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Exit, SelectArgs, load};
use crate::collect::Collector;
use crate::collect::offline::Offline;
use crate::inspect::{Limits, inspect};
use crate::plan::Plan;
use crate::report::{Report, json, text};

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    #[default]
    Text,
    Json,
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    #[command(flatten)]
    pub select: SelectArgs,
    /// Judge saved outputs in DIR/<device>/<file> instead of connecting to devices.
    #[arg(long, value_name = "DIR")]
    pub offline: Option<PathBuf>,
    /// Report format on standard output.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// The check id (or glob) to rerun.
    pub id: String,
    /// Only on this device.
    #[arg(long = "device", value_name = "NAME")]
    pub devices: Vec<String>,
    #[arg(long, value_name = "DIR")]
    pub offline: Option<PathBuf>,
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
}

pub fn check(dir: &Path, args: CheckArgs) -> Result<u8, Exit> {
    let select = SelectArgs { checks: vec![args.id], devices: args.devices, tags: Vec::new() };
    run(dir, RunArgs { select, offline: args.offline, format: args.format })
}

pub fn run(dir: &Path, args: RunArgs) -> Result<u8, Exit> {
    let config = load(dir)?;
    let plan = Plan::new(&config, &args.select.selection())?;
    let collector: Arc<dyn Collector> = match &args.offline {
        Some(path) => Arc::new(Offline::new(path)),
        None => return Err(Exit::config("collecting over SSH is not available in this build; use --offline DIR")),
    };
    let collector: Arc<dyn Collector> = Arc::new(crate::collect::probe::Routing::new(collector));
    let limits = Limits::from_config(&config);
    let runtime = tokio::runtime::Runtime::new().map_err(|e| Exit { code: 2, message: format!("cannot start: {e}") })?;
    let report = runtime.block_on(inspect(&config, &plan, collector, &limits));
    print(&report, args.format);
    Ok(report.exit_code())
}

fn print(report: &Report, format: Format) {
    match format {
        Format::Json => print!("{}", json::render(report)),
        Format::Text => print!("{}", text::render(report, text::use_colour(std::io::stdout().is_terminal()))),
    }
}
