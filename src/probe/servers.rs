//! `probe --servers FILE`: many servers probed into one table.
//!
//! Owns the servers file (TOML), the environment look-ups it asks for, running the
//! probes `--jobs` at a time, and the two outputs: `wire-DATE.csv`, one row per
//! (server, tool) with the per-tool columns of `--csv`, and `wire-DATE.md`, a summary
//! per server. A server that fails is one row naming the reason; the others go on. The
//! rows follow the file's order, not the order the probes end in, so that the same
//! answers on the same date give the same bytes.
//!
//! ```toml
//! [[server]]
//! name = "memory"
//! command = "npx"
//! args = ["-y", "@modelcontextprotocol/server-memory"]
//! env = { MEMORY_FILE_PATH = "/tmp/memory.jsonl", API_KEY = { env = "MEMORY_KEY" } }
//!
//! [[server]]
//! name = "remote"
//! url = "https://mcp.example.com/mcp"
//! headers = { Authorization = { env = "REMOTE_TOKEN", prefix = "Bearer " } }
//! ```
//!
//! Header values always come from the environment, so that no secret is written in
//! the file; an `env` value may be a literal or come from the environment.

use std::collections::{BTreeMap, HashSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;
use serde::Deserialize;

use super::hints::ToolHints;
use super::install::{self, InstallKind, Installed, Installer, Lock, PackageRef, Start};
use super::join;
use super::journal::{self, Journal, Record};
use super::sandbox;
use super::session::{capability_names, Listing};
use super::stdio::{Ended, Ending};
use super::tally;
use super::{csv_header, probe_counting, stderr, tool_cells, Options, Target};
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;

/// The columns before the per-tool ones.
const SERVER_COLUMNS: [&str; 4] = ["server", "server_version", "protocol", "capabilities"];
/// How many servers are probed at once unless `--jobs` says otherwise.
pub(super) const DEFAULT_JOBS: u16 = 4;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ServersFile {
    #[serde(default)]
    server: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    name: String,
    command: Option<String>,
    #[serde(default)]
    args: Vec<String>,
    #[serde(default)]
    env: BTreeMap<String, Value>,
    url: Option<String>,
    #[serde(default)]
    headers: BTreeMap<String, Value>,
    /// A registry package, installed and run in the sandbox.
    package: Option<PackageRef>,
    /// The package's program to start (an npm bin, a console script).
    program: Option<String>,
    /// The module of a PyPI package `python -m` runs.
    module: Option<String>,
    /// What must be given before the server can start; an entry with needs never runs.
    #[serde(default)]
    needs: Vec<String>,
    /// The join to the census row: the registry name, repository and subfolder.
    registry_name: Option<String>,
    repository: Option<String>,
    subfolder: Option<String>,
    /// The commit of the repository the corpus pinned for it, when known.
    commit: Option<String>,
}

/// A value written in the file, or named there and read from the environment.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Value {
    Literal(String),
    FromEnv(FromEnv),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FromEnv {
    env: String,
    #[serde(default)]
    prefix: String,
}

/// One server of the file, checked, with its values not yet looked up.
struct Server {
    name: String,
    entry: Entry,
}

/// Says how probing one server ended: the `outcome` column of the servers table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Listed,
    NeedsConfiguration,
    InstallFailed,
    NoWheel,
    /// The package needs a Python this machine does not have.
    NoPython,
    Exited,
    /// It exited or timed out, its stderr naming a failure to reach the network.
    NeedsNetwork,
    ToolsListError,
    TimedOut,
    SandboxRefused,
    /// Stopped: its sandbox held more processes than the bound.
    TooManyProcesses,
    /// Stopped: it wrote more than the bound on stderr, or of stdout that is not JSON.
    TooMuchOutput,
}

impl Kind {
    /// Every kind, in the order the Markdown's outcome table lists them.
    const ALL: [Kind; 12] = [
        Kind::Listed,
        Kind::NeedsConfiguration,
        Kind::InstallFailed,
        Kind::NoWheel,
        Kind::NoPython,
        Kind::Exited,
        Kind::NeedsNetwork,
        Kind::ToolsListError,
        Kind::TimedOut,
        Kind::SandboxRefused,
        Kind::TooManyProcesses,
        Kind::TooMuchOutput,
    ];

    /// Returns false for a server that could not be run as the file gives it: it
    /// needs configuration (or authorization) first.
    fn could_run(self) -> bool {
        !matches!(self, Kind::NeedsConfiguration)
    }

    fn name(self) -> &'static str {
        match self {
            Kind::Listed => "listed",
            Kind::NeedsConfiguration => "needs configuration",
            Kind::InstallFailed => "install failed",
            Kind::NoWheel => "no wheel",
            Kind::NoPython => "no python",
            Kind::Exited => "exited",
            Kind::NeedsNetwork => "needs network",
            Kind::ToolsListError => "tools/list error",
            Kind::TimedOut => "timed out",
            Kind::SandboxRefused => "sandbox refused",
            Kind::TooManyProcesses => "too many processes",
            Kind::TooMuchOutput => "too much output",
        }
    }
}

/// Holds a server that gave no listing: how it ended, why in words, and the line of
/// its stderr that says why, when it wrote one.
struct Failure {
    kind: Kind,
    reason: String,
    cause: String,
}

impl Failure {
    fn new(kind: Kind, reason: String) -> Failure {
        Failure {
            kind,
            reason,
            cause: String::new(),
        }
    }
}

/// What probing one server gave.
struct Outcome {
    name: String,
    result: Result<Listing, Failure>,
    /// What identifies the bytes of a package server: npm's integrity, a wheel's sha256.
    artifact: String,
    /// Lines of the server's stdout that were not JSON, skipped; `None` when it never ran.
    skipped_lines: Option<usize>,
    /// The date the package's dependencies were resolved as of.
    before: String,
    /// Why they were not resolved by date, when they were not.
    before_note: String,
    /// What its install resolved to.
    lock: Option<Lock>,
    /// The Python version a PyPI package ran on.
    python: String,
}

impl Outcome {
    /// Returns the lock's cell and file name: `sha256:HEX` and `HEX.EXT`.
    fn lock_names(&self) -> Option<(String, String)> {
        use sha2::Digest as _;
        self.lock.as_ref().map(|lock| {
            let hex = format!("{:x}", sha2::Sha256::digest(&lock.bytes));
            (format!("sha256:{hex}"), format!("{hex}.{}", lock.extension))
        })
    }
}

/// Returns how a failed probe ended, from the kind of its error and, for a server
/// that stopped, from what its stderr says.
fn failure(err: &anyhow::Error) -> Failure {
    let ended = err.chain().find_map(|e| e.downcast_ref::<Ended>());
    let said = ended.map(|e| e.stderr.as_slice()).unwrap_or_default();
    let is_offline = said.iter().any(|l| stderr::is_network_failure(l));
    let kind = match ended.map(|e| e.kind) {
        Some(Ending::Exited | Ending::TimedOut) if is_offline => Kind::NeedsNetwork,
        Some(Ending::TimedOut) => Kind::TimedOut,
        Some(Ending::Exited) => Kind::Exited,
        Some(Ending::TooManyProcesses) => Kind::TooManyProcesses,
        Some(Ending::TooMuchOutput) => Kind::TooMuchOutput,
        None => Kind::ToolsListError,
    };
    Failure {
        kind,
        reason: format!("{err:#}"),
        cause: stderr::cause(said).unwrap_or_default().to_string(),
    }
}

/// Returns the outcome of probing `target`, the server of `installed` when it is a
/// package's.
fn probed(name: &str, target: &Target, options: &Options, installed: Option<Installed>) -> Outcome {
    let (listed, skipped_lines) = probe_counting(target, options);
    let installed = installed.unwrap_or_default();
    Outcome {
        name: name.to_string(),
        result: listed.map_err(|err| failure(&err)),
        artifact: installed.artifact,
        skipped_lines: Some(skipped_lines),
        before: installed.before,
        before_note: installed.before_note,
        lock: installed.lock,
        python: installed.python,
    }
}

/// Reads and checks the servers file; every mistake in it is a usage error.
fn load(path: &Path) -> Result<Vec<Server>> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| UsageError(format!("reading '{}': {err}", path.display())))?;
    let file: ServersFile = toml::from_str(&text)
        .map_err(|err| UsageError(format!("'{}': {}", path.display(), err.message())))?;
    let bad = |what: String| UsageError(format!("'{}': {what}", path.display()));
    if file.server.is_empty() {
        return Err(bad("it lists no [[server]]".to_string()).into());
    }
    let mut names = HashSet::new();
    let mut servers = Vec::new();
    for (index, entry) in file.server.into_iter().enumerate() {
        let name = entry.name.trim().to_string();
        if name.is_empty() {
            return Err(bad(format!("server {} has an empty name", index + 1)).into());
        }
        if !names.insert(name.clone()) {
            return Err(bad(format!("the name '{name}' is given twice")).into());
        }
        let ways = [
            entry.command.is_some(),
            entry.url.is_some(),
            entry.package.is_some(),
        ];
        if ways.iter().filter(|is| **is).count() != 1 {
            return Err(bad(format!(
                "server '{name}' needs one of a command, a url or a package"
            ))
            .into());
        }
        if entry.package.is_none()
            && (entry.program.is_some() || entry.module.is_some() || !entry.needs.is_empty())
        {
            return Err(bad(format!(
                "server '{name}' has a program, module or needs but no package; they go with a package"
            ))
            .into());
        }
        if let Some(commit) = &entry.commit {
            if !(7..=40).contains(&commit.len()) || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(format!(
                    "server '{name}': commit '{}' is not a commit (7 to 40 hex digits)",
                    sanitize(commit)
                ))
                .into());
            }
        }
        if let Some(package) = &entry.package {
            if !matches!(package.registry.as_str(), "npm" | "pypi") {
                return Err(bad(format!(
                    "server '{name}': package registry '{}' is not npm or pypi",
                    sanitize(&package.registry)
                ))
                .into());
            }
            if !entry.headers.is_empty() {
                return Err(bad(format!("server '{name}' has headers but no url")).into());
            }
        }
        match (&entry.command, &entry.url) {
            (Some(_), None) if !entry.headers.is_empty() => {
                return Err(bad(format!(
                    "server '{name}' has headers but no url; headers go with a url"
                ))
                .into())
            }
            (None, Some(_)) if !entry.args.is_empty() || !entry.env.is_empty() => {
                return Err(bad(format!(
                    "server '{name}' has args or env but no command; they go with a command"
                ))
                .into())
            }
            _ => {}
        }
        for (header, value) in &entry.headers {
            if let Value::Literal(_) = value {
                return Err(bad(format!(
                    "server '{name}': header '{header}' is written in the file; a header value comes from the environment, as {{ env = \"NAME\" }} or {{ env = \"NAME\", prefix = \"Bearer \" }}"
                ))
                .into());
            }
        }
        servers.push(Server { name, entry });
    }
    Ok(servers)
}

/// Looks up the values the file names in the environment.
fn resolve(values: &BTreeMap<String, Value>, what: &str) -> Result<Vec<(String, String)>, String> {
    values
        .iter()
        .map(|(key, value)| match value {
            Value::Literal(text) => Ok((key.clone(), text.clone())),
            Value::FromEnv(from) => match std::env::var(&from.env) {
                Ok(found) => Ok((key.clone(), format!("{}{found}", from.prefix))),
                Err(_) => Err(format!(
                    "the environment variable '{}' for {what} '{key}' is not set",
                    from.env
                )),
            },
        })
        .collect()
}

/// Builds the target of one server, looking up its environment values.
fn target(entry: &Entry) -> Result<Target, String> {
    match (&entry.command, &entry.url) {
        (Some(command), _) => {
            let mut line = vec![command.clone()];
            line.extend(entry.args.iter().cloned());
            Ok(Target::Stdio {
                command: line,
                env: resolve(&entry.env, "env")?,
                is_sandboxed: false,
            })
        }
        (None, Some(url)) => Ok(Target::Http {
            url: url.clone(),
            headers: resolve(&entry.headers, "header")?,
        }),
        (None, None) => Err("no command and no url".to_string()),
    }
}

/// How registry packages are installed and run.
#[derive(Debug)]
pub struct Packages {
    pub installer: Installer,
    /// Runs them in the bubblewrap sandbox; off only by
    /// `--no-sandbox-i-trust-these-packages`.
    pub is_sandboxed: bool,
}

/// Holds a validated `probe --servers FILE` command line.
#[derive(Debug)]
pub struct Config {
    /// How the file's packages are installed and run.
    pub packages: Packages,
    /// The servers file.
    pub file: PathBuf,
    /// Where the tables go (`--out`).
    pub out_dir: PathBuf,
    /// How many servers are probed at once.
    pub jobs: usize,
    /// The date the tables are named and stamped with.
    pub date: String,
    /// The census table (or its tools table) the wire is joined to (`--source-table`).
    pub source_table: Option<PathBuf>,
    /// Records the servers that listed, and skips those recorded (`--resume`).
    pub resume: bool,
}

/// Runs `probe --servers FILE`.
pub fn run(config: &Config, options: &Options) -> Result<ExitStatus> {
    let Config {
        packages,
        file,
        out_dir,
        jobs,
        date,
        source_table,
        resume,
    } = config;
    let servers = load(file)?;
    // Read before any server runs: a census table that is not one costs no probe.
    let census = source_table
        .as_deref()
        .map(join::Census::read)
        .transpose()?;
    let wants_sandbox = packages.is_sandboxed
        && servers
            .iter()
            .any(|s| s.entry.package.is_some() && s.entry.needs.is_empty());
    // The sandbox is found before anything is installed; whether it can be made here
    // is a row of each package, not the end of the others.
    let sandbox = match wants_sandbox {
        false => None,
        true => {
            let bwrap = sandbox::find().map_err(|why| {
                UsageError(format!(
                    "{why}; hint: to run the packages of '{}' without a sandbox, give --no-sandbox-i-trust-these-packages",
                    file.display()
                ))
            })?;
            let made = sandbox::check(&bwrap);
            Some((bwrap, made))
        }
    };
    let installs_pypi = servers.iter().any(|s| {
        s.entry.needs.is_empty()
            && s.entry
                .package
                .as_ref()
                .is_some_and(|p| p.registry == "pypi")
    });
    if installs_pypi && packages.installer.uv.is_none() {
        messages::warning(install::NO_UV_AT_START);
    }
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("creating '{}'", out_dir.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(*jobs)
        .build()
        .context("starting the probe threads")?;
    let journal_path = journal::path_in(out_dir, date);
    let (journal, mut done) = match resume {
        true => {
            let bytes = std::fs::read(file)
                .map_err(|err| UsageError(format!("reading '{}': {err}", file.display())))?;
            let (journal, done) = journal::open(&journal_path, date, &bytes, servers.len())?;
            (Some(journal), done)
        }
        false => {
            if journal_path.exists() {
                messages::note(format!(
                    "'{}' is there but not read: give --resume to probe only the servers it does not hold",
                    sanitize(journal_path.display().to_string())
                ));
            }
            (None, Default::default())
        }
    };
    let resumed: Vec<Option<journal::Line>> =
        servers.iter().map(|s| done.remove(&s.name)).collect();
    let outcomes: Vec<Outcome> = pool.install(|| {
        servers
            .par_iter()
            .zip(resumed)
            .map(|(server, line)| match line {
                Some(line) => from_journal(line),
                None => {
                    let outcome = probe_one(server, packages, sandbox.as_ref(), options);
                    if let Some(journal) = &journal {
                        record(journal, &outcome);
                    }
                    outcome
                }
            })
            .collect()
    });
    if let Some(journal) = &journal {
        if outcomes.iter().all(|o| o.result.is_ok()) {
            std::fs::remove_file(journal.path())
                .with_context(|| format!("removing '{}'", journal.path().display()))?;
        }
    }

    let capabilities = capability_names(&options.capabilities);
    let csv_path = out_dir.join(format!("wire-{date}.csv"));
    let md_path = out_dir.join(format!("wire-{date}.md"));
    let servers_path = out_dir.join(format!("wire-{date}-servers.csv"));
    write_table(&csv_path, &outcomes, &capabilities)
        .with_context(|| format!("writing '{}'", csv_path.display()))?;
    write_servers(&servers_path, &servers, &outcomes)
        .with_context(|| format!("writing '{}'", servers_path.display()))?;
    let locks_dir = out_dir.join(format!("wire-{date}-locks"));
    write_locks(&locks_dir, &outcomes)
        .with_context(|| format!("writing '{}'", locks_dir.display()))?;
    let rows: Vec<tally::Row> = servers
        .iter()
        .zip(&outcomes)
        .map(|(server, outcome)| {
            let kind = outcome
                .result
                .as_ref()
                .map_or_else(|f| f.kind, |_| Kind::Listed);
            tally::Row {
                source: tally::source(
                    server.entry.package.as_ref().map(|p| p.registry.as_str()),
                    server.entry.url.is_some(),
                ),
                outcome: kind.name(),
                could_run: kind.could_run(),
                is_listed: kind == Kind::Listed,
            }
        })
        .collect();
    let tallied = tally::section(&rows, &Kind::ALL.map(Kind::name));
    let mut report = summary(&outcomes, &capabilities, date, &tallied);
    report.push_str(&super::lint::silence_markdown(&listed_tools(&outcomes)));
    let join_path = out_dir.join(format!("join-{date}.csv"));
    if let Some(census) = &census {
        // Read back from the tables just written: the join is of the tables, whoever
        // wrote them.
        let joined = join::join(census, join::read_wire(&csv_path, &servers_path)?, date);
        join::write_csv(&join_path, &joined)
            .with_context(|| format!("writing '{}'", join_path.display()))?;
        report.push_str(&join::section(census, &joined));
    }
    std::fs::write(&md_path, report).with_context(|| format!("writing '{}'", md_path.display()))?;

    let mut out = Out::new();
    let mut failed = 0;
    for outcome in &outcomes {
        match &outcome.result {
            Ok(listing) => {
                for warning in &listing.warnings {
                    messages::warning(format!("server '{}': {warning}", sanitize(&outcome.name)));
                }
                let (tools, complete, nothing) = counts(listing);
                out.line(&format!(
                    "server '{}': {}, {complete} declaring every meaningful hint, {nothing} declaring nothing",
                    sanitize(&outcome.name),
                    messages::count(tools, "tool", "tools")
                ))?;
            }
            Err(failure) => {
                failed += 1;
                out.line(&format!(
                    "server '{}': {}: {}",
                    sanitize(&outcome.name),
                    match failure.kind {
                        Kind::NeedsConfiguration => "not run",
                        _ => "failed",
                    },
                    sanitize_lines(&failure.reason)
                ))?;
            }
        }
    }
    let mut written = vec![&csv_path, &servers_path];
    if census.is_some() {
        written.push(&join_path);
    }
    let written: Vec<String> = written
        .iter()
        .map(|p| format!("'{}'", p.display()))
        .collect();
    out.line(&format!(
        "wrote {} and '{}'",
        written.join(", "),
        md_path.display()
    ))?;
    Ok(if failed > 0 {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}

/// Appends a server that listed to the journal; one that failed is probed again on
/// the rerun.
fn record(journal: &Journal, outcome: &Outcome) {
    let Ok(listing) = &outcome.result else { return };
    journal.record(&Record {
        server: &outcome.name,
        listing,
        artifact: &outcome.artifact,
        skipped_lines: outcome.skipped_lines.unwrap_or_default(),
        before: &outcome.before,
        before_note: &outcome.before_note,
        python: &outcome.python,
        lock: outcome.lock.as_ref().map(|lock| {
            (
                std::str::from_utf8(&lock.bytes).unwrap_or_default(),
                lock.extension,
            )
        }),
    });
}

/// Returns the outcome a journal line recorded.
fn from_journal(line: journal::Line) -> Outcome {
    Outcome {
        name: line.server,
        result: Ok(line.listing),
        artifact: line.artifact,
        skipped_lines: Some(line.skipped_lines),
        before: line.before,
        before_note: line.before_note,
        lock: line.lock.map(|(text, extension)| Lock {
            bytes: text.into_bytes(),
            extension: if extension == "json" { "json" } else { "txt" },
        }),
        python: line.python,
    }
}

/// Probes one server of the file: installs and sandboxes a package first.
fn probe_one(
    server: &Server,
    packages: &Packages,
    sandbox: Option<&(PathBuf, Result<(), String>)>,
    options: &Options,
) -> Outcome {
    let fail = |kind, reason: String| Outcome {
        name: server.name.clone(),
        result: Err(Failure::new(kind, reason)),
        artifact: String::new(),
        skipped_lines: None,
        before: String::new(),
        before_note: String::new(),
        lock: None,
        python: String::new(),
    };
    let entry = &server.entry;
    let Some(package) = &entry.package else {
        return match target(entry) {
            Ok(target) => probed(&server.name, &target, options, None),
            Err(reason) => fail(Kind::NeedsConfiguration, reason),
        };
    };
    if !entry.needs.is_empty() {
        return fail(
            Kind::NeedsConfiguration,
            format!("needs {}", entry.needs.join(", ")),
        );
    }
    let env = match resolve(&entry.env, "env") {
        Ok(env) => env,
        Err(reason) => return fail(Kind::NeedsConfiguration, reason),
    };
    if let Some((_, Err(why))) = sandbox {
        return fail(Kind::SandboxRefused, why.clone());
    }
    let start = Start {
        program: entry.program.as_deref(),
        module: entry.module.as_deref(),
        args: &entry.args,
    };
    let installed = match packages.installer.install(package, &start) {
        Ok(installed) => installed,
        Err(err) => {
            let kind = match err.kind {
                InstallKind::NoWheel => Kind::NoWheel,
                InstallKind::NoPython => Kind::NoPython,
                InstallKind::Failed => Kind::InstallFailed,
            };
            return Outcome {
                result: Err(Failure {
                    kind,
                    reason: err.why,
                    cause: err.cause,
                }),
                ..fail(kind, String::new())
            };
        }
    };
    let target = match sandbox {
        Some((bwrap, _)) => {
            let mut dirs = vec![installed.prefix.clone()];
            dirs.extend(installed.runtime_dirs.iter().cloned());
            let mut all = sandbox::environment();
            all.extend(env);
            Target::Stdio {
                command: sandbox::wrap(bwrap, &dirs, &installed.command),
                env: all,
                is_sandboxed: true,
            }
        }
        None => Target::Stdio {
            command: installed.command.clone(),
            env,
            is_sandboxed: false,
        },
    };
    probed(&server.name, &target, options, Some(installed))
}

/// The servers table's columns: the server, what joins it to its census row, the
/// package and the bytes it was run from, how it ended and its tools by hints.
const SERVERS_HEADER: [&str; 23] = [
    "server",
    "registry_name",
    "repository",
    "subfolder",
    "commit",
    "package_registry",
    "package",
    "package_version",
    "python",
    "artifact",
    "before",
    "before_note",
    "lock",
    "outcome",
    "server_version",
    "protocol",
    "tools",
    "tools_every_meaningful_hint",
    "tools_some_hints",
    "tools_no_hint",
    "stdout_lines_skipped",
    "error",
    "cause",
];

/// Writes `wire-DATE-servers.csv`: one row per server of the file, in its order.
fn write_servers(path: &Path, servers: &[Server], outcomes: &[Outcome]) -> Result<()> {
    let mut out = csv::Writer::from_path(path)?;
    out.write_record(SERVERS_HEADER)?;
    for (server, outcome) in servers.iter().zip(outcomes) {
        let entry = &server.entry;
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let (registry, package, version) = match &entry.package {
            Some(p) => (p.registry.clone(), p.name.clone(), p.version.clone()),
            None => Default::default(),
        };
        let mut record = vec![
            outcome.name.clone(),
            text(&entry.registry_name),
            text(&entry.repository),
            text(&entry.subfolder),
            text(&entry.commit),
            registry,
            package,
            version,
            outcome.python.clone(),
            outcome.artifact.clone(),
            outcome.before.clone(),
            outcome.before_note.clone(),
            outcome
                .lock_names()
                .map(|(cell, _)| cell)
                .unwrap_or_default(),
        ];
        let skipped = outcome
            .skipped_lines
            .map(|n| n.to_string())
            .unwrap_or_default();
        match &outcome.result {
            Ok(listing) => {
                let (tools, complete, nothing) = counts(listing);
                record.extend([
                    Kind::Listed.name().to_string(),
                    listing.server_version.clone(),
                    listing.protocol_version.clone(),
                    tools.to_string(),
                    complete.to_string(),
                    (tools - complete - nothing).to_string(),
                    nothing.to_string(),
                    skipped.clone(),
                    String::new(),
                    String::new(),
                ]);
            }
            Err(failure) => {
                record.push(failure.kind.name().to_string());
                record.extend(std::iter::repeat_n(String::new(), 6));
                record.push(skipped.clone());
                record.push(failure.reason.clone());
                record.push(failure.cause.clone());
            }
        }
        out.write_record(&record)?;
    }
    out.flush()?;
    Ok(())
}

/// Writes each lock of `outcomes` into `dir`, named after its sha256: the same
/// resolution is one file, however many servers share it.
fn write_locks(dir: &Path, outcomes: &[Outcome]) -> Result<()> {
    for outcome in outcomes {
        let (Some(lock), Some((_, name))) = (&outcome.lock, outcome.lock_names()) else {
            continue;
        };
        std::fs::create_dir_all(dir)?;
        let path = dir.join(name);
        if !path.is_file() {
            std::fs::write(&path, &lock.bytes)?;
        }
    }
    Ok(())
}

/// Returns a listing's number of tools, of tools declaring every meaningful hint and of
/// tools declaring nothing.
fn counts(listing: &Listing) -> (usize, usize, usize) {
    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    let complete = tools.iter().filter(|t| t.omits().is_empty()).count();
    let nothing = tools.iter().filter(|t| t.declares_nothing()).count();
    (tools.len(), complete, nothing)
}

/// Returns each server that listed, with its tools read as the schema reads them.
fn listed_tools(outcomes: &[Outcome]) -> Vec<(String, Vec<ToolHints>)> {
    outcomes
        .iter()
        .filter_map(|o| {
            let listing = o.result.as_ref().ok()?;
            let tools = listing.tools.iter().map(ToolHints::from_tool).collect();
            Some((o.name.clone(), tools))
        })
        .collect()
}

fn write_table(path: &Path, outcomes: &[Outcome], capabilities: &str) -> Result<()> {
    let mut out = csv::Writer::from_path(path)?;
    let tool_columns = csv_header();
    let mut header: Vec<&str> = SERVER_COLUMNS.to_vec();
    header.extend(tool_columns.iter().map(String::as_str));
    header.push("error");
    out.write_record(&header)?;
    for outcome in outcomes {
        match &outcome.result {
            Ok(listing) => {
                for tool in &listing.tools {
                    let mut record = vec![
                        outcome.name.clone(),
                        listing.server_version.clone(),
                        listing.protocol_version.clone(),
                        capabilities.to_string(),
                    ];
                    record.extend(tool_cells(&ToolHints::from_tool(tool)));
                    record.push(String::new());
                    out.write_record(&record)?;
                }
            }
            Err(Failure { reason, .. }) => {
                let mut record = vec![
                    outcome.name.clone(),
                    String::new(),
                    String::new(),
                    capabilities.to_string(),
                ];
                record.extend(tool_columns.iter().map(|_| String::new()));
                record.push(reason.clone());
                out.write_record(&record)?;
            }
        }
    }
    out.flush()?;
    Ok(())
}

/// Sanitizes each line of `text` and keeps the line breaks, so that an error quoting a
/// server's stderr reads as it does in a single probe's message.
fn sanitize_lines(text: &str) -> String {
    text.split('\n')
        .map(sanitize)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Escapes text for one Markdown table cell.
fn cell(text: &str) -> String {
    sanitize(text).replace('|', "\\|")
}

/// Escapes text of several lines (an error quoting a server's stderr) for one Markdown
/// table cell: each line escaped as [`cell`] does, `<` and `&` kept literal, lines joined
/// with `<br>`, which ends a line inside a cell.
fn lines_cell(text: &str) -> String {
    text.split('\n')
        .map(|line| cell(line).replace('&', "&amp;").replace('<', "&lt;"))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// Renders `wire-DATE.md`: one line per server.
fn summary(outcomes: &[Outcome], capabilities: &str, date: &str, tallied: &str) -> String {
    let mut text = format!(
        "# Wire survey, {date}\n\nClient capabilities offered: {}.\n\n{tallied}## Servers\n\n\
         | server | version | protocol | tools | declaring every meaningful hint | declaring nothing | error |\n\
         |---|---|---|---:|---:|---:|---|\n",
        cell(capabilities)
    );
    for outcome in outcomes {
        let _ = match &outcome.result {
            Ok(listing) => {
                let (tools, complete, nothing) = counts(listing);
                writeln!(
                    text,
                    "| {} | {} | {} | {tools} | {complete} | {nothing} | |",
                    cell(&outcome.name),
                    cell(&listing.server_version),
                    cell(&listing.protocol_version),
                )
            }
            Err(Failure { reason, .. }) => writeln!(
                text,
                "| {} | | | | | | {} |",
                cell(&outcome.name),
                lines_cell(reason)
            ),
        };
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Vec<Server>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.toml");
        std::fs::write(&path, text).unwrap();
        load(&path)
    }

    #[test]
    fn mistakes_in_the_file_are_usage_errors() {
        for (text, says) in [
            ("", "lists no [[server]]"),
            ("[[server]]\nname = \"a\"\n", "one of a command, a url or a package"),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://h\"\n",
                "one of a command, a url or a package",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nneeds = [\"K\"]\n",
                "they go with a package",
            ),
            (
                "[[server]]\nname = \"a\"\npackage = { registry = \"cargo\", name = \"x\", version = \"1\" }\n",
                "is not npm or pypi",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\n[[server]]\nname = \"a\"\ncommand = \"y\"\n",
                "the name 'a' is given twice",
            ),
            (
                "[[server]]\nname = \"a\"\nurl = \"http://h\"\nheaders = { Authorization = \"Bearer s3cret\" }\n",
                "header 'Authorization' is written in the file",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nextra = 1\n",
                "unknown field",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\ncommit = \"v1.0\"\n",
                "commit 'v1.0' is not a commit",
            ),
        ] {
            let err = load_text(text).err().expect(text);
            assert!(err.downcast_ref::<UsageError>().is_some(), "{text}");
            assert!(format!("{err:#}").contains(says), "{text}: {err:#}");
        }
    }

    #[test]
    fn a_server_whose_stderr_names_a_network_failure_needs_network() {
        let ended = |kind, stderr: &[&str]| {
            anyhow::Error::new(Ended {
                kind,
                message: "the server exited".to_string(),
                stderr: stderr.iter().map(|l| l.to_string()).collect(),
            })
            .context("initialize")
        };
        let offline = failure(&ended(
            Ending::Exited,
            &[
                "Traceback (most recent call last):",
                "  File \"s.py\"",
                "httpx.ConnectError: [Errno -3] Temporary failure in name resolution",
            ],
        ));
        assert_eq!(offline.kind, Kind::NeedsNetwork);
        assert_eq!(
            offline.cause,
            "httpx.ConnectError: [Errno -3] Temporary failure in name resolution"
        );
        let hung = failure(&ended(
            Ending::TimedOut,
            &["Error: getaddrinfo ENOTFOUND api"],
        ));
        assert_eq!(hung.kind, Kind::NeedsNetwork);
        let refused = failure(&ended(Ending::Exited, &["connect failed: ECONNREFUSED"]));
        assert_eq!(refused.kind, Kind::Exited);
        assert_eq!(refused.cause, "connect failed: ECONNREFUSED");
        let other = failure(&anyhow::anyhow!("tools/list: error -32601"));
        assert_eq!(
            (other.kind, other.cause.as_str()),
            (Kind::ToolsListError, "")
        );
    }

    #[test]
    fn values_come_from_the_file_or_the_environment() {
        let servers = load_text(
            "[[server]]\nname = \"a\"\nurl = \"http://h\"\n\
             headers = { Authorization = { env = \"MCP_HINT_CENSUS_TEST_UNSET_VAR\", prefix = \"Bearer \" } }\n\
             [[server]]\nname = \"b\"\ncommand = \"x\"\nargs = [\"-v\"]\nenv = { A = \"1\", B = { env = \"PATH\" } }\n",
        )
        .unwrap();
        let err = target(&servers[0].entry).unwrap_err();
        assert_eq!(
            err,
            "the environment variable 'MCP_HINT_CENSUS_TEST_UNSET_VAR' for header 'Authorization' is not set"
        );
        let Ok(Target::Stdio { command, env, .. }) = target(&servers[1].entry) else {
            panic!("a stdio target");
        };
        assert_eq!(command, ["x", "-v"]);
        assert_eq!(env[0], ("A".to_string(), "1".to_string()));
        assert_eq!(env[1].1, std::env::var("PATH").unwrap());
    }
}
