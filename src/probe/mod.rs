//! `probe` and `diff`: what a running MCP server declares in `tools/list`, and how that
//! changed between two snapshots.
//!
//! This module wires the parts together and writes the results (CSV, snapshot,
//! gate). What a probe is given lives in `target`, the conversation in `session`, the
//! bytes in `stdio` and `http` (a sandboxed server's environment crossing the wall
//! in `handoff`), the schema's rules in `hints`, what a person reads
//! of a listing in `terminal`, snapshots and their comparison in `snapshot` and
//! `diff`; none of them imports this file. It does not count source text; that is
//! `count`'s job, and a zero there says nothing about the wire, which is why this
//! half exists.
//!
//! The single-server client: `survey` (`probe --servers`, `join`, `merge --servers`)
//! runs it server after server, above it.
//!
//! A command: it may import the stages, `cli`, `infra` and `scan` (to read a
//! server's source tree); `survey` and the binary import it.

pub mod bounds;
mod diff;
mod groups;
pub mod handoff;
pub mod hints;
pub mod http;
mod lines;
pub mod lint;
pub mod session;
mod snapshot;
pub mod source;
pub mod stderr;
pub mod stdio;
mod target;
mod terminal;
mod watch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context, Result};
use serde_json::Value;

use crate::cli::ProbeArgs;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::out::Out;

use crate::infra::sanitize::sanitize;
use crate::tools::hints::Hint;
pub use diff::run as diff;
use hints::{Rule, ToolHints};
use session::Listing;
use target::describe_target;
pub use target::{Options, Target};
use terminal::{omits_cell, resolved_cell, summary, table, warnings};

/// Returns the per-tool columns of `--csv`, also the tool columns of the
/// `--servers` table: the tool, each hint as declared, what it omits, each hint as a
/// client resolves it, and what its name says it does (docs/method.md, "Name
/// classes").
pub fn csv_header() -> Vec<String> {
    let mut header = vec!["tool".to_string()];
    header.extend(Hint::ALL.map(|h| h.name().to_string()));
    header.push("omits".to_string());
    header.extend(Hint::ALL.map(|h| format!("resolved_{}", h.name())));
    header.push("name_class".to_string());
    header
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

/// Returns the options every probe of `args` shares: the timeout, the message
/// bound, the capabilities and protocol version offered.
pub fn options(args: &ProbeArgs) -> Result<Options> {
    let max_message = usize::try_from(args.max_message.0).unwrap_or(usize::MAX);
    Ok(Options {
        timeout: Duration::from_secs(args.timeout),
        max_message,
        capabilities: parse_capabilities(&args.capabilities)?,
        protocol_version: args.protocol_version.clone(),
    })
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
    let options = options(args)?;
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
    let date = match &args.save {
        None => None,
        Some(_) => Some(date::resolve(args.date.as_deref())?),
    };
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

/// Runs `probe` of one server: lists its tools and reports, saves and gates on their
/// hints (`probe --servers` is `survey`'s).
pub fn run(args: &ProbeArgs) -> Result<ExitStatus> {
    let Config { options, job } = configure(args)?;
    match job {
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

/// Holds the whole conversation with one server and returns what it lists.
pub fn probe(target: &Target, options: &Options) -> Result<Listing> {
    probe_counting(target, options).0
}

/// Holds the whole conversation with one server; returns what it lists and how many
/// lines of its stdout were not JSON and were skipped, whether or not it listed.
pub fn probe_counting(target: &Target, options: &Options) -> (Result<Listing>, usize) {
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

/// Returns one tool's cells under [`csv_header`].
pub fn tool_cells(tool: &ToolHints) -> Vec<String> {
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
    fn watch_is_a_job_of_its_own() {
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
