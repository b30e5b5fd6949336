//! Splits a census across machines and joins the pieces exactly.
//!
//! `census --shard K/N` counts the trees at positions K, K+N, K+2N, ... of the
//! corpus, so that N jobs of any batch engine (a Slurm array, a CI matrix, GNU
//! parallel) cover it once. `merge` reads the shards' tables back, checks that every
//! tree of the corpus is there exactly once with the same columns and date, and writes
//! the tables a single run would have written, byte for byte. It counts nothing.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::census;
use crate::cli::MergeArgs;
use crate::corpus::{self, Corpus};
use crate::count::{FileHit, TreeCount};
use crate::report::{self, CommitSource, Counted, Row, Table};
use crate::{ExitStatus, UsageError};

/// Holds one shard of N: trees whose 1-based position p has `(p - 1) % n == k - 1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub k: usize,
    pub n: usize,
}

impl Shard {
    /// Parses `K/N` with 1 <= K <= N.
    pub fn parse(text: &str) -> std::result::Result<Shard, UsageError> {
        let bad = || UsageError(format!("--shard '{text}' is not K/N with 1 <= K <= N"));
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (k, n): (usize, usize) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if k == 0 || k > n {
            return Err(bad());
        }
        Ok(Shard { k, n })
    }

    /// Returns the corpus restricted to this shard's trees, in corpus order.
    pub fn select(self, corpus: &Corpus) -> Corpus {
        Corpus {
            trees: corpus
                .trees
                .iter()
                .enumerate()
                .filter(|(i, _)| i % self.n == self.k - 1)
                .map(|(_, tree)| tree.clone())
                .collect(),
            ..corpus.clone()
        }
    }
}

/// Runs `merge`: joins shard tables into the whole corpus's tables.
pub fn run(args: &MergeArgs) -> Result<ExitStatus> {
    let corpus = corpus::load(args.corpus.as_deref())?;
    let table = merge(&corpus, &args.tables)?;
    census::write_tables(&args.out, &table)?;
    report::print_table(std::io::stdout().lock(), &table)?;
    Ok(if table.rows.iter().any(|r| r.outcome.is_err()) {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}

/// Returns the table of the whole corpus from shard tables; fails unless every tree
/// is found exactly once and every table has the corpus's columns and one date.
pub fn merge(corpus: &Corpus, tables: &[PathBuf]) -> Result<Table> {
    let header = report::census_header(&Table {
        terms: corpus.terms.clone(),
        controls: corpus.controls.clone(),
        date: String::new(),
        rows: Vec::new(),
    });
    let width = corpus.terms.len() + corpus.controls.len();
    let mut date: Option<String> = None;
    let mut found: Vec<Option<(Row, PathBuf)>> = vec![None; corpus.trees.len()];
    for path in tables {
        let rows = read_rows(path, &header)?;
        let files = read_files(&files_path(path)?, width)?;
        for (line, cells) in rows {
            let at = || format!("'{}' line {line}", path.display());
            let (repo, pinned) = (&cells[0], &cells[1]);
            let Some(index) = corpus
                .trees
                .iter()
                .position(|t| &t.repo == repo && &t.commit == pinned)
            else {
                bail!("{}: '{repo}@{pinned}' is not a tree of the corpus", at());
            };
            if let Some((_, first)) = &found[index] {
                bail!(
                    "{}: '{repo}@{pinned}' is also in '{}'; a tree must be in one shard only",
                    at(),
                    first.display()
                );
            }
            let row_date = &cells[6 + width + 1];
            match &date {
                Some(d) if d != row_date => {
                    bail!("{}: dated {row_date}, but other rows are dated {d}", at())
                }
                _ => date = Some(row_date.clone()),
            }
            let mut row = parse_row(&cells, width).with_context(at)?;
            row.note = corpus.trees[index].note.clone();
            if let Ok(counted) = &mut row.outcome {
                counted.count.files = files
                    .iter()
                    .filter(|(r, _)| r == repo)
                    .map(|(_, hit)| hit.clone())
                    .collect();
            }
            found[index] = Some((row, path.clone()));
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
        terms: corpus.terms.clone(),
        controls: corpus.controls.clone(),
        date: date.unwrap_or_default(),
        rows: found.into_iter().flatten().map(|(row, _)| row).collect(),
    })
}

/// Returns `files-DATE.csv` beside `census-DATE.csv`.
fn files_path(census: &Path) -> Result<PathBuf> {
    let name = census
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("census-"))
        .with_context(|| {
            format!(
                "'{}' is not named census-DATE.csv, so its files table cannot be found",
                census.display()
            )
        })?;
    Ok(census.with_file_name(format!("files-{name}")))
}

/// Reads a census table, checking its header; returns (line, cells) per row.
fn read_rows(path: &Path, header: &[String]) -> Result<Vec<(usize, Vec<String>)>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("reading '{}'", path.display()))?;
    let got: Vec<&str> = reader
        .headers()
        .with_context(|| format!("reading '{}'", path.display()))?
        .iter()
        .collect();
    if got != header {
        bail!(
            "'{}' has the columns '{}', but the corpus gives '{}'",
            path.display(),
            got.join(","),
            header.join(",")
        );
    }
    let mut rows = Vec::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("reading '{}'", path.display()))?;
        rows.push((i + 2, record.iter().map(str::to_string).collect()));
    }
    Ok(rows)
}

/// Reads a files table: (repo, hit) per row, paths kept as raw bytes.
fn read_files(path: &Path, width: usize) -> Result<Vec<(String, FileHit)>> {
    let mut reader =
        csv::Reader::from_path(path).with_context(|| format!("reading '{}'", path.display()))?;
    let mut hits = Vec::new();
    for (i, record) in reader.byte_records().enumerate() {
        let at = || format!("'{}' line {}", path.display(), i + 2);
        let record = record.with_context(at)?;
        if record.len() != 4 + width {
            bail!("{}: {} cells, expected {}", at(), record.len(), 4 + width);
        }
        let number = |cell: &[u8]| -> Result<u64> {
            std::str::from_utf8(cell)
                .ok()
                .and_then(|s| s.parse().ok())
                .with_context(|| {
                    format!(
                        "{}: '{}' is not a count",
                        at(),
                        String::from_utf8_lossy(cell)
                    )
                })
        };
        let repo = String::from_utf8_lossy(&record[0]).into_owned();
        let hit = FileHit {
            path: record[2].to_vec(),
            bytes: number(&record[3])?,
            counts: (4..4 + width)
                .map(|j| number(&record[j]))
                .collect::<Result<_>>()?,
        };
        hits.push((repo, hit));
    }
    Ok(hits)
}

/// Returns the row a census table line describes (without its file hits).
fn parse_row(cells: &[String], width: usize) -> Result<Row> {
    let number = |i: usize| -> Result<u64> {
        cells[i]
            .parse()
            .with_context(|| format!("'{}' is not a count", cells[i]))
    };
    let status = cells[6 + width + 2].as_str();
    let outcome = match status {
        "ok" => {
            let commit_source = match cells[3].as_str() {
                "archive" => CommitSource::Archive,
                "pinned" => CommitSource::Pinned,
                other => bail!("'{other}' is not a census commit source"),
            };
            Ok(Counted {
                commit: cells[2].clone(),
                commit_source,
                count: TreeCount {
                    files_walked: number(4)?,
                    bytes_read: number(5)?,
                    counts: (6..6 + width).map(number).collect::<Result<_>>()?,
                    files: Vec::new(),
                },
                sha256: cells[6 + width].clone(),
            })
        }
        "error" => Err(cells[6 + width + 3].clone()),
        other => bail!("status '{other}' is neither ok nor error"),
    };
    Ok(Row {
        repo: cells[0].clone(),
        pinned: cells[1].clone(),
        note: None,
        outcome,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shards_parse_and_cover_the_corpus_once() {
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { k: 2, n: 3 });
        for bad in ["0/3", "4/3", "3", "a/b", "1/0"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
        let corpus = corpus::parse("c", corpus::PUBLISHED).unwrap();
        let mut seen: Vec<String> = (1..=3)
            .flat_map(|k| Shard { k, n: 3 }.select(&corpus).trees)
            .map(|t| t.label())
            .collect();
        seen.sort();
        let mut all: Vec<String> = corpus.trees.iter().map(|t| t.label()).collect();
        all.sort();
        assert_eq!(seen, all);
    }
}
