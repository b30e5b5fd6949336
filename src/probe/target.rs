//! What a probe is given: where the server is ([`Target`]) and what every probe of a
//! run shares ([`Options`]: the limits and what is offered to the server).
//!
//! The transports (`stdio`, `http`), the watch and the command all read these, so
//! they sit below them and import nothing of the folder but `session`'s offer.

use std::time::Duration;

use serde_json::Value;

use super::session::Offer;

/// What every probe of a run shares: the limits and what is offered to the server.
#[derive(Clone, Debug)]
pub struct Options {
    /// How long the whole exchange with one server may take.
    pub timeout: Duration,
    /// The most bytes one JSON-RPC message (a line, an event, a body) may take.
    pub max_message: usize,
    /// The client capabilities offered in `initialize`.
    pub capabilities: Value,
    /// The protocol version offered in `initialize`.
    pub protocol_version: String,
}

impl Options {
    /// Returns what `initialize` offers the server: the protocol version and the
    /// client capabilities.
    pub(super) fn offer(&self) -> Offer {
        Offer {
            protocol_version: self.protocol_version.clone(),
            capabilities: self.capabilities.clone(),
        }
    }
}

/// Where a server is and how to reach it.
#[derive(Clone, Debug)]
pub enum Target {
    /// A command started with extra environment variables, spoken to over stdio.
    Stdio {
        command: Vec<String>,
        env: Vec<(String, String)>,
        /// The command is the sandbox's (bwrap, reading `--args 3`): it starts with a
        /// fixed environment of the tool's and within the bounds of `bounds`, and
        /// `env` is the whole environment of the server inside, handed over as
        /// `handoff` says; none of the prober's environment reaches either.
        is_sandboxed: bool,
    },
    /// A Streamable HTTP URL, with headers sent on every request.
    Http {
        url: String,
        headers: Vec<(String, String)>,
    },
}

/// Returns how a target is named in messages: its command line or its URL.
pub(super) fn describe_target(target: &Target) -> String {
    match target {
        Target::Stdio { command, .. } => command.join(" "),
        Target::Http { url, .. } => url.clone(),
    }
}
