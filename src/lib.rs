//! mcp-hint-census: counts the MCP tool-annotation hint names in source trees and
//! reads what running servers declare.
//!
//! The data flows one way, one folder per stage:
//!
//! ```text
//! corpus::file ──> fetch ──> archive ──┐   (a census: corpus.toml, HTTP and cache, readers)
//!   scan's walk and git ───────────────┤   (local trees: folders, revisions, one file)
//!                                      v
//!                         count::sink ──> count (the matcher) ──┐
//!                                    └──> tools (the finder) ───┤
//!                                                               v
//!                                                  table (rows, the CSV schema)
//!                                                               v
//!                                                  report (formats)
//! ```
//!
//! Every input hands its files to the one sink (`count::sink`), which drives the
//! counter and the tool finder. `registry` reads the npm and PyPI indexes a package
//! corpus is pinned from, and the credentials their clients would send. `tools::hints` holds the four hints and the schema's
//! rules for them, read the same way for a definition in source and, in `probe`, for
//! a tool on the wire; `tools::names` classes a tool by its name, and `lint` reads
//! both into findings with stable rule ids (and SARIF). The commands sit on top: `census`, `scan`, `probe` (with
//! `diff`), `corpus`, `compare` and `merge`; `cli` holds the clap definitions, and
//! `infra` what every layer shares (stderr and stdout, files written whole, programs
//! run bounded, progress, dates, escaping, the exit codes).
//!
//! Imports point down only: a command may import the stages and `infra`, a stage the
//! stages below it and `infra`, and `infra` nothing above it. The order, lowest
//! first, is `infra`, `tools`, `lint`, `count`, `fetch`, `registry`, `archive`, `table`, `report`, `cli`,
//! then the commands; `.ci/deps.py` checks it. The sink sits below the readers that
//! drive it, which is why `count` and `tools` come before `fetch` and `archive`
//! here though their bytes come after. The binary dispatches the commands.

pub mod infra;

pub mod archive;
pub mod count;
pub mod fetch;
pub mod lint;
pub mod registry;
pub mod report;
pub mod table;
pub mod tools;

pub mod cli;

pub mod census;
pub mod compare;
pub mod corpus;
pub mod merge;
pub mod probe;
pub mod scan;
pub mod survey;
