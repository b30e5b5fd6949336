//! `probe` and `diff`: what a running MCP server declares in `tools/list`, and how that
//! changed between two snapshots.
//!
//! This module wires the parts together and writes the results (table, summary, CSV,
//! snapshot, gate). The conversation lives in `session`, the bytes in `stdio` and
//! `http`, the schema's rules in `hints`, snapshots and their comparison in `snapshot`
//! and `diff`. It does not count source text; that is `count`'s job, and a zero there
//! says nothing about the wire, which is why this half exists.

mod diff;
mod hints;
mod http;
mod session;
mod snapshot;
mod stdio;

use std::collections::HashSet;
use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::cli::ProbeArgs;
use crate::{date, ExitStatus, UsageError};

use crate::sanitize::sanitize;
pub use diff::run as diff;
use hints::{Declared, Hint, Rule, ToolHints};
use session::Listing;

/// The CSV header, fixed by issue 4.
const CSV_HEADER: [&str; 10] = [
    "tool",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
    "omits",
    "resolved_readOnlyHint",
    "resolved_destructiveHint",
    "resolved_idempotentHint",
    "resolved_openWorldHint",
];

/// Runs `probe`: lists the server's tools and reports, saves and gates on their hints.
pub fn run(args: &ProbeArgs) -> Result<ExitStatus> {
    let rule = args
        .require
        .as_deref()
        .map(|text| {
            Rule::parse(text).ok_or_else(|| {
                UsageError(format!(
                    "--require '{text}' is not a rule; the rules are {}",
                    Rule::NAMES
                ))
            })
        })
        .transpose()?;
    if args.timeout == 0 {
        return Err(UsageError("--timeout must be at least 1 second".to_string()).into());
    }
    // Resolved before the server starts, so a bad --date costs no server run.
    let date = match &args.save {
        Some(_) => Some(date::resolve(args.date.as_deref())?),
        None => None,
    };
    let timeout = Duration::from_secs(args.timeout);

    let (target, listing) = match (&args.url, args.command.is_empty()) {
        (Some(url), _) => (
            url.clone(),
            probe_http(url, timeout, &args.protocol_version),
        ),
        (None, false) => {
            let target = args.command.join(" ");
            (
                target,
                probe_stdio(&args.command, timeout, &args.protocol_version),
            )
        }
        (None, true) => {
            return Err(UsageError(
                "probe needs a server: a COMMAND after '--', or '--url URL'".to_string(),
            )
            .into())
        }
    };
    let listing = listing.with_context(|| format!("probing '{}'", sanitize(&target)))?;

    let tools: Vec<ToolHints> = listing.tools.iter().map(ToolHints::from_tool).collect();
    for warning in warnings(&listing, &tools) {
        eprintln!("mcp-hint-census: warning: {warning}");
    }
    print!("{}", table(&tools));
    print!("{}", summary(&listing, &tools));
    if let Some(path) = &args.csv {
        write_csv(path, &tools).with_context(|| format!("writing '{}'", path.display()))?;
    }
    if let (Some(path), Some(date)) = (&args.save, &date) {
        let text = snapshot::render(&listing, date);
        std::fs::write(path, text).with_context(|| format!("writing '{}'", path.display()))?;
    }
    Ok(match rule {
        Some(rule) => gate(rule, &tools),
        None => ExitStatus::Ok,
    })
}

fn probe_stdio(command: &[String], timeout: Duration, version: &str) -> Result<Listing> {
    let mut server = stdio::Stdio::spawn(command, timeout)?;
    // On an error the server is dropped, which kills it at once.
    let listing = session::list_tools(&mut server, version)?;
    server.finish();
    Ok(listing)
}

fn probe_http(url: &str, timeout: Duration, version: &str) -> Result<Listing> {
    let mut server = http::Http::new(url, timeout)?;
    let listing = session::list_tools(&mut server, version);
    // The session is ended whether or not the listing worked.
    let close_warning = server.finish();
    let mut listing = listing?;
    listing.warnings.extend(close_warning);
    Ok(listing)
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
        if tool.name.is_empty() {
            out.push(format!("tool {} of {} has no name", index + 1, tools.len()));
        } else if !seen.insert(tool.name.as_str()) {
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
    let widths: Vec<usize> = (0..rows[0].len())
        .map(|c| rows.iter().map(|r| r[c].chars().count()).max().unwrap_or(0))
        .collect();
    let mut out = String::new();
    for row in &rows {
        let cells: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, &w)| format!("{cell:<w$}"))
            .collect();
        out.push_str(cells.join("  ").trim_end());
        out.push('\n');
    }
    out
}

/// Renders the summary lines under the table.
fn summary(listing: &Listing, tools: &[ToolHints]) -> String {
    let complete = tools.iter().filter(|t| t.omits().is_empty()).count();
    let nothing = tools.iter().filter(|t| t.declares_nothing()).count();
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    let quoted = |text: &str| {
        if text.is_empty() {
            "(none)".to_string()
        } else {
            format!("'{}'", sanitize(text))
        }
    };
    format!(
        "\n{}: {} every meaningful hint, {} nothing\nserver {} version {}, protocol {}, {} read\n",
        plural(tools.len(), "tool", "tools"),
        plural(complete, "declares", "declare"),
        plural(nothing, "declares", "declare"),
        quoted(&listing.server_name),
        quoted(&listing.server_version),
        quoted(&listing.protocol_version),
        plural(listing.pages, "tools/list page", "tools/list pages"),
    )
}

fn write_csv(path: &Path, tools: &[ToolHints]) -> Result<()> {
    let mut out = csv::Writer::from_path(path)?;
    out.write_record(CSV_HEADER)?;
    for tool in tools {
        let mut record = vec![tool.name.clone()];
        record.extend(Hint::ALL.map(|h| tool.declared(h).cell().to_string()));
        record.push(omits_cell(tool));
        record.extend(Hint::ALL.map(|h| resolved_cell(tool.resolved(h)).to_string()));
        out.write_record(&record)?;
    }
    out.flush()?;
    Ok(())
}

/// Prints every tool that breaks `rule` and what it lacks; returns the exit status.
fn gate(rule: Rule, tools: &[ToolHints]) -> ExitStatus {
    let mut broken = 0;
    for tool in tools {
        let lacks = rule.lacks(tool);
        if !lacks.is_empty() {
            broken += 1;
            println!(
                "require {}: tool '{}' lacks {}",
                rule.name(),
                sanitize(&tool.name),
                lacks.join(", ")
            );
        }
    }
    if broken == 0 {
        println!("require {}: every tool passes", rule.name());
        ExitStatus::Ok
    } else {
        println!(
            "require {}: {broken} of {} tools break the rule",
            rule.name(),
            tools.len()
        );
        ExitStatus::Gate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn listing(tools: Vec<serde_json::Value>) -> Listing {
        Listing {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "2025-06-18".into(),
            pages: 1,
            tools,
            warnings: Vec::new(),
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
    }
}
