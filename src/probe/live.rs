//! placeholder
use crate::cli::Exit;
#[derive(Debug, clap::Args)]
pub struct RunArgs {}
pub fn run(_a: RunArgs) -> Result<u8, Exit> { Err(Exit::config("todo")) }
pub fn measure(_l: &crate::probe::baseline::LiveSource, _o: &crate::probe::Options) -> Result<crate::probe::Analysis, String> { Err("todo".into()) }
