//! Formats count tables: the census CSV, the per-file CSV, the Markdown report and
//! the table a person reads on stdout.
//!
//! This module only formats. It is handed finished rows and writes them to any
//! `io::Write`; it never counts, downloads or decides an exit status. Everything it
//! writes to a table is a function of the rows and the date alone, so that the same
//! inputs give the same bytes.

use std::io::{self, Write};

use anyhow::Result;

use crate::count::TreeCount;
use crate::sanitize::sanitize;

/// Where the commit id stamped on a row came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CommitSource {
    /// The archive's pax global header `comment`.
    Archive,
    /// The pin as written in the corpus (the archive carried no commit id).
    Pinned,
    /// A git work tree's `HEAD`, which had no uncommitted change.
    Head,
    /// Files on disk that no commit describes.
    Worktree,
}

impl CommitSource {
    /// Returns the word used in the `commit_source` column.
    pub fn as_str(self) -> &'static str {
        match self {
            CommitSource::Archive => "archive",
            CommitSource::Pinned => "pinned",
            CommitSource::Head => "head",
            CommitSource::Worktree => "worktree",
        }
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
}

/// Holds one row of a census table.
#[derive(Clone, Debug)]
pub struct Row {
    /// `owner/name`, or the path as the user gave it.
    pub repo: String,
    /// The pin as written in the corpus; empty for a scan.
    pub pinned: String,
    /// The corpus note, shown in the Markdown report.
    pub note: Option<String>,
    /// The counts, or why there are none.
    pub outcome: std::result::Result<Counted, String>,
}

/// Holds a whole table: the columns and the rows, in order.
#[derive(Clone, Debug)]
pub struct Table {
    pub terms: Vec<String>,
    pub controls: Vec<String>,
    /// The date stamped in the `probed_on` column, `YYYY-MM-DD`.
    pub date: String,
    pub rows: Vec<Row>,
}

impl Table {
    /// Returns the term and control names, in column order.
    pub fn columns(&self) -> impl Iterator<Item = &str> {
        self.terms.iter().chain(&self.controls).map(String::as_str)
    }

    /// Returns each row that failed, with why.
    pub fn failed_rows(&self) -> impl Iterator<Item = (&Row, &String)> {
        self.rows
            .iter()
            .filter_map(|r| r.outcome.as_ref().err().map(|why| (r, why)))
    }

    /// Returns the rows that read zero on every term and control although the tree
    /// held files: worth a second look, since the files may not have been read.
    pub fn silent_rows(&self) -> impl Iterator<Item = &Row> {
        self.rows.iter().filter(|row| match &row.outcome {
            Ok(c) => c.count.files_walked > 0 && c.count.counts.iter().all(|&n| n == 0),
            Err(_) => false,
        })
    }
}

/// The census table's fixed leading columns.
const LEADING: [&str; 6] = [
    "repo",
    "pinned",
    "commit",
    "commit_source",
    "files_walked",
    "bytes_read",
];
/// The census table's fixed trailing columns.
const TRAILING: [&str; 4] = ["archive_sha256", "probed_on", "status", "error"];

/// Returns the census table's header, in order.
pub fn census_header(table: &Table) -> Vec<String> {
    LEADING
        .iter()
        .copied()
        .chain(table.columns())
        .chain(TRAILING)
        .map(str::to_string)
        .collect()
}

/// Writes the census table as CSV: one row per tree, in the table's order.
///
/// An error row leaves every count empty and says why in `error`, on one line.
pub fn write_census_csv<W: Write>(out: W, table: &Table) -> Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    w.write_record(census_header(table))?;
    let width = table.terms.len() + table.controls.len();
    for row in &table.rows {
        let mut record: Vec<String> = vec![row.repo.clone(), row.pinned.clone()];
        match &row.outcome {
            Ok(c) => {
                record.push(c.commit.clone());
                record.push(c.commit_source.as_str().to_string());
                record.push(c.count.files_walked.to_string());
                record.push(c.count.bytes_read.to_string());
                record.extend(c.count.counts.iter().map(u64::to_string));
                record.push(c.sha256.clone());
                record.push(table.date.clone());
                record.push("ok".to_string());
                record.push(String::new());
            }
            Err(why) => {
                record.extend(std::iter::repeat_n(String::new(), 4 + width + 1));
                record.push(table.date.clone());
                record.push("error".to_string());
                record.push(one_line(why));
            }
        }
        w.write_record(&record)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes every file with a nonzero count as CSV, rows in table order, then by the
/// path's bytes.
pub fn write_files_csv<W: Write>(out: W, table: &Table) -> Result<()> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out);
    let header: Vec<&str> = ["repo", "commit", "path", "bytes"]
        .into_iter()
        .chain(table.columns())
        .collect();
    w.write_record(&header)?;
    for row in &table.rows {
        let Ok(c) = &row.outcome else { continue };
        let mut files: Vec<_> = c.count.files.iter().collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        for file in files {
            let mut record: Vec<Vec<u8>> = vec![
                row.repo.clone().into_bytes(),
                c.commit.clone().into_bytes(),
                file.path.clone(),
                file.bytes.to_string().into_bytes(),
            ];
            record.extend(file.counts.iter().map(|n| n.to_string().into_bytes()));
            w.write_record(&record)?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Returns `n` with a comma between each group of three digits, as the article's
/// table prints counts.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// Returns `text` on one line: line breaks and tabs become spaces.
pub fn one_line(text: &str) -> String {
    text.split(['\n', '\r', '\t'])
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Returns the short form of a commit id for tables a person reads.
fn short(commit: &str) -> &str {
    &commit[..commit.len().min(7)]
}

/// Returns the text of a Markdown table cell: pipes escaped, on one line.
fn cell(text: &str) -> String {
    one_line(text).replace('|', "\\|")
}

/// Writes the census report in Markdown: the table, the method, the date, each
/// archive's sha256 and the method's limits.
pub fn write_markdown<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    writeln!(w, "# MCP tool-annotation hint census, {}", table.date)?;
    writeln!(w)?;
    write!(w, "| Source tree | Commit | Files walked |")?;
    for name in table.columns() {
        write!(w, " {} |", cell(name))?;
    }
    writeln!(w)?;
    write!(w, "|---|---|---:|")?;
    for _ in table.columns() {
        write!(w, "---:|")?;
    }
    writeln!(w)?;
    for row in &table.rows {
        match &row.outcome {
            Ok(c) => {
                write!(
                    w,
                    "| {} | {} | {} |",
                    cell(&row.repo),
                    short(&c.commit),
                    thousands(c.count.files_walked)
                )?;
                for &n in &c.count.counts {
                    write!(w, " {} |", thousands(n))?;
                }
            }
            Err(_) => {
                write!(w, "| {} | {} | error |", cell(&row.repo), cell(&row.pinned))?;
                for _ in table.columns() {
                    write!(w, " |")?;
                }
            }
        }
        writeln!(w)?;
    }
    writeln!(w)?;
    let controls = table
        .controls
        .iter()
        .map(|c| format!("`{c}`"))
        .collect::<Vec<_>>();
    writeln!(
        w,
        "All rows counted {}. Each tree is the archive of a repository at a pinned commit, \
         read as a stream without extracting it. Every regular file is read, at any depth \
         and whatever its name, size or content. A count is the number of non-overlapping \
         occurrences of the name in the file's bytes, ASCII letters compared \
         case-insensitively and every other byte exactly, summed over the files. The \
         control{} {} {} counted the same way, to show that the files were read. The \
         commit is the full id the archive names in its pax header.",
        table.date,
        if controls.len() == 1 { "" } else { "s" },
        controls.join(", "),
        if controls.len() == 1 { "is" } else { "are" },
    )?;
    let notes: Vec<&Row> = table.rows.iter().filter(|r| r.note.is_some()).collect();
    if !notes.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Notes")?;
        writeln!(w)?;
        for row in notes {
            writeln!(
                w,
                "- **{}**: {}",
                cell(&row.repo),
                cell(row.note.as_deref().unwrap_or_default())
            )?;
        }
    }
    let silent: Vec<&Row> = table.silent_rows().collect();
    if !silent.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Worth a second look")?;
        writeln!(w)?;
        for row in silent {
            writeln!(
                w,
                "- **{}** held files but read zero on every term and every control: check \
                 that the archive is the tree you meant.",
                cell(&row.repo)
            )?;
        }
    }
    let failed: Vec<(&Row, &String)> = table.failed_rows().collect();
    if !failed.is_empty() {
        writeln!(w)?;
        writeln!(w, "## Trees not counted")?;
        writeln!(w)?;
        for (row, why) in failed {
            writeln!(
                w,
                "- **{}** at `{}`: {}",
                cell(&row.repo),
                cell(&row.pinned),
                cell(why)
            )?;
        }
    }
    writeln!(w)?;
    writeln!(w, "## Archives")?;
    writeln!(w)?;
    for row in &table.rows {
        if let Ok(c) = &row.outcome {
            let from_pin = if c.commit_source == CommitSource::Pinned {
                " (commit from the pin: the archive names none)"
            } else {
                ""
            };
            writeln!(
                w,
                "- {} `{}`{}: sha256 `{}`",
                cell(&row.repo),
                c.commit,
                from_pin,
                if c.sha256.is_empty() { "-" } else { &c.sha256 }
            )?;
        }
    }
    writeln!(w)?;
    w.write_all(LIMITS.as_bytes())?;
    Ok(())
}

/// The method's limits, carried by every report (census-method.md, "Limits").
pub const LIMITS: &str = "\
## What these counts cannot tell

1. **Literals, not tools.** A count is of the field name wherever it appears: \
declarations, comments, docs, tests, copies of the schema. A preset that sets all four \
fields once and is imported by many tools counts once. In the published census, one \
tree reads 6 in every column while its presets annotate about fifteen tools, a \
two-and-a-half-fold undercount of annotated tools.
2. **A zero is about the tree, not the wire.** It says the literals are absent from \
that tree at that commit. A framework can attach annotations at registration or \
serialization, and some SDKs spell the fields differently (Rust SDKs use \
`read_only_hint`; the C# SDK uses `ReadOnly`, `Destructive`, `Idempotent`, \
`OpenWorld`), so a zero does not say that `tools/list` omits them.
3. **Source is not a deployment.** No running server is checked by a census. What a \
server actually declares is read with `mcp-hint-census probe`.
4. **Counts move with every commit.** A row names a commit, never a branch; rerun with \
the same pins to compare.
5. **Absent is not false.** The census cannot tell a tool that omitted a hint from one \
that declared it false; only the wire can.
";

/// Prints the table for a person: aligned columns, thousands separators, errors
/// spelled out under the table.
pub fn print_table<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    let mut header: Vec<String> = vec!["tree".into(), "commit".into(), "files".into()];
    header.extend(table.columns().map(str::to_string));
    let mut lines: Vec<Vec<String>> = vec![header];
    for row in &table.rows {
        let mut line = vec![sanitize(row.repo.as_bytes())];
        match &row.outcome {
            Ok(c) => {
                line.push(short(&c.commit).to_string());
                line.push(thousands(c.count.files_walked));
                line.extend(c.count.counts.iter().map(|&n| thousands(n)));
            }
            Err(_) => {
                line.push(sanitize(row.pinned.as_bytes()));
                line.push("error".into());
                line.extend(table.columns().map(|_| String::new()));
            }
        }
        lines.push(line);
    }
    let columns = lines[0].len();
    let widths: Vec<usize> = (0..columns)
        .map(|i| {
            lines
                .iter()
                .map(|l| l[i].chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    for line in &lines {
        let mut text = String::new();
        for (i, value) in line.iter().enumerate() {
            let pad = widths[i] - value.chars().count();
            if i > 0 {
                text.push_str("  ");
            }
            // Names left-aligned, numbers right-aligned.
            if i < 2 {
                text.push_str(value);
                text.extend(std::iter::repeat_n(' ', pad));
            } else {
                text.extend(std::iter::repeat_n(' ', pad));
                text.push_str(value);
            }
        }
        writeln!(w, "{}", text.trim_end())?;
    }
    for (row, why) in table.failed_rows() {
        writeln!(
            w,
            "error: {}: {}",
            sanitize(row.repo.as_bytes()),
            sanitize(one_line(why).as_bytes())
        )?;
    }
    for row in table.silent_rows() {
        writeln!(
            w,
            "note: {} held files but read zero on every term and control; worth a second look",
            sanitize(row.repo.as_bytes())
        )?;
    }
    Ok(())
}

/// Writes `lines` as aligned columns, two spaces apart: the first `left` columns
/// left-aligned (names), the others right-aligned (numbers).
fn write_aligned<W: Write>(w: &mut W, lines: &[Vec<String>], left: usize) -> io::Result<()> {
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
        let mut text = String::new();
        for (i, value) in line.iter().enumerate() {
            let pad = widths[i] - value.chars().count();
            if i > 0 {
                text.push_str("  ");
            }
            if i < left {
                text.push_str(value);
                text.push_str(&" ".repeat(pad));
            } else {
                text.push_str(&" ".repeat(pad));
                text.push_str(value);
            }
        }
        writeln!(w, "{}", text.trim_end())?;
    }
    Ok(())
}

/// Prints, under each counted row, every file with a nonzero count, sorted by the
/// path's bytes, with its size in bytes and its counts.
pub fn print_files<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    for row in &table.rows {
        let Ok(c) = &row.outcome else { continue };
        writeln!(w)?;
        writeln!(
            w,
            "files with a count in {}:",
            sanitize(row.repo.as_bytes())
        )?;
        let mut header: Vec<String> = vec!["path".into(), "bytes".into()];
        header.extend(table.columns().map(str::to_string));
        let mut lines = vec![header];
        let mut files: Vec<_> = c.count.files.iter().collect();
        files.sort_by(|a, b| a.path.cmp(&b.path));
        for file in files {
            let mut line = vec![sanitize(&file.path), thousands(file.bytes)];
            line.extend(file.counts.iter().map(|&n| thousands(n)));
            lines.push(line);
        }
        write_aligned(&mut w, &lines, 1)?;
    }
    Ok(())
}

/// Holds the counts of the files with one extension.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExtensionCount {
    /// The extension without its dot; `None` for names without one.
    pub extension: Option<Vec<u8>>,
    /// How many files with a nonzero count have this extension.
    pub files: u64,
    /// Per term, in the table's column order.
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
pub fn by_extension(count: &TreeCount) -> Vec<ExtensionCount> {
    let mut groups: std::collections::BTreeMap<Option<Vec<u8>>, ExtensionCount> =
        std::collections::BTreeMap::new();
    for file in &count.files {
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
    groups.into_values().collect()
}

/// Returns an extension as a person reads it: `.rs`, or `(none)`.
fn extension_label(extension: Option<&[u8]>) -> String {
    match extension {
        Some(ext) => format!(".{}", sanitize(ext)),
        None => "(none)".to_string(),
    }
}

/// Prints, under each counted row, its counts grouped by file extension: where the
/// hints sit (source, docs, schemas). `files` counts the files with a nonzero count.
pub fn print_by_extension<W: Write>(mut w: W, table: &Table) -> io::Result<()> {
    for row in &table.rows {
        let Ok(c) = &row.outcome else { continue };
        writeln!(w)?;
        writeln!(
            w,
            "counts by extension in {}:",
            sanitize(row.repo.as_bytes())
        )?;
        let mut header: Vec<String> = vec!["extension".into(), "files".into()];
        header.extend(table.columns().map(str::to_string));
        let mut lines = vec![header];
        for group in by_extension(&c.count) {
            let mut line = vec![
                extension_label(group.extension.as_deref()),
                thousands(group.files),
            ];
            line.extend(group.counts.iter().map(|&n| thousands(n)));
            lines.push(line);
        }
        write_aligned(&mut w, &lines, 1)?;
    }
    Ok(())
}

/// Returns `counts` as a JSON object keyed by the table's column names, in order.
fn json_counts(table: &Table, counts: &[u64]) -> serde_json::Value {
    table
        .columns()
        .zip(counts)
        .map(|(name, &n)| (name.to_string(), serde_json::Value::from(n)))
        .collect::<serde_json::Map<_, _>>()
        .into()
}

/// Writes the rows as a JSON array, with the census table's columns (counts as an
/// object keyed by term), and each tree's files with a count (`files`) and its
/// counts by extension (`by_extension`) when asked for. Paths that are not UTF-8
/// have their invalid bytes replaced.
pub fn write_json<W: Write>(mut w: W, table: &Table, files: bool, extensions: bool) -> Result<()> {
    use serde_json::{json, Value};
    let mut rows = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let mut value = json!({ "repo": row.repo, "pinned": row.pinned });
        let object = value
            .as_object_mut()
            .expect("a json! object literal is an object");
        match &row.outcome {
            Ok(c) => {
                object.insert("commit".into(), json!(c.commit));
                object.insert("commit_source".into(), json!(c.commit_source.as_str()));
                object.insert("files_walked".into(), json!(c.count.files_walked));
                object.insert("bytes_read".into(), json!(c.count.bytes_read));
                object.insert("counts".into(), json_counts(table, &c.count.counts));
                object.insert("archive_sha256".into(), json!(c.sha256));
                object.insert("probed_on".into(), json!(table.date));
                object.insert("status".into(), json!("ok"));
                object.insert("error".into(), Value::Null);
                if files {
                    let mut hits: Vec<_> = c.count.files.iter().collect();
                    hits.sort_by(|a, b| a.path.cmp(&b.path));
                    let list: Vec<Value> = hits
                        .into_iter()
                        .map(|f| {
                            json!({
                                "path": String::from_utf8_lossy(&f.path),
                                "bytes": f.bytes,
                                "counts": json_counts(table, &f.counts),
                            })
                        })
                        .collect();
                    object.insert("files".into(), Value::Array(list));
                }
                if extensions {
                    let list: Vec<Value> = by_extension(&c.count)
                        .into_iter()
                        .map(|g| {
                            json!({
                                "extension": g.extension.as_deref().map(String::from_utf8_lossy),
                                "files": g.files,
                                "counts": json_counts(table, &g.counts),
                            })
                        })
                        .collect();
                    object.insert("by_extension".into(), Value::Array(list));
                }
            }
            Err(why) => {
                for key in [
                    "commit",
                    "commit_source",
                    "files_walked",
                    "bytes_read",
                    "counts",
                    "archive_sha256",
                ] {
                    object.insert(key.into(), Value::Null);
                }
                object.insert("probed_on".into(), json!(table.date));
                object.insert("status".into(), json!("error"));
                object.insert("error".into(), json!(one_line(why)));
            }
        }
        rows.push(value);
    }
    serde_json::to_writer_pretty(&mut w, &rows)?;
    writeln!(w)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thousands_groups_by_three() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1192), "1,192");
        assert_eq!(thousands(3_594_000), "3,594,000");
    }

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
        assert_eq!(by_extension(&tree), expected);
    }

    #[test]
    fn one_line_folds_line_breaks() {
        assert_eq!(one_line("a\nb\r\nc"), "a b c");
    }
}
