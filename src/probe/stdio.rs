//! The stdio transport: starts the server as a child process and speaks newline-delimited
//! JSON-RPC over its stdin and stdout.
//!
//! Owns the child's whole life: it starts it in a process group of its own, reads its
//! stdout and stderr on one thread each, and stops it, killing the group, on every path
//! out, including errors and panics (`Drop`). It tolerates what real servers print
//! (lines that are not JSON, logs on stderr, requests of their own) and knows nothing
//! of MCP beyond answering the server's requests as `session` says. Each line is read in
//! bounded chunks up to `--max-message`, and the child is watched while the probe
//! waits, so that a server that exits is noticed even when a process it started keeps
//! its stdout open.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio as Pipe};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use serde_json::Value;

use super::bounds;
use super::groups::{self, Registered};
use super::handoff;
use super::lines::{self, Line};
use super::session::{self, Incoming, Parsed, Transport};
use super::stderr::{self, Kept};
use super::target::Options;
use crate::infra::messages;
use crate::infra::process;
use crate::infra::sanitize::excerpt;

/// How many bytes sent to the server may wait unread before the probe gives up on it.
const WRITE_BACKLOG: usize = 1 << 20;
/// How long a server may take to exit by itself once its stdin is closed.
const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long a probe waits, once it has killed a server's group, for every process of the
/// group to be gone.
const GROUP_GONE: Duration = Duration::from_secs(2);
/// How often a probe checks whether a killed group is gone.
const GROUP_POLL: Duration = Duration::from_millis(10);
/// How often a waiting probe checks whether the server has exited.
const EXIT_POLL: Duration = Duration::from_millis(50);
/// How long lines already written by a server that exited are still read.
const EXIT_DRAIN: Duration = Duration::from_millis(300);
/// How many read lines may wait for the probe; the reader stops reading past that, so
/// memory stays within a few `--max-message`.
const LINES_IN_FLIGHT: usize = 4;

/// Says how a server ended a probe, where `--servers` branches on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ending {
    /// It exited, or closed its stdout, before answering.
    Exited,
    /// `--timeout` passed first.
    TimedOut,
    /// A sandboxed server's tree held more than [`bounds::MAX_PROCESSES`] processes.
    TooManyProcesses,
    /// It wrote more than [`bounds::MAX_OUTPUT`] bytes on stderr, or of stdout that is
    /// not JSON.
    TooMuchOutput,
}

/// Holds how a server ended a probe, and the message that says so.
#[derive(Debug)]
pub struct Ended {
    pub kind: Ending,
    pub message: String,
    /// The server's stderr lines kept: the first ones, then the last.
    pub stderr: Vec<String>,
}

impl std::fmt::Display for Ended {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Ended {}

/// What the stdout reader passes on.
enum Chunk {
    Line(Vec<u8>),
    /// A line longer than `--max-message`; reading stopped there.
    TooLong,
    /// The pipe closed: every process holding it has exited or closed it.
    End,
    /// The end of a watch came first; made by the waiting side, not the reader.
    Deadline,
}

/// A running server spoken to over its stdin and stdout.
pub struct Stdio {
    child: Child,
    /// Keeps the child's group on the list killed if the probe is interrupted; dropped
    /// after the group is killed.
    _group: Option<Registered>,
    /// Lines for the writer thread; `None` once stdin is closed.
    stdin: Option<mpsc::Sender<Vec<u8>>>,
    /// Bytes handed to the writer thread and not yet written.
    unwritten: Arc<AtomicUsize>,
    /// Set by the writer thread when a write fails (the server has gone).
    write_failed: Arc<AtomicBool>,
    stdout: Receiver<Chunk>,
    stderr: Arc<Mutex<Kept>>,
    stderr_reader: JoinHandle<()>,
    deadline: Instant,
    timeout: Duration,
    next_id: u64,
    max_message: usize,
    capabilities: Value,
    skipped: usize,
    /// Lines of stdout that were not JSON, over the whole exchange, and their bytes.
    skipped_total: usize,
    skipped_bytes: usize,
    /// Counts the server's processes against [`bounds::MAX_PROCESSES`]: a sandboxed one.
    is_bounded: bool,
    /// When the server's processes were last counted.
    counted_at: Instant,
    skipped_example: Option<String>,
    warnings: Vec<String>,
    /// When the server was seen to have exited while the probe waited.
    exited_at: Option<Instant>,
    /// Set once the group has been killed and waited for.
    ended: bool,
    /// Set when the server announced that its tool list changed, until a watch sees it.
    list_changed: bool,
    /// Set while the probe waits for an announcement rather than an answer.
    watching: bool,
}

impl Stdio {
    /// Starts `command` (program and arguments) with `envs` added to its environment;
    /// when `is_sandboxed`, `command` is bwrap's, which starts with
    /// [`handoff::LAUNCH_ENV`] alone and within the bounds of [`bounds`], and `envs` is
    /// the whole environment of the server inside, handed over on [`handoff::FD`].
    /// The whole exchange must end within `options.timeout`.
    pub fn spawn(
        command: &[String],
        envs: &[(String, String)],
        is_sandboxed: bool,
        options: &Options,
    ) -> Result<Stdio> {
        let (program, args) = command.split_first().context("no command to start")?;
        let mut cmd = Command::new(program);
        if is_sandboxed {
            let words = handoff::words(envs).map_err(anyhow::Error::msg)?;
            let fd = handoff::memory_file(&words)
                .context("writing the sandboxed server's environment")?;
            cmd.env_clear().envs(handoff::LAUNCH_ENV);
            // SAFETY: the hooks only call setrlimit(2), dup2(2) and fcntl(2), all
            // async-signal-safe.
            unsafe {
                std::os::unix::process::CommandExt::pre_exec(&mut cmd, bounds::limit_resources);
                std::os::unix::process::CommandExt::pre_exec(&mut cmd, move || {
                    handoff::install(&fd)
                });
            }
        } else {
            cmd.envs(envs.iter().map(|(k, v)| (k, v)));
        }
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
        let group = i32::try_from(child.id()).ok().map(groups::register);
        let stdin = child.stdin.take().context("the child has no stdin pipe")?;
        let unwritten = Arc::new(AtomicUsize::new(0));
        let write_failed = Arc::new(AtomicBool::new(false));
        let stdin = {
            let (tx, rx) = mpsc::channel::<Vec<u8>>();
            let unwritten = Arc::clone(&unwritten);
            let write_failed = Arc::clone(&write_failed);
            // Writes happen here, so that a server that stops reading its stdin cannot
            // block the probe past its timeout; the backlog is bounded in `send`.
            thread::spawn(move || {
                let mut stdin: ChildStdin = stdin;
                for line in rx {
                    let written = stdin.write_all(&line).and_then(|()| stdin.flush());
                    unwritten.fetch_sub(line.len(), Ordering::SeqCst);
                    if written.is_err() {
                        write_failed.store(true, Ordering::SeqCst);
                        return;
                    }
                }
            });
            tx
        };
        let stdout = child
            .stdout
            .take()
            .context("the child has no stdout pipe")?;
        let stderr = child
            .stderr
            .take()
            .context("the child has no stderr pipe")?;

        let (tx, rx) = mpsc::sync_channel(LINES_IN_FLIGHT);
        let max_message = options.max_message;
        thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            let mut line = Vec::new();
            loop {
                let chunk = match lines::read_line(&mut reader, &mut line, max_message) {
                    Ok(Line::Complete) => Chunk::Line(std::mem::take(&mut line)),
                    Ok(Line::TooLong) => Chunk::TooLong,
                    Ok(Line::End) | Err(_) => Chunk::End,
                };
                let last = !matches!(chunk, Chunk::Line(_));
                if tx.send(chunk).is_err() || last {
                    return;
                }
            }
        });
        let kept = Arc::new(Mutex::new(Kept::default()));
        let stderr_reader = {
            let kept = Arc::clone(&kept);
            thread::spawn(move || stderr::keep(stderr, &kept))
        };
        Ok(Stdio {
            child,
            _group: group,
            stdin: Some(stdin),
            unwritten,
            write_failed,
            stdout: rx,
            stderr: kept,
            stderr_reader,
            deadline: Instant::now() + options.timeout,
            timeout: options.timeout,
            next_id: 1,
            max_message: options.max_message,
            capabilities: options.capabilities.clone(),
            skipped: 0,
            skipped_total: 0,
            skipped_bytes: 0,
            is_bounded: is_sandboxed,
            counted_at: Instant::now(),
            skipped_example: None,
            warnings: Vec::new(),
            exited_at: None,
            ended: false,
            list_changed: false,
            watching: false,
        })
    }

    /// Closes the server's stdin, gives it a moment to exit, then kills what is left of
    /// its group and waits for it; returns a warning when some process of the group
    /// outlived that wait.
    pub fn finish(mut self) -> Option<String> {
        drop(self.stdin.take());
        let until = Instant::now() + EXIT_GRACE;
        while Instant::now() < until {
            match self.child.try_wait() {
                Ok(Some(_)) | Err(_) => break,
                Ok(None) => thread::sleep(Duration::from_millis(20)),
            }
        }
        // The server may have exited and left children behind: the group is killed anyway.
        let left = self.end();
        (left > 0).then(|| {
            format!(
                "{left} {} of the server's process group still running {} s after it was killed",
                messages::noun(left, "process was", "processes were"),
                GROUP_GONE.as_secs()
            )
        })
    }

    /// Kills the server's group, reaps the server and waits, at most [`GROUP_GONE`],
    /// until no process of the group is alive; returns how many still are.
    fn end(&mut self) -> usize {
        self.ended = true;
        drop(self.stdin.take());
        kill_group(&mut self.child);
        let _ = self.child.wait();
        let Ok(group) = i32::try_from(self.child.id()) else {
            return 0;
        };
        let until = Instant::now() + GROUP_GONE;
        loop {
            let alive = group_alive(group);
            if alive == 0 || Instant::now() >= until {
                reap_group(group);
                process::reap_orphaned_sessions();
                return alive;
            }
            // A member may have been forking when the group was signalled.
            signal_group(group);
            thread::sleep(GROUP_POLL);
        }
    }

    fn send(&mut self, message: &Value, waiting_for: &str) -> Result<()> {
        let mut line = message.to_string();
        line.push('\n');
        // A write fails when the server has gone; its exit status says more than EPIPE.
        if self.write_failed.load(Ordering::SeqCst) {
            return Err(self.gone(waiting_for));
        }
        let backlog = self.unwritten.load(Ordering::SeqCst);
        if backlog + line.len() > WRITE_BACKLOG {
            bail!(
                "the server has not read the last {backlog} bytes sent to its stdin while sending requests of its own; it does not read its input"
            );
        }
        self.unwritten.fetch_add(line.len(), Ordering::SeqCst);
        let sent = match &self.stdin {
            Some(stdin) => stdin.send(line.into_bytes()).is_ok(),
            None => false,
        };
        if !sent {
            return Err(self.gone(waiting_for));
        }
        Ok(())
    }

    /// Describes a server that stopped talking: its exit status and its last stderr lines.
    fn gone(&mut self, waiting_for: &str) -> anyhow::Error {
        let status = wait_briefly(&mut self.child, Duration::from_secs(1));
        // Let the stderr thread read what the server wrote just before it exited.
        let until = Instant::now() + Duration::from_millis(500);
        while !self.stderr_reader.is_finished() && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
        let held = if self.exited_at.is_some() {
            "; a process it started still holds its stdout open"
        } else {
            ""
        };
        let when = if self.watching {
            "while it was watched".to_string()
        } else {
            format!("before answering '{waiting_for}'")
        };
        let what = match status {
            Some(status) => format!("the server exited {when} ({}){held}", describe(status)),
            None => format!("the server closed its stdout {when}"),
        };
        // A server whose stderr was cut at the bound may exit of that first (EPIPE).
        let (kind, cut) = match self.stderr_is_cut() {
            true => (
                Ending::TooMuchOutput,
                format!(
                    ", having written more than {} MiB on stderr, where reading stopped",
                    bounds::MAX_OUTPUT >> 20
                ),
            ),
            false => (Ending::Exited, String::new()),
        };
        anyhow::Error::new(Ended {
            kind,
            message: format!("{what}{cut}{}", self.stderr_lines()),
            stderr: self.stderr_kept(),
        })
    }

    /// Returns true when the server's stderr passed [`bounds::MAX_OUTPUT`] bytes and
    /// reading it stopped.
    fn stderr_is_cut(&self) -> bool {
        match self.stderr.lock() {
            Ok(kept) => kept.is_cut(),
            Err(poisoned) => poisoned.into_inner().is_cut(),
        }
    }

    /// Returns the error that stops a server past a bound of [`bounds`] (its processes,
    /// its stderr), having stopped it; `None` while it is within them.
    fn over_bound(&mut self) -> Option<anyhow::Error> {
        if self.stderr_is_cut() {
            return Some(self.stop(
                Ending::TooMuchOutput,
                format!(
                    "the server wrote more than {} MiB on stderr; it was stopped",
                    bounds::MAX_OUTPUT >> 20
                ),
            ));
        }
        if !self.is_bounded {
            return None;
        }
        let pid = self.child.id();
        let count = bounds::processes(pid, bounds::MAX_PROCESSES);
        (count > bounds::MAX_PROCESSES).then(|| {
            self.stop(
                Ending::TooManyProcesses,
                format!(
                    "the server's sandbox held more than {} processes; it was stopped",
                    bounds::MAX_PROCESSES
                ),
            )
        })
    }

    /// Kills the server's group (the sandbox with it) and returns the error saying why,
    /// with its stderr lines.
    fn stop(&mut self, kind: Ending, what: String) -> anyhow::Error {
        self.end();
        anyhow::Error::new(Ended {
            kind,
            message: format!("{what}{}", self.stderr_lines()),
            stderr: self.stderr_kept(),
        })
    }

    /// Returns how many lines of the server's stdout were not JSON and were skipped.
    pub fn skipped_lines(&self) -> usize {
        self.skipped_total
    }

    /// Returns the server's stderr lines kept so far.
    fn stderr_kept(&self) -> Vec<String> {
        match self.stderr.lock() {
            Ok(kept) => kept.lines(),
            Err(poisoned) => poisoned.into_inner().lines(),
        }
    }

    /// Returns the server's first and last stderr lines, as a clause of an error.
    fn stderr_lines(&self) -> String {
        match self.stderr.lock() {
            Ok(kept) => kept.render(),
            Err(poisoned) => poisoned.into_inner().render(),
        }
    }

    /// Handles one parsed message; returns the answer when it is the one awaited.
    fn handle(&mut self, message: &Value, id: u64, method: &str) -> Result<Option<Result<Value>>> {
        if session::is_list_changed(message) {
            self.list_changed = true;
        }
        match session::classify(message, id, method) {
            Incoming::Answer(answer) => Ok(Some(answer.map_err(Into::into))),
            Incoming::Request {
                id: request_id,
                method: asked,
            } => {
                let answer = session::answer_server_request(request_id, asked, &self.capabilities);
                self.send(&answer, method)?;
                Ok(None)
            }
            Incoming::Echo => bail!(
                "the program sent our '{method}' request back unchanged: it echoes its input and is not an MCP server"
            ),
            Incoming::Other => Ok(None),
        }
    }

    /// Waits for the next line of stdout, watching the server: returns `None` once it
    /// has exited and the lines it wrote before have been read. Past the deadline, a
    /// watch gets [`Chunk::Deadline`]; a request fails.
    fn next_chunk(&mut self, method: &str) -> Result<Option<Chunk>> {
        loop {
            let now = Instant::now();
            if now.duration_since(self.counted_at) >= EXIT_POLL {
                self.counted_at = now;
                if let Some(err) = self.over_bound() {
                    return Err(err);
                }
            }
            let left = self.deadline.saturating_duration_since(now);
            if left.is_zero() && self.watching {
                return Ok(Some(Chunk::Deadline));
            }
            if left.is_zero() {
                return Err(Ended {
                    kind: Ending::TimedOut,
                    message: format!(
                        "no answer to '{method}' within {} s (--timeout); the server was stopped{}",
                        self.timeout.as_secs(),
                        self.stderr_lines()
                    ),
                    stderr: self.stderr_kept(),
                }
                .into());
            }
            match self.stdout.recv_timeout(left.min(EXIT_POLL)) {
                Ok(chunk) => return Ok(Some(chunk)),
                Err(RecvTimeoutError::Disconnected) => return Ok(Some(Chunk::End)),
                Err(RecvTimeoutError::Timeout) => match self.exited_at {
                    Some(at) if now.duration_since(at) >= EXIT_DRAIN => return Ok(None),
                    Some(_) => {}
                    None => {
                        if let Ok(Some(_)) = self.child.try_wait() {
                            self.exited_at = Some(now);
                        }
                    }
                },
            }
        }
    }
}

impl Stdio {
    /// Reads and handles messages until the answer to request `id` (`method`) comes, or,
    /// while watching, until the server announces a change of its tool list (`None`) or
    /// the deadline passes (`None` too).
    fn read_until(&mut self, id: u64, method: &str) -> Result<Option<Value>> {
        loop {
            if self.watching && self.list_changed {
                return Ok(None);
            }
            let line = match self.next_chunk(method)? {
                Some(Chunk::Line(line)) => line,
                Some(Chunk::Deadline) => return Ok(None),
                Some(Chunk::TooLong) => bail!(
                    "a line on the server's stdout is longer than {} bytes (--max-message), the most one message may take",
                    self.max_message
                ),
                Some(Chunk::End) => {
                    self.exited_at = None;
                    return Err(self.gone(method));
                }
                None => return Err(self.gone(method)),
            };
            let trimmed = line.trim_ascii();
            if trimmed.is_empty() {
                continue;
            }
            let parsed: Value = match session::parse(trimmed) {
                Parsed::Message(value) => value,
                Parsed::NotJson => {
                    self.skipped += 1;
                    self.skipped_total += 1;
                    self.skipped_bytes += line.len();
                    if self.skipped_bytes > bounds::MAX_OUTPUT {
                        let what = format!(
                            "the server wrote more than {} MiB on stdout that is not JSON ({} lines); it was stopped",
                            bounds::MAX_OUTPUT >> 20,
                            self.skipped_total
                        );
                        return Err(self.stop(Ending::TooMuchOutput, what));
                    }
                    if self.skipped_example.is_none() {
                        self.skipped_example = Some(excerpt(&String::from_utf8_lossy(trimmed)));
                    }
                    continue;
                }
                Parsed::TooDeep {
                    id: their_id,
                    method: their_method,
                } => {
                    let warning =
                        session::too_deep(id, method, their_id.as_ref(), their_method.as_deref())?;
                    self.warnings.push(warning);
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
                    return answer.map(Some);
                }
            }
        }
    }
}

impl Transport for Stdio {
    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&session::request_message(id, method, params), method)?;
        match self.read_until(id, method)? {
            Some(answer) => Ok(answer),
            None => bail!("no answer to '{method}'"),
        }
    }

    fn wait_for_list_change(&mut self, until: Instant) -> Result<bool> {
        self.watching = true;
        self.deadline = until;
        // No request has id 0: ids start at 1.
        let read = self.read_until(0, session::LIST_CHANGED);
        self.watching = false;
        read?;
        Ok(std::mem::take(&mut self.list_changed))
    }

    fn restart_timeout(&mut self) {
        self.deadline = Instant::now() + self.timeout;
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        self.send(&session::notification_message(method, params), method)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        let mut warnings = std::mem::take(&mut self.warnings);
        if self.skipped > 0 {
            let example = self.skipped_example.take().unwrap_or_default();
            warnings.push(format!(
                "skipped {} line(s) on the server's stdout that are not JSON, the first: '{example}'",
                self.skipped
            ));
            self.skipped = 0;
        }
        warnings
    }
}

impl Drop for Stdio {
    fn drop(&mut self) {
        if !self.ended {
            self.end();
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
    if let Ok(pid) = i32::try_from(child.id()) {
        signal_group(pid);
    }
    let _ = child.kill();
}

#[cfg(unix)]
extern "C" {
    fn kill(pid: i32, sig: i32) -> i32;
}

/// Sends SIGKILL to the process group `group`.
fn signal_group(group: i32) {
    #[cfg(unix)]
    {
        const SIGKILL: i32 = 9;
        // SAFETY: kill(2) takes two integers and touches no memory of ours. The id names
        // the group a server leads (process_group(0) at spawn); an id is not reused while
        // its group has members, zombies included, so this reaches only that group.
        unsafe {
            kill(-group, SIGKILL);
        }
    }
    #[cfg(not(unix))]
    let _ = group;
}

/// Returns how many processes of the group `group` are alive. On Linux `/proc` tells a
/// zombie (dead, waiting for a parent that may never reap it) from a live process;
/// elsewhere on Unix any member still counts; without process groups, none does.
fn group_alive(group: i32) -> usize {
    #[cfg(target_os = "linux")]
    if let Ok(entries) = std::fs::read_dir("/proc") {
        return entries
            .filter_map(|entry| {
                let entry = entry.ok()?;
                entry.file_name().to_str()?.parse::<u32>().ok()?;
                let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
                is_live_member(&stat, group).then_some(())
            })
            .count();
    }
    #[cfg(unix)]
    {
        // SAFETY: signal 0 only checks that the group exists; see `signal_group`.
        let exists = unsafe { kill(-group, 0) } == 0;
        usize::from(exists)
    }
    #[cfg(not(unix))]
    {
        let _ = group;
        0
    }
}

/// Reaps every exited child of this process in the group `group`, without waiting.
/// A process the server orphaned (a sandbox's inner process, a shell's background
/// job) is reparented to this process when it is a subreaper (`infra::process`), and
/// would stay a zombie until the whole survey ended, one per server.
fn reap_group(group: i32) {
    #[cfg(unix)]
    loop {
        let mut status = 0;
        // SAFETY: waitpid(2) with WNOHANG writes one int through the pointer.
        let reaped = unsafe { libc::waitpid(-group, &mut status, libc::WNOHANG) };
        if reaped <= 0 {
            return;
        }
    }
    #[cfg(not(unix))]
    let _ = group;
}

/// Tells whether a `/proc/PID/stat` line is of a live process in the group `group`:
/// `PID (COMM) STATE PPID PGRP ...`, where COMM may itself hold spaces and parentheses.
#[cfg(any(target_os = "linux", test))]
fn is_live_member(stat: &str, group: i32) -> bool {
    let Some(at) = stat.rfind(')') else {
        return false;
    };
    let mut fields = stat[at + 1..].split_ascii_whitespace();
    let (Some(state), Some(_ppid), Some(pgrp)) = (fields.next(), fields.next(), fields.next())
    else {
        return false;
    };
    !matches!(state, "Z" | "X") && pgrp.parse::<i32>() == Ok(group)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Returns the pids of this process's zombie children in `group`.
    #[cfg(target_os = "linux")]
    fn zombies_in(group: i32) -> Vec<String> {
        let me = std::process::id().to_string();
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| {
                let entry = entry.ok()?;
                let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
                let after = &stat[stat.rfind(')')? + 1..];
                let fields: Vec<&str> = after.split_whitespace().take(3).collect();
                let is_ours = fields == ["Z", me.as_str(), &group.to_string()];
                is_ours.then(|| entry.file_name().to_string_lossy().into_owned())
            })
            .collect()
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_the_server_orphaned_is_reaped_when_the_server_ends() {
        // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes integers only.
        unsafe {
            libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
        }
        let options = Options {
            timeout: Duration::from_secs(30),
            max_message: 1 << 20,
            capabilities: Value::Null,
            protocol_version: String::new(),
        };
        // The subshell exits at once, leaving `sleep` orphaned and reparented here.
        let command = ["sh", "-c", "(sleep 30 &); cat"].map(String::from);
        let stdio = Stdio::spawn(&command, &[], false, &options).unwrap();
        let group = i32::try_from(stdio.child.id()).unwrap();
        thread::sleep(Duration::from_millis(200));
        assert_eq!(stdio.finish(), None);
        assert_eq!(zombies_in(group), Vec::<String>::new());
    }

    #[test]
    fn a_stat_line_names_a_live_member_of_its_group() {
        assert!(is_live_member("42 (node) S 1 40 40 0 -1", 40));
        assert!(!is_live_member("42 (node) S 1 41 41 0 -1", 40));
        assert!(!is_live_member("42 (node) Z 1 40 40 0 -1", 40));
        assert!(is_live_member("42 (a) b (c) R 1 40 40 0", 40));
        assert!(!is_live_member("garbage", 40));
    }
}
