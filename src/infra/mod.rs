//! What every layer shares: the process's edges and small value types, none of them a
//! stage of the data flow.
//!
//! [`messages`] writes every line on stderr and [`out`] stdout; [`atomic`] writes a
//! file whole or not at all; [`process`] runs a program bounded in time and output, in
//! its own process group, [`environment`] gives every program started on the host
//! its allow-listed environment, and [`git`] builds every git command line it runs; [`progress`] draws bars and log lines; [`sanitize`] escapes
//! text from outside before it reaches a terminal; [`date`] holds dates and date steps;
//! [`commit`] a commit id as a corpus pins it;
//! [`error`] the exit codes, the usage error and the kind a failed row carries;
//! [`shard`] a shard K of N and [`protocol`] the MCP protocol versions, the value types
//! the command line parses and the commands use.
//!
//! The lowest layer: it imports nothing of the crate outside this folder, and any
//! module may import it (`.ci/deps.py` checks both).

pub mod atomic;
pub mod commit;
pub mod date;
pub mod environment;
pub mod error;
pub mod git;
pub mod journal;
pub mod messages;
pub mod mirrors;
pub mod out;
pub mod process;
pub mod progress;
pub mod protocol;
pub mod sanitize;
pub mod shard;
