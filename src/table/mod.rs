//! The count table: one row per tree, its columns, and the one CSV schema that
//! writes and reads it.
//!
//! Every command that makes or reads a census table goes through here: `census` and
//! `scan` build rows, `report` formats them, `merge` and `compare` read tables back.
//! A row is identified by its [`TreeKey`] (repository, pin and subfolder), never by
//! its repository alone, because a corpus may hold one repository at two pins or
//! several servers of one repository. This module computes nothing about counts
//! beyond grouping them; it never prints.
//!
//! It may import `count`, `tools` and `infra`; `report` and the commands import it.

use std::collections::BTreeMap;
use std::io::Read;

use anyhow::{bail, Context, Result};

use crate::count::{FileHit, TreeCount};

use crate::count::terms::Columns;
use crate::infra::error::FailureKind;
use crate::tools::hints::Hint;
use crate::tools::{DefKind, Family, FoundTools, HintState, NameClass, Role, ToolDef};

pub mod header;
mod package;
pub mod tools;

pub use package::{package_cells, Shipped, PACKAGE_COLUMNS};

use header::Header;

/// Holds why a row has no counts: the kind a caller branches on, and the message a
/// person reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Failure {
    pub kind: FailureKind,
    pub why: String,
}

impl Failure {
    /// Returns a failure of `kind` saying `why`.
    pub fn new(kind: FailureKind, why: impl Into<String>) -> Failure {
        Failure {
            kind,
            why: why.into(),
        }
    }
}

/// Where the commit id stamped on a row came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitSource {
    /// The archive's pax global header `comment`, or the commit a `scan --git`
    /// revision resolved to.
    Archive,
    /// The pin as written in the corpus (the archive carried no commit id).
    Pinned,
    /// A git work tree's `HEAD`, which had no uncommitted change.
    Head,
    /// Files on disk that no commit describes.
    Worktree,
    /// A package's artifact: the commit is the one its metadata names (npm's
    /// `gitHead`), not read from the bytes; empty when it names none.
    Package,
}

impl CommitSource {
    /// Returns the word used in the `commit_source` column.
    pub fn as_str(self) -> &'static str {
        match self {
            CommitSource::Archive => "archive",
            CommitSource::Pinned => "pinned",
            CommitSource::Head => "head",
            CommitSource::Worktree => "worktree",
            CommitSource::Package => "package",
        }
    }

    /// Returns the source the `commit_source` column names.
    pub fn parse(text: &str) -> Option<CommitSource> {
        [
            CommitSource::Archive,
            CommitSource::Pinned,
            CommitSource::Head,
            CommitSource::Worktree,
            CommitSource::Package,
        ]
        .into_iter()
        .find(|s| s.as_str() == text)
    }
}

/// Holds a counted tree: the commit it was counted at and its counts.
#[derive(Clone, Debug)]
pub struct Counted {
    /// The full commit id, or the pin, or empty for a work tree.
    pub commit: String,
    pub commit_source: CommitSource,
    pub count: TreeCount,
    /// The sha256 of the archive's bytes, hex; empty when no archive was read.
    pub sha256: String,
    /// The tool definitions found in the tree; `None` when the finder was off.
    pub tools: Option<FoundTools>,
}

impl Counted {
    /// Returns the tree's cells of the [`TOOL_COLUMNS`]; `None` when the finder was
    /// off. See [`FoundTools::columns`].
    pub fn tool_counts(&self) -> Option<[u64; 5]> {
        self.tools.as_ref().map(FoundTools::columns)
    }
}

/// Identifies a row: a repository at a pin (none for a scanned path with no
/// `--git`), a subfolder of it (none for the whole tree), and the date the pin
/// stands for (none for an undated tree). Two dates that resolve to one commit are
/// two rows (docs/method.md, "Dates"). Repository names compare as written.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct TreeKey {
    pub repo: String,
    pub pinned: Option<String>,
    pub subfolder: Option<String>,
    /// `YYYY-MM-DD`.
    pub as_of: Option<String>,
}

impl TreeKey {
    /// Returns `owner/name@pin` or `owner/name@pin:subfolder`, then ` as of DATE` for
    /// a dated tree: how messages name a tree.
    pub fn label(&self) -> String {
        let label = match (&self.pinned, &self.subfolder) {
            (None, _) => self.repo.clone(),
            (Some(pin), None) => format!("{}@{pin}", self.repo),
            (Some(pin), Some(sub)) => format!("{}@{pin}:{sub}", self.repo),
        };
        match &self.as_of {
            None => label,
            Some(date) => format!("{label} as of {date}"),
        }
    }

    /// Returns the pin as a table's cell writes it: empty for none.
    pub fn pinned_cell(&self) -> &str {
        self.pinned.as_deref().unwrap_or_default()
    }
}

/// Returns `text`, or `None` for an empty cell: how a table writes an optional key.
pub fn non_empty(text: String) -> Option<String> {
    (!text.is_empty()).then_some(text)
}

/// Holds one row of a count table.
#[derive(Clone, Debug)]
pub struct Row {
    /// `owner/name` and pin (for a scan: the path as given, and the `--git`
    /// revision or nothing), and the subfolder counted.
    pub key: TreeKey,
    /// The server's name (a registry survey's), when the corpus gives one.
    pub server: Option<String>,
    /// The corpus note, shown in the Markdown report.
    pub note: Option<String>,
    /// The counts, or why there are none.
    pub outcome: std::result::Result<Counted, Failure>,
}

impl Row {
    /// Returns the repository (or path) of the row.
    pub fn repo(&self) -> &str {
        &self.key.repo
    }

    /// Returns how tables a person reads name the row's tree: the repository, with
    /// `:subfolder` when only a subfolder was counted, and ` as of DATE` when dated.
    pub fn tree_name(&self) -> String {
        let name = self.undated_name();
        match &self.key.as_of {
            None => name,
            Some(date) => format!("{name} as of {date}"),
        }
    }

    /// Returns [`Row::tree_name`] without its date.
    pub fn undated_name(&self) -> String {
        match &self.key.subfolder {
            None => self.key.repo.clone(),
            Some(sub) => format!("{}:{sub}", self.key.repo),
        }
    }
}

/// Holds a tree of a dated corpus at a date before its repository's first commit
/// on the default branch: it had no commit to count, so it has no row
/// (docs/method.md, "Dates").
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct NotYet {
    pub repo: String,
    /// Empty for the whole tree.
    pub subfolder: String,
    /// `YYYY-MM-DD`.
    pub as_of: String,
    /// The committer time of the first commit on the line, Unix seconds.
    pub first_commit: i64,
}

/// Holds what a corpus says of its trees' commits beside the rows: the trees that
/// had no commit yet at a date, and the committer time of each tree's commit where
/// the corpus gives it. Empty for a corpus that says neither (an undated one).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Dating {
    /// Sorted.
    pub not_yet: Vec<NotYet>,
    /// Unix seconds, by the tree's key.
    pub committed: BTreeMap<TreeKey, i64>,
}

#[cfg(test)]
impl Row {
    /// Returns a row of `o/n` at the pin `abcd`, dated `as_of` (empty for none), with
    /// `outcome`: the row the report tests build their tables of.
    pub(crate) fn for_test(as_of: &str, outcome: std::result::Result<Counted, Failure>) -> Row {
        Row {
            key: TreeKey {
                repo: "o/n".into(),
                pinned: Some("abcd".into()),
                subfolder: None,
                as_of: non_empty(as_of.to_string()),
            },
            server: None,
            note: None,
            outcome,
        }
    }
}

/// Holds a whole table: the columns and the rows, in order.
#[derive(Clone, Debug)]
pub struct Table {
    pub columns: Columns,
    /// The date stamped in the `probed_on` column, `YYYY-MM-DD`.
    pub date: String,
    pub rows: Vec<Row>,
    /// What the corpus says of the commits beside the rows.
    pub dating: Dating,
    /// What the corpus says of each package's artifact, by the row's key; empty for
    /// a corpus of repositories, whose tables then have no [`PACKAGE_COLUMNS`].
    pub packages: BTreeMap<TreeKey, Shipped>,
}

impl Table {
    /// Returns true when the rows carry dates: the tables then have an `as_of`
    /// column (a corpus's trees are all dated or none is).
    pub fn is_dated(&self) -> bool {
        self.rows.iter().any(|r| r.key.as_of.is_some())
    }

    /// Returns true when the corpus had packages: the census table then ends with
    /// the [`PACKAGE_COLUMNS`].
    pub fn has_packages(&self) -> bool {
        !self.packages.is_empty()
    }

    /// Returns the package columns the census table ends with: none for a corpus of
    /// repositories, the [`PACKAGE_COLUMNS`] but `family` unless a package is a
    /// family member, so that a table without one reads as it always did.
    pub fn package_columns(&self) -> &'static [&'static str] {
        match self.packages.values().any(|p| !p.family.is_empty()) {
            true => &PACKAGE_COLUMNS,
            false if self.has_packages() => &PACKAGE_COLUMNS[..3],
            false => &[],
        }
    }

    /// Returns each row that failed, with why.
    pub fn failed_rows(&self) -> impl Iterator<Item = (&Row, &String)> {
        self.rows
            .iter()
            .filter_map(|r| r.outcome.as_ref().err().map(|f| (r, &f.why)))
    }

    /// Returns the rows that read zero on every term and control although the tree
    /// held files: worth a second look, since the files may not have been read. A
    /// tree whose commit predates every control ([`Self::predates_controls`]) is
    /// not one: its zero is what it could hold.
    pub fn silent_rows(&self) -> impl Iterator<Item = &Row> {
        self.all_zero_rows()
            .filter(|row| !self.predates_controls(row))
    }

    /// Returns the rows that read zero on every term and control although the tree
    /// held files, at a commit before every control could be written: not worth a
    /// second look, and the report says why.
    pub fn before_controls_rows(&self) -> impl Iterator<Item = &Row> {
        self.all_zero_rows()
            .filter(|row| self.predates_controls(row))
    }

    fn all_zero_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|row| match &row.outcome {
            Ok(c) => c.count.files_walked > 0 && c.count.counts.iter().all(|&n| n == 0),
            Err(_) => false,
        })
    }

    /// Returns true when the row's commit predates the date since which every control
    /// could be written ([`Columns::controls_since`]): its committer time's UTC date
    /// where the corpus gives it, else its `as_of` date, which the commit is at or
    /// before. A row of neither (an undated tree) is never before.
    fn predates_controls(&self, row: &Row) -> bool {
        let Some(since) = self.columns.controls_since() else {
            return false;
        };
        match self.dating.committed.get(&row.key) {
            Some(&time) => crate::infra::date::from_unix(time).as_str() < since,
            None => row.key.as_of.as_deref().is_some_and(|date| date < since),
        }
    }

    /// Returns the rows that were counted and read zero on every column in `columns`.
    pub fn zero_in<'t>(&'t self, columns: &'t [usize]) -> impl Iterator<Item = &'t Row> {
        self.rows.iter().filter(move |row| match &row.outcome {
            Ok(c) => columns.iter().all(|&i| c.count.counts[i] == 0),
            Err(_) => false,
        })
    }
}

/// The census table's leading columns, before the count columns. A dated table has
/// [`AS_OF`] after `subfolder`, and the columns after it move one place on.
const LEADING: [&str; 8] = [
    "repo",
    "pinned",
    "subfolder",
    "server",
    "commit",
    "commit_source",
    "files_walked",
    "bytes_read",
];
/// The census table's tool columns, after the term and control columns (see
/// [`Counted::tool_counts`]); empty when the finder was off.
pub const TOOL_COLUMNS: [&str; 5] = [
    "tools",
    "tools_annotated",
    "tools_unresolved",
    "tool_sites_dynamic",
    "tools_skipped",
];
/// The column of a dated table's date, after `subfolder`.
pub(crate) const AS_OF: &str = "as_of";
/// The census table's trailing columns, after the count columns.
const TRAILING: [&str; 4] = ["archive_sha256", "probed_on", "status", "error"];

/// The files table's leading columns, before the count columns: the tree's key,
/// its commit, then the file.
const FILES_LEADING: [&str; 6] = ["repo", "pinned", "subfolder", "commit", "path", "bytes"];

/// Returns true when a census column holds a count that two tables can compare:
/// `files_walked`, `bytes_read` and every term or control column.
pub fn is_count_column(name: &str) -> bool {
    !(LEADING.contains(&name)
        || TRAILING.contains(&name)
        || PACKAGE_COLUMNS.contains(&name)
        || name == AS_OF)
        || name == "files_walked"
        || name == "bytes_read"
}

/// Returns `leading` with `as_of` after `subfolder` when `is_dated`.
fn with_date<'a>(leading: &[&'a str], is_dated: bool) -> Vec<&'a str> {
    let mut names = leading.to_vec();
    if is_dated {
        names.insert(3, AS_OF);
    }
    names
}

/// Returns the census table's header for `columns`, in order; with `as_of` when
/// `is_dated`, and `packages` (of the [`PACKAGE_COLUMNS`]) at the end.
pub fn census_header(columns: &Columns, is_dated: bool, packages: &[&str]) -> Vec<String> {
    with_date(&LEADING, is_dated)
        .into_iter()
        .chain(columns.names())
        .chain(TOOL_COLUMNS)
        .chain(TRAILING)
        .chain(packages.iter().copied())
        .map(str::to_string)
        .collect()
}

/// Returns a row's key cells: repo, pinned, subfolder, and as_of when `is_dated`.
fn key_cells(key: &TreeKey, is_dated: bool) -> Vec<String> {
    let mut cells = vec![
        key.repo.clone(),
        key.pinned_cell().to_string(),
        key.subfolder.clone().unwrap_or_default(),
    ];
    if is_dated {
        cells.push(key.as_of.clone().unwrap_or_default());
    }
    cells
}

/// Returns the census table's cells for `row`: an error row leaves every count
/// empty and says why in `error`, on one line.
pub fn census_record(row: &Row, width: usize, date: &str, is_dated: bool) -> Vec<String> {
    let mut record = key_cells(&row.key, is_dated);
    record.push(row.server.clone().unwrap_or_default());
    match &row.outcome {
        Ok(c) => {
            record.push(c.commit.clone());
            record.push(c.commit_source.as_str().to_string());
            record.push(c.count.files_walked.to_string());
            record.push(c.count.bytes_read.to_string());
            record.extend(c.count.counts.iter().map(u64::to_string));
            match c.tool_counts() {
                Some(counts) => record.extend(counts.iter().map(u64::to_string)),
                None => record.extend(TOOL_COLUMNS.map(|_| String::new())),
            }
            record.push(c.sha256.clone());
            record.push(date.to_string());
            record.push("ok".to_string());
            record.push(String::new());
        }
        Err(failure) => {
            record.extend(std::iter::repeat_n(
                String::new(),
                4 + width + TOOL_COLUMNS.len() + 1,
            ));
            record.push(date.to_string());
            record.push("error".to_string());
            record.push(one_line(&failure.why));
        }
    }
    record
}

/// Returns the files table's header for `columns`, in order; with `as_of` when
/// `is_dated`.
pub fn files_header(columns: &Columns, is_dated: bool) -> Vec<String> {
    with_date(&FILES_LEADING, is_dated)
        .into_iter()
        .chain(columns.names())
        .map(str::to_string)
        .collect()
}

/// Returns the files table's records for a counted row: every file with a nonzero
/// count, in the order of the path's bytes. Paths stay raw bytes.
pub fn files_records<'r>(
    row: &'r Row,
    is_dated: bool,
) -> impl Iterator<Item = std::io::Result<Vec<Vec<u8>>>> + 'r {
    let hits = row.outcome.as_ref().ok().map(|c| c.count.files.iter());
    let commit = row.outcome.as_ref().map_or("", |c| c.commit.as_str());
    hits.into_iter().flatten().map(move |file| {
        let file = file?;
        let mut record: Vec<Vec<u8>> = key_cells(&row.key, is_dated)
            .into_iter()
            .map(String::into_bytes)
            .collect();
        record.extend([
            commit.as_bytes().to_vec(),
            file.path.clone(),
            file.bytes.to_string().into_bytes(),
        ]);
        record.extend(file.counts.iter().map(|n| n.to_string().into_bytes()));
        Ok(record)
    })
}

/// Holds a census table read back from CSV.
pub struct ReadTable {
    /// The rows, in file order, with the line each came from (1-based).
    pub rows: Vec<(usize, Row)>,
    /// The `probed_on` date of each row, in the same order.
    pub dates: Vec<String>,
    /// The `tools` and `tools_annotated` cells of each row, in the same order; `None`
    /// when empty (an error row, or the finder off). The rows' definitions are in the
    /// tools table (see [`tools::read_tools`]), and these check it.
    pub tool_counts: Vec<Option<[u64; 4]>>,
}

/// Reads a census table that must have exactly the header `columns` gives, with
/// `as_of` when `is_dated`.
///
/// `name` is how errors name the input. Rows come back without their file hits
/// (see [`read_files`]).
pub fn read_census<R: Read>(
    input: R,
    name: &str,
    columns: &Columns,
    is_dated: bool,
) -> Result<ReadTable> {
    let header = census_header(columns, is_dated, &[]);
    let mut reader = csv::Reader::from_reader(input);
    let got: Vec<String> = reader
        .headers()
        .with_context(|| format!("reading '{name}'"))?
        .iter()
        .map(str::to_string)
        .collect();
    // A table of a corpus with packages ends with their columns; the rows' cells of
    // them come from the corpus, not from the table.
    let with = |n: usize| census_header(columns, is_dated, &PACKAGE_COLUMNS[..n]);
    if got != header && got != with(3) && got != with(4) {
        bail!(
            "'{name}' has the columns '{}', but the corpus gives '{}'",
            got.join(","),
            header.join(",")
        );
    }
    let at = CensusColumns::of(&Header::new(&got));
    let mut table = ReadTable {
        rows: Vec::new(),
        dates: Vec::new(),
        tool_counts: Vec::new(),
    };
    for (i, record) in reader.records().enumerate() {
        let line = i + 2;
        let within = || format!("'{name}' line {line}");
        let record = record.with_context(within)?;
        let cells: Vec<&str> = record.iter().collect();
        let (row, tool_counts) = parse_census_record(&cells, &at).with_context(within)?;
        table.rows.push((line, row));
        table.tool_counts.push(tool_counts);
        table.dates.push(cells[at.probed_on].to_string());
    }
    Ok(table)
}

/// Where a census table's columns are, found by name in its header.
struct CensusColumns {
    key: KeyColumns,
    server: usize,
    commit: usize,
    commit_source: usize,
    files_walked: usize,
    bytes_read: usize,
    /// The term and control columns.
    counts: std::ops::Range<usize>,
    /// The [`TOOL_COLUMNS`], in order.
    tools: [usize; 5],
    archive_sha256: usize,
    probed_on: usize,
    status: usize,
    error: usize,
}

impl CensusColumns {
    /// Returns where the columns of a census table of `header` are; a term may share
    /// its name with a column of the schema, so those before the counts are the first
    /// of their name and those after the last.
    fn of(header: &Header) -> CensusColumns {
        let tools = TOOL_COLUMNS.map(|name| header.last(name));
        CensusColumns {
            key: KeyColumns::of(header),
            server: header.first("server"),
            commit: header.first("commit"),
            commit_source: header.first("commit_source"),
            files_walked: header.first("files_walked"),
            bytes_read: header.first("bytes_read"),
            counts: header.first("bytes_read") + 1..tools[0],
            tools,
            archive_sha256: header.last("archive_sha256"),
            probed_on: header.last("probed_on"),
            status: header.last("status"),
            error: header.last("error"),
        }
    }
}

/// Where a table's key columns are: repo, pinned, subfolder and, dated, as_of.
struct KeyColumns {
    repo: usize,
    pinned: usize,
    subfolder: usize,
    as_of: Option<usize>,
}

impl KeyColumns {
    fn of(header: &Header) -> KeyColumns {
        KeyColumns {
            repo: header.first("repo"),
            pinned: header.first("pinned"),
            subfolder: header.first("subfolder"),
            as_of: header.get(AS_OF),
        }
    }

    /// Returns the key a record's cells give, each cell read by `text`.
    fn key<C: Copy>(&self, cells: &[C], text: impl Fn(C) -> String) -> TreeKey {
        TreeKey {
            repo: text(cells[self.repo]),
            pinned: non_empty(text(cells[self.pinned])),
            subfolder: non_empty(text(cells[self.subfolder])),
            as_of: self.as_of.and_then(|i| non_empty(text(cells[i]))),
        }
    }
}

/// Returns the row a census record describes (without its file hits and tool
/// definitions), and its `tools` and `tools_annotated` cells.
fn parse_census_record(cells: &[&str], at: &CensusColumns) -> Result<(Row, Option<[u64; 4]>)> {
    let number = |i: usize| -> Result<u64> {
        cells[i]
            .parse()
            .with_context(|| format!("'{}' is not a count", cells[i]))
    };
    let (tools, tool_counts) = match at.tools.iter().all(|&i| cells[i].is_empty()) {
        true => (None, None),
        false => {
            let found = FoundTools {
                tools: Vec::new(),
                skipped_files: number(at.tools[4])?,
            };
            let mut said = [0; 4];
            for (n, &i) in said.iter_mut().zip(&at.tools) {
                *n = number(i)?;
            }
            (Some(found), Some(said))
        }
    };
    let outcome = match cells[at.status] {
        "ok" => {
            let source = cells[at.commit_source];
            let commit_source = CommitSource::parse(source)
                .with_context(|| format!("'{source}' is not a commit source"))?;
            Ok(Counted {
                commit: cells[at.commit].to_string(),
                commit_source,
                count: TreeCount {
                    files_walked: number(at.files_walked)?,
                    bytes_read: number(at.bytes_read)?,
                    counts: at.counts.clone().map(number).collect::<Result<_>>()?,
                    files: Default::default(),
                },
                sha256: cells[at.archive_sha256].to_string(),
                tools,
            })
        }
        "error" => Err(Failure::new(FailureKind::Other, cells[at.error])),
        other => bail!("status '{other}' is neither ok nor error"),
    };
    let row = Row {
        key: at.key.key(cells, str::to_string),
        server: Some(cells[at.server].to_string()).filter(|s| !s.is_empty()),
        note: None,
        outcome,
    };
    Ok((row, tool_counts))
}

/// Holds the file hits of a files table, grouped by the tree they belong to.
pub type FilesByTree = BTreeMap<TreeKey, Vec<FileHit>>;

/// Reads a files table with `columns`' count columns, and `as_of` when `is_dated`;
/// paths are kept as raw bytes.
pub fn read_files<R: Read>(
    input: R,
    name: &str,
    columns: &Columns,
    is_dated: bool,
) -> Result<FilesByTree> {
    let mut reader = csv::Reader::from_reader(input);
    let expected = files_header(columns, is_dated);
    let at = Header::checked(&mut reader, name, &expected, "the corpus gives")?;
    let key_at = KeyColumns::of(&at);
    let (path_at, bytes_at) = (at.first("path"), at.first("bytes"));
    let mut files = FilesByTree::new();
    for (i, record) in reader.byte_records().enumerate() {
        let within = || format!("'{name}' line {}", i + 2);
        let record = record.with_context(within)?;
        let record: Vec<&[u8]> = record.iter().collect();
        let number = |cell: &[u8]| -> Result<u64> {
            std::str::from_utf8(cell)
                .ok()
                .and_then(|s| s.parse().ok())
                .with_context(|| {
                    format!(
                        "{}: '{}' is not a count",
                        within(),
                        String::from_utf8_lossy(cell)
                    )
                })
        };
        let text = |cell: &[u8]| String::from_utf8_lossy(cell).into_owned();
        let hit = FileHit {
            path: record[path_at].to_vec(),
            bytes: number(record[bytes_at])?,
            counts: record[bytes_at + 1..]
                .iter()
                .map(|cell| number(cell))
                .collect::<Result<_>>()?,
        };
        files
            .entry(key_at.key(&record, text))
            .or_default()
            .push(hit);
    }
    Ok(files)
}

/// Returns `text` on one line: line breaks and tabs become spaces.
pub fn one_line(text: &str) -> String {
    one_line_with(text, " ")
}

/// Returns `text` with its line breaks and tabs replaced by `between`, empty parts
/// dropped.
pub fn one_line_with(text: &str, between: &str) -> String {
    text.split(['\n', '\r', '\t'])
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(between)
}

/// Holds the counts of the files with one extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionCount {
    /// The extension without its dot; `None` for names without one.
    pub extension: Option<Vec<u8>>,
    /// How many files with a nonzero count have this extension.
    pub files: u64,
    /// Per column, in the table's column order.
    pub counts: Vec<u64>,
}

/// Returns the extension of the file `path` names: the bytes after the last `.` of
/// its last component, as `std::path::Path::extension` defines it (a name that
/// starts with its only dot, like `.gitignore`, has none).
pub fn extension(path: &[u8]) -> Option<&[u8]> {
    let name = match memchr::memrchr(b'/', path) {
        Some(slash) => &path[slash + 1..],
        None => path,
    };
    match memchr::memrchr(b'.', name) {
        Some(0) | None => None,
        Some(dot) => Some(&name[dot + 1..]),
    }
}

/// Returns the counts of a tree's files with a nonzero count, grouped by extension
/// and sorted by it (no extension first). Every occurrence sits in such a file, so
/// the groups sum to the tree's totals.
pub fn by_extension(count: &TreeCount) -> std::io::Result<Vec<ExtensionCount>> {
    let mut groups: BTreeMap<Option<Vec<u8>>, ExtensionCount> = BTreeMap::new();
    for file in count.files.iter() {
        let file = file?;
        let key = extension(&file.path).map(<[u8]>::to_vec);
        let group = groups.entry(key.clone()).or_insert_with(|| ExtensionCount {
            extension: key,
            files: 0,
            counts: vec![0; file.counts.len()],
        });
        group.files += 1;
        for (total, n) in group.counts.iter_mut().zip(&file.counts) {
            *total += n;
        }
    }
    Ok(groups.into_values().collect())
}

/// Rows for the tests of the tables' readers and writers.
#[cfg(test)]
pub(crate) mod fixtures {
    use super::*;

    /// A row counted at its key's pin, no file counted, the finder giving `tools`.
    pub(crate) fn counted(key: TreeKey, tools: Vec<ToolDef>) -> Row {
        Row {
            outcome: Ok(Counted {
                commit: key.pinned.clone().unwrap_or_default(),
                commit_source: CommitSource::Pinned,
                count: TreeCount::default(),
                sha256: String::new(),
                tools: Some(FoundTools {
                    tools,
                    skipped_files: 0,
                }),
            }),
            key,
            server: None,
            note: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::tools::*;
    use super::*;

    #[test]
    fn extension_follows_std_path() {
        assert_eq!(extension(b"src/a.rs"), Some(&b"rs"[..]));
        assert_eq!(extension(b"a.tar.gz"), Some(&b"gz"[..]));
        assert_eq!(extension(b"dir.d/.gitignore"), None);
        assert_eq!(extension(b"dir.d/Makefile"), None);
        assert_eq!(extension(b"x."), Some(&b""[..]));
        assert_eq!(extension(b"caf\xe9.t\xffxt"), Some(&b"t\xffxt"[..]));
    }

    #[test]
    fn by_extension_sums_to_the_totals() {
        let mut tree = TreeCount::new(2);
        tree.add_file(|| b"b.rs".to_vec(), 10, &[1, 0]);
        tree.add_file(|| b"README".to_vec(), 10, &[0, 2]);
        tree.add_file(|| b"x/a.rs".to_vec(), 10, &[3, 1]);
        tree.add_file(|| b"empty.md".to_vec(), 10, &[0, 0]);
        let expected = vec![
            ExtensionCount {
                extension: None,
                files: 1,
                counts: vec![0, 2],
            },
            ExtensionCount {
                extension: Some(b"rs".to_vec()),
                files: 2,
                counts: vec![4, 1],
            },
        ];
        assert_eq!(by_extension(&tree).unwrap(), expected);
    }

    #[test]
    fn a_row_takes_its_own_files_and_tools_and_its_counts_are_checked() {
        let key = |repo: &str| TreeKey {
            repo: repo.into(),
            pinned: Some("abcd".into()),
            subfolder: None,
            as_of: None,
        };
        let def = |annotated: bool| ToolDef {
            path: b"src/a.ts".to_vec(),
            line: 3,
            kind: DefKind::Tool,
            role: Role::Source,
            family: Family::TypeScript,
            name: Some("t".into()),
            name_class: crate::tools::NameClass::Unknown,
            hints: [annotated.then_some(HintState::True), None, None, None],
        };
        let row = |repo: &str, tools: Option<FoundTools>| Row {
            key: key(repo),
            server: None,
            note: None,
            outcome: Ok(Counted {
                commit: "abcd".repeat(10),
                commit_source: CommitSource::Archive,
                count: TreeCount::new(1),
                sha256: "f".repeat(64),
                tools,
            }),
        };
        let tables = || {
            let mut files = FilesByTree::new();
            let hit = FileHit {
                path: b"src/a.ts".to_vec(),
                bytes: 10,
                counts: vec![1],
            };
            files.insert(key("o/a"), vec![hit]);
            let mut tools = ToolsByTree::new();
            tools.insert(key("o/a"), vec![def(true), def(false)]);
            tools.insert(key("o/b"), vec![def(false)]);
            (files, tools)
        };

        let (mut files, mut tools) = tables();
        let mut a = row("o/a", Some(FoundTools::default()));
        assert_eq!(
            join_row(&mut a, Some([2, 1, 0, 0]), &mut files, &mut tools),
            Ok(())
        );
        let Ok(counted) = &a.outcome else { panic!() };
        assert_eq!(counted.count.files.len(), 1);
        assert_eq!(
            counted.tools.as_ref().unwrap().tools,
            [def(true), def(false)]
        );
        assert!(files.is_empty());
        assert_eq!(tools.keys().collect::<Vec<_>>(), [&key("o/b")]);

        let (mut files, mut tools) = tables();
        let mut a = row("o/a", Some(FoundTools::default()));
        assert_eq!(
            join_row(&mut a, Some([2, 2, 0, 0]), &mut files, &mut tools),
            Err(JoinError::ToolCountsDisagree {
                said: [2, 2, 0, 0],
                listed: [2, 1, 0, 0]
            })
        );
        let mut b = row("o/b", None);
        assert_eq!(
            join_row(&mut b, None, &mut files, &mut tools),
            Err(JoinError::ToolsWithoutCount)
        );
        let mut failed = Row {
            outcome: Err(Failure::new(FailureKind::Network, "down")),
            ..row("o/a", None)
        };
        let (mut files, mut tools) = tables();
        assert_eq!(join_row(&mut failed, None, &mut files, &mut tools), Ok(()));
        assert_eq!(files.len(), 1, "a failed row takes nothing");
    }

    #[test]
    fn one_line_folds_line_breaks() {
        assert_eq!(one_line("a\nb\r\nc"), "a b c");
    }

    #[test]
    fn a_census_record_reads_back_as_the_same_row() {
        let columns = Columns::default_columns();
        let row = Row {
            key: TreeKey {
                repo: "o/n".into(),
                pinned: Some("abcd".into()),
                subfolder: Some("pkg/a".into()),
                as_of: None,
            },
            server: Some("io.github.o/a".into()),
            note: None,
            outcome: Ok(Counted {
                commit: "abcd".repeat(10),
                commit_source: CommitSource::Archive,
                count: TreeCount {
                    files_walked: 3,
                    bytes_read: 99,
                    counts: vec![1, 2, 3, 4, 5],
                    files: Default::default(),
                },
                sha256: "f".repeat(64),
                tools: Some(FoundTools {
                    tools: Vec::new(),
                    skipped_files: 2,
                }),
            }),
        };
        let failed = Row {
            outcome: Err(Failure::new(FailureKind::Network, "line one\nline two")),
            ..row.clone()
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(census_header(&columns, false, &[])).unwrap();
        for r in [&row, &failed] {
            w.write_record(census_record(r, columns.len(), "2026-01-02", false))
                .unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let read = read_census(&bytes[..], "t.csv", &columns, false).unwrap();
        assert_eq!(read.dates, ["2026-01-02", "2026-01-02"]);
        let (line, back) = &read.rows[0];
        assert_eq!(*line, 2);
        assert_eq!(back.key, row.key);
        assert_eq!(back.server, row.server);
        let (c, d) = (
            back.outcome.as_ref().unwrap(),
            row.outcome.as_ref().unwrap(),
        );
        assert_eq!(
            (&c.commit, c.commit_source, &c.count, &c.sha256),
            (&d.commit, d.commit_source, &d.count, &d.sha256)
        );
        assert_eq!(
            read.rows[1].1.outcome.as_ref().unwrap_err(),
            &Failure::new(FailureKind::Other, "line one line two")
        );
        assert_eq!(c.tools, d.tools);
        assert_eq!(read.tool_counts, [Some([0, 0, 0, 0]), None]);
        let e = read_census(&bytes[..], "t.csv", &columns, true)
            .err()
            .expect("an undated table is not a dated one");
        assert!(format!("{e:#}").contains("as_of"), "{e:#}");
    }

    #[test]
    fn a_term_named_as_a_column_of_the_schema_reads_back_as_its_count() {
        let terms: Vec<String> = ["status", "repo", "tools"].map(String::from).to_vec();
        let columns = Columns::new(&terms, &["error".to_string()]).unwrap();
        let mut count = TreeCount::new(columns.len());
        count.add_file(|| b"a.ts".to_vec(), 9, &[1, 2, 3, 4]);
        let row = Row {
            key: TreeKey {
                repo: "o/n".into(),
                pinned: Some("abcd".into()),
                subfolder: None,
                as_of: Some("2025-06-01".into()),
            },
            server: None,
            note: None,
            outcome: Ok(Counted {
                commit: "abcd".repeat(10),
                commit_source: CommitSource::Archive,
                count,
                sha256: "e".repeat(64),
                tools: None,
            }),
        };
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(census_header(&columns, true, &[])).unwrap();
        w.write_record(census_record(&row, columns.len(), "2026-01-02", true))
            .unwrap();
        let bytes = w.into_inner().unwrap();
        let read = read_census(&bytes[..], "t.csv", &columns, true).unwrap();
        let back = &read.rows[0].1;
        assert_eq!(back.key, row.key);
        let c = back.outcome.as_ref().unwrap();
        assert_eq!(c.count.counts, [1, 2, 3, 4]);
        assert_eq!(c.sha256, "e".repeat(64));
        assert_eq!(read.tool_counts, [None]);
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(files_header(&columns, true)).unwrap();
        for record in files_records(&row, true) {
            w.write_record(record.unwrap()).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let files = read_files(&bytes[..], "f.csv", &columns, true).unwrap();
        assert_eq!(files[&row.key][0].counts, [1, 2, 3, 4]);
    }

    #[test]
    fn a_dated_record_carries_its_date_after_the_subfolder() {
        let columns = Columns::default_columns();
        let mut count = TreeCount::new(columns.len());
        count.add_file(|| b"a.ts".to_vec(), 4, &[1, 0, 0, 0, 2]);
        let row = Row {
            key: TreeKey {
                repo: "o/n".into(),
                pinned: Some("ab".repeat(20)),
                subfolder: None,
                as_of: Some("2025-06-01".into()),
            },
            server: None,
            note: None,
            outcome: Ok(Counted {
                commit: "ab".repeat(20),
                commit_source: CommitSource::Archive,
                count,
                sha256: "0".repeat(64),
                tools: None,
            }),
        };
        let header = census_header(&columns, true, &[]);
        assert_eq!(
            header[..5],
            ["repo", "pinned", "subfolder", "as_of", "server"]
        );
        let cells = census_record(&row, columns.len(), "2026-01-02", true);
        assert_eq!(cells.len(), header.len());
        assert_eq!(cells[3], "2025-06-01");
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(&header).unwrap();
        w.write_record(&cells).unwrap();
        let bytes = w.into_inner().unwrap();
        let read = read_census(&bytes[..], "t.csv", &columns, true).unwrap();
        assert_eq!(read.rows[0].1.key, row.key);
        assert_eq!(read.dates, ["2026-01-02"]);
        let mut w = csv::Writer::from_writer(Vec::new());
        w.write_record(files_header(&columns, true)).unwrap();
        for record in files_records(&row, true) {
            w.write_record(record.unwrap()).unwrap();
        }
        let bytes = w.into_inner().unwrap();
        let files = read_files(&bytes[..], "f.csv", &columns, true).unwrap();
        assert_eq!(files[&row.key].len(), 1);
        assert_eq!(files[&row.key][0].path, b"a.ts");
    }
}
