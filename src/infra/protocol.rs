//! The MCP protocol versions probe knows, kept apart from the probe itself so that the
//! command line can name the default without depending on the probe.

/// The protocol version a probe offers by default: the newest it speaks, the one the
/// official SDK clients offer (Python `mcp` 2.3.0, TypeScript `@modelcontextprotocol/sdk`
/// 1.32.2).
pub const LATEST_VERSION: &str = "2025-11-25";

/// The protocol versions the specification has published, oldest first. A server may
/// answer `initialize` with any of them, or with the one offered.
pub const KNOWN_VERSIONS: [&str; 4] = ["2024-11-05", "2025-03-26", "2025-06-18", LATEST_VERSION];
