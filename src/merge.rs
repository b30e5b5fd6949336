//! Joins the tables of `census --shard` runs into the tables of the whole corpus.
//!
//! `merge` reads the shards' tables back through the table schema, checks that
//! every tree of the corpus is there exactly once (trees are keyed by repository,
//! pin, subfolder and date) with the corpus's columns and one date, and writes the tables
//! a single run would have written, byte for byte. It counts nothing.

use anyhow::Result;

use crate::cli::MergeArgs;
use crate::corpus::file;
use crate::corpus::tables::merge;
use crate::infra::error::{ExitStatus, UsageError};
use crate::report;

/// Runs `merge`: joins shard tables into the whole corpus's tables.
pub fn run(args: &MergeArgs) -> Result<ExitStatus> {
    if let Some(servers) = &args.servers {
        return crate::survey::shards::run(
            servers,
            &args.out,
            &args.tables,
            args.source_table.as_deref(),
        );
    }
    let corpus = file::load(args.corpus.as_deref())?;
    // A missing, doubled or foreign shard is the input being wrong: nothing is written.
    let table = merge(&corpus, &args.tables).map_err(|e| UsageError(format!("{e:#}")))?;
    report::write_and_print(&args.out, &table)?;
    Ok(if table.failed_rows().next().is_some() {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}
