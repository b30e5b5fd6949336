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
use super::session::{capability_names, Listing};
use super::{csv_header, probe, tool_cells, Options, Target};
use crate::error::{ExitStatus, UsageError};
use crate::messages;
use crate::out::Out;
use crate::sanitize::sanitize;

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

/// What probing one server gave.
struct Outcome {
    name: String,
    result: Result<Listing, String>,
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
        match (&entry.command, &entry.url) {
            (Some(_), Some(_)) | (None, None) => {
                return Err(bad(format!(
                    "server '{name}' needs either a command or a url, not both or neither"
                ))
                .into())
            }
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
            })
        }
        (None, Some(url)) => Ok(Target::Http {
            url: url.clone(),
            headers: resolve(&entry.headers, "header")?,
        }),
        (None, None) => Err("no command and no url".to_string()),
    }
}

/// Holds a validated `probe --servers FILE` command line.
#[derive(Debug)]
pub struct Config {
    /// The servers file.
    pub file: PathBuf,
    /// Where the tables go (`--out`).
    pub out_dir: PathBuf,
    /// How many servers are probed at once.
    pub jobs: usize,
    /// The date the tables are named and stamped with.
    pub date: String,
}

/// Runs `probe --servers FILE`.
pub fn run(config: &Config, options: &Options) -> Result<ExitStatus> {
    let Config {
        file,
        out_dir,
        jobs,
        date,
    } = config;
    let servers = load(file)?;
    std::fs::create_dir_all(out_dir)
        .with_context(|| format!("creating '{}'", out_dir.display()))?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(*jobs)
        .build()
        .context("starting the probe threads")?;
    let outcomes: Vec<Outcome> = pool.install(|| {
        servers
            .par_iter()
            .map(|server| Outcome {
                name: server.name.clone(),
                result: target(&server.entry)
                    .and_then(|target| probe(&target, options).map_err(|err| format!("{err:#}"))),
            })
            .collect()
    });

    let capabilities = capability_names(&options.capabilities);
    let csv_path = out_dir.join(format!("wire-{date}.csv"));
    let md_path = out_dir.join(format!("wire-{date}.md"));
    write_table(&csv_path, &outcomes, &capabilities)
        .with_context(|| format!("writing '{}'", csv_path.display()))?;
    std::fs::write(&md_path, summary(&outcomes, &capabilities, date))
        .with_context(|| format!("writing '{}'", md_path.display()))?;

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
            Err(reason) => {
                failed += 1;
                out.line(&format!(
                    "server '{}': failed: {}",
                    sanitize(&outcome.name),
                    sanitize_lines(reason)
                ))?;
            }
        }
    }
    out.line(&format!(
        "wrote '{}' and '{}'",
        csv_path.display(),
        md_path.display()
    ))?;
    Ok(if failed > 0 {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}

/// Returns a listing's number of tools, of tools declaring every meaningful hint and of
/// tools declaring nothing.
fn counts(listing: &Listing) -> (usize, usize, usize) {
    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    let complete = tools.iter().filter(|t| t.omits().is_empty()).count();
    let nothing = tools.iter().filter(|t| t.declares_nothing()).count();
    (tools.len(), complete, nothing)
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
            Err(reason) => {
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
fn summary(outcomes: &[Outcome], capabilities: &str, date: &str) -> String {
    let mut text = format!(
        "# Wire survey, {date}\n\nClient capabilities offered: {}.\n\n\
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
            Err(reason) => writeln!(
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
            ("[[server]]\nname = \"a\"\n", "either a command or a url"),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://h\"\n",
                "not both or neither",
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
        ] {
            let err = load_text(text).err().expect(text);
            assert!(err.downcast_ref::<UsageError>().is_some(), "{text}");
            assert!(format!("{err:#}").contains(says), "{text}: {err:#}");
        }
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
        let Ok(Target::Stdio { command, env }) = target(&servers[1].entry) else {
            panic!("a stdio target");
        };
        assert_eq!(command, ["x", "-v"]);
        assert_eq!(env[0], ("A".to_string(), "1".to_string()));
        assert_eq!(env[1].1, std::env::var("PATH").unwrap());
    }
}
