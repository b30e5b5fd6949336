//! What `probe --servers --write-commands` writes: for each server the run started,
//! the command line, the environment and the sandbox's bounds it ran within, one JSON
//! object a line in `wire-DATE-commands.jsonl`, so that another client can start the
//! very same server (`benches/wire_client.py` does, with the official SDK's client).
//!
//! A value the servers file reads from the environment is named there (the variable
//! and its prefix), never written: the file holds no secret. The sandbox's hosts file
//! is the run's own and is removed with it, so its bytes are written beside the path
//! the command binds. A sandboxed command's `env` is what the server sees inside: the
//! line says the environment bwrap starts with and the descriptor the variables are
//! handed over on, so that a replay sets them inside the walls too. This module starts nothing and decides nothing: it writes what
//! `servers` started.

use std::path::Path;

use anyhow::Result;
use serde_json::{json, Map, Value};

use crate::infra::atomic::write_bytes;
use crate::probe::{bounds, handoff};

/// The walls a sandboxed command ran within, beside those on its command line.
#[derive(Debug, Clone)]
pub(super) struct Walls {
    /// The hosts file the command binds as `/etc/hosts`.
    pub(super) hosts_path: String,
    /// Its bytes.
    pub(super) hosts_text: String,
    /// Each throwaway copy the command binds writable, and the folder it copies: the
    /// run's own copies are removed when it ends, so a replay makes its own.
    pub(super) writable: Vec<(String, String)>,
}

/// Holds how one server was started.
#[derive(Debug, Clone)]
pub(super) struct Started {
    pub(super) server: String,
    /// The program and its arguments, as started.
    pub(super) command: Vec<String>,
    /// The environment in the order it was given: a value as written, or
    /// `{"env": NAME, "prefix": TEXT}` for one read from the environment.
    pub(super) env: Vec<(String, Value)>,
    /// The sandbox, when the command ran in one; without, the environment is added to
    /// the prober's own.
    pub(super) walls: Option<Walls>,
}

impl Started {
    /// Returns the JSON object of one line.
    fn to_json(&self) -> Value {
        let env: Map<String, Value> = self.env.iter().cloned().collect();
        let sandbox = self.walls.as_ref().map(|walls| {
            json!({
                "hosts": {"path": walls.hosts_path, "text": walls.hosts_text},
                // bwrap starts with this environment alone; `env` is set inside, from
                // `--clearenv` and `--setenv NAME VALUE`, each word ending in a NUL,
                // on this descriptor (`--args` on the command line).
                "launch_env": handoff::LAUNCH_ENV
                    .iter()
                    .map(|(name, value)| (name.to_string(), Value::from(*value)))
                    .collect::<Map<String, Value>>(),
                "env_fd": handoff::FD,
                // Each `--bind COPY OF` of the command: a replay binds a fresh copy of
                // OF where the run's own COPY, removed with it, was.
                "writable": walls.writable.iter().map(|(copy, of)| json!({"copy": copy, "of": of})).collect::<Vec<_>>(),
                // Set on the command before it starts (setrlimit(2)), in bytes.
                "rlimits": {"core": 0, "data": bounds::MAX_DATA, "fsize": bounds::MAX_FILE},
                // Counted by the probe while it waits, not a limit of the kernel's.
                "max_processes": bounds::MAX_PROCESSES,
            })
        });
        json!({
            "server": self.server,
            "command": self.command,
            "env": env,
            "sandbox": sandbox,
        })
    }
}

/// Writes `started` to `path`, one JSON object a line, whole or not at all.
pub(super) fn write(path: &Path, started: &[Started]) -> Result<()> {
    let mut text = String::new();
    for one in started {
        text.push_str(&one.to_json().to_string());
        text.push('\n');
    }
    write_bytes(path, text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_names_a_value_from_the_environment_and_bounds_only_a_sandbox() {
        let started = Started {
            server: "s".to_string(),
            command: vec!["bwrap".to_string(), "--".to_string(), "node".to_string()],
            env: vec![
                ("PATH".to_string(), json!("/usr/bin")),
                ("KEY".to_string(), json!({"env": "SECRET", "prefix": ""})),
            ],
            walls: Some(Walls {
                hosts_path: "/tmp/h".to_string(),
                hosts_text: "127.0.0.1 localhost\n".to_string(),
                writable: vec![(
                    "/c/.writable-x/0".to_string(),
                    "/c/npm/x@1/node_modules/x".to_string(),
                )],
            }),
        };
        let line = started.to_json();
        assert_eq!(line["env"]["KEY"], json!({"env": "SECRET", "prefix": ""}));
        assert_eq!(line["sandbox"]["hosts"]["path"], "/tmp/h");
        assert_eq!(line["sandbox"]["rlimits"]["data"], 2u64 << 30);
        assert_eq!(line["sandbox"]["env_fd"], 3);
        assert_eq!(
            line["sandbox"]["writable"],
            json!([{"copy": "/c/.writable-x/0", "of": "/c/npm/x@1/node_modules/x"}])
        );
        assert_eq!(
            line["sandbox"]["launch_env"],
            json!({"PATH": "/usr/bin:/bin"})
        );
        let keys: Vec<&String> = line["env"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["PATH", "KEY"], "the order given");
        let plain = Started {
            walls: None,
            ..started
        };
        assert_eq!(plain.to_json()["sandbox"], Value::Null);
    }
}
