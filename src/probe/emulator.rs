//! placeholder
use crate::cli::Exit;
#[derive(Debug, clap::Args)]
pub struct Args {}
pub fn run(_a: Args) -> Result<u8, Exit> { Err(Exit::config("todo")) }
