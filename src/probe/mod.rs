//! `probe` and `diff`: what a running MCP server declares in `tools/list`, and how that
//! changed between two snapshots.
//!
//! This module wires the parts together and writes the results (table, summary, CSV,
//! snapshot, gate). The conversation lives in `session`, the bytes in `stdio` and
//! `http`, the schema's rules in `hints`, snapshots and their comparison in `snapshot`
//! and `diff`. It does not count source text; that is `count`'s job, and a zero there
//! says nothing about the wire, which is why this half exists.
//!
//! A command: it may import the stages, `cli`, `infra`, `scan` (to read a server's
//! source tree) and `corpus` (the cache default it shares); nothing but the binary
//! imports it.

mod bounds;
mod diff;
mod groups;
mod hints;
mod http;
mod install;
mod join;
mod journal;
mod lines;
mod lint;
mod program;
mod pypi;
mod python;
mod sandbox;
mod servers;
mod session;
mod snapshot;
mod source;
mod stderr;
mod stdio;
mod tally;
mod watch;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::cli::ProbeArgs;
use crate::corpus;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::out::Out;

use crate::infra::sanitize::sanitize;
use crate::report::{self, Align};
use crate::tools::hints::Hint;
pub use diff::run as diff;
use hints::{Declared, Rule, ToolHints};
pub use join::run as join;
use session::{Listing, Offer};

/// Returns the per-tool columns of `--csv`, also the tool columns of the
/// `--servers` table: the tool, each hint as declared, what it omits, each hint as a
/// client resolves it, and what its name says it does (docs/method.md, "Name
/// classes").
fn csv_header() -> Vec<String> {
    let mut header = vec!["tool".to_string()];
    header.extend(Hint::ALL.map(|h| h.name().to_string()));
    header.push("omits".to_string());
    header.extend(Hint::ALL.map(|h| format!("resolved_{}", h.name())));
    header.push("name_class".to_string());
    header
}

/// What every probe of a run shares: the limits and what is offered to the server.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long the whole exchange with one server may take.
    pub timeout: Duration,
    /// The most bytes one JSON-RPC message (a line, an event, a body) may take.
    pub max_message: usize,
    /// The client capabilities offered in `initialize`.
    pub capabilities: Value,
    /// The protocol version offered in `initialize`.
    pub protocol_version: String,
}

impl Options {
    fn offer(&self) -> Offer {
        Offer {
            protocol_version: self.protocol_version.clone(),
            capabilities: self.capabilities.clone(),
        }
    }
}

/// Where a server is and how to reach it.
#[derive(Clone, Debug)]
pub enum Target {
    /// A command started with extra environment variables, spoken to over stdio.
    Stdio {
        command: Vec<String>,
        env: Vec<(String, String)>,
        /// The command is the sandbox's: it starts with `env` alone, none of the
        /// prober's environment, and within the bounds of `bounds`.
        is_sandboxed: bool,
    },
    /// A Streamable HTTP URL, with headers sent on every request.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// Parses `--capabilities`: `default`, `none` or a JSON object sent as is.
fn parse_capabilities(text: &str) -> Result<Value, UsageError> {
    match text {
        "default" => Ok(session::default_capabilities()),
        "none" => Ok(Value::Object(serde_json::Map::new())),
        json => match serde_json::from_str::<Value>(json) {
            Ok(value @ Value::Object(_)) => Ok(value),
            _ => Err(UsageError(format!(
                "--capabilities '{}' is not 'default', 'none' or a JSON object",
                sanitize(text)
            ))),
        },
    }
}

/// Holds a validated `probe` command line: the options every probe shares, and
/// what this run does with them.
#[derive(Debug)]
struct Config {
    options: Options,
    job: Job,
}

/// What one `probe` run does.
#[derive(Debug)]
enum Job {
    /// `--servers FILE`: every server of the file, into one table.
    Servers(servers::Config),
    /// `--watch`: one server, followed as its tools change.
    Watch { target: Target, watch: watch::Watch },
    /// One server, listed once.
    Once(Once),
}

/// What a single listing writes, prints and gates on.
#[derive(Debug)]
struct Once {
    target: Target,
    csv: Option<PathBuf>,
    /// Where the snapshot goes, and the date it is stamped with.
    save: Option<(PathBuf, String)>,
    source: Option<PathBuf>,
    rule: Option<Rule>,
}

/// Returns the validated configuration of `args`; a wrong option, a missing
/// `--source` folder or a bad `--date` is a [`UsageError`]. No server is started.
fn configure(args: &ProbeArgs) -> Result<Config> {
    // clap admits only the rules' names.
    let rule: Option<Rule> = args
        .require
        .as_deref()
        .map(str::parse)
        .transpose()
        .map_err(UsageError)?;
    let max_message = usize::try_from(args.max_message.0).unwrap_or(usize::MAX);
    let options = Options {
        timeout: Duration::from_secs(args.timeout),
        max_message,
        capabilities: parse_capabilities(&args.capabilities)?,
        protocol_version: args.protocol_version.clone(),
    };
    if let Some(dir) = &args.source {
        if let Err(err) = std::fs::metadata(dir) {
            return Err(UsageError(format!(
                "--source '{}': {err}",
                sanitize(dir.display().to_string())
            ))
            .into());
        }
    }
    if args.date.is_some() && args.save.is_none() && args.servers.is_none() {
        return Err(UsageError(
            "--date stamps the --save snapshot or the --servers tables, and neither was asked for"
                .to_string(),
        )
        .into());
    }
    // Resolved before any server starts, so a bad --date costs no server run.
    let date = match (&args.save, &args.servers) {
        (None, None) => None,
        _ => Some(date::resolve(args.date.as_deref())?),
    };
    if let (Some(file), Some(date)) = (&args.servers, &date) {
        let cache = match &args.cache {
            // Absolute: the sandboxed server starts in a HOME of its own.
            Some(dir) => std::path::absolute(dir).map_err(|e| {
                UsageError(format!(
                    "--cache '{}': {e}",
                    sanitize(dir.display().to_string())
                ))
            })?,
            None => corpus::default_cache()
                .map(|dir| dir.join("packages"))
                .ok_or_else(|| {
                    UsageError("no user cache folder is known here; give --cache DIR".to_string())
                })?,
        };
        let servers = servers::Config {
            packages: servers::Packages {
                installer: install::Installer {
                    cache,
                    before: args.before.clone(),
                    uv: install::find_uv(),
                    timeout: Duration::from_secs(args.install_timeout),
                    max_size: args.max_install_size.0,
                },
                is_sandboxed: !args.no_sandbox_i_trust_these_packages,
            },
            file: file.clone(),
            out_dir: args.out.clone().unwrap_or_else(|| PathBuf::from("results")),
            jobs: usize::from(args.jobs.unwrap_or(servers::DEFAULT_JOBS)),
            date: date.clone(),
            source_table: args.source_table.clone(),
            resume: args.resume,
        };
        return Ok(Config {
            options,
            job: Job::Servers(servers),
        });
    }

    let target = match (&args.url, args.command.is_empty()) {
        (Some(url), _) => Target::Http {
            url: url.clone(),
            headers: Vec::new(),
        },
        (None, false) => Target::Stdio {
            command: args.command.clone(),
            env: Vec::new(),
            is_sandboxed: false,
        },
        (None, true) => {
            return Err(UsageError(
                "probe needs a server: a COMMAND after '--', '--url URL' or '--servers FILE'"
                    .to_string(),
            )
            .into())
        }
    };
    let job = match args.watch {
        true => Job::Watch {
            target,
            watch: watch::Watch {
                duration: Duration::from_secs(args.watch_for.unwrap_or(watch::DEFAULT_SECONDS)),
                changes: args.watch_changes.unwrap_or(watch::DEFAULT_CHANGES),
            },
        },
        false => Job::Once(Once {
            target,
            csv: args.csv.clone(),
            save: args.save.clone().zip(date),
            source: args.source.clone(),
            rule,
        }),
    };
    Ok(Config { options, job })
}

/// Runs `probe`: lists the server's tools and reports, saves and gates on their hints;
/// with `--servers`, probes every server of the file into one table.
pub fn run(args: &ProbeArgs) -> Result<ExitStatus> {
    let Config { options, job } = configure(args)?;
    match job {
        Job::Servers(config) => servers::run(&config, &options),
        Job::Watch { target, watch } => watch::run(&target, &options, watch),
        Job::Once(once) => run_once(&once, &options),
    }
}

/// Lists one server's tools once, then writes, prints and gates as `once` says.
fn run_once(once: &Once, options: &Options) -> Result<ExitStatus> {
    let target = &once.target;
    let listing = probe(target, options)
        .with_context(|| format!("probing '{}'", sanitize(describe_target(target))))?;

    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    for warning in warnings(&listing, &tools) {
        messages::warning(warning);
    }
    // Files first: a reader that closes stdout early does not cost them.
    if let Some(path) = &once.csv {
        write_csv(path, &tools).with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let Some((path, date)) = &once.save {
        let text = snapshot::render(&listing, date);
        std::fs::write(path, text).with_context(|| format!("writing '{}'", path.display()))?;
    }
    let mut out = Out::new();
    out.print(&table(&tools))?;
    out.print(&summary(&listing, &tools))?;
    out.print(&lint::lines(&tools))?;
    if let Some(dir) = &once.source {
        let beside = source::beside(dir, &tools)?;
        out.print(&source::render(dir, &beside))?;
    }
    match once.rule {
        Some(rule) => gate(rule, &tools, &mut out),
        None => Ok(ExitStatus::Ok),
    }
}

/// Prints the warnings, the table and the summary of a listing, as a probe without
/// files or gate does.
fn show(listing: &Listing, out: &mut Out) -> Result<()> {
    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    for warning in warnings(listing, &tools) {
        messages::warning(warning);
    }
    out.print(&table(&tools))?;
    out.print(&summary(listing, &tools))
}

/// Returns how a target is named in messages: its command line or its URL.
fn describe_target(target: &Target) -> String {
    match target {
        Target::Stdio { command, .. } => command.join(" "),
        Target::Http { url, .. } => url.clone(),
    }
}

/// Holds the whole conversation with one server and returns what it lists.
pub fn probe(target: &Target, options: &Options) -> Result<Listing> {
    probe_counting(target, options).0
}

/// Holds the whole conversation with one server; returns what it lists and how many
/// lines of its stdout were not JSON and were skipped, whether or not it listed.
fn probe_counting(target: &Target, options: &Options) -> (Result<Listing>, usize) {
    match target {
        Target::Stdio {
            command,
            env,
            is_sandboxed,
        } => {
            let mut server = match stdio::Stdio::spawn(command, env, *is_sandboxed, options) {
                Ok(server) => server,
                Err(err) => return (Err(err), 0),
            };
            // On an error the server is dropped, which kills it at once.
            let listed = session::list_tools(&mut server, &options.offer());
            let skipped = server.skipped_lines();
            let listed = listed.map(|mut listing| {
                listing.warnings.extend(server.finish());
                listing
            });
            (listed, skipped)
        }
        Target::Http { url, headers } => {
            let listed = (|| {
                let mut server = http::Http::new(url, headers, options)?;
                let listing = session::list_tools(&mut server, &options.offer());
                // The session is ended whether or not the listing worked.
                let close_warning = server.finish();
                let mut listing = listing?;
                listing.warnings.extend(close_warning);
                Ok(listing)
            })();
            (listed, 0)
        }
    }
}

/// Lists the shapes worth a second look; none of them fails the probe.
fn warnings(listing: &Listing, tools: &[ToolHints]) -> Vec<String> {
    let mut out = listing.warnings.clone();
    if tools.is_empty() {
        out.push("the server lists no tools".to_string());
    }
    let mut seen = HashSet::new();
    for (index, tool) in tools.iter().enumerate() {
        let name = sanitize(&tool.name);
        let raw_name = listing.tools.get(index).and_then(|t| t.get("name"));
        if tool.name.is_empty() {
            out.push(format!("tool {} of {} has no name", index + 1, tools.len()));
        } else if !matches!(raw_name, Some(Value::String(_))) {
            out.push(format!(
                "tool {} of {} is named {name}, which is not a string",
                index + 1,
                tools.len()
            ));
        }
        if !tool.name.is_empty() && !seen.insert(tool.name.as_str()) {
            out.push(format!("tool '{name}' is listed more than once"));
        }
        if tool.is_read_only_and_destructive() {
            out.push(format!(
                "tool '{name}' is declared both read-only and destructive"
            ));
        }
        for hint in Hint::ALL {
            if let Declared::Invalid(raw) = tool.declared(hint) {
                out.push(format!(
                    "tool '{name}' declares {} as {}, not a boolean; it counts as omitted",
                    hint.name(),
                    sanitize(raw)
                ));
            }
        }
    }
    out
}

/// Returns a resolved value as a cell: `true`, `false` or `n/a`.
fn resolved_cell(value: Option<bool>) -> &'static str {
    match value {
        Some(true) => "true",
        Some(false) => "false",
        None => "n/a",
    }
}

/// Returns the omitted hints joined with `;`, empty when none.
fn omits_cell(tool: &ToolHints) -> String {
    tool.omits()
        .iter()
        .map(|h| h.name())
        .collect::<Vec<_>>()
        .join(";")
}

/// Renders the terminal table: what each tool declares and, where it declares nothing
/// usable, what a client resolves.
fn table(tools: &[ToolHints]) -> String {
    let mut rows = vec![vec![
        "tool".to_string(),
        Hint::ReadOnly.name().to_string(),
        Hint::Destructive.name().to_string(),
        Hint::Idempotent.name().to_string(),
        Hint::OpenWorld.name().to_string(),
        "omits".to_string(),
    ]];
    for tool in tools {
        let mut row = vec![sanitize(&tool.name)];
        for hint in Hint::ALL {
            let declared = tool.declared(hint);
            row.push(match declared.as_bool() {
                Some(_) => declared.cell().to_string(),
                None => format!(
                    "{} -> {}",
                    declared.cell(),
                    resolved_cell(tool.resolved(hint))
                ),
            });
        }
        let omits = omits_cell(tool);
        row.push(if omits.is_empty() {
            "-".to_string()
        } else {
            omits.replace(';', ", ")
        });
        rows.push(row);
    }
    let mut out = Vec::new();
    report::write_aligned(&mut out, &rows, Align::Left).expect("writing to a Vec cannot fail");
    String::from_utf8(out).expect("the cells are strings")
}

/// Renders the summary lines under the table.
fn summary(listing: &Listing, tools: &[ToolHints]) -> String {
    let complete = tools.iter().filter(|t| t.omits().is_empty()).count();
    let nothing = tools.iter().filter(|t| t.declares_nothing()).count();
    let quoted = |text: &str| {
        if text.is_empty() {
            "(none)".to_string()
        } else {
            format!("'{}'", sanitize(text))
        }
    };
    format!(
        "\n{}: {} every meaningful hint, {} nothing\nserver {} version {}, protocol {}, {} read\nclient capabilities offered: {}\n",
        messages::count(tools.len(), "tool", "tools"),
        messages::count(complete, "declares", "declare"),
        messages::count(nothing, "declares", "declare"),
        quoted(&listing.server_name),
        quoted(&listing.server_version),
        quoted(&listing.protocol_version),
        messages::count(listing.pages, "tools/list page", "tools/list pages"),
        sanitize(session::capability_names(&listing.capabilities).replace(';', ", ")),
    )
}

/// Returns one tool's cells under [`csv_header`].
fn tool_cells(tool: &ToolHints) -> Vec<String> {
    let mut record = vec![tool.name.clone()];
    record.extend(Hint::ALL.map(|h| tool.declared(h).cell().to_string()));
    record.push(omits_cell(tool));
    record.extend(Hint::ALL.map(|h| resolved_cell(tool.resolved(h)).to_string()));
    record.push(lint::name_class(tool).as_str().to_string());
    record
}

fn write_csv(path: &Path, tools: &[ToolHints]) -> Result<()> {
    let mut out = csv::Writer::from_path(path)?;
    out.write_record(csv_header())?;
    for tool in tools {
        out.write_record(tool_cells(tool))?;
    }
    out.flush()?;
    Ok(())
}

/// Prints every tool that breaks `rule` and what it lacks; returns the exit status.
fn gate(rule: Rule, tools: &[ToolHints], out: &mut Out) -> Result<ExitStatus> {
    let mut broken = 0;
    for tool in tools {
        let lacks = rule.lacks(tool);
        if !lacks.is_empty() {
            broken += 1;
            out.line(&format!(
                "require {}: tool '{}' lacks {}",
                rule.name(),
                sanitize(&tool.name),
                lacks.join(", ")
            ))?;
        }
    }
    if broken == 0 {
        out.line(&format!("require {}: every tool passes", rule.name()))?;
        Ok(ExitStatus::Ok)
    } else {
        out.line(&format!(
            "require {}: {broken} of {} {} the rule",
            rule.name(),
            messages::count(tools.len(), "tool", "tools"),
            messages::noun(broken, "breaks", "break")
        ))?;
        Ok(ExitStatus::Gate)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(line: &[&str]) -> ProbeArgs {
        use clap::Parser;
        let cli =
            crate::cli::Cli::try_parse_from(["mcp-hint-census", "probe"].iter().chain(line.iter()))
                .expect("the test's command line parses");
        match cli.command {
            crate::cli::Command::Probe(args) => args,
            other => panic!("not a probe: {other:?}"),
        }
    }

    fn usage_error(line: &[&str]) -> String {
        let err = configure(&args(line)).unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
        format!("{err:#}")
    }

    #[test]
    fn the_options_become_one_config() {
        let config = configure(&args(&[
            "--timeout",
            "7",
            "--capabilities",
            "none",
            "--require",
            "all",
            "--csv",
            "h.csv",
            "--save",
            "s.json",
            "--date",
            "2026-01-02",
            "--",
            "srv",
            "-x",
        ]))
        .unwrap();
        assert_eq!(config.options.timeout, Duration::from_secs(7));
        assert_eq!(config.options.capabilities, json!({}));
        assert_eq!(config.options.max_message, 64 << 20);
        let Job::Once(once) = config.job else {
            panic!("not one listing: {:?}", config.job)
        };
        assert!(matches!(&once.target, Target::Stdio { command, .. } if command == &["srv", "-x"]));
        assert_eq!(once.csv, Some(PathBuf::from("h.csv")));
        assert_eq!(
            once.save,
            Some((PathBuf::from("s.json"), "2026-01-02".to_string()))
        );
        assert_eq!(once.rule, Some(Rule::All));
    }

    #[test]
    fn servers_and_watch_are_jobs_of_their_own() {
        let config = configure(&args(&[
            "--servers",
            "s.toml",
            "--date",
            "2026-01-02",
            "-j",
            "2",
        ]))
        .unwrap();
        let Job::Servers(servers) = config.job else {
            panic!("not --servers: {:?}", config.job)
        };
        assert_eq!(servers.file, PathBuf::from("s.toml"));
        assert_eq!(servers.out_dir, PathBuf::from("results"));
        assert_eq!(servers.jobs, 2);
        assert_eq!(servers.date, "2026-01-02");
        let config = configure(&args(&["--watch", "--url", "http://127.0.0.1:9/mcp"])).unwrap();
        let Job::Watch { target, watch } = config.job else {
            panic!("not --watch: {:?}", config.job)
        };
        assert!(matches!(target, Target::Http { url, .. } if url == "http://127.0.0.1:9/mcp"));
        assert_eq!(watch.duration, Duration::from_secs(watch::DEFAULT_SECONDS));
        assert_eq!(watch.changes, watch::DEFAULT_CHANGES);
    }

    #[test]
    fn what_cannot_run_is_a_usage_error_before_any_server_starts() {
        assert!(usage_error(&[]).contains("probe needs a server"));
        assert!(usage_error(&["--date", "2026-01-02", "--", "srv"]).contains("--date stamps"));
        assert!(usage_error(&["--capabilities", "[1]", "--", "srv"]).contains("--capabilities"));
        assert!(usage_error(&["--source", "/nonexistent/here", "--", "srv"]).contains("--source"));
    }

    fn listing(tools: Vec<serde_json::Value>) -> Listing {
        Listing {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "2025-06-18".into(),
            capabilities: session::default_capabilities(),
            pages: 1,
            tools,
            warnings: Vec::new(),
            announces_changes: false,
        }
    }

    #[test]
    fn warnings_flag_duplicates_contradictions_and_invalid_values() {
        let l = listing(vec![
            json!({ "name": "a", "annotations": { "readOnlyHint": true, "destructiveHint": true } }),
            json!({ "name": "a", "annotations": { "openWorldHint": 1 } }),
        ]);
        let tools: Vec<_> = l.tools.iter().map(ToolHints::from_tool).collect();
        let w = warnings(&l, &tools);
        assert_eq!(w.len(), 3, "{w:?}");
        assert!(w[0].contains("both read-only and destructive"));
        assert!(w[1].contains("more than once"));
        assert!(w[2].contains("openWorldHint as 1"));
    }

    #[test]
    fn summary_counts_complete_and_empty_tools() {
        let l = listing(vec![
            json!({ "name": "a", "annotations": { "readOnlyHint": true, "openWorldHint": false } }),
            json!({ "name": "b" }),
            json!({ "name": "c", "annotations": null }),
        ]);
        let tools: Vec<_> = l.tools.iter().map(ToolHints::from_tool).collect();
        let s = summary(&l, &tools);
        assert!(
            s.contains("3 tools: 1 declares every meaningful hint, 2 declare nothing"),
            "{s}"
        );
        assert!(s.contains("1 tools/list page read"), "{s}");
        assert!(
            s.contains("client capabilities offered: roots, sampling, elicitation"),
            "{s}"
        );
    }

    #[test]
    fn sizes_and_capabilities_parse() {
        assert_eq!(parse_capabilities("none").unwrap(), serde_json::json!({}));
        assert_eq!(
            parse_capabilities(r#"{"roots":{"listChanged":true}}"#).unwrap(),
            serde_json::json!({ "roots": { "listChanged": true } })
        );
        assert!(parse_capabilities("[1]").is_err());
        assert!(parse_capabilities("sampling").is_err());
    }
}
