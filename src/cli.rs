//! Command-line definitions: clap derive structs and nothing else.
//!
//! The `///` text here is the help users read. No logic lives in this file beyond
//! turning text into typed values; each command's module validates its options.

use crate::tools::Roles;
use std::path::PathBuf;
use std::str::FromStr;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::infra::date::Step;
use crate::infra::shard::ShardSpec;

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
    /// Merges the tables of `census --shard` runs into the table of the whole corpus,
    /// or those of `probe --servers --shard` runs into one wire survey's.
    Merge(MergeArgs),
    /// Joins the tables of a `probe --servers` run to a census of the same servers'
    /// source, tool by tool, without running any server again.
    Join(JoinArgs),
    /// Builds a pinned corpus file from the MCP Registry or from a list of repositories.
    Corpus(CorpusArgs),
    /// Accounts for every latest entry of a registry listing: what ships, its
    /// repository and the wire, from the tables census and probe --servers wrote.
    Survey(SurveyArgs),
    /// Runs the whole registry survey of one saved listing, each step a command of
    /// this tool: pins, counts what ships (its latest and every version), the
    /// repositories and the wire, joins them and writes the report.
    RegistrySurvey(RegistrySurveyArgs),
}

/// One part of a registry survey that `registry-survey --halves` may run.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Half {
    /// What ships at the listing's latest versions, pinned by digest.
    Shipped,
    /// What ships at every version the listing holds, for "Over time".
    Versions,
    /// The repositories the entries name.
    Repositories,
    /// The packages' servers run, each in a sandbox.
    Wire,
    /// The repositories at the first of each month since --history-since, and at
    /// the listing's date, along their default branches' history.
    History,
}

#[derive(Debug, Args)]
pub struct RegistrySurveyArgs {
    /// The listing: saved whole (servers.json) or a folder of answer pages.
    #[arg(value_name = "LISTING")]
    pub listing: PathBuf,

    /// The survey's folder: shipped/, versions/, repositories/, wire/ and history/ under it,
    /// the report, the entries table and the run's log in it.
    #[arg(long, value_name = "DIR")]
    pub out: PathBuf,

    /// The listing's date, in the names of what is written (YYYY-MM-DD).
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub date: String,

    /// The parts to run; one left out keeps the tables DIR holds, which the joins
    /// and the report then read.
    #[arg(
        long,
        value_delimiter = ',',
        value_name = "HALF,...",
        default_value = "shipped,versions,repositories,wire,history"
    )]
    pub halves: Vec<Half>,

    /// The first date the repositories' history is pinned at; then the first of
    /// each month up to the listing's date, and that date.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg,
          default_value = "2025-03-01")]
    pub history_since: String,

    /// Counts from the corpora DIR holds, pinned before, without pinning the
    /// listing again.
    #[arg(long)]
    pub no_pin: bool,

    /// Goes on with a run that was stopped: the steps it finished are not run
    /// again, and the census or probe it was in resumes from its journal.
    #[arg(long)]
    pub resume: bool,

    /// The day the wire is read, in the names of its tables (YYYY-MM-DD). Default:
    /// today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub wire_date: Option<String>,

    /// The cache folder every step shares (archives, artifacts, installs, clones).
    /// Default: the user cache folder's mcp-hint-census.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// Reads the repositories from the bare clones under DIR (as `owner+name/`, or a
    /// git folder inside it) instead of their forge, both to pin and to count: for a
    /// forge that is not reached. A repository with no mirror is not pinned, and
    /// says so.
    #[arg(long, value_name = "DIR")]
    pub mirrors: Option<PathBuf>,

    /// Probes the listing's remote endpoints too (DIR/remote), joined to the
    /// repositories and reported as a second wire: only from a machine that reaches
    /// them.
    #[arg(long)]
    pub remotes: bool,

    /// One more option for the wire's probe, as one word (`--probe-arg=--jobs
    /// --probe-arg=4`); repeatable.
    #[arg(long = "probe-arg", value_name = "WORD", allow_hyphen_values = true)]
    pub probe_args: Vec<String>,

    /// Where the listing came from, in words, for the report.
    #[arg(long, value_name = "TEXT")]
    pub listing_from: Option<String>,

    /// How the repositories were read, in words, for the report.
    #[arg(long, value_name = "TEXT")]
    pub repos_from: Option<String>,

    /// What the run runs on, in words, for the report. Default: cores, memory and
    /// system as this machine reports them.
    #[arg(long, value_name = "TEXT")]
    pub run_on: Option<String>,
}

#[derive(Debug, Args)]
pub struct SurveyArgs {
    /// The registry listing: saved answer pages, or a listing saved whole (as
    /// `corpus registry --pages` reads them).
    #[arg(long, value_name = "PATH", required = true)]
    pub pages: Vec<PathBuf>,

    /// The corpus of what ships (`corpus registry --shipped`); its skipped list is
    /// read from beside it.
    #[arg(long, value_name = "FILE")]
    pub shipped: PathBuf,

    /// The census table of that corpus, census-DATE.csv.
    #[arg(long, value_name = "TABLE")]
    pub shipped_table: PathBuf,

    /// The corpus of what ships at every version the listing holds (`corpus
    /// registry --shipped FILE --all-versions`): with its census table, the report's
    /// "Over time" gives each month of publication.
    #[arg(long, value_name = "FILE", requires = "versions_table")]
    pub versions: Option<PathBuf>,

    /// The census table of that corpus, census-DATE.csv.
    #[arg(long, value_name = "TABLE", requires = "versions")]
    pub versions_table: Option<PathBuf>,

    /// The corpus of the repositories pinned at past dates (`corpus registry --since
    /// DATE --every 1month`): with its census table, "Over time" gives each date.
    #[arg(long, value_name = "FILE", requires = "history_table")]
    pub history: Option<PathBuf>,

    /// The census table of that corpus, census-DATE.csv.
    #[arg(long, value_name = "TABLE", requires = "history")]
    pub history_table: Option<PathBuf>,

    /// The corpus of the entries' repositories (`corpus registry --out`); its
    /// skipped list is read from beside it.
    #[arg(long, value_name = "FILE", requires = "repos_table")]
    pub repos: Option<PathBuf>,

    /// The census table of that corpus, census-DATE.csv.
    #[arg(long, value_name = "TABLE", requires = "repos")]
    pub repos_table: Option<PathBuf>,

    /// How the repositories' trees were read, in words, for the report (from local
    /// mirrors, say).
    #[arg(long, value_name = "TEXT", requires = "repos")]
    pub repos_from: Option<String>,

    /// The per-tool table of a `probe --servers` run of the listing's packages,
    /// wire-DATE.csv; its servers table is read from beside it. Give it again for
    /// another run of the same listing, such as its remote endpoints probed from a
    /// machine that reaches them: an entry's wire outcome is its first row found.
    #[arg(long, value_name = "WIRE.csv")]
    pub wire: Vec<PathBuf>,

    /// Where the listing came from, in words, for the report's opening (a
    /// repository and commit that keep it, say).
    #[arg(long, value_name = "TEXT")]
    pub listing_from: Option<String>,

    /// The run's log, `step,unix_seconds,disk_bytes` (as registry-survey writes
    /// it): the report then says how long each step took and the most disk
    /// it held.
    #[arg(long, value_name = "FILE")]
    pub run_log: Option<PathBuf>,

    /// What the run ran on, in words, for the report (cores, memory, system).
    #[arg(long, value_name = "TEXT")]
    pub run_on: Option<String>,

    /// Folder entries-DATE.csv, survey-DATE.md and survey-DATE.svg are written to.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// The date in the names of the files written (YYYY-MM-DD). Default:
    /// SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub date: Option<String>,
}

#[derive(Debug, Args)]
pub struct CorpusArgs {
    #[command(subcommand)]
    pub source: CorpusSource,
}

#[derive(Debug, Subcommand)]
pub enum CorpusSource {
    /// Reads the MCP Registry's servers (or saved answer pages) and pins each
    /// server's repository to its release tag, else its default branch's HEAD.
    Registry(CorpusRegistryArgs),
    /// Reads a list of repositories, one a line, and pins each:
    /// `REPOSITORY [ref=REF] [subfolder=PATH] [name=NAME]`, `#` comments.
    List(CorpusListArgs),
    /// Reads a list of packages, one a line, and pins each to its artifact by the
    /// index's digest: `npm:NAME@VERSION`, `pypi:NAME==VERSION`, or without a
    /// version for the latest release that day; `#` comments.
    Packages(CorpusListArgs),
}

#[derive(Debug, Args)]
pub struct CorpusRegistryArgs {
    /// The registry's base URL; pages are read from URL/v0.1/servers.
    #[arg(
        long,
        value_name = "URL",
        default_value = "https://registry.modelcontextprotocol.io"
    )]
    pub url: String,

    /// Reads saved answer pages instead of the network: a page file, or a folder
    /// whose *.json files are pages. May be given more than once.
    #[arg(long, value_name = "PATH", conflicts_with_all = ["url", "save_pages"])]
    pub pages: Vec<PathBuf>,

    /// Saves each page read from the registry in this folder (page-0001.json, ...),
    /// for a later --pages.
    #[arg(long, value_name = "DIR")]
    pub save_pages: Option<PathBuf>,

    /// Servers asked for per page.
    #[arg(long, value_name = "N", default_value_t = 100,
          value_parser = clap::value_parser!(u16).range(1..=100))]
    pub limit: u16,

    /// Fails past this many pages.
    #[arg(long, value_name = "N", default_value_t = 1000)]
    pub max_pages: usize,

    /// Writes the servers' Streamable HTTP endpoints to this file, for `probe --servers`.
    #[arg(long, value_name = "FILE")]
    pub remotes: Option<PathBuf>,

    /// Writes the servers' npm and PyPI packages with stdio transport to this file,
    /// for `probe --servers`: each package at its exact version, with the arguments
    /// and environment variables its entry gives.
    #[arg(long, value_name = "FILE")]
    pub packages: Option<PathBuf>,

    /// Writes the corpus of what ships to this file: every npm and PyPI package the
    /// servers name, whatever their transport, at the entry's version, pinned to its
    /// artifact by the index's digest (skipped ones in STEM-skipped.csv beside it).
    #[arg(long, value_name = "FILE")]
    pub shipped: Option<PathBuf>,

    /// Keeps every version of a server, each its own tree; by default a server
    /// gives one tree, at the version the registry marks isLatest.
    #[arg(long)]
    pub all_versions: bool,

    /// Uses saved pages that end with a cursor no page answers (a set cut short),
    /// which is refused otherwise.
    #[arg(long, requires = "pages")]
    pub partial: bool,

    /// Reads the repositories' trees from the corpus --out names, written by an
    /// earlier run from the same listing, instead of pinning them again: --packages
    /// gets their commits, and --out and its skipped list are left as they are. For
    /// writing the servers files again where the forges cannot be reached.
    #[arg(long, conflicts_with_all = ["at", "since"])]
    pub pinned: bool,

    #[command(flatten)]
    pub build: CorpusBuildArgs,
}

#[derive(Debug, Args)]
pub struct CorpusListArgs {
    /// The list: one repository (or, for `packages`, one package) a line.
    #[arg(value_name = "FILE")]
    pub file: PathBuf,

    #[command(flatten)]
    pub build: CorpusBuildArgs,
}

#[derive(Debug, Args)]
pub struct CorpusBuildArgs {
    /// The corpus file to write.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,

    /// The CSV list of what was skipped and why. Default: STEM-skipped.csv beside --out.
    #[arg(long, value_name = "FILE")]
    pub skipped: Option<PathBuf>,

    /// The date written in the corpus's opening comment (YYYY-MM-DD).
    /// Default: SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub date: Option<String>,

    /// How many repositories are resolved with git ls-remote at once.
    #[arg(long, short = 'j', value_name = "N", default_value_t = 8,
          value_parser = clap::value_parser!(u16).range(1..=64))]
    pub jobs: u16,

    /// How many times a failure that may pass (a network error, a timeout, an HTTP
    /// 5xx or 429 answer) is retried, with exponential backoff.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,

    /// Seconds one request to a remote (a git ls-remote, an HTTP GET) may take.
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,

    /// Stops after this many network failures in a row (tries, not repositories)
    /// with no answer between them: what was pinned is written, the rest is listed
    /// as not tried, and the exit status is 1. 0 never stops.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub give_up_after: usize,

    /// Pins each repository's default branch as it stood at the end of this day
    /// (23:59:59 UTC), along its first-parent history: one tree per date. May be
    /// repeated, and joined with --since.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub at: Vec<String>,

    /// Pins at this date and every --every step after it, up to --until.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg,
          requires = "every")]
    pub since: Option<String>,

    /// The step between the dates of --since: a whole number and days, weeks, months
    /// or years (10days, 2weeks, 1month, 3months, 1year).
    #[arg(long, value_name = "STEP", requires = "since")]
    pub every: Option<Step>,

    /// The last date of the --since series, included when a step lands on it.
    /// Default: --date, else SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg,
          requires = "since")]
    pub until: Option<String>,

    /// Folder of the commits-only clones that dated pins are read from (--at, --since,
    /// and a listed version with no release tag, pinned on the day it was
    /// published), kept and fetched again on the next run. Default: the platform's user cache folder,
    /// under mcp-hint-census (census's cache).
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,

    /// Seconds one clone or fetch of a history may take before it is stopped.
    #[arg(long, value_name = "SECS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub clone_timeout: u64,

    /// The largest file a clone or fetch of a history may write (its pack; bytes,
    /// or with a KiB, MiB or GiB suffix); past it the repository is skipped.
    #[arg(long, value_name = "SIZE", default_value = "2GiB")]
    pub max_history: ByteSize,

    /// Asks each repository's bare clone under DIR (as `owner+name/`, or a git
    /// folder inside it) instead of its forge: for a forge that is not reached. A
    /// repository with no mirror there is not pinned, and says so.
    #[arg(long, value_name = "DIR")]
    pub mirrors: Option<PathBuf>,
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

    /// Packs each repository's archive from its bare clone under DIR (as
    /// `owner+name/`, or a git folder inside it) instead of downloading it: for a
    /// forge that is not reached. A repository with no mirror there fails.
    #[arg(long, value_name = "DIR")]
    pub mirrors: Option<PathBuf>,

    /// Keeps no archive on disk: each is streamed, counted and dropped (for a
    /// survey too large to cache; see --resume).
    #[arg(long, conflicts_with_all = ["cache", "offline"])]
    pub no_cache: bool,

    /// Records each tree counted in OUT/census.journal as soon as it is done, and
    /// skips the trees that journal already holds: a run that was killed, started
    /// again with the same command, counts only the rest and writes the same tables.
    /// The journal is removed once every tree is counted.
    #[arg(long)]
    pub resume: bool,

    /// How many trees are counted at once (threads reading archives).
    #[arg(long, short = 'j', value_name = "N", default_value_t = 4,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub jobs: u16,

    /// How many archives are downloaded at once. A download waits on the network,
    /// not the CPU, so more run than --jobs; each reads at most 4 MiB ahead of its
    /// count. Until the network has answered once, only --jobs downloads run.
    #[arg(long, value_name = "N", default_value_t = 16,
          value_parser = clap::value_parser!(u16).range(1..=256))]
    pub downloads: u16,

    /// How many times a transient download failure (connection error, HTTP 5xx or
    /// 429) is retried, with exponential backoff.
    #[arg(long, value_name = "N", default_value_t = 3)]
    pub retries: u32,

    /// Stops downloading after this many network failures in a row (tries, not
    /// trees) with no answer between them: the trees not tried fail as not tried,
    /// and the exit status is 1. 0 never stops.
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub give_up_after: usize,

    /// Seconds a connection may take to open, or a download may stall, before it fails.
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,

    /// The largest archive a tree may have, downloaded or cached (bytes, or with a
    /// KiB, MiB or GiB suffix); a larger one fails its tree.
    #[arg(long, value_name = "SIZE", default_value = "4GiB")]
    pub max_archive: ByteSize,

    /// Seconds reading one archive may take in all, however steadily it arrives.
    #[arg(long, value_name = "SECS", default_value_t = 1800,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub max_time: u64,

    /// The date stamped on the tables and in their file names (YYYY-MM-DD).
    /// Default: SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub date: Option<String>,

    /// Prints no progress: no bars on a terminal, no periodic lines in a log.
    #[arg(long, short = 'q')]
    pub quiet: bool,

    /// Seconds between the plain progress lines written when stderr is not a
    /// terminal (a batch log); bars on a terminal update continuously.
    #[arg(long, value_name = "SECS", default_value_t = 30)]
    pub progress_every: u64,

    /// Counts only shard K of N (the trees at positions K, K+N, K+2N, ... of the
    /// corpus), for splitting a survey across machines; `merge` joins the shards.
    /// `env` takes K and N from a Slurm or AWS Batch array job's variables; `env/N`
    /// takes K from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) or those.
    #[arg(long, value_name = "K/N|env|env/N")]
    pub shard: Option<ShardSpec>,

    /// Counts literals only: no tool finder; the tool columns and the tools table
    /// stay empty (for comparing the finder's cost, see docs/performance.md).
    #[arg(long)]
    pub no_tools: bool,

    /// The roles whose files the tool finder reads, besides `source`: any of test,
    /// example, build (installed dependencies), or all. Their definitions are listed
    /// in the tools table with their role; the row columns count source only.
    #[arg(long, value_name = "ROLES", default_value = "source", value_parser = Roles::parse,
          conflicts_with = "no_tools")]
    pub tool_roles: Roles,
}

#[derive(Debug, Args)]
pub struct MergeArgs {
    /// The corpus the shards were counted from: it gives the row order and the notes.
    /// Default: ./corpus.toml, else the built-in published corpus.
    #[arg(long, value_name = "FILE")]
    pub corpus: Option<PathBuf>,

    /// Merges the wire survey shards of `probe --servers FILE --shard K/N` instead
    /// of census shards: the same servers file, which gives the row order.
    #[arg(long, value_name = "FILE", conflicts_with = "corpus")]
    pub servers: Option<PathBuf>,

    /// With --servers: joins the merged wire tables to a census of the same servers'
    /// source, as `probe --servers --source-table` does.
    #[arg(long, value_name = "TABLE", requires = "servers")]
    pub source_table: Option<PathBuf>,

    /// Folder the merged tables are written to.
    #[arg(long, value_name = "DIR", default_value = "results")]
    pub out: PathBuf,

    /// The shards' census-DATE.csv tables; each one's files-DATE.csv is read from
    /// beside it. With --servers, the shards' wire-DATE.csv tables; each one's
    /// servers table, summary, shard note and locks are read from beside it.
    #[arg(value_name = "CENSUS.csv|WIRE.csv", required = true)]
    pub tables: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub struct JoinArgs {
    /// The per-tool table of `probe --servers`, wire-DATE.csv; its
    /// wire-DATE-servers.csv is read from beside it.
    #[arg(value_name = "WIRE.csv")]
    pub wire: PathBuf,

    /// The census of the same servers' source: its census-DATE.csv or tools-DATE.csv
    /// (the other is read beside it).
    #[arg(long, value_name = "TABLE", required = true)]
    pub source_table: PathBuf,

    /// Folder join-DATE.csv and join-DATE.md are written to. Default: the wire
    /// table's folder, where `probe --servers --source-table` writes its join.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ScanArgs {
    /// Directories, archives (.tar.gz, .tgz, .gz, .tar), single files, or - for an
    /// archive on stdin. Default: the current directory
    #[arg(value_name = "PATH")]
    pub paths: Vec<PathBuf>,

    /// Counts the tree at this git revision instead of the working files, in a work
    /// tree or a bare repository, reading its blobs with `git cat-file --batch`
    /// (uncommitted changes do not count).
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

    /// Adds a spelling profile's columns: `sdk` (the spellings each MCP SDK makes
    /// authors write) or a TOML file of [[column]] tables. May be repeated.
    #[arg(long, value_name = "sdk|FILE")]
    pub profile: Vec<String>,

    /// Exits with status 3 when the tree falls short: `literals` (the default) when it
    /// reads zero in every column that spells a hint (the four names, and with
    /// --profile their other spellings); `tools` when the lint finds anything in a tool
    /// definition (no hint, a hint meaningful for it left out, a read-only declaration
    /// its name or its destructiveHint contradicts), each named at path:line.
    #[arg(long, value_name = "literals|tools", num_args = 0..=1, require_equals = true,
          default_missing_value = "literals")]
    pub require_hints: Option<HintGate>,

    /// Lists every tool definition found under the table: path:line, name, the four
    /// hints (an absent one with what a client resolves) and what it omits.
    #[arg(long)]
    pub tools: bool,

    /// Writes every tool definition found as a CSV table with the tools table's
    /// columns (`repo` holds the path as given).
    #[arg(long, value_name = "FILE")]
    pub tools_csv: Option<PathBuf>,

    /// Writes a GitHub workflow command (`::warning file=PATH,line=N::...`) for each
    /// finding of the lint in a tool definition into FILE, so that a job that prints
    /// FILE shows each at its line.
    #[arg(long, value_name = "FILE")]
    pub github_warnings: Option<PathBuf>,

    /// Writes the lint's findings as a SARIF 2.1.0 log into FILE (for GitHub code
    /// scanning): its rules, and each result at the definition's file and line.
    #[arg(long, value_name = "FILE")]
    pub sarif: Option<PathBuf>,

    /// Counts literals only: no tool finder, and empty tool columns.
    #[arg(long, conflicts_with_all = ["tools", "tools_csv", "github_warnings", "sarif"])]
    pub no_tools: bool,

    /// The roles whose files the tool finder reads, besides `source`: any of test,
    /// example, build (installed dependencies), or all. Their definitions are listed
    /// with their role; the row columns and the gate count source only.
    #[arg(long, value_name = "ROLES", default_value = "source", value_parser = Roles::parse,
          conflicts_with = "no_tools")]
    pub tool_roles: Roles,
}

/// What `scan --require-hints` checks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum HintGate {
    /// Every tree spells at least one hint in its literal columns.
    Literals,
    /// The lint finds nothing in any tool definition found.
    Tools,
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

    /// Probes only shard K of N (the servers at positions K, K+N, K+2N, ... of the
    /// file), for splitting a wire survey across machines; `merge --servers` joins
    /// the shards. `env` and `env/N` read K and N as `census --shard` does.
    #[arg(long, value_name = "K/N|env|env/N", requires = "servers")]
    pub shard: Option<ShardSpec>,

    /// Folder the registry packages of --servers are installed in, one prefix per
    /// package and version, reused. Default: the user cache folder's
    /// mcp-hint-census/packages.
    #[arg(long, value_name = "DIR", requires = "servers")]
    pub cache: Option<PathBuf>,

    /// Resolves the dependencies of --servers packages as of the start of this date,
    /// UTC (npm install --before, uv's --exclude-newer). Default: each version's
    /// publish time, as its registry gives it. Where uv is not installed, PyPI
    /// packages are installed with pip, which cannot resolve by date.
    #[arg(long, value_name = "YYYY-MM-DD", requires = "servers",
          value_parser = crate::infra::date::parse_arg)]
    pub before: Option<String>,

    /// Seconds one package's install may take before it is stopped.
    #[arg(long, value_name = "SECS", default_value_t = 600,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub install_timeout: u64,

    /// The most disk one package's install may take; a larger one is removed and its
    /// server not run. Accepts KiB, MiB and GiB.
    #[arg(long, value_name = "SIZE", default_value = "2GiB")]
    pub max_install_size: ByteSize,

    /// Offers this Python interpreter to the PyPI packages of --servers, beside the
    /// python3 and python3.N on PATH (and uv's): for versions installed elsewhere, as
    /// pyenv's are. Repeatable.
    #[arg(long = "python", value_name = "PATH", requires = "servers")]
    pub pythons: Vec<PathBuf>,

    /// Keeps each package's install folder once its server is probed, for the next
    /// run to reuse, and npm's and uv's downloads in the cache's downloads/. By
    /// default an install is removed once probed (its lock stays with the tables)
    /// and the downloads are shared by the run and removed with it.
    #[arg(long, requires = "servers")]
    pub keep_installs: bool,

    /// Writes OUT/wire-DATE-commands.jsonl: for each server of --servers that started,
    /// the command line it ran (a package's: the bubblewrap command), its environment
    /// and its sandbox's bounds, one JSON object a line, so that another client can
    /// start the very same server (with --keep-installs, the install is still there).
    /// A value read from the environment is named there, never written.
    #[arg(long, requires = "servers")]
    pub write_commands: bool,

    /// Joins the --servers tables to a census of the same servers' source, given as
    /// its census-DATE.csv or tools-DATE.csv (the other is read beside it): writes
    /// join-DATE.csv, one row per (server, tool), and a section "Source and wire" in
    /// wire-DATE.md.
    #[arg(long, value_name = "TABLE", requires = "servers")]
    pub source_table: Option<PathBuf>,

    /// Records each server of --servers that listed in OUT/wire-DATE.journal as soon
    /// as it is done, and skips the servers that journal already holds: a run that was
    /// killed, started again with the same command, probes only the rest and writes the
    /// same tables. The journal is removed once every server has listed.
    #[arg(long, requires = "servers")]
    pub resume: bool,

    /// Runs no server of --servers whose file gives it placeholders (`placeholders = [...]`,
    /// written by `corpus registry --packages` for required variables and arguments
    /// the entry gives no value): each is a `needs configuration` row, as it was
    /// before placeholders.
    #[arg(long, requires = "servers")]
    pub no_placeholders: bool,

    /// Runs the registry packages of --servers outside the bubblewrap sandbox, with
    /// the network, your HOME and your environment. Only for packages you trust.
    #[arg(long, requires = "servers")]
    pub no_sandbox_i_trust_these_packages: bool,

    /// Writes one row per tool as CSV.
    #[arg(long, value_name = "FILE")]
    pub csv: Option<PathBuf>,

    /// Saves a snapshot of every tool's name, title and annotations as received, for `diff`.
    #[arg(long, value_name = "FILE.json")]
    pub save: Option<PathBuf>,

    /// Exits with status 3 when a tool breaks RULE: meaningful, all, openai or anthropic.
    #[arg(long, value_name = "RULE",
          value_parser = ["meaningful", "all", "openai", "anthropic"])]
    pub require: Option<String>,

    /// Seconds to wait for the whole exchange with one server before it is stopped.
    #[arg(long, value_name = "SECS", default_value_t = 30,
          value_parser = clap::value_parser!(u64).range(1..))]
    pub timeout: u64,

    /// The protocol version offered in initialize (the server may negotiate down).
    #[arg(long, value_name = "V", default_value = crate::infra::protocol::LATEST_VERSION)]
    pub protocol_version: String,

    /// The client capabilities offered in initialize: `default` (roots, sampling and
    /// elicitation in form and URL mode, as the official SDK clients offer with those
    /// callbacks), `none`, or a JSON object.
    #[arg(long, value_name = "default|none|JSON", default_value = "default")]
    pub capabilities: String,

    /// The most bytes one JSON-RPC message may take (a stdout line, an event, an HTTP
    /// body); a longer one fails the probe. Accepts KiB, MiB and GiB.
    #[arg(long, value_name = "SIZE", default_value = "64MiB")]
    pub max_message: ByteSize,

    /// The date stamped in the --save snapshot or the --servers file names
    /// (YYYY-MM-DD). Default: SOURCE_DATE_EPOCH, else today in UTC.
    #[arg(long, value_name = "YYYY-MM-DD", value_parser = crate::infra::date::parse_arg)]
    pub date: Option<String>,

    /// Sets the wire beside a literal count of the server's source in DIR (as `scan`
    /// counts it), with a verdict on whether they agree.
    #[arg(long, value_name = "DIR", conflicts_with = "servers")]
    pub source: Option<PathBuf>,

    /// After the first listing, stays connected: answers the server's pings, lists the
    /// tools again on each notifications/tools/list_changed and prints what changed as
    /// `diff` does. Ends after --watch-for or --watch-changes; exits 1 when a change made
    /// a hint more permissive, else 0.
    #[arg(long, conflicts_with_all = ["servers", "csv", "save", "require", "source"])]
    pub watch: bool,

    /// How many seconds --watch stays connected after the first listing. Default: 600.
    #[arg(long, value_name = "SECS", requires = "watch",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub watch_for: Option<u64>,

    /// How many changed listings --watch prints before it ends. Default: 10.
    #[arg(long, value_name = "N", requires = "watch",
          value_parser = clap::value_parser!(u64).range(1..))]
    pub watch_changes: Option<u64>,

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

/// A size in bytes, written as a number with an optional KiB, MiB or GiB suffix.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ByteSize(pub u64);

impl FromStr for ByteSize {
    type Err = String;

    fn from_str(text: &str) -> Result<ByteSize, String> {
        let bad = || format!("'{text}' is not a size (a number of bytes, or with KiB, MiB or GiB)");
        let digits = text.trim_end_matches(|c: char| c.is_ascii_alphabetic());
        let unit: u64 = match &text[digits.len()..] {
            "" | "B" => 1,
            "K" | "KiB" => 1 << 10,
            "M" | "MiB" => 1 << 20,
            "G" | "GiB" => 1 << 30,
            _ => return Err(bad()),
        };
        let n: u64 = digits.trim().parse().map_err(|_| bad())?;
        match n.checked_mul(unit) {
            Some(0) | None => Err(bad()),
            Some(bytes) => Ok(ByteSize(bytes)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn cli_definition_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn sizes_parse_with_binary_suffixes() {
        assert_eq!("4GiB".parse(), Ok(ByteSize(4 << 30)));
        assert_eq!("512K".parse(), Ok(ByteSize(512 << 10)));
        assert_eq!("1000".parse(), Ok(ByteSize(1000)));
        for bad in ["", "0", "GiB", "1TB", "-1", "99999999999GiB"] {
            assert!(bad.parse::<ByteSize>().is_err(), "{bad}");
        }
    }
}
