//! Talks MCP to a running server and reports the tool-annotation hints it declares.

use crate::cli::{DiffArgs, ProbeArgs};
use crate::ExitStatus;

/// Runs `probe`.
pub fn run(_args: &ProbeArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("probe is not built yet")
}

/// Runs `diff`.
pub fn diff(_args: &DiffArgs) -> anyhow::Result<ExitStatus> {
    anyhow::bail!("diff is not built yet")
}
