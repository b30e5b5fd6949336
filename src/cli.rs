//! Command-line definitions: clap derive structs and nothing else.
//!
//! The `///` text here is the help users read. No logic lives in this file beyond
//! turning text into typed values; each command's module validates its options.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Counts how often MCP servers' source trees spell out the four tool-annotation
/// hints (readOnlyHint, destructiveHint, idempotentHint, openWorldHint), and reads
/// what a running server declares.
#[derive(Debug, Parser)]
#[command(name = "mcp-hint-census", version, about, long_about = None)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Downloads each pinned tree of a corpus and writes commit-stamped count tables.
    Census(CensusArgs),
    /// Counts the hint names in a local directory, archive or git revision.
    Scan(ScanArgs),
    /// Asks a running MCP server for its tools/list and reports the hints it declares.
    Probe(ProbeArgs),
    /// Compares two probe snapshots and flags hints that became more permissive.
    Diff(DiffArgs),
    /// Compares two census CSV tables tree by tree and column by column.
    Compare(CompareArgs),
    /// Merges the tables of `census --shard` runs into the table of the whole corpus.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub struct CensusArgs {
    /// The corpus file. Default: ./corpus.toml, else the built-in published corpus.
    #[arg(long, value_name = "FILE")]
    pub corpus: Option<PathBuf>,

    /// Folder the CSV tables and the Markdown report are written to.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// Folder of downloaded archives, keyed by repository and pinned commit.
    /// Default: the platform's user cache folder, under mcp-hint-census.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// Uses only archives already in the cache; a tree that is not there fails.
    #[arg(long)]
    pub offline: bool,

    /// How many trees are downloaded and counted at once.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: u16,

    /// How many times a transient download failure (connection error, HTTP 5xx or
    /// 429) is retried, with exponential backoff.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,

    /// Seconds a connection may take to open, or a download may stall, before it fails.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,

    /// The date stamped on the tables and in their file names (YYYY-MM-DD).
    /// Default: SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,

    /// Prints no progress bars.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Counts only shard K of N (the trees at positions K, K+N, K+2N, ... of the
    /// corpus), for splitting a survey across machines; `merge` joins the shards.
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The corpus the shards were counted from: it gives the row order and the notes.
    /// Default: ./corpus.toml, else the built-in published corpus.
    #[arg(long, value_name = "FILE")]
    pub corpus: Option<PathBuf>,

    /// Folder the merged tables are written to.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// The shards' census-DATE.csv tables; each one's files-DATE.csv is read from
    /// beside it.
    #[arg(value_name = "CENSUS.csv", required = true)]
    pub tables: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Directories, .tar.gz/.tgz/.tar files, or - for an archive on stdin. Default: .
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Counts the tree at this git revision (inside a git work tree) instead of the
    /// working files, by streaming `git archive REV`.
    #[arg(long, value_name = "REV")]
    pub git: Option<String>,

    /// Lists every file with a nonzero count, sorted by path.
    #[arg(long)]
    pub files: bool,

    /// Adds the counts grouped by file extension.
    #[arg(long)]
    pub by_extension: bool,

    /// Writes the rows as a CSV table with the census columns.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Prints the rows as JSON instead of a table.
    #[arg(long)]
    pub json: bool,

    /// The terms to count, comma-separated. Default: the four hint names.
    #[arg(long, value_name = "T,...", value_delimiter = ',')]
    pub terms: Option<Vec<String>>,

    /// The control terms, comma-separated. Default: annotations.
    #[arg(long, value_name = "C,...", value_delimiter = ',')]
    pub controls: Option<Vec<String>>,

    /// Exits with status 3 when a tree reads zero on all four hint names.
    #[arg(long)]
    pub require_hints: bool,
}

#[derive(Debug, Args)]
pub struct ProbeArgs {
    /// Probes a Streamable HTTP server at this URL instead of starting COMMAND.
    #[arg(long, value_name = "URL", conflicts_with = "command")]
    pub url: Option<String>,

    /// Probes every server listed in FILE (TOML) into one table, wire-DATE.csv, and a
    /// summary, wire-DATE.md, in --out.
    #[arg(long, value_name = "FILE", conflicts_with_all = ["url", "command", "csv", "save", "require"])]
    pub servers: Option<PathBuf>,

    /// Folder the --servers table and summary are written to. Default: results.
    #[arg(long, value_name = "DIR", requires = "servers")]
    pub out: Option<PathBuf>,

    /// How many servers of --servers are probed at once. Default: 4.
    #[arg(long, short = 'j', value_name = "N", requires = "servers",
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: Option<u16>,

    /// Writes one row per tool as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Saves a snapshot of every tool's name, title and annotations as received, for `diff`.
    #[arg(long, value_name = "FILE.json")]
    pub save: Option<PathBuf>,

    /// Exits with status 3 when a tool breaks RULE: meaningful, all, openai or anthropic.
    #[arg(long, value_name = "RULE")]
    pub require: Option<String>,

    /// Seconds to wait for the whole exchange with one server before it is stopped.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub timeout: u64,

    /// The protocol version offered in initialize (the server may negotiate down).
    #[arg(long, value_name = "V", default_value = "2025-06-18")]
    pub protocol_version: String,

    /// The client capabilities offered in initialize: `default` (roots, sampling and
    /// elicitation, as MCP Inspector and desktop clients offer), `none`, or a JSON object.
    #[arg(long, value_name = "default|none|JSON", default_value = "default")]
    pub capabilities: String,

    /// The most bytes one JSON-RPC message may take (a stdout line, an event, an HTTP
    /// body); a longer one fails the probe. Accepts KiB, MiB and GiB.
    #[arg(long, value_name = "SIZE", default_value = "64MiB")]
    pub max_message: String,

    /// The date stamped in the --save snapshot or the --servers file names
    /// (YYYY-MM-DD). Default: SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD")]
    pub date: Option<String>,

    /// Sets the wire beside a literal count of the server's source in DIR (as `scan`
    /// counts it), with a verdict on whether they agree.
    #[arg(long, value_name = "DIR", conflicts_with = "servers")]
    pub source: Option<PathBuf>,

    /// The server to start, speaking MCP over stdin and stdout.
    #[arg(last = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, Args)]
pub struct DiffArgs {
    /// The older snapshot, written by `probe --save`.
    pub old: PathBuf,
    /// The newer snapshot.
    pub new: PathBuf,
}

#[derive(Debug, Args)]
pub struct CompareArgs {
    /// The reference table, e.g. results/published-2026-09-07.csv.
    pub a: PathBuf,
    /// The table to check against it.
    pub b: PathBuf,
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }
}
