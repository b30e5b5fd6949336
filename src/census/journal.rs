//! The journal of a census run (`--resume`): every tree counted is appended to
//! `OUT/census.journal` as soon as its count is done, so that a run that was
//! killed or crashed, started again with the same command, counts only the trees
//! the journal does not hold, and writes the tables an uninterrupted run writes,
//! byte for byte.
//!
//! A line is one JSON object: the tree's cells of the census, files and tools
//! tables, exactly as the table schema writes them (`table`), so that reading a
//! line back goes through the same schema as `merge` reading a table. The first
//! line names the run (corpus, date, columns, options that change a row): a journal
//! of another run is refused, never mixed in. Each line is written with one append
//! and flushed to the disk (`fsync`) before the next tree is recorded; a line cut
//! short by a kill is the last one, and it is dropped and its tree counted again.
//! That file side is `infra::journal`'s, which the wire survey's journal shares.
//! Only counted trees are recorded: a tree that failed is tried again on the rerun.
//! This module reads and writes the journal; it counts nothing.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::corpus::file::Corpus;
use crate::count::terms::Columns;
use crate::infra::error::UsageError;
use crate::infra::journal::{self, Appender};
use crate::infra::messages;
use crate::infra::sanitize::sanitize;
use crate::table::{self, Row, TreeKey};
use crate::tools::Roles;

/// The journal's file name, in the census's output folder.
pub const FILE_NAME: &str = "census.journal";

/// What the first line says, so that a journal from another program is not read.
const MAGIC: &str = "mcp-hint-census census journal";
/// The journal's format; a journal of another version is refused.
const VERSION: u32 = 2;

/// Holds the first line: what the run counts, in words a person compares, and a
/// fingerprint of everything that shapes a row.
#[derive(Debug, Serialize, Deserialize, PartialEq, Eq)]
struct Head {
    journal: String,
    version: u32,
    corpus: String,
    trees: usize,
    date: String,
    /// The roles the tool finder read (`--tool-roles`), empty with `--no-tools`.
    tools: String,
    fingerprint: String,
}

/// Holds one counted tree: its cells in the three tables.
#[derive(Debug, Serialize, Deserialize)]
struct Line {
    /// The tree's label, for a person reading the journal.
    tree: String,
    census: Vec<String>,
    files: Vec<Vec<Cell>>,
    tools: Vec<Vec<Cell>>,
}

/// Holds a cell of raw bytes: a string when the bytes are UTF-8, else the bytes.
#[derive(Debug, Serialize, Deserialize)]
#[serde(untagged)]
enum Cell {
    Text(String),
    Bytes(Vec<u8>),
}

impl Cell {
    fn of(bytes: Vec<u8>) -> Cell {
        match String::from_utf8(bytes) {
            Ok(text) => Cell::Text(text),
            Err(e) => Cell::Bytes(e.into_bytes()),
        }
    }

    fn as_bytes(&self) -> &[u8] {
        match self {
            Cell::Text(text) => text.as_bytes(),
            Cell::Bytes(bytes) => bytes,
        }
    }
}

/// Describes the run a journal belongs to.
pub struct RunId<'a> {
    pub corpus: &'a Corpus,
    pub date: &'a str,
    pub find_tools: Option<Roles>,
    /// `--max-archive`: a tree over it fails, so it changes rows.
    pub max_archive: u64,
}

impl RunId<'_> {
    fn head(&self) -> Head {
        let mut hash = Sha256::new();
        let mut put = |text: &str| {
            hash.update(text.len().to_le_bytes());
            hash.update(text.as_bytes());
        };
        put(&VERSION.to_string());
        put(self.date);
        put(&tools_cell(self.find_tools));
        put(&self.max_archive.to_string());
        for name in self.corpus.columns.names() {
            put(name);
        }
        for tree in &self.corpus.trees {
            put(&tree.key().label());
            put(&tree.archive_url);
            put(tree.name.as_deref().unwrap_or(""));
        }
        Head {
            journal: MAGIC.to_string(),
            version: VERSION,
            corpus: self.corpus.source.clone(),
            trees: self.corpus.trees.len(),
            date: self.date.to_string(),
            tools: tools_cell(self.find_tools),
            fingerprint: hash.finalize().iter().map(|b| format!("{b:02x}")).collect(),
        }
    }
}

/// Returns how a journal names the tool finder's setting: the roles it reads, or
/// empty when it is off.
fn tools_cell(find_tools: Option<Roles>) -> String {
    find_tools.map_or(String::new(), Roles::as_list)
}

/// Appends counted trees to a journal file.
pub struct Journal {
    appender: Appender,
    columns: Columns,
    date: String,
    is_dated: bool,
}

/// Returns the journal's path in the output folder `out`.
pub fn path_in(out: &Path) -> PathBuf {
    out.join(FILE_NAME)
}

/// Opens the journal at `path` for the run `run`, creating it when there is none,
/// and returns it with the rows it already holds, keyed by tree.
///
/// A journal of another run (another corpus, date, column set or option that
/// changes a row) is a [`UsageError`] naming what differs. A last line cut short
/// is dropped from the file, with a note; a line that does not read as a row is
/// ignored, with a note naming it, and its tree is counted again.
pub fn open(path: &Path, run: &RunId<'_>) -> Result<(Journal, HashMap<TreeKey, Row>)> {
    let shown = sanitize(path.display().to_string());
    let head = run.head();
    let (appender, lines) = journal::open(
        path,
        &head,
        |first| check_head(first, &head, &shown),
        "its tree is counted again",
        "count its trees again",
    )?;
    let journal = Journal {
        appender,
        columns: run.corpus.columns.clone(),
        date: run.date.to_string(),
        is_dated: run.corpus.is_dated(),
    };
    let trees: HashMap<TreeKey, usize> = run
        .corpus
        .trees
        .iter()
        .enumerate()
        .map(|(i, tree)| (tree.key(), i))
        .collect();
    let mut rows = HashMap::new();
    for (number, line) in lines {
        match journal.read_line(&line).and_then(|row| {
            let at = trees
                .get(&row.key)
                .copied()
                .with_context(|| format!("'{}' is not a tree of the corpus", row.key.label()))?;
            Ok((at, row))
        }) {
            Ok((at, mut row)) => {
                let tree = &run.corpus.trees[at];
                row.note = tree.note.clone();
                row.server = tree.name.clone();
                rows.insert(row.key.clone(), row);
            }
            Err(e) => messages::warning(format!(
                "'{shown}' line {number} is not a counted tree ({}), so it is ignored and its \
                 tree counted again",
                sanitize(format!("{e:#}"))
            )),
        }
    }
    Ok((journal, rows))
}

/// Fails unless `line` is the head of a journal of the run `head` describes.
fn check_head(line: &[u8], head: &Head, shown: &str) -> Result<()> {
    let refuse = |why: String| {
        anyhow::Error::new(UsageError(format!(
            "'{shown}' is the journal of another census: {why}; remove it to count from the \
             start, or rerun with the options it was written with"
        )))
    };
    let Ok(found) = serde_json::from_slice::<Head>(line) else {
        return Err(anyhow::Error::new(UsageError(format!(
            "'{shown}' is not a census journal (its first line is not a journal's head); \
             remove it or choose another --out"
        ))));
    };
    if found.journal != MAGIC || found.version != VERSION {
        return Err(refuse(format!(
            "it is a journal of format {}, this version writes {VERSION}",
            found.version
        )));
    }
    if found.corpus != head.corpus || found.trees != head.trees {
        return Err(refuse(format!(
            "it was written for the corpus '{}' of {} trees, this run counts '{}' of {} trees",
            sanitize(&found.corpus),
            found.trees,
            sanitize(&head.corpus),
            head.trees
        )));
    }
    if found.date != head.date {
        return Err(refuse(format!(
            "it was written for the date {}, this run is dated {} (--date)",
            sanitize(&found.date),
            head.date
        )));
    }
    if found.tools != head.tools {
        let on = |roles: &str| match roles {
            "" => "off (--no-tools)".to_string(),
            roles => format!("on, reading {roles} (--tool-roles)"),
        };
        return Err(refuse(format!(
            "it was written with the tool finder {}, this run has it {}",
            on(&found.tools),
            on(&head.tools)
        )));
    }
    if found.fingerprint != head.fingerprint {
        return Err(refuse(
            "its corpus had other trees, columns or archive URLs, or another --max-archive"
                .to_string(),
        ));
    }
    Ok(())
}

impl Journal {
    /// Returns where the journal is.
    pub fn path(&self) -> &Path {
        self.appender.path()
    }

    /// Appends the counted rows of `rows` (a failed one is not recorded), each as one
    /// line flushed to the disk. A write that fails is reported once; the run goes on
    /// without a journal, since its tables are still right.
    pub fn record<'r>(&self, rows: impl IntoIterator<Item = &'r Row>) {
        self.appender.append(
            rows.into_iter()
                .filter(|r| r.outcome.is_ok())
                .map(|row| self.line(row)),
        );
    }

    /// Returns the line of a counted row, without its line break.
    fn line(&self, row: &Row) -> Result<String> {
        let files = table::files_records(row, self.is_dated)
            .map(|record| Ok(record?.into_iter().map(Cell::of).collect()))
            .collect::<Result<Vec<Vec<Cell>>>>()?;
        let tools = table::tools::tools_records(row, self.is_dated)
            .into_iter()
            .map(|record| record.into_iter().map(Cell::of).collect())
            .collect();
        let line = Line {
            tree: row.key.label(),
            census: table::census_record(row, self.columns.len(), &self.date, self.is_dated),
            files,
            tools,
        };
        Ok(serde_json::to_string(&line)?)
    }

    /// Returns the counted row a line holds, read back through the table schema
    /// (without its note, which the corpus gives).
    fn read_line(&self, bytes: &[u8]) -> Result<Row> {
        let line: Line = serde_json::from_slice(bytes).context("not a journal row")?;
        let columns_of = |records: &mut dyn Iterator<Item = Vec<&[u8]>>, header: Vec<String>| {
            let mut w = csv::Writer::from_writer(Vec::new());
            w.write_record(header)?;
            for record in records {
                w.write_record(record)?;
            }
            w.into_inner().map_err(|e| anyhow::anyhow!("{e}"))
        };
        // The columns: the journal's head vouched that they are the corpus's.
        let columns = &self.columns;
        let census = columns_of(
            &mut std::iter::once(line.census.iter().map(|c| c.as_bytes()).collect()),
            table::census_header(columns, self.is_dated, &[]),
        )?;
        let read = table::read_census(&census[..], "the row", columns, self.is_dated)?;
        let (mut row, tool_counts) = match (read.rows.into_iter().next(), read.tool_counts.first())
        {
            (Some((_, row)), Some(&counts)) => (row, counts),
            _ => anyhow::bail!("no census cells"),
        };
        let files = columns_of(
            &mut line
                .files
                .iter()
                .map(|r| r.iter().map(Cell::as_bytes).collect()),
            table::files_header(columns, self.is_dated),
        )?;
        let mut files = table::read_files(&files[..], "the row's files", columns, self.is_dated)?;
        let tools = columns_of(
            &mut line
                .tools
                .iter()
                .map(|r| r.iter().map(Cell::as_bytes).collect()),
            table::tools::tools_header(self.is_dated),
        )?;
        let mut tools = table::tools::read_tools(&tools[..], "the row's tools", self.is_dated)?;
        if row.outcome.is_err() {
            anyhow::bail!("a failed row");
        }
        match table::tools::join_row(&mut row, tool_counts, &mut files, &mut tools) {
            Ok(()) => {}
            Err(table::tools::JoinError::ToolCountsDisagree { .. }) => {
                anyhow::bail!("its tool count disagrees with its tools")
            }
            Err(table::tools::JoinError::ToolsWithoutCount) => {
                anyhow::bail!("tools without a tool count")
            }
        }
        if !files.is_empty() || !tools.is_empty() {
            anyhow::bail!("cells of another tree");
        }
        Ok(row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::count::TreeCount;
    use crate::infra::error::FailureKind;
    use crate::table::{CommitSource, Counted, Failure};
    use crate::tools::FoundTools;

    fn corpus(trees: &[&str]) -> Corpus {
        let mut text = "[census]\narchive_url = \"http://127.0.0.1:9/{repo}\"\n".to_string();
        for repo in trees {
            text.push_str(&format!(
                "\n[[tree]]\nrepo = \"{repo}\"\ncommit = \"abcd\"\n"
            ));
        }
        crate::corpus::file::parse("c.toml", &text).expect("the test's corpus parses")
    }

    fn counted(corpus: &Corpus, at: usize, path: &[u8]) -> Row {
        let mut count = TreeCount::new(corpus.columns.len());
        let mut hits = vec![0; corpus.columns.len()];
        hits[0] = at as u64 + 1;
        count.add_file(|| path.to_vec(), 10, &hits);
        Row {
            key: corpus.trees[at].key(),
            server: None,
            note: None,
            outcome: Ok(Counted {
                commit: "abcd".repeat(10),
                commit_source: CommitSource::Archive,
                count,
                sha256: "0".repeat(64),
                tools: Some(FoundTools {
                    tools: Vec::new(),
                    skipped_files: 1,
                }),
            }),
        }
    }

    fn run<'a>(corpus: &'a Corpus, date: &'a str, find_tools: bool) -> RunId<'a> {
        RunId {
            corpus,
            date,
            find_tools: find_tools.then_some(Roles::SOURCE),
            max_archive: 1 << 30,
        }
    }

    #[test]
    fn counted_rows_read_back_and_failed_ones_are_not_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        let c = corpus(&["o/a", "o/b", "o/c"]);
        let (journal, rows) = open(&path, &run(&c, "2026-01-02", true)).unwrap();
        assert!(rows.is_empty());
        let failed = Row {
            outcome: Err(Failure::new(FailureKind::Network, "down")),
            ..counted(&c, 2, b"x")
        };
        journal.record([
            &counted(&c, 0, b"a.py"),
            &counted(&c, 1, b"caf\xe9.py"),
            &failed,
        ]);
        drop(journal);
        let (_, rows) = open(&path, &run(&c, "2026-01-02", true)).unwrap();
        assert_eq!(rows.len(), 2, "the failed row is tried again");
        let b = &rows[&c.trees[1].key()];
        let hits: Vec<_> = b.outcome.as_ref().unwrap().count.files.iter().collect();
        assert_eq!(hits.len(), 1);
        assert_eq!(hits[0].as_ref().unwrap().path, b"caf\xe9.py");
        assert_eq!(b.outcome.as_ref().unwrap().count.counts[0], 2);
    }

    #[test]
    fn a_journal_of_another_run_is_refused_naming_what_differs() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        let c = corpus(&["o/a", "o/b"]);
        drop(open(&path, &run(&c, "2026-01-02", true)).unwrap());
        let refused = |corpus: &Corpus, date: &str, tools: bool| {
            let err = open(&path, &run(corpus, date, tools))
                .err()
                .expect("refused");
            assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
            format!("{err:#}")
        };
        let other = corpus(&["o/a", "o/z"]);
        assert!(refused(&other, "2026-01-02", true).contains("other trees"));
        assert!(refused(&c, "2026-01-02", false).contains("tool finder on"));
        assert!(refused(&c, "2026-01-03", true).contains("dated 2026-01-03"));
        let mut tight = run(&c, "2026-01-02", true);
        tight.max_archive = 1;
        assert!(open(&path, &tight).is_err());
        std::fs::write(&path, "not a journal\n").unwrap();
        assert!(refused(&c, "2026-01-02", true).contains("is not a census journal"));
    }

    #[test]
    fn a_line_that_does_not_read_is_skipped_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = path_in(dir.path());
        let c = corpus(&["o/a", "o/b"]);
        let (journal, _) = open(&path, &run(&c, "2026-01-02", true)).unwrap();
        journal.record([&counted(&c, 0, b"a.py")]);
        drop(journal);
        let mut text = std::fs::read(&path).unwrap();
        let good = text.clone();
        text.extend_from_slice(b"{\"tree\": 3}\n");
        text.extend_from_slice(&good[good.iter().position(|&b| b == b'\n').unwrap() + 1..]);
        // A last line cut short: dropped from the file as it is opened.
        text.extend_from_slice(b"{\"tree\":\"o/b@ab");
        std::fs::write(&path, &text).unwrap();
        let (journal, rows) = open(&path, &run(&c, "2026-01-02", true)).unwrap();
        assert_eq!(rows.len(), 1);
        journal.record([&counted(&c, 1, b"b.py")]);
        drop(journal);
        let (_, rows) = open(&path, &run(&c, "2026-01-02", true)).unwrap();
        assert_eq!(rows.len(), 2, "the line after the cut one reads");
    }
}
