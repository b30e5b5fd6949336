//! Probe snapshots: what `probe --save` writes and what `diff` reads back.
//!
//! A snapshot keeps what the hint rules read of each tool exactly as the server sent it:
//! `name`, `title` and `annotations` (an absent field stays absent, `null` stays `null`,
//! `false` stays `false`; an entry that is not an object is kept whole), sorted by tool
//! name, pretty-printed, so that two snapshots of the same answer are the same bytes and
//! a line diff of them reads well. It judges nothing; `hints` does that. Whatever
//! [`render`] writes, [`load`] reads back.
//!
//! ```json
//! {
//!   "server": { "name": "memory-server", "version": "0.6.3" },
//!   "protocolVersion": "2025-06-18",
//!   "capabilities": { "roots": { "listChanged": true }, "sampling": {}, "elicitation": { "form": {}, "url": {} } },
//!   "date": "2026-09-07",
//!   "tools": [ { "name": "read_graph", "title": "Read graph", "annotations": { "readOnlyHint": true } } ]
//! }
//! ```

use std::path::Path;

use anyhow::{bail, Context, Result};
use serde_json::{json, Map, Value};

use super::hints::display_name;
use super::session::Listing;

/// The fields of a tool object a snapshot keeps, in this order.
const KEPT: [&str; 3] = ["name", "title", "annotations"];

/// One tool as a snapshot holds it.
#[derive(Debug)]
pub struct SnapshotTool {
    /// The name it goes by ([`display_name`]).
    pub name: String,
    /// The entry as saved: the kept fields of a tool object, or a non-object as received.
    pub entry: Value,
}

/// A snapshot read back from disk.
#[derive(Debug)]
pub struct Snapshot {
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    /// The client capabilities offered; `None` in snapshots that predate the field.
    pub capabilities: Option<Value>,
    pub date: String,
    pub tools: Vec<SnapshotTool>,
}

/// Renders the snapshot of `listing` stamped with `date`, ending in a newline.
pub fn render(listing: &Listing, date: &str) -> String {
    let mut text = serde_json::to_string_pretty(&to_value(listing, date))
        .expect("a JSON value always serializes");
    text.push('\n');
    text
}

/// Returns the snapshot of `listing` as `load` would read it back, undated.
pub fn of_listing(listing: &Listing) -> Snapshot {
    parse(&to_value(listing, "")).expect("a rendered snapshot has a tools array")
}

/// Returns the snapshot of `listing` as a JSON value.
fn to_value(listing: &Listing, date: &str) -> Value {
    let mut tools: Vec<Value> = listing
        .tools
        .iter()
        .map(|tool| match tool {
            Value::Object(fields) => {
                let mut entry = Map::new();
                for key in KEPT {
                    if let Some(value) = fields.get(key) {
                        entry.insert(key.to_string(), value.clone());
                    }
                }
                Value::Object(entry)
            }
            other => other.clone(),
        })
        .collect();
    // Stable: tools listed twice under one name keep the server's order.
    tools.sort_by_cached_key(display_name);
    json!({
        "server": { "name": listing.server_name, "version": listing.server_version },
        "protocolVersion": listing.protocol_version,
        "capabilities": listing.capabilities,
        "date": date,
        "tools": tools,
    })
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
    let tools = listed
        .iter()
        .map(|entry| SnapshotTool {
            name: display_name(entry),
            entry: entry.clone(),
        })
        .collect();
    Ok(Snapshot {
        server_name: text("/server/name"),
        server_version: text("/server/version"),
        protocol_version: text("/protocolVersion"),
        capabilities: value.get("capabilities").cloned(),
        date: text("/date"),
        tools,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn render_keeps_what_the_rules_read_as_received_and_sorts_by_name() {
        let listing = Listing {
            server_name: "s".into(),
            server_version: "1".into(),
            protocol_version: "2025-06-18".into(),
            capabilities: json!({}),
            pages: 1,
            tools: vec![
                json!({ "name": "b", "description": "dropped", "title": "B", "annotations": { "openWorldHint": false, "readOnlyHint": false, "title": "Bee" } }),
                json!({ "name": "a" }),
                json!({ "name": "c", "annotations": null }),
                json!({ "name": 12345 }),
                json!(7),
            ],
            warnings: Vec::new(),
            announces_changes: false,
        };
        let text = render(&listing, "2026-09-07");
        let back: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(
            back["tools"],
            json!([
                { "name": 12345 },
                7,
                { "name": "a" },
                { "name": "b", "title": "B", "annotations": { "openWorldHint": false, "readOnlyHint": false, "title": "Bee" } },
                { "name": "c", "annotations": null },
            ])
        );
        assert_eq!(back["capabilities"], json!({}));
        // Key order as received, not alphabetical.
        assert!(text.find("openWorldHint") < text.find("readOnlyHint"));
        let parsed = parse(&back).expect("snapshot");
        assert_eq!(parsed.date, "2026-09-07");
        let names: Vec<&str> = parsed.tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["12345", "7", "a", "b", "c"]);
    }

    #[test]
    fn a_tool_without_a_name_is_read_with_the_empty_name() {
        let parsed = parse(&json!({ "tools": [{ "annotations": {} }] })).expect("snapshot");
        assert_eq!(parsed.tools[0].name, "");
    }

    #[test]
    fn a_snapshot_needs_a_tools_array() {
        let err = parse(&json!({ "tools": 3 })).unwrap_err();
        assert_eq!(err.to_string(), "it has no 'tools' array");
    }
}
