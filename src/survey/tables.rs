//! The tables and summary of a wire survey: `wire-DATE.csv` (one row per server and
//! tool), `wire-DATE-servers.csv` (one row per server), the locks in
//! `wire-DATE-locks/` and `wire-DATE.md`, every one written whole or not at all
//! through the atomic writer, and through the same writer when `merge --servers`
//! joins shards, so that both give the same bytes.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use super::file::Server;
use super::join;
use super::outcome::{Failure, Kind, Outcome};
use super::tally;
use crate::infra::atomic::{write_atomic, write_bytes};
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;
use crate::probe::hints::ToolHints;
use crate::probe::session::Listing;
use crate::probe::{csv_header, tool_cells};

/// The columns before the per-tool ones.
pub(super) const SERVER_COLUMNS: [&str; 4] =
    ["server", "server_version", "protocol", "capabilities"];

/// The servers table's columns: the server, what joins it to its census row, the
/// package and the bytes it was run from, how it ended and its tools by hints.
pub(super) const SERVERS_HEADER: [&str; 26] = [
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
    "http_status",
    "resource_metadata",
    "placeholders",
];

/// Writes `wire-DATE-servers.csv`: one row per server of the file, in its order.
pub(super) fn write_servers(path: &Path, servers: &[Server], outcomes: &[Outcome]) -> Result<()> {
    let mut records = Vec::with_capacity(servers.len());
    for (server, outcome) in servers.iter().zip(outcomes) {
        let mut record = server.file_cells().to_vec();
        record.extend([
            outcome.python.clone(),
            outcome.artifact.clone(),
            outcome.before.clone(),
            outcome.before_note.clone(),
            outcome
                .lock_names()
                .map(|(cell, _)| cell)
                .unwrap_or_default(),
        ]);
        let skipped = outcome
            .skipped_lines
            .map(|n| n.to_string())
            .unwrap_or_default();
        match &outcome.result {
            Ok(listing) => {
                let (tools, complete, nothing) = counts(listing);
                record.extend([
                    server.listed_kind(&outcome.filled).name().to_string(),
                    listing.server_version.clone(),
                    listing.protocol_version.clone(),
                    tools.to_string(),
                    complete.to_string(),
                    (tools - complete - nothing).to_string(),
                    nothing.to_string(),
                    skipped.clone(),
                    String::new(),
                    String::new(),
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
                record.push(
                    failure
                        .http_status
                        .map(|s| s.to_string())
                        .unwrap_or_default(),
                );
                record.push(failure.resource_metadata.clone());
            }
        }
        record.push(server.placeholders_cell(&outcome.filled));
        records.push(record);
    }
    write_csv(path, &SERVERS_HEADER, records)
}

/// Writes a table of `header` and `records` to `path`, whole or not at all. Every
/// table of the survey is written here, so that a merge of shards writes the bytes
/// one run writes.
pub(super) fn write_csv<R: AsRef<[u8]>>(
    path: &Path,
    header: &[impl AsRef<[u8]>],
    records: impl IntoIterator<Item = impl IntoIterator<Item = R>>,
) -> Result<()> {
    write_atomic(path, |w| {
        let mut out = csv::Writer::from_writer(w);
        out.write_record(header)?;
        for record in records {
            out.write_record(record)?;
        }
        out.flush()?;
        Ok(())
    })
}

/// Writes each lock of `outcomes` into `dir`, named after its sha256: the same
/// resolution is one file, however many servers share it.
pub(super) fn write_locks(dir: &Path, outcomes: &[Outcome]) -> Result<()> {
    for outcome in outcomes {
        let (Some(lock), Some((_, name))) = (&outcome.lock, outcome.lock_names()) else {
            continue;
        };
        std::fs::create_dir_all(dir)?;
        let path = dir.join(name);
        if !path.is_file() {
            write_bytes(&path, &lock.bytes)?;
        }
    }
    Ok(())
}

/// Returns a listing's number of tools, of tools declaring every meaningful hint and of
/// tools declaring nothing.
pub(super) fn counts(listing: &Listing) -> (usize, usize, usize) {
    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    let complete = tools.iter().filter(|t| t.omits().is_empty()).count();
    let nothing = tools.iter().filter(|t| t.declares_nothing()).count();
    (tools.len(), complete, nothing)
}

/// Returns each server that listed, with its tools read as the schema reads them.
pub(super) fn listed_tools(outcomes: &[Outcome]) -> Vec<(String, Vec<ToolHints>)> {
    outcomes
        .iter()
        .filter_map(|o| {
            let listing = o.result.as_ref().ok()?;
            let tools = listing.tools.iter().map(ToolHints::from_tool).collect();
            Some((o.name.clone(), tools))
        })
        .collect()
}

/// Returns the columns of `wire-DATE.csv`.
pub(super) fn table_header() -> Vec<String> {
    let mut header: Vec<String> = SERVER_COLUMNS.iter().map(|c| c.to_string()).collect();
    header.extend(csv_header());
    header.push("error".to_string());
    header
}

/// Writes `wire-DATE.csv`: one row per (server, tool), a failed server one row.
pub(super) fn write_table(path: &Path, outcomes: &[Outcome], capabilities: &str) -> Result<()> {
    let tool_columns = csv_header();
    let mut records = Vec::new();
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
                    records.push(record);
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
                records.push(record);
            }
        }
    }
    write_csv(path, &table_header(), records)
}

/// Sanitizes each line of `text` and keeps the line breaks, so that an error quoting a
/// server's stderr reads as it does in a single probe's message.
pub(super) fn sanitize_lines(text: &str) -> String {
    text.split('\n')
        .map(sanitize)
        .collect::<Vec<_>>()
        .join("\n")
}

/// Escapes text for one Markdown table cell.
pub(super) fn cell(text: &str) -> String {
    sanitize(text).replace('|', "\\|")
}

/// Escapes text of several lines (an error quoting a server's stderr) for one Markdown
/// table cell: each line escaped as [`cell`] does, `<` and `&` kept literal, lines joined
/// with `<br>`, which ends a line inside a cell.
pub(super) fn lines_cell(text: &str) -> String {
    text.split('\n')
        .map(|line| cell(line).replace('&', "&amp;").replace('<', "&lt;"))
        .collect::<Vec<_>>()
        .join("<br>")
}

/// The head of the summary's table of servers, after the tally.
pub(super) const SUMMARY_TABLE: &str = "## Servers\n\n\
     | server | version | protocol | tools | declaring every meaningful hint | declaring nothing | error |\n\
     |---|---|---|---:|---:|---:|---|\n";

/// Returns the lines the summary opens with, before the tally.
pub(super) fn summary_opening(capabilities: &str, date: &str) -> String {
    format!(
        "# Wire survey, {date}\n\nClient capabilities offered: {}.\n\n",
        cell(capabilities)
    )
}

/// Returns how the tally counts `server`, which ended as `outcome` (a name of the
/// servers table's `outcome` column).
pub(super) fn tally_row<'a>(server: &Server, outcome: &'a str) -> tally::Row<'a> {
    let kind = Kind::ALL.into_iter().find(|k| k.name() == outcome);
    tally::Row {
        source: tally::source(
            server.entry.package.as_ref().map(|p| p.registry.as_str()),
            server.entry.url.is_some(),
        ),
        outcome,
        could_run: kind.is_none_or(Kind::could_run),
        is_listed: kind.is_some_and(Kind::is_listed),
    }
}

/// Returns the tally section of the summary of `servers`, which ended as `outcomes`.
pub(super) fn tally_of(servers: &[Server], outcomes: &[Outcome]) -> String {
    let rows: Vec<tally::Row> = servers
        .iter()
        .zip(outcomes)
        .map(|(server, outcome)| {
            let kind = outcome
                .result
                .as_ref()
                .map_or_else(|f| f.kind, |_| server.listed_kind(&outcome.filled));
            tally_row(server, kind.name())
        })
        .collect();
    tally_section(&rows)
}

/// Returns the tally section of the summary over `rows`.
pub(super) fn tally_section(rows: &[tally::Row]) -> String {
    tally::section(rows, &Kind::ALL.map(Kind::name))
}

/// Renders `wire-DATE.md`: one line per server.
pub(super) fn summary(
    outcomes: &[Outcome],
    capabilities: &str,
    date: &str,
    tallied: &str,
) -> String {
    let mut text = format!(
        "{}{tallied}{SUMMARY_TABLE}",
        summary_opening(capabilities, date)
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

/// Joins the wire tables just written to `census` into `join_path` and returns the
/// summary's section on it. Read back from the tables: the join is of the tables,
/// whoever wrote them (one run, or a merge of shards).
pub(super) fn join_tables(
    census: &join::Census,
    csv_path: &Path,
    servers_path: &Path,
    join_path: &Path,
    date: &str,
) -> Result<String> {
    let joined = join::join(census, join::read_wire(csv_path, servers_path)?, date);
    join::write_csv(join_path, &joined)
        .with_context(|| format!("writing '{}'", join_path.display()))?;
    Ok(join::section(census, &joined))
}

/// Prints the closing line of a survey or a merge: the tables written, then the
/// report `md`.
pub fn print_written(out: &mut Out, written: &[&Path], md: &Path) -> Result<()> {
    let written: Vec<String> = written
        .iter()
        .map(|p| format!("'{}'", p.display()))
        .collect();
    out.line(&format!(
        "wrote {} and '{}'",
        written.join(", "),
        md.display()
    ))
}
