//! Formats count tables: the census CSV, the per-file CSV, the Markdown report, JSON
//! and the aligned tables a person reads on a terminal.
//!
//! This module only formats. It is handed finished [`Table`]s and writes them to any
//! `io::Write`; it never counts, downloads or decides an exit status. Everything it
//! writes to a file is a function of the rows and the date alone, so that the same
//! inputs give the same bytes. Text from outside is escaped before it reaches a
//! terminal (see `sanitize`), never in the files.
//!
//! The last stage: it may import `table`, `count`, `tools` and `infra`, and only the
//! commands import it.

mod cells;
pub mod chart;
mod csv;
mod json;
mod markdown;
pub mod silence;
pub mod survey;
mod terminal;
mod tools;
pub mod trend;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use crate::infra::atomic::write_atomic;
use crate::infra::messages;
use crate::infra::sanitize::sanitize;
use crate::table::{one_line, Table};

pub use self::cells::{cell as markdown_cell, short, thousands};
pub use self::csv::{write_census_csv, write_files_csv, write_tools_csv};
pub use self::json::write_json;
pub use self::markdown::{write_markdown, LIMITS};
pub use self::survey::chart_name;
pub use self::terminal::{print_by_extension, print_files, print_table, write_aligned, Align};
pub use self::tools::{
    located_findings, print_tools, row_findings, row_tools, tool_findings, tool_location,
    tool_name, tool_path, write_github_warnings,
};

/// Writes `census-DATE.csv`, `files-DATE.csv`, `tools-DATE.csv` and `census-DATE.md`
/// into `out`, `census-DATE.svg` (the survey chart) when the tool finder read some
/// tree, and for a dated table the trend chart `census-DATE-trend.svg`, each through
/// a temporary file renamed into place, so no half-written table is left. Returns
/// the paths written, in that order.
pub fn write_tables(out: &Path, table: &Table) -> Result<Vec<PathBuf>> {
    fs::create_dir_all(out).with_context(|| format!("creating '{}'", out.display()))?;
    let date = &table.date;
    let mut paths = vec![
        out.join(format!("census-{date}.csv")),
        out.join(format!("files-{date}.csv")),
        out.join(format!("tools-{date}.csv")),
        out.join(format!("census-{date}.md")),
    ];
    write_atomic(&paths[0], |w| write_census_csv(w, table))?;
    write_atomic(&paths[1], |w| write_files_csv(w, table))?;
    write_atomic(&paths[2], |w| write_tools_csv(w, table))?;
    write_atomic(&paths[3], |w| Ok(write_markdown(w, table)?))?;
    if let Some(summary) = survey::survey(table) {
        let svg = survey::shares_svg(&summary, date)?;
        let path = out.join(chart_name(date));
        write_atomic(&path, |w| Ok(w.write_all(svg.as_bytes())?))?;
        paths.push(path);
    }
    if let Some(trend) = trend::Trend::of(table) {
        let svg = trend.svg()?;
        let path = out.join(trend::svg_name(date));
        write_atomic(&path, |w| Ok(w.write_all(svg.as_bytes())?))?;
        paths.push(path);
    }
    Ok(paths)
}

/// Writes the tables (see [`write_tables`]), then prints the table on stdout and
/// names each file written on stderr. The files come first, so that a reader who
/// stops early (`census | head`) still leaves them whole.
pub fn write_and_print(out: &Path, table: &Table) -> Result<()> {
    let written = write_tables(out, table)?;
    print_table(io::stdout().lock(), table)?;
    for path in &written {
        messages::note(format!("wrote {}", sanitize(path.display().to_string())));
    }
    Ok(())
}

/// Writes each failed row's reason on stderr, named as the table names its tree, so
/// that a person reads why even with stdout sent elsewhere.
pub fn announce_failures(table: &Table) {
    for (row, why) in table.failed_rows() {
        messages::failure(&sanitize(row.tree_name()), &sanitize(one_line(why)));
    }
}
