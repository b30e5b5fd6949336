//! Formats the tool definitions found in source: the lines `scan --tools` prints,
//! the workflow commands a GitHub job shows at each line, and how messages name a
//! definition (path:line, name).
//!
//! What a hint means for a definition (meaningful, omitted, resolved) is read by
//! `tools::hints`; this module only formats it. Text from the tree is escaped for the
//! terminal, or encoded as GitHub's workflow commands require.

use std::io::{self, Write};
use std::path::Path;

use super::terminal::{write_aligned, Align};
use crate::infra::sanitize::sanitize;
use crate::lint::{self, sarif::Located, Finding, Subject};
use crate::table::{Row, Table};
use crate::tools::hints::{reading, settings, Hint};
use crate::tools::{DefKind, Role, ToolDef};

/// Returns the lint's findings (docs/scan.md, "The lint") for every tool of the
/// table's counted rows (a tree's own: kind `tool`, role `source`), each with its
/// row and definition, in table order.
pub fn tool_findings(table: &Table) -> Vec<(&Row, &ToolDef, Finding)> {
    table
        .rows
        .iter()
        .flat_map(|row| row_findings(row).into_iter().map(move |(t, f)| (row, t, f)))
        .collect()
}

/// Returns the lint's findings for the tools of one row (see [`tool_findings`]),
/// each with its definition, in the row's order.
pub fn row_findings(row: &Row) -> Vec<(&ToolDef, Finding)> {
    let mut out = Vec::new();
    for tool in row_tools(row)
        .iter()
        .filter(|t| t.kind == DefKind::Tool && t.role == Role::Source)
    {
        let subject = Subject {
            name: tool.name.as_deref(),
            class: tool.name_class,
            settings: settings(tool),
            family: Some(tool.family),
        };
        out.extend(lint::check(&subject).into_iter().map(|f| (tool, f)));
    }
    out
}

/// Returns the findings of one row placed at their definitions for SARIF, each path
/// the definition's inside the tree after `prefix` (a path relative to the run's
/// base, `/`-separated, or empty).
pub fn located_findings(row: &Row, prefix: &str) -> Vec<Located> {
    row_findings(row)
        .into_iter()
        .map(|(tool, finding)| {
            let inner = String::from_utf8_lossy(&tool.path);
            Located {
                finding,
                name: tool.name.clone(),
                path: Some(match prefix.trim_end_matches('/') {
                    "" => inner.into_owned(),
                    prefix => format!("{prefix}/{inner}"),
                }),
                line: Some(tool.line),
            }
        })
        .collect()
}

/// Returns the definitions found in a counted row; none when the row failed or the
/// finder was off.
pub fn row_tools(row: &Row) -> &[ToolDef] {
    row.outcome
        .as_ref()
        .ok()
        .and_then(|c| c.tools.as_ref())
        .map_or(&[], |found| found.tools.as_slice())
}

/// Returns the path of a definition as found from where the command ran, unescaped:
/// for a directory scanned, its path joined with the definition's (a scan of `.`
/// gives the path inside the tree alone); for an archive or a file, the path inside it
/// after the scanned path and a `:`.
pub fn tool_path(row: &Row, tool: &ToolDef) -> String {
    let inner = String::from_utf8_lossy(&tool.path);
    let target = row.repo();
    if target == "." || target == "./" {
        return inner.into_owned();
    }
    let target_path = Path::new(target);
    if target_path.is_dir() {
        return format!("{}/{inner}", target.trim_end_matches('/'));
    }
    // A single file scanned is a tree of that one file, named by its file name.
    if target_path.file_name().map(|n| n.as_encoded_bytes()) == Some(tool.path.as_slice()) {
        return target.to_string();
    }
    format!("{target}:{inner}")
}

/// Returns how a message names a definition: `path:line`, escaped.
pub fn tool_location(row: &Row, tool: &ToolDef) -> String {
    sanitize(format!("{}:{}", tool_path(row, tool), tool.line))
}

/// Returns how a message names a tool: its name quoted, or `(name not a literal)`;
/// escaped.
pub fn tool_name(tool: &ToolDef) -> String {
    match &tool.name {
        Some(name) => format!("'{}'", sanitize(name)),
        None => "(name not a literal)".to_string(),
    }
}

/// Prints, under the table, one line per definition found in each counted row:
/// where it is, its kind and role, its SDK family and name, each hint as set (an
/// absent one with what a client resolves, as `probe` prints it) and what it omits
/// of the hints meaningful for it (for the tree's own tools only).
pub fn print_tools<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    for row in &table.rows {
        let Ok(counted) = &row.outcome else { continue };
        let Some(found) = &counted.tools else {
            continue;
        };
        writeln!(w)?;
        let [tools, annotated, unresolved, dynamic, skipped] = found.columns();
        let others = found.tools.len() as u64 - tools - dynamic;
        writeln!(
            w,
            "tools in {}: {tools} found, {annotated} annotated, {unresolved} unresolved{}{}{}",
            sanitize(row.tree_name()),
            match dynamic {
                0 => String::new(),
                n => format!(", {n} registered dynamically"),
            },
            match others {
                0 => String::new(),
                n => format!(", {n} more in tests, examples or copies"),
            },
            match skipped {
                0 => String::new(),
                1 => ", 1 file not parsed (over a bound)".to_string(),
                n => format!(", {n} files not parsed (over a bound)"),
            }
        )?;
        if found.tools.is_empty() {
            continue;
        }
        let mut lines: Vec<Vec<String>> = vec![["at", "kind", "role", "sdk", "tool"]
            .into_iter()
            .map(str::to_string)
            .chain(Hint::ALL.map(|h| h.name().to_string()))
            .chain(["omits".to_string()])
            .collect()];
        for tool in &found.tools {
            let mut line = vec![
                tool_location(row, tool),
                tool.kind.as_str().to_string(),
                tool.role.as_str().to_string(),
                tool.family.as_str().to_string(),
                tool.name.as_deref().map_or("-".to_string(), sanitize),
            ];
            line.extend(Hint::ALL.map(|h| reading(tool, h)));
            let own = tool.kind == DefKind::Tool && tool.role == Role::Source;
            let omitted = if own {
                settings(tool).omits()
            } else {
                Vec::new()
            };
            line.push(match omitted.is_empty() {
                true => "-".to_string(),
                false => omitted
                    .iter()
                    .map(|h| h.name())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
            lines.push(line);
        }
        write_aligned(&mut w, &lines, Align::Left)?;
    }
    Ok(())
}

/// Writes one GitHub workflow command per finding of the lint (docs/scan.md, "The
/// lint"): `::warning file=PATH,line=N,title=ID ...::MESSAGE`, so that a pull request
/// shows it at the line. Property values and the message are encoded as GitHub's
/// runner reads them (`%`, CR and LF; in properties also `:` and `,`).
pub fn write_github_warnings<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    for (row, tool, finding) in tool_findings(table) {
        let command = match finding.rule.level() {
            "error" => "error",
            _ => "warning",
        };
        writeln!(
            w,
            "::{command} file={},line={},title={}::{}",
            github_property(&sanitize(tool_path(row, tool))),
            tool.line,
            github_property(&format!("{} {}", finding.rule.id(), finding.rule.name())),
            github_data(&sanitize(format!(
                "{}. Suggested: {}",
                finding.message, finding.suggestion
            )))
        )?;
    }
    Ok(())
}

/// Returns `text` encoded as the message of a workflow command.
pub fn github_data(text: &str) -> String {
    text.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Returns `text` encoded as a property value of a workflow command.
pub fn github_property(text: &str) -> String {
    github_data(text).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn workflow_commands_encode_what_would_end_them() {
        assert_eq!(github_data("50% a\r\nb"), "50%25 a%0D%0Ab");
        assert_eq!(github_property("a,b:c%\n"), "a%2Cb%3Ac%25%0A");
    }
}
