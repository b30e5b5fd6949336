//! Census tables read back for the survey: each tree of a corpus with its outcome
//! (the hint names it spells, its tools), the skipped list beside the corpus, and
//! the two series "Over time" reads, every version of what ships and the
//! repositories at past dates. It computes no figure; `entries` and `over_time` do.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use anyhow::{Context, Result};

use crate::corpus::file;
use crate::infra::error::UsageError;
use crate::table::Table;
use crate::tools::hints::Hint;

use super::over_time;

/// Holds a package's counted row of the census of what ships.
#[derive(Clone, Debug)]
pub(super) struct Counted {
    pub hints: usize,
    /// Which of the four hint names it spells, in `Hint::ALL` order.
    pub spelled: [bool; 4],
    pub tools: Option<(u64, u64)>,
}

/// Holds one tree of a census read back: its server names (the corpus's `name`,
/// space-separated for a package several entries name, and those its note also
/// lists), the tree's repo, and its outcome.
pub(super) struct Read {
    /// The servers the tree stands for.
    pub servers: Vec<String>,
    pub repo: String,
    /// The pin: a package's version.
    pub pinned: Option<String>,
    /// Whether the tree is a family member, standing for its packages' servers.
    pub is_member: bool,
    pub outcome: Result<Counted, String>,
}

/// Reads a corpus and its census table (with the files and tools tables beside it,
/// as `merge` reads a shard): each tree's servers and outcome (how many of the four
/// hint names it spells, its tools), the skipped list beside the corpus
/// (`STEM-skipped.csv`) as records of cells, and the table itself.
pub(super) fn read_census(
    corpus_path: &Path,
    table_path: &Path,
) -> Result<(Vec<Read>, Vec<Vec<String>>, Table)> {
    let corpus = file::load(Some(corpus_path))?;
    let mut table = crate::corpus::tables::merge(&corpus, &[table_path.to_path_buf()])
        .map_err(|e| UsageError(format!("{e:#}")))?;
    super::family::lend_servers(&mut table);
    let hint_at: Vec<usize> = Hint::ALL
        .iter()
        .filter_map(|h| corpus.columns.names().position(|n| n == h.name()))
        .collect();
    // A tree stands for the server it is named after and those its note also lists.
    let mut also: HashMap<&str, Vec<&str>> = HashMap::new();
    for tree in &corpus.trees {
        if let (Some(name), Some(note)) = (&tree.name, &tree.note) {
            also.entry(name.as_str())
                .or_default()
                .extend(crate::corpus::build::also_listed(note));
        }
    }
    let out = table
        .rows
        .iter()
        .map(|row| Read {
            servers: row
                .server
                .as_deref()
                .unwrap_or_default()
                .split(' ')
                .flat_map(|name| {
                    std::iter::once(name).chain(also.get(name).into_iter().flatten().copied())
                })
                .filter(|name| !name.is_empty())
                .map(str::to_string)
                .collect(),
            repo: row.key.repo.clone(),
            pinned: row.key.pinned.clone(),
            is_member: super::family::is_member(&table, &row.key),
            outcome: match &row.outcome {
                Ok(c) => Ok(Counted {
                    hints: hint_at.iter().filter(|&&i| c.count.counts[i] > 0).count(),
                    spelled: std::array::from_fn(|h| {
                        hint_at.get(h).is_some_and(|&i| c.count.counts[i] > 0)
                    }),
                    tools: c.tool_counts().map(|t| (t[0], t[1])),
                }),
                Err(f) => Err(f.why.clone()),
            },
        })
        .collect();
    let stem = corpus_path
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    let skipped = corpus_path.with_file_name(format!("{stem}-skipped.csv"));
    let mut records = Vec::new();
    if let Ok(mut reader) = csv::Reader::from_path(&skipped) {
        for record in reader.records() {
            let record = record.with_context(|| format!("reading '{}'", skipped.display()))?;
            records.push(record.iter().map(str::to_string).collect());
        }
    }
    Ok((out, records, table))
}

/// Returns cell `i` of a record, empty when it has none.
pub(super) fn cell(record: &[String], i: usize) -> String {
    record.get(i).cloned().unwrap_or_default()
}

/// Reads the census of what ships at every version, `corpus` and its `table`:
/// each counted package version, by its folded `REGISTRY:NAME` and version. A
/// family member's tools and the names it spells are its packages' too, as in the
/// survey's other figures; a member is not a version of its own.
pub(super) fn read_versions(
    corpus: &Path,
    table: &Path,
) -> Result<BTreeMap<(String, String), over_time::Version>> {
    let (trees, _, table) = read_census(corpus, table)?;
    let key = |repo: &str, pinned: &str| (over_time::fold(repo), pinned.to_string());
    let mut versions = BTreeMap::new();
    let mut members = Vec::new();
    for (tree, row) in trees.into_iter().zip(&table.rows) {
        let (Ok(counted), Some(pinned)) = (tree.outcome, tree.pinned) else {
            continue;
        };
        let version = over_time::Version {
            spelled: counted.spelled,
            tools: counted.tools,
        };
        match table
            .packages
            .get(&row.key)
            .filter(|p| !p.family.is_empty())
        {
            Some(package) => members.push((package.family.clone(), version)),
            None => {
                versions.insert(key(&tree.repo, &pinned), version);
            }
        }
    }
    for (family, member) in members {
        for parent in family
            .split(' ')
            .filter_map(|of| super::family::parent_key(of, None))
        {
            let Some(pinned) = parent.pinned.as_deref() else {
                continue;
            };
            if let Some(version) = versions.get_mut(&key(&parent.repo, pinned)) {
                version.add(&member);
            }
        }
    }
    Ok(versions)
}

/// Reads the census of the repositories at past dates, `corpus` and its `table`:
/// each tree's date and what it counted, and how many trees had no commit yet at
/// each date. A tree whose subfolder held no file at a date before `date` (the
/// listing's) is *not yet* too: the server's folder was not there yet, or not there
/// yet under that name. At `date` itself it failed, as in the repositories' census.
pub(super) fn read_history(
    corpus: &Path,
    table: &Path,
    date: &str,
) -> Result<(Vec<over_time::DatedTree>, BTreeMap<String, u64>)> {
    let (trees, _, table) = read_census(corpus, table)?;
    let mut not_yet = BTreeMap::new();
    let dated = trees
        .into_iter()
        .zip(&table.rows)
        .filter_map(|(tree, row)| {
            let as_of = row.key.as_of.clone()?;
            let version = match tree.outcome {
                Ok(c) => Some(over_time::Version {
                    spelled: c.spelled,
                    tools: c.tools,
                }),
                Err(why) if as_of.as_str() < date && is_no_subfolder(&why) => {
                    *not_yet.entry(as_of).or_insert(0) += 1;
                    return None;
                }
                Err(_) => None,
            };
            Some((as_of, version))
        })
        .collect();
    for tree in file::load(Some(corpus))?.not_yet {
        *not_yet.entry(tree.as_of).or_insert(0) += 1;
    }
    Ok((dated, not_yet))
}

/// Returns true for the census's failure of a subfolder that holds no file of its
/// archive, as a table keeps it (its message alone).
fn is_no_subfolder(why: &str) -> bool {
    why.starts_with("subfolder '") && why.contains("' matches no file of the archive")
}
