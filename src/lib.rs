//! mcp-hint-census: counts the MCP tool-annotation hint names in source trees and
//! reads what running servers declare.
//!
//! The data flows one way: `corpus` (configuration, and the builder that pins one) →
//! `fetch` (HTTP and cache) → `intake` (hash and bounds) → `archive` (streaming
//! readers) → `count` (the matcher) → `table` (rows and the CSV schema) → `report`
//! (formats); every input hands its files to one `sink`, which owns the per-file
//! protocol. `terms` names the hints and the columns; `tools` finds the tool
//! definitions in a tree's source files. `scan` counts local trees with the same
//! `archive` and `count`; `probe` talks MCP to a running server; `cli` holds the
//! clap definitions; `error` the exit codes; `messages` every line on stderr and
//! `out` stdout. The binary dispatches the commands.

pub mod archive;
pub mod atomic;
pub mod census;
pub mod cli;
pub mod compare;
pub mod corpus;
pub mod count;
pub mod date;
pub mod error;
pub mod fetch;
pub mod hit_store;
pub mod http;
pub mod intake;
pub mod merge;
pub mod messages;
pub mod out;
pub mod probe;
pub mod process;
pub mod progress;
pub mod protocol;
pub mod report;
pub mod sanitize;
pub mod scan;
pub mod shard;
pub mod sink;
pub mod table;
pub mod terms;
pub mod tool_feed;
pub mod tool_hints;
pub mod tools;

pub use error::{ExitStatus, UsageError};
