//! placeholder
use crate::cli::Exit;
#[derive(Debug, clap::Args)]
pub struct RunArgs {}
pub fn run(_a: RunArgs) -> Result<u8, Exit> { Err(Exit::config("todo")) }
