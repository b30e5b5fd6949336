//! Writes rows as JSON for scripts: the census table's columns, counts as an object
//! keyed by column, and optionally each tree's files and its counts by extension.
//!
//! Strings are spelled as the table and the CSV spell them: an extension is `.rs` or
//! `(none)`, and a string cell that the CSV leaves empty is `""`; only a count that
//! does not exist (on an error row) is `null`.

use std::io::Write;

use anyhow::Result;
use serde_json::{json, Map, Value};

use super::terminal::extension_label;
use crate::table::{by_extension, one_line, Table};

/// Returns `counts` as a JSON object keyed by the table's column names, in order.
fn json_counts(table: &Table, counts: &[u64]) -> Value {
    table
        .columns
        .names()
        .zip(counts)
        .map(|(name, &n)| (name.to_string(), Value::from(n)))
        .collect::<Map<_, _>>()
        .into()
}

/// Writes the rows as a JSON array, with each tree's files with a count (`files`)
/// and its counts by extension (`by_extension`) when asked for. Paths that are not
/// UTF-8 have their invalid bytes replaced.
pub fn write_json<W: Write>(mut w: W, table: &Table, files: bool, extensions: bool) -> Result<()> {
    let mut rows = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let mut object = Map::new();
        object.insert("repo".into(), json!(row.key.repo));
        object.insert("pinned".into(), json!(row.key.pinned));
        object.insert("subfolder".into(), json!(row.key.subfolder));
        object.insert(
            "server".into(),
            json!(row.server.clone().unwrap_or_default()),
        );
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
                object.insert("error".into(), json!(""));
                if files {
                    let list: Vec<Value> = c
                        .count
                        .files
                        .iter()
                        .map(|f| {
                            f.map(|f| {
                                json!({
                                    "path": String::from_utf8_lossy(&f.path),
                                    "bytes": f.bytes,
                                    "counts": json_counts(table, &f.counts),
                                })
                            })
                        })
                        .collect::<std::io::Result<_>>()?;
                    object.insert("files".into(), Value::Array(list));
                }
                if extensions {
                    let list: Vec<Value> = by_extension(&c.count)?
                        .into_iter()
                        .map(|g| {
                            json!({
                                "extension": extension_label(g.extension.as_deref()),
                                "files": g.files,
                                "counts": json_counts(table, &g.counts),
                            })
                        })
                        .collect();
                    object.insert("by_extension".into(), Value::Array(list));
                }
            }
            Err(failure) => {
                for key in ["commit", "commit_source"] {
                    object.insert(key.into(), json!(""));
                }
                for key in ["files_walked", "bytes_read", "counts"] {
                    object.insert(key.into(), Value::Null);
                }
                object.insert("archive_sha256".into(), json!(""));
                object.insert("probed_on".into(), json!(table.date));
                object.insert("status".into(), json!("error"));
                object.insert("error".into(), json!(one_line(&failure.why)));
            }
        }
        rows.push(Value::Object(object));
    }
    serde_json::to_writer_pretty(&mut w, &rows)?;
    writeln!(w)?;
    Ok(())
}
