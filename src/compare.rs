//! placeholder
use crate::cli::CompareArgs;
use crate::ExitStatus;
pub fn run(_a: &CompareArgs) -> anyhow::Result<ExitStatus> { anyhow::bail!("todo") }
