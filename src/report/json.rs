//! Writes rows as JSON for scripts: the census table's columns, counts as an object
//! keyed by column, and optionally each tree's files and its counts by extension.
//!
//! Strings are spelled as the table and the CSV spell them: an extension is `.rs` or
//! `(none)`, and a string cell that the CSV leaves empty is `""`; only a count that
//! does not exist (on an error row) is `null`.

use std::io::Write;

use anyhow::Result;
use serde::ser::{Error as _, Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{json, Map, Value};

use super::terminal::extension_label;
use crate::count::TreeCount;
use crate::lint::{self, Subject};
use crate::table::{by_extension, one_line, Table, TOOL_COLUMNS};
use crate::tools::hints::{settings, state, Hint};
use crate::tools::{DefKind, HintState, Role, ToolDef};

/// Returns one tool definition as JSON: where it is, its family and name (`null`
/// when not a literal), its name class, each hint as `true`, `false`, `"?"` or
/// `null` (absent), the hints meaningful for it that it omits, and the lint's
/// findings (a tree's own tools only: kind `tool`, role `source`).
fn json_tool(tool: &ToolDef) -> Value {
    let own = tool.kind == DefKind::Tool && tool.role == Role::Source;
    let findings: Vec<Value> = match own {
        false => Vec::new(),
        true => lint::check(&Subject {
            name: tool.name.as_deref(),
            class: tool.name_class,
            settings: settings(tool),
            family: Some(tool.family),
        })
        .into_iter()
        .map(|f| json!({ "rule": f.rule.id(), "message": f.message, "suggestion": f.suggestion }))
        .collect(),
    };
    let hints: Map<String, Value> = Hint::ALL
        .iter()
        .map(|&h| {
            let value = match state(tool, h) {
                Some(HintState::True) => json!(true),
                Some(HintState::False) => json!(false),
                Some(HintState::Unresolved) => json!("?"),
                Some(HintState::Unknown) => json!("unknown"),
                None => Value::Null,
            };
            (h.name().to_string(), value)
        })
        .collect();
    json!({
        "path": String::from_utf8_lossy(&tool.path),
        "line": tool.line,
        "kind": tool.kind.as_str(),
        "role": tool.role.as_str(),
        "sdk": tool.family.as_str(),
        "tool": tool.name,
        "name_class": tool.name_class.as_str(),
        "hints": hints,
        "omits": settings(tool).omits().iter().map(|h| h.name()).collect::<Vec<_>>(),
        "lint": findings,
    })
}

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
///
/// The files are streamed from each tree's hit store as they are written, never
/// gathered, so memory does not grow with the number of files.
pub fn write_json<W: Write>(mut w: W, table: &Table, files: bool, extensions: bool) -> Result<()> {
    let mut rows = Vec::with_capacity(table.rows.len());
    for row in &table.rows {
        let mut object = Map::new();
        object.insert("repo".into(), json!(row.key.repo));
        object.insert("pinned".into(), json!(row.key.pinned_cell()));
        object.insert(
            "subfolder".into(),
            json!(row.key.subfolder.as_deref().unwrap_or_default()),
        );
        object.insert(
            "server".into(),
            json!(row.server.clone().unwrap_or_default()),
        );
        let mut tail = Tail::default();
        match &row.outcome {
            Ok(c) => {
                object.insert("commit".into(), json!(c.commit));
                object.insert("commit_source".into(), json!(c.commit_source.as_str()));
                object.insert("files_walked".into(), json!(c.count.files_walked));
                object.insert("bytes_read".into(), json!(c.count.bytes_read));
                object.insert("counts".into(), json_counts(table, &c.count.counts));
                let counts = c.tool_counts();
                for (i, key) in TOOL_COLUMNS.iter().enumerate() {
                    object.insert((*key).into(), json!(counts.map(|n| n[i])));
                }
                object.insert(
                    "tool_definitions".into(),
                    match &c.tools {
                        Some(found) => found.tools.iter().map(json_tool).collect(),
                        None => Value::Null,
                    },
                );
                object.insert("archive_sha256".into(), json!(c.sha256));
                object.insert("probed_on".into(), json!(table.date));
                object.insert("status".into(), json!("ok"));
                object.insert("error".into(), json!(""));
                if files {
                    tail.files = Some(&c.count);
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
                    tail.by_extension = Some(Value::Array(list));
                }
            }
            Err(failure) => {
                for key in ["commit", "commit_source"] {
                    object.insert(key.into(), json!(""));
                }
                for key in ["files_walked", "bytes_read", "counts"]
                    .into_iter()
                    .chain(TOOL_COLUMNS)
                    .chain(["tool_definitions"])
                {
                    object.insert(key.into(), Value::Null);
                }
                object.insert("archive_sha256".into(), json!(""));
                object.insert("probed_on".into(), json!(table.date));
                object.insert("status".into(), json!("error"));
                object.insert("error".into(), json!(one_line(&failure.why)));
            }
        }
        rows.push(JsonRow {
            table,
            object,
            tail,
        });
    }
    serde_json::to_writer_pretty(&mut w, &rows)?;
    writeln!(w)?;
    Ok(())
}

/// What follows a row's plain fields: its files, streamed, and its counts by
/// extension.
#[derive(Default)]
struct Tail<'t> {
    files: Option<&'t TreeCount>,
    by_extension: Option<Value>,
}

/// One row as JSON: its plain fields, then its tail.
struct JsonRow<'t> {
    table: &'t Table,
    object: Map<String, Value>,
    tail: Tail<'t>,
}

impl Serialize for JsonRow<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        for (key, value) in &self.object {
            map.serialize_entry(key, value)?;
        }
        if let Some(count) = self.tail.files {
            map.serialize_entry(
                "files",
                &Files {
                    table: self.table,
                    count,
                },
            )?;
        }
        if let Some(list) = &self.tail.by_extension {
            map.serialize_entry("by_extension", list)?;
        }
        map.end()
    }
}

/// A tree's files with a count, read from its hit store while they are written.
struct Files<'t> {
    table: &'t Table,
    count: &'t TreeCount,
}

impl Serialize for Files<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(None)?;
        for file in self.count.files.iter() {
            let f = file.map_err(S::Error::custom)?;
            seq.serialize_element(&json!({
                "path": String::from_utf8_lossy(&f.path),
                "bytes": f.bytes,
                "counts": json_counts(self.table, &f.counts),
            }))?;
        }
        seq.end()
    }
}
