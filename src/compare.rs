//! Compares two census tables (for example the published figures and a rerun) tree
//! by tree and column by column.
//!
//! Rows are matched by tree: repository (ASCII case-insensitively, as GitHub names
//! them), pin, subfolder and date (`as_of`; a table from before dates has none). Only counts are compared: the columns the table schema
//! calls counts (`files_walked`, `bytes_read`, every term or control) that the two
//! tables share. A cell left empty in either table (a figure the source never gave)
//! is not compared. Commits are compared first, because counts from different
//! commits are expected to differ. A tree in one table only is a difference.
//!
//! When both tables are named `census-DATE.csv` and each has its tools table beside
//! it (`tools-DATE.csv`), the definitions are compared too: matched by tree, path,
//! line and name, then hint by hint; a definition in one table only is a difference.

use std::collections::{BTreeMap, HashMap};
use std::io::{self, Write};
use std::path::Path;

use anyhow::Result;

use crate::cli::CompareArgs;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::sanitize::sanitize;
use crate::table::{self, is_count_column};
use crate::tools::hints::Hint;
use crate::tools::ToolDef;

/// Holds a census table read back from CSV.
struct Sheet {
    header: Vec<String>,
    rows: Vec<Vec<String>>,
}

impl Sheet {
    /// Reads a census table; a file that is not one is a [`UsageError`].
    fn read(path: &Path) -> Result<Sheet> {
        let name = sanitize(path.display().to_string());
        if !path.exists() {
            // The usual cause: the census that should have written it counted
            // nothing (no network), and wrote no table on purpose.
            return Err(UsageError(format!(
                "'{name}' does not exist: was it written? A census that counts no tree \
                 writes no table (its stderr says so); rerun it, or name a table that exists"
            ))
            .into());
        }
        let mut reader = csv::Reader::from_path(path)
            .map_err(|e| UsageError(format!("reading '{name}': {e}")))?;
        let header: Vec<String> = reader
            .headers()
            .map_err(|e| UsageError(format!("reading '{name}': {e}")))?
            .iter()
            .map(str::to_string)
            .collect();
        if !header.iter().any(|h| h == "repo") {
            return Err(
                UsageError(format!("'{name}' has no 'repo' column: not a census table")).into(),
            );
        }
        let mut rows = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record = record.map_err(|e| UsageError(format!("reading '{name}': {e}")))?;
            if record.len() != header.len() {
                return Err(UsageError(format!(
                    "'{name}' line {}: {} cells where the header has {}",
                    i + 2,
                    record.len(),
                    header.len()
                ))
                .into());
            }
            rows.push(record.iter().map(str::to_string).collect());
        }
        Ok(Sheet { header, rows })
    }

    /// Returns the key a row is matched by: repository (folded), pin, subfolder,
    /// date.
    fn key(&self, row: &[String]) -> Key {
        Key {
            repo: self.cell(row, "repo").to_ascii_lowercase(),
            pinned: self.cell(row, "pinned").to_ascii_lowercase(),
            subfolder: self.cell(row, "subfolder").to_string(),
            as_of: self.cell(row, "as_of").to_string(),
        }
    }

    /// Returns how a person reads the row's tree: `repo`, with `@pin` and
    /// `:subfolder` when the table has them, escaped.
    fn label(&self, row: &[String]) -> String {
        let mut label = self.cell(row, "repo").to_string();
        let pinned = self.cell(row, "pinned");
        if !pinned.is_empty() {
            label = format!("{label}@{pinned}");
        }
        let subfolder = self.cell(row, "subfolder");
        if !subfolder.is_empty() {
            label = format!("{label}:{subfolder}");
        }
        let as_of = self.cell(row, "as_of");
        if !as_of.is_empty() {
            label = format!("{label} as of {as_of}");
        }
        sanitize(label)
    }

    fn column(&self, name: &str) -> Option<usize> {
        self.header.iter().position(|h| h == name)
    }

    fn cell<'a>(&self, row: &'a [String], name: &str) -> &'a str {
        self.column(name).map_or("", |i| row[i].as_str())
    }
}

/// Identifies a row across two tables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct Key {
    repo: String,
    pinned: String,
    subfolder: String,
    as_of: String,
}

/// Holds the outcome of a comparison, for the exit status and the summary.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Tally {
    pub agree: usize,
    pub differ: usize,
    pub not_compared: usize,
    /// Trees whose row is an error in either table.
    pub failed: usize,
    /// Trees in one table only.
    pub unmatched: usize,
}

/// Runs `compare`: prints every tree's comparison and exits 0 only when every
/// shared cell agrees.
pub fn run(args: &CompareArgs) -> Result<ExitStatus> {
    let a = Sheet::read(&args.a)?;
    let b = Sheet::read(&args.b)?;
    let mut out = io::stdout().lock();
    let mut tally = compare(&a, &b, &mut out)?;
    let tools = [tools_beside(&args.a), tools_beside(&args.b)];
    match tools {
        [Some(x), Some(y)] => {
            // A dated census table has a dated tools table beside it.
            let read = |path: &Path, sheet: &Sheet| -> Result<table::tools::ToolsByTree> {
                let name = sanitize(path.display().to_string());
                let file = std::fs::File::open(path)
                    .map_err(|e| UsageError(format!("reading '{name}': {e}")))?;
                table::tools::read_tools(file, &name, sheet.column("as_of").is_some())
                    .map_err(|e| UsageError(format!("{e:#}")).into())
            };
            let t = compare_tools(&read(&x, &a)?, &read(&y, &b)?, &mut out)?;
            tally.agree += t.agree;
            tally.differ += t.differ;
        }
        [Some(path), None] | [None, Some(path)] => writeln!(
            out,
            "tools: not compared: only '{}' has a tools table beside it",
            sanitize(path.display().to_string())
        )?,
        [None, None] => {}
    }
    Ok(
        if tally.differ == 0 && tally.failed == 0 && tally.unmatched == 0 {
            ExitStatus::Ok
        } else {
            ExitStatus::Failed
        },
    )
}

fn compare(a: &Sheet, b: &Sheet, out: &mut dyn Write) -> Result<Tally> {
    let columns: Vec<&str> = a
        .header
        .iter()
        .map(String::as_str)
        .filter(|h| is_count_column(h) && b.column(h).is_some())
        .collect();
    let pairs = pair_rows(a, b);
    let mut tally = Tally::default();
    for (i, row_a) in a.rows.iter().enumerate() {
        let label = a.label(row_a);
        let Some(row_b) = pairs[i].map(|j| &b.rows[j]) else {
            writeln!(out, "{label}: only in the first table")?;
            tally.unmatched += 1;
            continue;
        };
        writeln!(out, "{label}")?;
        let mut is_failed = false;
        for (sheet, row, which) in [(a, row_a, "first"), (b, row_b, "second")] {
            if sheet.cell(row, "status") == "error" {
                writeln!(
                    out,
                    "  no count (error) in the {which} table: {}",
                    sanitize(sheet.cell(row, "error"))
                )?;
                is_failed = true;
            }
        }
        if is_failed {
            tally.failed += 1;
            continue;
        }
        let (commit_a, commit_b) = (a.cell(row_a, "commit"), b.cell(row_b, "commit"));
        if !same_commit(commit_a, commit_b) {
            writeln!(
                out,
                "  commits differ: '{}' and '{}'; counts of different commits are expected to differ",
                sanitize(commit_a),
                sanitize(commit_b)
            )?;
        }
        for column in &columns {
            let (x, y) = (a.cell(row_a, column), b.cell(row_b, column));
            if x.is_empty() || y.is_empty() {
                tally.not_compared += 1;
                continue;
            }
            let (name, x_shown, y_shown) = (sanitize(column), sanitize(x), sanitize(y));
            if x == y {
                tally.agree += 1;
                writeln!(out, "  {name}: {x_shown} agrees")?;
            } else {
                tally.differ += 1;
                writeln!(out, "  {name}: {x_shown} differs from {y_shown}")?;
            }
        }
    }
    let paired: std::collections::HashSet<usize> = pairs.iter().flatten().copied().collect();
    for (j, row_b) in b.rows.iter().enumerate() {
        if !paired.contains(&j) {
            writeln!(out, "{}: only in the second table", b.label(row_b))?;
            tally.unmatched += 1;
        }
    }
    let mut summary = format!(
        "{} agree, {} differ, {} not compared (empty in either table)",
        messages::count(tally.agree, "cell", "cells"),
        tally.differ,
        tally.not_compared
    );
    if tally.failed > 0 {
        summary.push_str(&format!(
            "; {} failed",
            messages::count(tally.failed, "tree", "trees")
        ));
    }
    if tally.unmatched > 0 {
        summary.push_str(&format!(
            "; {} in one table only",
            messages::count(tally.unmatched, "tree", "trees")
        ));
    }
    writeln!(out, "{summary}")?;
    Ok(tally)
}

/// Returns the tools table beside a census table named `census-DATE.csv`, when
/// there is one.
fn tools_beside(census: &Path) -> Option<std::path::PathBuf> {
    let name = census.file_name()?.to_str()?.strip_prefix("census-")?;
    let path = census.with_file_name(format!("tools-{name}"));
    path.is_file().then_some(path)
}

/// Holds what comparing two tools tables found.
#[derive(Debug, Default, PartialEq, Eq)]
struct ToolTally {
    agree: usize,
    differ: usize,
}

/// Returns the key a definition is matched by: its tree (repository and pin folded,
/// as rows are), path, line and name.
type ToolKey = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Vec<u8>,
    u32,
    Option<String>,
);

fn tool_keys(tools: &table::tools::ToolsByTree) -> BTreeMap<ToolKey, &ToolDef> {
    let mut keys = BTreeMap::new();
    for (tree, defs) in tools {
        for def in defs {
            let key = (
                tree.repo.to_ascii_lowercase(),
                tree.pinned.as_deref().map(str::to_ascii_lowercase),
                tree.subfolder.clone(),
                tree.as_of.clone(),
                def.path.clone(),
                def.line,
                def.name.clone(),
            );
            keys.entry(key).or_insert(def);
        }
    }
    keys
}

/// Compares two tools tables definition by definition, printing each difference
/// and a summary line; every hint cell that agrees counts as a cell that agrees.
fn compare_tools(
    a: &table::tools::ToolsByTree,
    b: &table::tools::ToolsByTree,
    out: &mut dyn Write,
) -> Result<ToolTally> {
    let (a, b) = (tool_keys(a), tool_keys(b));
    let mut tally = ToolTally::default();
    let label = |key: &ToolKey| {
        let mut tree = key.0.clone();
        if let Some(pin) = &key.1 {
            tree = format!("{tree}@{pin}");
        }
        if let Some(sub) = &key.2 {
            tree = format!("{tree}:{sub}");
        }
        if let Some(date) = &key.3 {
            tree = format!("{tree} as of {date}");
        }
        sanitize(format!(
            "{tree} {}:{} tool '{}'",
            String::from_utf8_lossy(&key.4),
            key.5,
            key.6.as_deref().unwrap_or("")
        ))
    };
    for (key, x) in &a {
        let Some(y) = b.get(key) else {
            writeln!(out, "{}: only in the first tools table", label(key))?;
            tally.differ += 1;
            continue;
        };
        for (i, hint) in Hint::ALL.iter().enumerate() {
            let (p, q) = (
                table::tools::hint_cell(x.hints[i]),
                table::tools::hint_cell(y.hints[i]),
            );
            if p == q {
                tally.agree += 1;
            } else {
                tally.differ += 1;
                let shown = |c: &str| {
                    if c.is_empty() {
                        "absent".to_string()
                    } else {
                        c.to_string()
                    }
                };
                writeln!(
                    out,
                    "{}: {} {} differs from {}",
                    label(key),
                    hint.name(),
                    shown(p),
                    shown(q)
                )?;
            }
        }
        if x.family != y.family {
            tally.differ += 1;
            writeln!(
                out,
                "{}: sdk {} differs from {}",
                label(key),
                x.family.as_str(),
                y.family.as_str()
            )?;
        }
    }
    for key in b.keys().filter(|k| !a.contains_key(*k)) {
        writeln!(out, "{}: only in the second tools table", label(key))?;
        tally.differ += 1;
    }
    writeln!(
        out,
        "tools: {} definitions in the first table, {} in the second; {} hint cells agree, {} differ",
        a.len(),
        b.len(),
        tally.agree,
        tally.differ
    )?;
    Ok(tally)
}

/// Returns, for each row of `a`, the row of `b` it is compared with.
///
/// Rows pair by their full key (repository, pin, subfolder, date). A row left over
/// pairs with the one row left over in the other table that has its repository and
/// subfolder, when there is exactly one on each side: a rerun at a new pin is then
/// compared with the old figures (and its commits are reported as different),
/// while a repository at two pins or two dates in both tables still pairs one by
/// one.
fn pair_rows(a: &Sheet, b: &Sheet) -> Vec<Option<usize>> {
    let mut b_keys: HashMap<Key, usize> = HashMap::new();
    for (j, row) in b.rows.iter().enumerate() {
        b_keys.entry(b.key(row)).or_insert(j);
    }
    let mut pairs: Vec<Option<usize>> = a
        .rows
        .iter()
        .map(|row| b_keys.remove(&a.key(row)))
        .collect();
    let loose = |key: Key| (key.repo, key.subfolder);
    let mut a_left: HashMap<(String, String), Vec<usize>> = HashMap::new();
    for (i, row) in a.rows.iter().enumerate() {
        if pairs[i].is_none() {
            a_left.entry(loose(a.key(row))).or_default().push(i);
        }
    }
    let mut b_left: HashMap<(String, String), Vec<usize>> = HashMap::new();
    for (key, j) in b_keys {
        b_left.entry(loose(key)).or_default().push(j);
    }
    for (key, rows_a) in a_left {
        if let (&[i], Some(&[j])) = (rows_a.as_slice(), b_left.get(&key).map(Vec::as_slice)) {
            pairs[i] = Some(j);
        }
    }
    pairs
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
                failed: 0,
                unmatched: 0
            },
            "{text}"
        );
        assert!(text.contains("x: 1 differs from 2"), "{text}");
        assert!(!text.contains("commits differ"), "{text}");
    }

    #[test]
    fn dated_rows_pair_date_by_date_and_an_older_table_still_reads() {
        let a = sheet(
            "repo,pinned,subfolder,as_of,commit,x,status\n\
             o/a,c1,,2025-06-01,c1,1,ok\no/a,c1,,2025-09-01,c1,1,ok\no/a,c2,,2025-12-01,c2,5,ok\n",
        );
        let b = sheet(
            "repo,pinned,subfolder,as_of,commit,x,status\n\
             o/a,c2,,2025-12-01,c2,5,ok\no/a,c1,,2025-09-01,c1,2,ok\no/a,c1,,2025-06-01,c1,1,ok\n",
        );
        let mut out = Vec::new();
        let tally = compare(&a, &b, &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            (tally.agree, tally.differ, tally.unmatched),
            (2, 1, 0),
            "{text}"
        );
        assert!(
            text.contains("o/a@c1 as of 2025-09-01\n  x: 1 differs from 2"),
            "{text}"
        );
        let old = sheet("repo,pinned,subfolder,commit,x,status\no/a,c2,,c2,5,ok\n");
        let one =
            sheet("repo,pinned,subfolder,as_of,commit,x,status\no/a,c2,,2025-12-01,c2,5,ok\n");
        let mut out = Vec::new();
        let tally = compare(&old, &one, &mut out).unwrap();
        assert_eq!((tally.agree, tally.unmatched), (1, 0));
    }
}
