//! Prints tables for a person: aligned columns, thousands separators, every cell
//! from outside escaped. Errors go to stderr, not into these tables.

use std::io::{self, Write};

use super::cells::{short, thousands};
use crate::infra::sanitize::sanitize;
use crate::table::{by_extension, Table};

/// How the cells of a column line up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    /// The first `n` columns left-aligned (names), the others right-aligned (numbers).
    LeftThenRight(usize),
    /// Every column left-aligned.
    Left,
}

/// Writes `lines` as aligned columns, two spaces apart, each line trimmed at its end.
///
/// Widths count characters, so the cells must already be escaped: an escape
/// sequence would make the count wrong and the terminal lie.
pub fn write_aligned<W: Write>(w: &mut W, lines: &[Vec<String>], align: Align) -> io::Result<()> {
    let columns = lines.iter().map(Vec::len).max().unwrap_or(0);
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            lines
                .iter()
                .map(|l| l.get(i).map_or(0, |v| v.chars().count()))
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in lines {
        write_line(w, line, &widths, align)?;
    }
    Ok(())
}

/// Returns the escaped column names of `table`, for a header line.
fn column_names(table: &Table) -> impl Iterator<Item = String> + '_ {
    table.columns.names().map(sanitize)
}

/// Prints the table for a person: aligned columns, thousands separators, a note
/// under the table for each tree that read zero everywhere. Why a tree failed goes
/// to stderr (see `announce_failures`), never here. The tool definitions found and
/// those annotated are the last two columns when the finder read some tree.
pub fn print_table<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    let has_tools = table
        .rows
        .iter()
        .any(|r| r.outcome.as_ref().is_ok_and(|c| c.tools.is_some()));
    let mut header: Vec<String> = vec!["tree".into(), "commit".into(), "files".into()];
    header.extend(column_names(table));
    if has_tools {
        header.extend(["tools".into(), "annotated".into()]);
    }
    let mut lines: Vec<Vec<String>> = vec![header];
    for row in &table.rows {
        let mut line = vec![sanitize(row.tree_name())];
        match &row.outcome {
            Ok(c) => {
                line.push(sanitize(short(&c.commit)));
                line.push(thousands(c.count.files_walked));
                line.extend(c.count.counts.iter().map(|&n| thousands(n)));
                if has_tools {
                    match c.tool_counts() {
                        Some([n, annotated, ..]) => {
                            line.extend([thousands(n), thousands(annotated)])
                        }
                        None => line.extend(["-".into(), "-".into()]),
                    }
                }
            }
            Err(_) => {
                line.push(sanitize(row.key.pinned_cell()));
                line.push("error".into());
                line.extend(table.columns.names().map(|_| String::new()));
            }
        }
        lines.push(line);
    }
    write_aligned(&mut w, &lines, Align::LeftThenRight(2))?;
    for row in table.silent_rows() {
        writeln!(
            w,
            "note: {} held files but read zero on every term and control; worth a second look",
            sanitize(row.tree_name())
        )?;
    }
    Ok(())
}

/// Prints, under each counted row, every file with a nonzero count, sorted by the
/// path's bytes, with its size in bytes and its counts.
///
/// The files are read twice from the tree's hit store (which may have spilled
/// them to disk): once for the column widths, once to print, so memory does not
/// grow with the number of files.
pub fn print_files<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    for row in &table.rows {
        let Ok(c) = &row.outcome else { continue };
        writeln!(w)?;
        writeln!(w, "files with a count in {}:", sanitize(row.tree_name()))?;
        let mut header: Vec<String> = vec!["path".into(), "bytes".into()];
        header.extend(column_names(table));
        let line_of = |file: &crate::count::FileHit| {
            let mut line = vec![sanitize(&file.path), thousands(file.bytes)];
            line.extend(file.counts.iter().map(|&n| thousands(n)));
            line
        };
        let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
        for file in c.count.files.iter() {
            for (width, cell) in widths.iter_mut().zip(line_of(&file?)) {
                *width = (*width).max(cell.chars().count());
            }
        }
        let align = Align::LeftThenRight(1);
        write_line(&mut w, &header, &widths, align)?;
        for file in c.count.files.iter() {
            write_line(&mut w, &line_of(&file?), &widths, align)?;
        }
    }
    Ok(())
}

/// Writes one line of cells padded to `widths`, two spaces apart, trimmed at its end.
fn write_line<W: Write>(
    w: &mut W,
    line: &[String],
    widths: &[usize],
    align: Align,
) -> io::Result<()> {
    let is_left = |i: usize| match align {
        Align::LeftThenRight(n) => i < n,
        Align::Left => true,
    };
    let mut text = String::new();
    for (i, value) in line.iter().enumerate() {
        let pad = widths[i].saturating_sub(value.chars().count());
        if i > 0 {
            text.push_str("  ");
        }
        if is_left(i) {
            text.push_str(value);
            text.extend(std::iter::repeat_n(' ', pad));
        } else {
            text.extend(std::iter::repeat_n(' ', pad));
            text.push_str(value);
        }
    }
    writeln!(w, "{}", text.trim_end())
}

/// Returns an extension as every output spells it: `.rs`, or `(none)`.
pub fn extension_label(extension: Option<&[u8]>) -> String {
    match extension {
        Some(ext) => format!(".{}", String::from_utf8_lossy(ext)),
        None => "(none)".to_string(),
    }
}

/// Prints, under each counted row, its counts grouped by file extension: where the
/// hints sit (source, docs, schemas). `files` counts the files with a nonzero count.
pub fn print_by_extension<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    for row in &table.rows {
        let Ok(c) = &row.outcome else { continue };
        writeln!(w)?;
        writeln!(w, "counts by extension in {}:", sanitize(row.tree_name()))?;
        let mut header: Vec<String> = vec!["extension".into(), "files".into()];
        header.extend(column_names(table));
        let mut lines = vec![header];
        for group in by_extension(&c.count)? {
            let mut line = vec![
                sanitize(extension_label(group.extension.as_deref())),
                thousands(group.files),
            ];
            line.extend(group.counts.iter().map(|&n| thousands(n)));
            lines.push(line);
        }
        write_aligned(&mut w, &lines, Align::LeftThenRight(1))?;
    }
    Ok(())
}
