//! Counts local trees: a directory, a tar or tar.gz file, stdin, or a git revision.

use crate::cli::ScanArgs;
use crate::ExitStatus;

/// Runs `scan`.
pub fn run(_args: &ScanArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("scan is not built yet")
}
