//! placeholder
use crate::cli::CensusArgs;
use crate::ExitStatus;
pub fn run(_a: &CensusArgs) -> anyhow::Result<ExitStatus> { anyhow::bail!("todo") }
