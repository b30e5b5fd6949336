use std::io::Write;
use std::process;

use clap::Parser;

use mcp_hint_census::{cli::Cli, ExitStatus, UsageError};

fn main() {
    let cli = Cli::parse();
    let status = match mcp_hint_census::run(cli) {
        Ok(status) => status,
        Err(err) => {
            // Printed once, here: the chain of contexts joined by ': '.
            let _ = writeln!(std::io::stderr(), "mcp-hint-census: {err:#}");
            if err.downcast_ref::<UsageError>().is_some() {
                ExitStatus::Usage
            } else {
                ExitStatus::Failed
            }
        }
    };
    process::exit(status as i32);
}
