//! `probe --servers FILE`: many servers probed into one table.
//!
//! Owns the servers file (TOML), the environment look-ups it asks for, running the
//! probes `--jobs` at a time, and the two outputs: `wire-DATE.csv`, one row per
//! (server, tool) with the per-tool columns of `--csv`, and `wire-DATE.md`, a summary
//! per server; with `--write-commands`, `wire-DATE-commands.jsonl`, how each server
//! was started (`commands`). A server that fails is one row naming the reason; the
//! others go on. The rows follow the file's order, not the order the probes end in,
//! so that the same answers on the same date give the same bytes.
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

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use rayon::prelude::*;

use super::budget::{self, Budget};
use super::commands::{self, Started};
use super::file::{load, named, resolve, target, Server};
use super::hosts::{self, Hosts};
use super::install::{self, InstallKind, Installed, Installer, Lock, Start};
use super::join;
use super::journal::{self, Journal, Record};
use super::note;
use super::outcome::{failure, Failure, Kind, Outcome, Redaction};
use super::python;
use super::sandbox;
use super::tables::{
    self, counts, join_tables, listed_tools, sanitize_lines, summary, tally_of, write_locks,
    write_servers, write_table,
};
use crate::infra::atomic::write_bytes;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;
use crate::infra::shard::Shard;
use crate::probe::session::capability_names;
use crate::probe::{probe_counting, Options, Target};

/// How many servers are probed at once unless `--jobs` says otherwise.
pub(super) const DEFAULT_JOBS: u16 = 4;

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
        filled: Vec::new(),
    }
}

/// How registry packages are installed and run.
#[derive(Debug)]
pub struct Packages {
    pub installer: Installer,
    /// Runs them in the bubblewrap sandbox; off only by
    /// `--no-sandbox-i-trust-these-packages`.
    pub is_sandboxed: bool,
    /// Keeps each install once probed (`--keep-installs`).
    pub keep_installs: bool,
    /// Runs a server with the placeholders its file gives it; off only by
    /// `--no-placeholders`.
    pub has_placeholders: bool,
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
    /// Probes only this shard of the file's servers (`--shard`).
    pub shard: Option<Shard>,
    /// Writes the command line each server started with (`--write-commands`).
    pub write_commands: bool,
}

/// Runs `probe --servers FILE`.
pub fn run(config: &Config, options: &Options) -> Result<ExitStatus> {
    let Config {
        packages,
        file,
        out_dir,
        jobs,
        source_table,
        shard,
        ..
    } = config;
    let mut servers = load(file)?;
    let file_bytes = std::fs::read(file)
        .map_err(|err| UsageError(format!("reading '{}': {err}", file.display())))?;
    if let Some(shard) = shard {
        servers = servers
            .into_iter()
            .enumerate()
            .filter(|(i, _)| shard.holds(*i))
            .map(|(_, s)| s)
            .collect();
    }
    // Read before any server runs: a census table that is not one costs no probe.
    let census = source_table
        .as_deref()
        .map(join::Census::read)
        .transpose()?;
    let sandbox = find_sandbox(&servers, packages, file)?;
    let installs_pypi = servers.iter().any(|s| {
        s.entry.needs.is_empty()
            && s.entry
                .package
                .as_ref()
                .is_some_and(|p| p.registry == "pypi")
    });
    if installs_pypi {
        say_pythons(&packages.installer);
    }
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("creating '{}'", out_dir.display()))?;
    // The downloads are shared by the run's installs: made only when one installs.
    let installs = servers
        .iter()
        .any(|s| s.entry.package.is_some() && s.entry.needs.is_empty());
    let budget = match installs {
        true => Some(Budget::new(
            &packages.installer.cache,
            packages.keep_installs,
        )?),
        false => None,
    };
    let packages = &Packages {
        installer: Installer {
            downloads: budget.as_ref().map(|b| b.downloads().to_path_buf()),
            ..packages.installer.clone()
        },
        ..*packages
    };
    let hosts = Hosts::default();
    let redaction = Redaction::of_run(&packages.installer.cache);
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(*jobs)
        .build()
        .context("starting the probe threads")?;
    let (journal, mut done) = open_journal(config, &file_bytes, servers.len())?;
    let resumed: Vec<Option<journal::Line>> =
        servers.iter().map(|s| done.remove(&s.name)).collect();
    let (outcomes, started): (Vec<Outcome>, Vec<Option<Started>>) = pool.install(|| {
        servers
            .par_iter()
            .zip(resumed)
            .map(|(server, line)| match line {
                Some(line) => (from_journal(line), None),
                None => {
                    let (mut outcome, started) = probe_one(
                        server,
                        packages,
                        &hosts,
                        budget.as_ref(),
                        sandbox.as_ref(),
                        options,
                    );
                    redaction.outcome(&mut outcome);
                    if let Some(journal) = &journal {
                        record(journal, &outcome);
                    }
                    (outcome, started)
                }
            })
            .unzip()
    });
    // The run's downloads go; more than the bound left in the cache is said.
    if let Some(budget) = budget {
        let _held = budget.finish(&packages.installer.cache);
    }
    if let Some(journal) = &journal {
        if outcomes.iter().all(|o| o.result.is_ok()) {
            std::fs::remove_file(journal.path())
                .with_context(|| format!("removing '{}'", journal.path().display()))?;
        }
    }

    write_run(
        config,
        options,
        &servers,
        &outcomes,
        started,
        census.as_ref(),
        &file_bytes,
    )
}

/// Says once, at the start of a run installing PyPI packages, what it installs them
/// with when uv is missing, and which Pythons are installed here but not offered.
fn say_pythons(installer: &Installer) {
    if installer.uv.is_none() {
        messages::warning(install::NO_UV_AT_START);
    }
    let found = python::found(installer.uv.as_deref(), &installer.pythons);
    let elsewhere = python::elsewhere(found);
    if !elsewhere.is_empty() {
        messages::note(format!(
            "Python {} installed here but offered neither on PATH nor with --python: a PyPI \
             package only they admit is a 'no python' row (hint: give --python PATH to \
             offer one)",
            python::named(&elsewhere.iter().collect::<Vec<_>>())
        ));
    }
}

/// Writes the run's tables, commands, locks and report from `outcomes`, each whole,
/// and prints one line per server; the status says whether every server listed.
fn write_run(
    config: &Config,
    options: &Options,
    servers: &[Server],
    outcomes: &[Outcome],
    started: Vec<Option<Started>>,
    census: Option<&join::Census>,
    file_bytes: &[u8],
) -> Result<ExitStatus> {
    let Config {
        out_dir,
        date,
        shard,
        write_commands,
        ..
    } = config;
    let capabilities = capability_names(&options.capabilities);
    // An old note must not vouch for the tables about to be written.
    note::remove_note(out_dir, date)?;
    let csv_path = out_dir.join(format!("wire-{date}.csv"));
    let md_path = out_dir.join(format!("wire-{date}.md"));
    let servers_path = out_dir.join(format!("wire-{date}-servers.csv"));
    write_table(&csv_path, outcomes, &capabilities)?;
    write_servers(&servers_path, servers, outcomes)?;
    let commands_path = out_dir.join(format!("wire-{date}-commands.jsonl"));
    if *write_commands {
        let started: Vec<Started> = started.into_iter().flatten().collect();
        commands::write(&commands_path, &started)?;
    }
    let locks_dir = out_dir.join(format!("wire-{date}-locks"));
    write_locks(&locks_dir, outcomes)
        .with_context(|| format!("writing '{}'", locks_dir.display()))?;
    let mut report = summary(outcomes, &capabilities, date, &tally_of(servers, outcomes));
    report.push_str(&crate::probe::lint::silence_markdown(&listed_tools(
        outcomes,
    )));
    let join_path = out_dir.join(format!("join-{date}.csv"));
    if let Some(census) = census {
        report.push_str(&join_tables(
            census,
            &csv_path,
            &servers_path,
            &join_path,
            date,
        )?);
    }
    write_bytes(&md_path, report.as_bytes())?;
    if let Some(shard) = shard {
        note::write_note(out_dir, date, *shard, file_bytes)?;
    }

    let mut out = Out::new();
    let failed = print_outcomes(outcomes, &mut out)?;
    let mut written = vec![csv_path.as_path(), &servers_path];
    if census.is_some() {
        written.push(&join_path);
    }
    if *write_commands {
        written.push(&commands_path);
    }
    tables::print_written(&mut out, &written, &md_path)?;
    Ok(if failed > 0 {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}

/// Finds the sandbox before anything is installed, when a package of `servers` will
/// run in it; whether it can be made here is a row of each package, not the end of
/// the others.
fn find_sandbox(
    servers: &[Server],
    packages: &Packages,
    file: &Path,
) -> Result<Option<Result<sandbox::Walls, String>>> {
    let wants_sandbox = packages.is_sandboxed
        && servers
            .iter()
            .any(|s| s.entry.package.is_some() && s.entry.needs.is_empty());
    if !wants_sandbox {
        return Ok(None);
    }
    let bwrap = sandbox::find().map_err(|why| {
        UsageError(format!(
            "{why}; hint: to run the packages of '{}' without a sandbox, give --no-sandbox-i-trust-these-packages",
            file.display()
        ))
    })?;
    let walls = sandbox::check(&bwrap).and_then(|()| sandbox::Walls::new(bwrap));
    Ok(Some(walls))
}

/// Opens the run's journal under `--resume` and returns it with the servers it
/// holds; without, notes a journal left there and returns none.
fn open_journal(
    config: &Config,
    file_bytes: &[u8],
    servers: usize,
) -> Result<(Option<Journal>, HashMap<String, journal::Line>)> {
    let journal_path = journal::path_in(&config.out_dir, &config.date);
    if !config.resume {
        if journal_path.exists() {
            messages::note(format!(
                "'{}' is there but not read: give --resume to probe only the servers it does not hold",
                sanitize(journal_path.display().to_string())
            ));
        }
        return Ok((None, HashMap::new()));
    }
    // A shard's journal is another run's than the whole file's or another shard's.
    let mut run = file_bytes.to_vec();
    if let Some(shard) = config.shard {
        run.extend(format!("\0shard {shard}").bytes());
    }
    let (journal, done) = journal::open(&journal_path, &config.date, &run, servers)?;
    Ok((Some(journal), done))
}

/// Prints one line per server and each listing's warnings; returns how many did not
/// list.
fn print_outcomes(outcomes: &[Outcome], out: &mut Out) -> Result<usize> {
    let mut failed = 0;
    for outcome in outcomes {
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
    Ok(failed)
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
        filled: &outcome.filled,
        lock: outcome
            .lock
            .as_ref()
            .map(|lock| (lock.bytes.as_slice(), lock.extension)),
    });
}

/// Returns the outcome a journal line recorded.
fn from_journal(line: journal::Line) -> Outcome {
    let lock = line.lock().map(|(bytes, extension)| Lock {
        bytes,
        extension: if extension == "json" { "json" } else { "txt" },
    });
    Outcome {
        name: line.server,
        result: Ok(line.listing),
        artifact: line.artifact,
        skipped_lines: Some(line.skipped_lines),
        before: line.before,
        before_note: line.before_note,
        lock,
        python: line.python,
        filled: line.filled,
    }
}

/// Probes one server of the file: installs and sandboxes a package first. Returns
/// how it ended and, when a command was started, how.
fn probe_one(
    server: &Server,
    packages: &Packages,
    hosts: &Hosts,
    budget: Option<&Budget>,
    sandbox: Option<&Result<sandbox::Walls, String>>,
    options: &Options,
) -> (Outcome, Option<Started>) {
    let fail = |kind, reason: String| Outcome {
        name: server.name.clone(),
        result: Err(Failure::new(kind, reason)),
        artifact: String::new(),
        skipped_lines: None,
        before: String::new(),
        before_note: String::new(),
        lock: None,
        python: String::new(),
        filled: Vec::new(),
    };
    let entry = &server.entry;
    let started = |command: &[String], env: Vec<_>, walls: Option<&sandbox::Walls>| Started {
        server: server.name.clone(),
        command: command.to_vec(),
        env,
        walls: walls.map(|walls| {
            let (path, text) = walls.hosts();
            commands::Walls {
                hosts_path: path.display().to_string(),
                hosts_text: text.to_string(),
                writable: Vec::new(),
            }
        }),
    };
    let Some(package) = &entry.package else {
        return match target(entry) {
            Ok(target) => {
                // A remote endpoint waits for a slot of its host.
                let (_slot, shown) = match &target {
                    Target::Http { url, .. } => (Some(hosts.take(&hosts::host_of(url))), None),
                    Target::Stdio { command, .. } => {
                        (None, Some(started(command, named(&entry.env), None)))
                    }
                };
                (probed(&server.name, &target, options, None), shown)
            }
            Err(reason) => (fail(Kind::NeedsConfiguration, reason), None),
        };
    };
    if !entry.needs.is_empty() {
        let reason = format!("needs {}", entry.needs.join(", "));
        return (fail(Kind::NeedsConfiguration, reason), None);
    }
    if !packages.has_placeholders && !entry.placeholders.is_empty() {
        let reason = format!(
            "needs {} (the file gives placeholders, and --no-placeholders was given)",
            entry.placeholders.join(", ")
        );
        return (fail(Kind::NeedsConfiguration, reason), None);
    }
    let env = match resolve(&entry.env, "env") {
        Ok(env) => env,
        Err(reason) => return (fail(Kind::NeedsConfiguration, reason), None),
    };
    if let Some(Err(why)) = sandbox {
        return (fail(Kind::SandboxRefused, why.clone()), None);
    }
    let start = Start {
        program: entry.program.as_deref(),
        module: entry.module.as_deref(),
        args: &entry.args,
    };
    let key = format!("{}/{}@{}", package.registry, package.name, package.version);
    if let Some(budget) = budget {
        budget.hold(&key);
    }
    let under_way = budget.map(Budget::installing);
    let installed = packages.installer.install(package, &start);
    drop(under_way);
    if let Some(budget) = budget {
        budget.trim();
    }
    let installed = match installed {
        Ok(installed) => installed,
        Err(err) => {
            // One that installed but cannot start is removed as a probed one is.
            if let Some(budget) = budget {
                budget.release(&key, err.prefix.as_deref());
            }
            let kind = match err.kind {
                InstallKind::NoWheel => Kind::NoWheel,
                InstallKind::NoPython => Kind::NoPython,
                InstallKind::TooLarge => Kind::TooLarge,
                InstallKind::Failed => Kind::InstallFailed,
            };
            // A disk that filled fails this server, naming the folder; the install
            // was removed, so the others go on.
            let outcome = Outcome {
                result: Err(Failure {
                    cause: err.cause,
                    ..Failure::new(kind, budget::disk_full(err.why, &packages.installer.cache))
                }),
                ..fail(kind, String::new())
            };
            return (outcome, None);
        }
    };
    let prefix = installed.prefix.clone();
    let (outcome, shown) =
        probe_installed(server, installed, env, sandbox, packages, options, &started);
    if let Some(budget) = budget {
        budget.release(&key, Some(&prefix));
    }
    (outcome, Some(shown))
}

/// How many times a server that exits asking for options or variables is started
/// again, each time with placeholders for all it asked so far.
const MAX_RESTARTS: usize = 3;

/// Holds what a server asked for when it exited, gathered over its restarts: the
/// options its usage error named, the variables it named as missing, and the
/// subcommands of its command groups that serve MCP, outermost first (a group's MCP
/// command may be a group of transports).
#[derive(Default)]
struct Asked {
    options: Vec<String>,
    variables: Vec<String>,
    commands: Vec<String>,
}

impl Asked {
    /// Adds what `failure` asks for beyond what was given, a variable of `env` (the
    /// entry's) never; returns false when it asks for nothing new.
    fn add(&mut self, failure: &Failure, env: &[(String, String)]) -> bool {
        let mut is_new = false;
        for option in &failure.asked {
            if !self.options.contains(option) {
                self.options.push(option.clone());
                is_new = true;
            }
        }
        for name in &failure.asked_env {
            if !self.variables.contains(name) && !env.iter().any(|(k, _)| k == name) {
                self.variables.push(name.clone());
                is_new = true;
            }
        }
        if let Some(command) = &failure.asked_command {
            if !self.commands.contains(command) {
                self.commands.push(command.clone());
                is_new = true;
            }
        }
        is_new
    }

    /// Returns `command` with the subcommand and each option given a placeholder, and
    /// the variables with theirs.
    fn start(&self, command: &[String]) -> (Vec<String>, Vec<(String, String)>) {
        let placeholder =
            |name: &str| crate::corpus::packages::placeholder(&Default::default(), name);
        let mut program = command.to_vec();
        program.extend(self.commands.iter().cloned());
        for option in &self.options {
            program.extend([option.clone(), placeholder(option)]);
        }
        let extra = self
            .variables
            .iter()
            .map(|name| (name.clone(), placeholder(name)))
            .collect();
        (program, extra)
    }

    /// Returns what the row says was given.
    fn filled(&self) -> Vec<String> {
        self.commands
            .iter()
            .map(|c| format!("command '{c}' (its usage names it as the MCP server)"))
            .chain(
                self.options
                    .iter()
                    .map(|o| format!("argument '{o}' (its usage error)")),
            )
            .chain(
                self.variables
                    .iter()
                    .map(|n| format!("variable '{n}' (named as missing when it exited)")),
            )
            .collect()
    }
}

/// How one command of an installed package is started: the command, the environment
/// shown for it, and the walls it ran in.
type Shown<'s> =
    &'s dyn Fn(&[String], Vec<(String, serde_json::Value)>, Option<&sandbox::Walls>) -> Started;

/// Probes the installed package of `server`, in the sandbox when there is one; a
/// server that exits with its argument parser's usage error naming required options,
/// or naming environment variables as missing, is started once more with a
/// placeholder for each, and the row names them.
fn probe_installed(
    server: &Server,
    installed: Installed,
    env: Vec<(String, String)>,
    sandbox: Option<&Result<sandbox::Walls, String>>,
    packages: &Packages,
    options: &Options,
    started: Shown,
) -> (Outcome, Started) {
    let entry = &server.entry;
    // What the server quotes of its install, and of the sandbox's HOME it runs in
    // (a relative path it resolved), is the same on every machine.
    let local = Redaction::default()
        .with(&installed.prefix, "{install}")
        .with_all(&installed.runtime_dirs, "{runtime}");
    let local = match sandbox {
        Some(Ok(_)) => local.with(Path::new(sandbox::HOME), "{home}"),
        _ => local,
    };
    // Made before the server starts and removed once it is probed: the install is
    // left as it was.
    let writable = match sandbox {
        Some(Ok(_)) => sandbox::Scratch::of(&installed.own_dirs, &packages.installer.cache),
        _ => sandbox::Scratch::default(),
    };
    let launch = |program: &[String], extra: &[(String, String)]| match sandbox {
        Some(Ok(walls)) => {
            let mut dirs = vec![installed.prefix.clone()];
            dirs.extend(installed.runtime_dirs.iter().cloned());
            let command = walls.wrap(&dirs, &writable, program);
            let base = sandbox::environment();
            let mut shown: Vec<_> = base
                .iter()
                .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str())))
                .collect();
            shown.extend(named(&entry.env));
            shown.extend(
                extra
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str()))),
            );
            let mut all = base;
            all.extend(env.iter().cloned());
            all.extend(extra.iter().cloned());
            let mut shown = started(&command, shown, Some(walls));
            if let Some(walls) = &mut shown.walls {
                walls.writable = writable
                    .copies()
                    .iter()
                    .map(|(copy, of)| (copy.display().to_string(), of.display().to_string()))
                    .collect();
            }
            let target = Target::Stdio {
                command,
                env: all,
                is_sandboxed: true,
            };
            (target, shown)
        }
        _ => {
            let mut shown_env = named(&entry.env);
            shown_env.extend(
                extra
                    .iter()
                    .map(|(k, v)| (k.clone(), serde_json::Value::from(v.as_str()))),
            );
            let shown = started(program, shown_env, None);
            let mut all = env.clone();
            all.extend(extra.iter().cloned());
            let target = Target::Stdio {
                command: program.to_vec(),
                env: all,
                is_sandboxed: false,
            };
            (target, shown)
        }
    };
    let (target, mut shown) = launch(&installed.command, &[]);
    let mut outcome = probed(&server.name, &target, options, Some(installed.clone()));
    // Each start that exits asking for something new is followed by one more with
    // placeholders for all it asked so far: a server reads its settings one by one.
    let mut asked = Asked::default();
    for _ in 0..MAX_RESTARTS {
        let Err(failure) = &outcome.result else { break };
        if failure.kind != Kind::Exited || !packages.has_placeholders || !asked.add(failure, &env) {
            break;
        }
        let (program, extra) = asked.start(&installed.command);
        let (target, again) = launch(&program, &extra);
        outcome = probed(&server.name, &target, options, Some(installed.clone()));
        outcome.filled = asked.filled();
        shown = again;
    }
    local.outcome(&mut outcome);
    (outcome, shown)
}
