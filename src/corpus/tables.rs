//! Reads a corpus's tables back whole: the census table of each shard (or of one
//! run), with the files and tools tables beside it, joined into one [`Table`] of
//! every tree of the corpus, as `merge` writes it and `survey` reads it.

use std::collections::HashMap;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::file::Corpus;
use crate::table::tools::JoinError;
use crate::table::{self, Row, Table, TreeKey};

/// Returns the table of the whole corpus from shard tables; fails unless every tree
/// is found exactly once and every table has the corpus's columns and one date.
pub fn merge(corpus: &Corpus, tables: &[PathBuf]) -> Result<Table> {
    let index: HashMap<TreeKey, usize> = corpus
        .trees
        .iter()
        .enumerate()
        .map(|(i, tree)| (tree.key(), i))
        .collect();
    let mut date: Option<String> = None;
    let mut found: Vec<Option<(Row, PathBuf)>> = vec![None; corpus.trees.len()];
    for path in tables {
        let name = path.display().to_string();
        let file = File::open(path).with_context(|| format!("reading '{name}'"))?;
        let read = table::read_census(file, &name, &corpus.columns, corpus.is_dated())?;
        let files_path = beside(path, "files")?;
        let files_name = files_path.display().to_string();
        let file = File::open(&files_path).with_context(|| format!("reading '{files_name}'"))?;
        let mut files = table::read_files(file, &files_name, &corpus.columns, corpus.is_dated())?;
        let tools_path = beside(path, "tools")?;
        let tools_name = tools_path.display().to_string();
        let file = File::open(&tools_path).with_context(|| format!("reading '{tools_name}'"))?;
        let mut tools = table::tools::read_tools(file, &tools_name, corpus.is_dated())?;
        let rows = read.rows.into_iter().zip(read.dates).zip(read.tool_counts);
        for (((line, mut row), row_date), tool_counts) in rows {
            let at = || format!("'{name}' line {line}");
            let label = row.key.label();
            let Some(&i) = index.get(&row.key) else {
                bail!("{}: '{label}' is not a tree of the corpus", at());
            };
            if let Some((_, first)) = &found[i] {
                bail!(
                    "{}: '{label}' is also in '{}'; a tree must be in one shard only",
                    at(),
                    first.display()
                );
            }
            match &date {
                Some(d) if *d != row_date => {
                    bail!("{}: dated {row_date}, but other rows are dated {d}", at())
                }
                _ => date = Some(row_date),
            }
            row.note = corpus.trees[i].note.clone();
            row.server = corpus.trees[i].name.clone();
            match table::tools::join_row(&mut row, tool_counts, &mut files, &mut tools) {
                Ok(()) => {}
                Err(JoinError::ToolCountsDisagree { said, listed }) => bail!(
                    "{}: '{label}' says {} tools, {} annotated, but '{tools_name}' lists {} \
                     tools, {} annotated",
                    at(),
                    said[0],
                    said[1],
                    listed[0],
                    listed[1]
                ),
                Err(JoinError::ToolsWithoutCount) => bail!(
                    "'{tools_name}' lists tools of '{label}', whose row in '{name}' line {line} \
                     has no tool count"
                ),
            }
            found[i] = Some((row, path.clone()));
        }
        files.clear();
        if let Some((key, _)) = tools.into_iter().next() {
            bail!(
                "'{tools_name}' lists tools of '{}', which has no counted row in '{name}'",
                key.label()
            );
        }
    }
    let missing: Vec<String> = corpus
        .trees
        .iter()
        .zip(&found)
        .filter(|(_, f)| f.is_none())
        .map(|(t, _)| format!("'{}'", t.label()))
        .collect();
    if !missing.is_empty() {
        bail!(
            "{} of {} trees are in no shard: {}",
            missing.len(),
            corpus.trees.len(),
            missing.join(", ")
        );
    }
    Ok(Table {
        columns: corpus.columns.clone(),
        date: date.unwrap_or_default(),
        rows: found.into_iter().flatten().map(|(row, _)| row).collect(),
        dating: corpus.dating(),
        packages: corpus.shipped(),
    })
}

/// Returns `KIND-DATE.csv` (the files or tools table) beside `census-DATE.csv`.
fn beside(census: &Path, kind: &str) -> Result<PathBuf> {
    let name = census
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("census-"))
        .with_context(|| {
            format!(
                "'{}' is not named census-DATE.csv, so its {kind} table cannot be found",
                census.display()
            )
        })?;
    Ok(census.with_file_name(format!("{kind}-{name}")))
}
