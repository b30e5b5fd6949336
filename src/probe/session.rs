//! The MCP client conversation a probe holds: `initialize`, `notifications/initialized`,
//! then `tools/list` page by page until `nextCursor` runs out.
//!
//! Owns the JSON-RPC message shapes and the paging rules. It does not move bytes (the
//! `stdio` and `http` transports do) and it does not judge the hints it receives.

use std::collections::HashSet;
use std::fmt;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use serde_json::{json, Value};

use crate::infra::protocol::KNOWN_VERSIONS;

/// Above this many `tools/list` pages a probe warns: real servers fit their tools in a
/// handful, so hundreds of pages suggest a cursor that never ends.
pub const PAGE_WARN_CAP: usize = 100;

/// A JSON-RPC error object received in answer to a request.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
}

/// The JSON-RPC 2.0 code for "the method does not exist / is not available".
pub const METHOD_NOT_FOUND: i64 = -32601;

impl fmt::Display for RpcError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "JSON-RPC error {}: '{}'", self.code, self.message)
    }
}

impl std::error::Error for RpcError {}

/// A way to send JSON-RPC messages to one server and wait for the answers.
pub trait Transport {
    /// Sends a request and returns its `result`; a JSON-RPC error comes back as an
    /// [`RpcError`] in the chain.
    fn request(&mut self, method: &str, params: Value) -> Result<Value>;

    /// Sends a notification, which has no answer.
    fn notify(&mut self, method: &str, params: Value) -> Result<()>;

    /// Records the protocol version the server agreed to, for transports that repeat it
    /// on every message (Streamable HTTP's `MCP-Protocol-Version` header).
    fn set_protocol_version(&mut self, _version: &str) {}

    /// Returns and clears the warnings the transport gathered (skipped lines and such).
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }

    /// Waits, until `until`, for the server to announce that its tool list changed
    /// ([`LIST_CHANGED`]), answering its requests meanwhile; an announcement that came
    /// with an earlier answer counts. Returns false when `until` passed first.
    fn wait_for_list_change(&mut self, _until: Instant) -> Result<bool> {
        bail!("this transport cannot wait for the server's notifications")
    }

    /// Starts a new `--timeout` for the next exchange.
    fn restart_timeout(&mut self) {}
}

/// The notification a server sends when its tool list changed.
pub const LIST_CHANGED: &str = "notifications/tools/list_changed";

/// Tells whether `message` is the notification that the server's tool list changed.
pub fn is_list_changed(message: &Value) -> bool {
    message.get("id").is_none()
        && message.get("method").and_then(Value::as_str) == Some(LIST_CHANGED)
}

/// Builds a JSON-RPC 2.0 request.
pub fn request_message(id: u64, method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params })
}

/// Builds a JSON-RPC 2.0 notification.
pub fn notification_message(method: &str, params: Value) -> Value {
    json!({ "jsonrpc": "2.0", "method": method, "params": params })
}

/// The client capabilities a probe offers by default: what the official SDK clients
/// offer at [`crate::infra::protocol::LATEST_VERSION`] when the application gives them roots, sampling and
/// elicitation callbacks (the Python SDK builds exactly this in
/// `ClientSession._build_capabilities`), since servers such as `server-everything` list
/// more tools to a client that has them, and some only to one offering URL-mode
/// elicitation.
pub fn default_capabilities() -> Value {
    json!({
        "roots": { "listChanged": true },
        "sampling": {},
        "elicitation": { "form": {}, "url": {} },
    })
}

/// Returns the names of the capabilities in `capabilities` joined with `;`, or `none`.
pub fn capability_names(capabilities: &Value) -> String {
    match capabilities.as_object() {
        Some(map) if !map.is_empty() => map.keys().cloned().collect::<Vec<_>>().join(";"),
        _ => "none".to_string(),
    }
}

/// The JSON-RPC error code the specification's sampling section gives for a request the
/// user rejected.
pub const USER_REJECTED: i64 = -1;

/// Builds the answer to a request the server sent, without side effects: an empty
/// result for `ping`; for a capability offered in `capabilities`, an empty root list
/// (`roots/list`), a rejected sampling request (`sampling/createMessage`) or a declined
/// elicitation (`elicitation/create`); method-not-found for anything else.
pub fn answer_server_request(id: &Value, method: &str, capabilities: &Value) -> Value {
    let offered = |name: &str| capabilities.get(name).is_some();
    let error = |code: i64, message: String| json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } });
    let result = |result: Value| json!({ "jsonrpc": "2.0", "id": id, "result": result });
    match method {
        "ping" => result(json!({})),
        "roots/list" if offered("roots") => result(json!({ "roots": [] })),
        "elicitation/create" if offered("elicitation") => result(json!({ "action": "decline" })),
        "sampling/createMessage" if offered("sampling") => error(
            USER_REJECTED,
            "User rejected sampling request: this client only lists tools".to_string(),
        ),
        _ => error(
            METHOD_NOT_FOUND,
            format!("method '{method}' is not supported by this client"),
        ),
    }
}

/// How deep serde_json reads nested arrays and objects before giving up.
pub const NESTING_LIMIT: usize = 128;

/// One message read off the wire.
pub enum Parsed {
    Message(Value),
    /// Not JSON at all.
    NotJson,
    /// JSON nested deeper than [`NESTING_LIMIT`]: its top-level `id` and `method`, when
    /// they could be read.
    TooDeep {
        id: Option<Value>,
        method: Option<String>,
    },
}

/// Parses one message, telling JSON that is too deeply nested from text that is not JSON.
pub fn parse(bytes: &[u8]) -> Parsed {
    match serde_json::from_slice(bytes) {
        Ok(value) => Parsed::Message(value),
        Err(err) if err.to_string().starts_with("recursion limit exceeded") => {
            // Skipping fields does not count depth, so the head of the message can
            // still be read.
            #[derive(serde::Deserialize)]
            struct Head {
                id: Option<Value>,
                method: Option<String>,
            }
            match serde_json::from_slice::<Head>(bytes) {
                Ok(head) => Parsed::TooDeep {
                    id: head.id,
                    method: head.method,
                },
                Err(_) => Parsed::TooDeep {
                    id: None,
                    method: None,
                },
            }
        }
        Err(_) => Parsed::NotJson,
    }
}

/// Judges a message too deeply nested to read while waiting for the answer to `id`
/// (`method`): an error when it is that answer, else a warning naming what was dropped.
pub fn too_deep(
    id: u64,
    method: &str,
    their_id: Option<&Value>,
    their_method: Option<&str>,
) -> std::result::Result<String, anyhow::Error> {
    if their_method.is_none() && their_id.and_then(Value::as_u64) == Some(id) {
        return Err(anyhow::anyhow!(
            "the answer to '{method}' is JSON nested deeper than {NESTING_LIMIT} levels, more than this client reads"
        ));
    }
    let what = match (their_method, their_id) {
        (Some(m), Some(i)) => format!(
            "a request '{}' (id {})",
            crate::infra::sanitize::excerpt(m),
            crate::infra::sanitize::excerpt(&i.to_string())
        ),
        (Some(m), None) => format!("a notification '{}'", crate::infra::sanitize::excerpt(m)),
        (None, Some(i)) => format!(
            "an answer to id {}",
            crate::infra::sanitize::excerpt(&i.to_string())
        ),
        (None, None) => "a message".to_string(),
    };
    Ok(format!(
        "dropped {what} nested deeper than {NESTING_LIMIT} levels, more than this client reads"
    ))
}

/// What one incoming message is, from the point of view of a client waiting on `id`.
pub enum Incoming<'a> {
    /// The answer to the awaited request: its result, or its error.
    Answer(std::result::Result<Value, RpcError>),
    /// A request from the server, which must be answered.
    Request { id: &'a Value, method: &'a str },
    /// Our own request coming back: the program echoes its input.
    Echo,
    /// A notification, an answer to something else, or a shape JSON-RPC does not know.
    Other,
}

/// Classifies one incoming JSON-RPC message while waiting for the answer to `id`, the
/// request `awaited`.
pub fn classify<'a>(message: &'a Value, id: u64, awaited: &str) -> Incoming<'a> {
    if let (Some(method), Some(request_id)) = (
        message.get("method").and_then(Value::as_str),
        message.get("id"),
    ) {
        if method == awaited && request_id.as_u64() == Some(id) {
            return Incoming::Echo;
        }
        return Incoming::Request {
            id: request_id,
            method,
        };
    }
    if message.get("id").and_then(Value::as_u64) != Some(id) {
        return Incoming::Other;
    }
    if let Some(error) = message.get("error") {
        return Incoming::Answer(Err(RpcError {
            code: error.get("code").and_then(Value::as_i64).unwrap_or(0),
            message: error
                .get("message")
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string(),
        }));
    }
    match message.get("result") {
        Some(result) => Incoming::Answer(Ok(result.clone())),
        None => Incoming::Other,
    }
}

/// What a probe offers the server in `initialize`.
#[derive(Clone, Debug)]
pub struct Offer {
    pub protocol_version: String,
    /// The client capabilities object, sent as is.
    pub capabilities: Value,
}

/// What a server answered: who it is and every tool it listed, in its order.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Listing {
    pub server_name: String,
    pub server_version: String,
    pub protocol_version: String,
    /// The client capabilities the probe offered.
    pub capabilities: Value,
    pub pages: usize,
    pub tools: Vec<Value>,
    pub warnings: Vec<String>,
    /// Whether the server declared `tools.listChanged`: that it may announce changes.
    pub announces_changes: bool,
}

/// Holds the conversation and returns every tool the server lists.
pub fn list_tools(transport: &mut dyn Transport, offer: &Offer) -> Result<Listing> {
    let offered_version = offer.protocol_version.as_str();
    let init = transport
        .request(
            "initialize",
            json!({
                "protocolVersion": offered_version,
                "capabilities": offer.capabilities,
                "clientInfo": { "name": env!("CARGO_PKG_NAME"), "version": env!("CARGO_PKG_VERSION") },
            }),
        )
        .context("initialize")?;
    let protocol_version = init
        .get("protocolVersion")
        .and_then(Value::as_str)
        .context("initialize: the answer has no 'protocolVersion'")?
        .to_string();
    let info = init.get("serverInfo");
    let text = |key: &str| {
        info.and_then(|i| i.get(key))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    let mut warnings = Vec::new();
    // The lifecycle section: a client that does not support the version the server
    // answers with should disconnect. A probe supports the published versions and
    // whatever it was told to offer.
    if protocol_version != offered_version {
        if !KNOWN_VERSIONS.contains(&protocol_version.as_str()) {
            bail!(
                "initialize: the server answered protocol version '{}', which this client does not support (it offered '{offered_version}' and knows {}); disconnecting, as the specification's lifecycle asks",
                crate::infra::sanitize::excerpt(&protocol_version),
                KNOWN_VERSIONS.join(", ")
            );
        }
        if protocol_version.as_str() > offered_version {
            warnings.push(format!(
                "the server answered protocol version '{protocol_version}', newer than the '{offered_version}' offered; a server supporting the offered version must answer with it"
            ));
        }
    }
    if init.pointer("/capabilities/tools").is_none() {
        warnings.push("the server does not declare the 'tools' capability".to_string());
    }
    transport.set_protocol_version(&protocol_version);
    transport
        .notify("notifications/initialized", json!({}))
        .context("notifications/initialized")?;
    let (tools, pages) = list_pages(transport, &mut warnings)?;
    Ok(Listing {
        server_name: text("name"),
        server_version: text("version"),
        protocol_version,
        capabilities: offer.capabilities.clone(),
        pages,
        tools,
        warnings,
        announces_changes: init.pointer("/capabilities/tools/listChanged") == Some(&json!(true)),
    })
}

/// Lists the tools again in the same session, as after [`LIST_CHANGED`], within a new
/// `--timeout`; the server is the one `previous` describes.
pub fn relist(transport: &mut dyn Transport, previous: &Listing) -> Result<Listing> {
    transport.restart_timeout();
    let mut warnings = Vec::new();
    let (tools, pages) = list_pages(transport, &mut warnings)?;
    Ok(Listing {
        server_name: previous.server_name.clone(),
        server_version: previous.server_version.clone(),
        protocol_version: previous.protocol_version.clone(),
        capabilities: previous.capabilities.clone(),
        pages,
        tools,
        warnings,
        announces_changes: previous.announces_changes,
    })
}

/// Follows `tools/list` page by page; returns the tools and the number of pages, and
/// adds the warnings of the listing and of the transport to `warnings`.
fn list_pages(
    transport: &mut dyn Transport,
    warnings: &mut Vec<String>,
) -> Result<(Vec<Value>, usize)> {
    let mut tools = Vec::new();
    let mut seen = HashSet::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({ "cursor": c }),
            None => json!({}),
        };
        let page = transport.request("tools/list", params).map_err(|err| {
            let no_tools = err
                .downcast_ref::<RpcError>()
                .is_some_and(|e| e.code == METHOD_NOT_FOUND);
            let err = err.context(format!("tools/list, page {}", pages + 1));
            if no_tools {
                err.context("the server offers no tools")
            } else {
                err
            }
        })?;
        pages += 1;
        let listed = page
            .get("tools")
            .and_then(Value::as_array)
            .with_context(|| {
                format!("tools/list, page {pages}: the answer has no 'tools' array")
            })?;
        tools.extend(listed.iter().cloned());
        match page.get("nextCursor") {
            None | Some(Value::Null) => break,
            Some(Value::String(next)) => {
                if !seen.insert(next.clone()) {
                    bail!(
                        "tools/list, page {pages}: the server sent cursor '{next}' a second time, so paging would never end"
                    );
                }
                cursor = Some(next.clone());
            }
            Some(other) => bail!("tools/list, page {pages}: 'nextCursor' is {other}, not a string"),
        }
    }
    if pages > PAGE_WARN_CAP {
        warnings.push(format!(
            "tools/list took {pages} pages, more than {PAGE_WARN_CAP}: check the server's paging"
        ));
    }
    warnings.extend(transport.take_warnings());
    Ok((tools, pages))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// Answers requests from a script, in order.
    struct Scripted {
        answers: VecDeque<std::result::Result<Value, RpcError>>,
        sent: Vec<(String, Value)>,
    }

    impl Transport for Scripted {
        fn request(&mut self, method: &str, params: Value) -> Result<Value> {
            self.sent.push((method.to_string(), params));
            Ok(self
                .answers
                .pop_front()
                .expect("the script has an answer")?)
        }
        fn notify(&mut self, method: &str, params: Value) -> Result<()> {
            self.sent.push((method.to_string(), params));
            Ok(())
        }
    }

    fn offer() -> Offer {
        Offer {
            protocol_version: "2025-06-18".into(),
            capabilities: default_capabilities(),
        }
    }

    fn init() -> std::result::Result<Value, RpcError> {
        Ok(json!({
            "protocolVersion": "2025-03-26",
            "capabilities": { "tools": {} },
            "serverInfo": { "name": "s", "version": "1" },
        }))
    }

    #[test]
    fn pages_are_followed_in_order() {
        let mut t = Scripted {
            answers: VecDeque::from([
                init(),
                Ok(json!({ "tools": [{ "name": "a" }], "nextCursor": "x" })),
                Ok(json!({ "tools": [{ "name": "b" }], "nextCursor": null })),
            ]),
            sent: Vec::new(),
        };
        let listing = list_tools(&mut t, &offer()).expect("listing");
        assert_eq!(listing.pages, 2);
        assert_eq!(listing.protocol_version, "2025-03-26");
        let names: Vec<_> = listing.tools.iter().map(|t| t["name"].as_str()).collect();
        assert_eq!(names, [Some("a"), Some("b")]);
        assert_eq!(t.sent[1].0, "notifications/initialized");
        assert_eq!(t.sent[3].1, json!({ "cursor": "x" }));
    }

    #[test]
    fn a_repeated_cursor_is_a_loop() {
        let mut t = Scripted {
            answers: VecDeque::from([
                init(),
                Ok(json!({ "tools": [], "nextCursor": "x" })),
                Ok(json!({ "tools": [], "nextCursor": "x" })),
            ]),
            sent: Vec::new(),
        };
        let err = list_tools(&mut t, &offer()).unwrap_err();
        assert!(
            format!("{err:#}").contains("cursor 'x' a second time"),
            "{err:#}"
        );
    }

    #[test]
    fn method_not_found_means_no_tools() {
        let mut t = Scripted {
            answers: VecDeque::from([
                init(),
                Err(RpcError {
                    code: METHOD_NOT_FOUND,
                    message: "nope".into(),
                }),
            ]),
            sent: Vec::new(),
        };
        let err = list_tools(&mut t, &offer()).unwrap_err();
        assert!(
            format!("{err:#}").starts_with("the server offers no tools"),
            "{err:#}"
        );
    }
}
