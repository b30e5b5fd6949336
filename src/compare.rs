//! Compares two census tables (for example the published figures and a rerun) tree
//! by tree and column by column.
//!
//! Only counts are compared: `files_walked`, `bytes_read` and every term or control
//! column the two tables share. A cell left empty in either table (a figure the
//! source never gave) is not compared. Commits are compared first, because counts
//! from different commits are expected to differ.

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::cli::CompareArgs;
use crate::sanitize::sanitize;
use crate::ExitStatus;

/// Columns that describe a row rather than count something.
const NOT_COUNTS: [&str; 8] = [
    "repo",
    "pinned",
    "commit",
    "commit_source",
    "archive_sha256",
    "probed_on",
    "status",
    "error",
];

/// Holds a census table read back from CSV.
struct Sheet {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Sheet {
    fn read(path: &Path) -> Result<Sheet> {
        let mut reader = csv::Reader::from_path(path)
            .with_context(|| format!("reading '{}'", path.display()))?;
        let header: Vec<String> = reader
            .headers()
            .with_context(|| format!("reading '{}'", path.display()))?
            .iter()
            .map(str::to_string)
            .collect();
        if !header.iter().any(|h| h == "repo") {
            bail!(
                "'{}' has no 'repo' column: not a census table",
                path.display()
            );
        }
        let mut rows = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record = record.with_context(|| format!("reading '{}'", path.display()))?;
            if record.len() != header.len() {
                bail!(
                    "'{}' line {}: {} cells where the header has {}",
                    path.display(),
                    i + 2,
                    record.len(),
                    header.len()
                );
            }
            rows.push(record.iter().map(str::to_string).collect());
        }
        Ok(Sheet { header, rows })
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    fn cell<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        self.column(name).map_or("", |i| row[i].as_str())
    }
}

/// Holds the outcome of a comparison, for the exit status and the summary.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub agree: usize,
    pub differ: usize,
    pub not_compared: usize,
    /// Trees whose row is an error in either table.
    pub failed: usize,
}

/// Runs `compare`: prints every tree's comparison and exits 0 only when every
/// shared cell agrees.
pub fn run(args: &CompareArgs) -> Result<ExitStatus> {
    let a = Sheet::read(&args.a)?;
    let b = Sheet::read(&args.b)?;
    let tally = compare(&a, &b, &mut io::stdout().lock())?;
    Ok(if tally.differ == 0 && tally.failed == 0 {
        ExitStatus::Ok
    } else {
        ExitStatus::Failed
    })
}

fn compare(a: &Sheet, b: &Sheet, out: &mut dyn Write) -> Result<Tally> {
    let columns: Vec<&str> = a
        .header
        .iter()
        .map(String::as_str)
        .filter(|h| !NOT_COUNTS.contains(h) && b.column(h).is_some())
        .collect();
    let b_rows: HashMap<String, &Vec<String>> = b
        .rows
        .iter()
        .map(|row| (b.cell(row, "repo").to_ascii_lowercase(), row))
        .collect();
    let mut tally = Tally::default();
    for row_a in &a.rows {
        let repo = a.cell(row_a, "repo");
        let Some(row_b) = b_rows.get(&repo.to_ascii_lowercase()) else {
            writeln!(
                out,
                "{}: only in the first table",
                sanitize(repo.as_bytes())
            )?;
            continue;
        };
        writeln!(out, "{}", sanitize(repo.as_bytes()))?;
        let (commit_a, commit_b) = (a.cell(row_a, "commit"), b.cell(row_b, "commit"));
        if !same_commit(commit_a, commit_b) {
            writeln!(
                out,
                "  commits differ: '{commit_a}' and '{commit_b}'; counts of different commits are expected to differ"
            )?;
        }
        let mut is_failed = false;
        for (sheet, row, which) in [(a, row_a, "first"), (b, *row_b, "second")] {
            if sheet.cell(row, "status") == "error" {
                writeln!(
                    out,
                    "  error in the {which} table: {}",
                    sanitize(sheet.cell(row, "error").as_bytes())
                )?;
                is_failed = true;
            }
        }
        if is_failed {
            tally.failed += 1;
            continue;
        }
        for column in &columns {
            let (x, y) = (a.cell(row_a, column), b.cell(row_b, column));
            if x.is_empty() || y.is_empty() {
                tally.not_compared += 1;
                continue;
            }
            if x == y {
                tally.agree += 1;
                writeln!(out, "  {column}: {x} agrees")?;
            } else {
                tally.differ += 1;
                writeln!(out, "  {column}: {x} differs from {y}")?;
            }
        }
    }
    for row_b in &b.rows {
        let repo = b.cell(row_b, "repo");
        if !a
            .rows
            .iter()
            .any(|r| a.cell(r, "repo").eq_ignore_ascii_case(repo))
        {
            writeln!(
                out,
                "{}: only in the second table",
                sanitize(repo.as_bytes())
            )?;
        }
    }
    writeln!(
        out,
        "{} cells agree, {} differ, {} not compared (empty in either table){}",
        tally.agree,
        tally.differ,
        tally.not_compared,
        if tally.failed > 0 {
            format!("; {} trees failed", tally.failed)
        } else {
            String::new()
        }
    )?;
    Ok(tally)
}

/// Returns true when one commit id is a prefix of the other (hex, any case): a
/// short pin and the full id it names are the same commit.
fn same_commit(a: &str, b: &str) -> bool {
    let (a, b) = (a.to_ascii_lowercase(), b.to_ascii_lowercase());
    !a.is_empty() && !b.is_empty() && (a.starts_with(&b) || b.starts_with(&a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sheet(text: &str) -> Sheet {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        std::fs::write(&path, text).unwrap();
        Sheet::read(&path).unwrap()
    }

    #[test]
    fn short_and_full_ids_are_the_same_commit() {
        assert!(same_commit("d73f99e", "D73F99E0123"));
        assert!(!same_commit("d73f99e", "d73f99f"));
        assert!(!same_commit("", "d73f99e"));
    }

    #[test]
    fn empty_cells_are_not_compared_and_differences_count() {
        let a = sheet(
            "repo,commit,files_walked,x,annotations,status\no/a,abcd,10,1,,ok\no/b,beef,5,0,7,ok\n",
        );
        let b = sheet("repo,commit,files_walked,x,annotations,status,error\no/a,abcdef,10,2,3,ok,\no/b,beef,5,0,7,ok,\n");
        let mut out = Vec::new();
        let tally = compare(&a, &b, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            tally,
            Tally {
                agree: 4,
                differ: 1,
                not_compared: 1,
                failed: 0
            },
            "{text}"
        );
        assert!(text.contains("x: 1 differs from 2"), "{text}");
        assert!(!text.contains("commits differ"), "{text}");
    }
}
