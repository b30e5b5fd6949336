//! The stdio transport: starts the server as a child process and speaks newline-delimited
//! JSON-RPC over its stdin and stdout.
//!
//! Owns the child's whole life: it starts it in a process group of its own, reads its
//! stdout and stderr on one thread each, and stops it, killing the group, on every path
//! out, including errors and panics (`Drop`). It tolerates what real servers print
//! (lines that are not JSON, logs on stderr, requests of their own) and knows nothing
//! of MCP beyond answering `ping`.

use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio as Pipe};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use serde_json::Value;

use super::session::{self, Incoming, Transport};
use crate::sanitize::excerpt;

/// How many of the server's last stderr lines an error shows.
const STDERR_TAIL: usize = 20;
/// How long a server may take to exit by itself once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);

/// A running server spoken to over its stdin and stdout.
pub struct Stdio {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: Receiver<Option<Vec<u8>>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
    stderr_reader: JoinHandle<()>,
    deadline: Instant,
    timeout: Duration,
    next_id: u64,
    skipped: usize,
    skipped_example: Option<String>,
}

impl Stdio {
    /// Starts `command` (program and arguments); the whole exchange must end within `timeout`.
    pub fn spawn(command: &[String], timeout: Duration) -> Result<Stdio> {
        let (program, args) = command.split_first().context("no command to start")?;
        let mut cmd = Command::new(program);
        cmd.args(args)
            .stdin(Pipe::piped())
            .stdout(Pipe::piped())
            .stderr(Pipe::piped());
        // A group of its own lets one signal reach whatever the command starts in turn
        // (npx, uvx and shell wrappers run the real server as a grandchild).
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut cmd, 0);
        let mut child = cmd
            .spawn()
            .with_context(|| format!("starting '{program}'"))?;
        let stdin = child.stdin.take();
        let stdout = child
            .stdout
            .take()
            .context("the child has no stdout pipe")?;
        let stderr = child
            .stderr
            .take()
            .context("the child has no stderr pipe")?;

        let (tx, rx) = mpsc::channel();
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                match reader.read_until(b'\n', &mut line) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(Some(line)).is_err() {
                            return;
                        }
                    }
                }
            }
            let _ = tx.send(None);
        });
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let stderr_reader = {
            let tail = Arc::clone(&tail);
            thread::spawn(move || keep_tail(stderr, &tail))
        };
        Ok(Stdio {
            child,
            stdin,
            stdout: rx,
            stderr: tail,
            stderr_reader,
            deadline: Instant::now() + timeout,
            timeout,
            next_id: 1,
            skipped: 0,
            skipped_example: None,
        })
    }

    /// Closes the server's stdin, gives it a moment to exit, then kills what is left.
    pub fn finish(mut self) {
        drop(self.stdin.take());
        let until = Instant::now() + EXIT_GRACE;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) => thread::sleep(Duration::from_millis(20)),
            }
        }
        // Drop kills the group: the server may have exited and left children behind.
    }

    fn send(&mut self, message: &Value, waiting_for: &str) -> Result<()> {
        let mut line = message.to_string();
        line.push('\n');
        let written = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(line.as_bytes())
                .and_then(|()| stdin.flush()),
            None => Err(std::io::ErrorKind::BrokenPipe.into()),
        };
        // A write fails when the server has gone; its exit status says more than EPIPE.
        written.map_err(|_| self.gone(waiting_for))
    }

    /// Describes a server that stopped talking: its exit status and its last stderr lines.
    fn gone(&mut self, waiting_for: &str) -> anyhow::Error {
        let status = wait_briefly(&mut self.child, Duration::from_secs(1));
        // Let the stderr thread read what the server wrote just before it exited.
        let until = Instant::now() + Duration::from_millis(500);
        while !self.stderr_reader.is_finished() && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
        let what = match status {
            Some(status) => format!(
                "the server exited before answering '{waiting_for}' ({})",
                describe(status)
            ),
            None => format!("the server closed its stdout before answering '{waiting_for}'"),
        };
        anyhow!("{what}{}", self.stderr_tail())
    }

    fn stderr_tail(&self) -> String {
        let tail = match self.stderr.lock() {
            Ok(tail) => tail.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        };
        if tail.is_empty() {
            return "; it wrote nothing on stderr".to_string();
        }
        let mut text = format!("; the last {} lines of its stderr:", tail.len());
        for line in tail {
            text.push_str("\n  | ");
            text.push_str(&line);
        }
        text
    }

    /// Handles one parsed message; returns the answer when it is the one awaited.
    fn handle(&mut self, message: &Value, id: u64, method: &str) -> Result<Option<Result<Value>>> {
        match session::classify(message, id) {
            Incoming::Answer(answer) => Ok(Some(answer.map_err(Into::into))),
            Incoming::Request {
                id: request_id,
                method: asked,
            } => {
                let answer = session::answer_server_request(request_id, asked);
                self.send(&answer, method)?;
                Ok(None)
            }
            Incoming::Other => Ok(None),
        }
    }
}

impl Transport for Stdio {
    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&session::request_message(id, method, params), method)?;
        loop {
            let left = self.deadline.saturating_duration_since(Instant::now());
            let line = match self.stdout.recv_timeout(left) {
                Ok(Some(line)) => line,
                Ok(None) | Err(RecvTimeoutError::Disconnected) => return Err(self.gone(method)),
                Err(RecvTimeoutError::Timeout) => bail!(
                    "no answer to '{method}' within {} s (--timeout); the server was stopped{}",
                    self.timeout.as_secs(),
                    self.stderr_tail()
                ),
            };
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            let parsed: Value = match serde_json::from_slice(trimmed) {
                Ok(value) => value,
                Err(_) => {
                    self.skipped += 1;
                    if self.skipped_example.is_none() {
                        self.skipped_example = Some(excerpt(&String::from_utf8_lossy(trimmed)));
                    }
                    continue;
                }
            };
            // A server may batch; each member is handled as if it came alone.
            let messages = match parsed {
                Value::Array(batch) => batch,
                single => vec![single],
            };
            for message in &messages {
                if let Some(answer) = self.handle(message, id, method)? {
                    return answer;
                }
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        self.send(&session::notification_message(method, params), method)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        if self.skipped == 0 {
            return Vec::new();
        }
        let example = self.skipped_example.take().unwrap_or_default();
        let warning = format!(
            "skipped {} line(s) on the server's stdout that are not JSON, the first: '{example}'",
            self.skipped
        );
        self.skipped = 0;
        vec![warning]
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        drop(self.stdin.take());
        kill_group(&mut self.child);
        let _ = self.child.wait();
    }
}

/// Keeps the last [`STDERR_TAIL`] lines the server writes on stderr.
fn keep_tail(stderr: impl Read, tail: &Mutex<VecDeque<String>>) {
    let mut reader = BufReader::new(stderr);
    loop {
        let mut line = Vec::new();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => return,
            Ok(_) => {
                let text = excerpt(String::from_utf8_lossy(&line).trim_end());
                let mut tail = match tail.lock() {
                    Ok(tail) => tail,
                    Err(poisoned) => poisoned.into_inner(),
                };
                if tail.len() == STDERR_TAIL {
                    tail.pop_front();
                }
                tail.push_back(text);
            }
        }
    }
}

/// Returns the child's exit status if it exits within `grace`.
fn wait_briefly(child: &mut Child, grace: Duration) -> Option<ExitStatus> {
    let until = Instant::now() + grace;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Some(status),
            Ok(None) if Instant::now() < until => thread::sleep(Duration::from_millis(20)),
            Ok(None) | Err(_) => return None,
        }
    }
}

/// Describes an exit status: its code, or the signal that ended it.
fn describe(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exit status {code}");
    }
    #[cfg(unix)]
    if let Some(signal) = std::os::unix::process::ExitStatusExt::signal(&status) {
        return format!("killed by signal {signal}");
    }
    status.to_string()
}

/// Kills the child and, on Unix, every process in the group it leads.
fn kill_group(child: &mut Child) {
    #[cfg(unix)]
    {
        extern "C" {
            fn kill(pid: i32, sig: i32) -> i32;
        }
        const SIGKILL: i32 = 9;
        if let Ok(pid) = i32::try_from(child.id()) {
            // SAFETY: kill(2) takes two integers and touches no memory of ours. The id
            // names the group the child leads (process_group(0) at spawn); an id is not
            // reused while its group has members, so this reaches only that group.
            unsafe {
                kill(-pid, SIGKILL);
            }
        }
    }
    let _ = child.kill();
}
