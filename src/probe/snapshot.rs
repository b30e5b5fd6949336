//! Probe snapshots: what `probe --save` writes and what `diff` reads back.
//!
//! A snapshot keeps each tool's `annotations` exactly as the server sent them (an
//! absent object stays absent, `null` stays `null`, `false` stays `false`), sorted by
//! tool name, pretty-printed, so that two snapshots of the same answer are the same
//! bytes and a line diff of them reads well. It judges nothing; `hints` does that.
//!
//! ```json
//! {
//!   "server": { "name": "memory-server", "version": "0.6.3" },
//!   "protocolVersion": "2025-06-18",
//!   "date": "2026-09-07",
//!   "tools": [ { "name": "read_graph", "annotations": { "readOnlyHint": true } } ]
//! }
//! ```

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::session::Listing;

/// One tool as a snapshot holds it.
#[derive(Debug)]
pub struct SnapshotTool {
    pub name: String,
    /// The tool's `annotations` as received; `None` when the tool had none at all.
    pub annotations: Option<Value>,
}

/// A snapshot read back from disk.
#[derive(Debug)]
pub struct Snapshot {
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    pub date: String,
    pub tools: Vec<SnapshotTool>,
}

/// Renders the snapshot of `listing` stamped with `date`, ending in a newline.
pub fn render(listing: &Listing, date: &str) -> String {
    let mut tools: Vec<Value> = listing
        .tools
        .iter()
        .map(|tool| {
            let mut entry = Map::new();
            entry.insert(
                "name".to_string(),
                tool.get("name").cloned().unwrap_or(Value::Null),
            );
            if let Some(annotations) = tool.get("annotations") {
                entry.insert("annotations".to_string(), annotations.clone());
            }
            Value::Object(entry)
        })
        .collect();
    // Stable: tools listed twice under one name keep the server's order.
    tools.sort_by(|a, b| name_of(a).cmp(name_of(b)));
    let snapshot = json!({
        "server": { "name": listing.server_name, "version": listing.server_version },
        "protocolVersion": listing.protocol_version,
        "date": date,
        "tools": tools,
    });
    let mut text = serde_json::to_string_pretty(&snapshot).expect("a JSON value always serializes");
    text.push('\n');
    text
}

fn name_of(tool: &Value) -> &str {
    tool.get("name").and_then(Value::as_str).unwrap_or_default()
}

/// Reads a snapshot written by `probe --save`.
pub fn load(path: &Path) -> Result<Snapshot> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("reading '{}'", path.display()))?;
    let value: Value =
        serde_json::from_str(&text).with_context(|| format!("'{}' is not JSON", path.display()))?;
    parse(&value).with_context(|| format!("'{}' is not a probe snapshot", path.display()))
}

fn parse(value: &Value) -> Result<Snapshot> {
    let text = |pointer: &str| {
        value
            .pointer(pointer)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let Some(listed) = value.get("tools").and_then(Value::as_array) else {
        bail!("it has no 'tools' array");
    };
    let mut tools = Vec::with_capacity(listed.len());
    for (index, tool) in listed.iter().enumerate() {
        let Some(name) = tool.get("name").and_then(Value::as_str) else {
            bail!("tool {} has no 'name' string", index + 1);
        };
        tools.push(SnapshotTool {
            name: name.to_string(),
            annotations: tool.get("annotations").cloned(),
        });
    }
    Ok(Snapshot {
        server_name: text("/server/name"),
        server_version: text("/server/version"),
        protocol_version: text("/protocolVersion"),
        date: text("/date"),
        tools,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_keeps_annotations_as_received_and_sorts_by_name() {
        let listing = Listing {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "2025-06-18".into(),
            pages: 1,
            tools: vec![
                json!({ "name": "b", "description": "dropped", "annotations": { "openWorldHint": false, "readOnlyHint": false } }),
                json!({ "name": "a" }),
                json!({ "name": "c", "annotations": null }),
            ],
            warnings: Vec::new(),
        };
        let text = render(&listing, "2026-09-07");
        let back: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            back["tools"],
            json!([
                { "name": "a" },
                { "name": "b", "annotations": { "openWorldHint": false, "readOnlyHint": false } },
                { "name": "c", "annotations": null },
            ])
        );
        // Key order as received, not alphabetical.
        assert!(text.find("openWorldHint") < text.find("readOnlyHint"));
        let parsed = parse(&back).expect("snapshot");
        assert_eq!(parsed.date, "2026-09-07");
        assert!(parsed.tools[0].annotations.is_none());
        assert_eq!(parsed.tools[2].annotations, Some(Value::Null));
    }

    #[test]
    fn a_tool_without_a_name_is_rejected() {
        let err = parse(&json!({ "tools": [{ "annotations": {} }] })).unwrap_err();
        assert_eq!(err.to_string(), "tool 1 has no 'name' string");
    }
}
