//! mcp-hint-census: counts the MCP tool-annotation hint names in source trees and
//! reads what running servers declare.
//!
//! The data flows one way: `corpus` (configuration) → `fetch` (HTTP and cache) →
//! `archive` (tar.gz streaming) → `count` (the matcher) → `table` (rows and the CSV
//! schema) → `report` (formats). `terms` names the hints and the columns. `scan`
//! counts local trees with `walk` and `git` and the same `archive` and `count`;
//! `probe` talks MCP to a running server; `cli` holds the clap definitions.

pub mod archive;
pub mod census;
pub mod cli;
pub mod compare;
pub mod corpus;
pub mod corpus_build;
pub mod count;
pub mod date;
pub mod fetch;
pub mod git;
pub mod hits;
pub mod merge;
pub mod pin;
pub mod probe;
pub mod progress;
pub mod registry;
pub mod repo_list;
pub mod repo_url;
pub mod report;
pub mod sanitize;
pub mod scan;
pub mod table;
pub mod tee;
pub mod terms;
pub mod walk;

use std::fmt;

/// The process exit codes, documented in the README.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExitStatus {
    /// Everything asked for was done and every check passed.
    Ok = 0,
    /// Something failed (a tree, a file, a server); the rest was still done.
    Failed = 1,
    /// The command line or a configuration file is wrong; nothing was done.
    Usage = 2,
    /// A gate (`--require-hints`, `--require`) found what it guards against.
    Gate = 3,
}

/// Marks an error as the user's input being wrong, which exits with status 2.
#[derive(Debug)]
pub struct UsageError(pub String);

impl fmt::Display for UsageError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Runs the parsed command line and returns the exit status.
pub fn run(cli: cli::Cli) -> anyhow::Result<ExitStatus> {
    match cli.command {
        cli::Command::Census(args) => census::run(&args),
        cli::Command::Scan(args) => scan::run(&args),
        cli::Command::Probe(args) => probe::run(&args),
        cli::Command::Diff(args) => probe::diff(&args),
        cli::Command::Compare(args) => compare::run(&args),
        cli::Command::Merge(args) => merge::run(&args),
        cli::Command::Corpus(args) => corpus_build::run(&args),
    }
}
