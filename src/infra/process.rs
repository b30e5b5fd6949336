//! Runs a program bounded in time, in silence and in output, in a process group of
//! its own, and says why it gave no answer.
//!
//! This module owns how every external program this crate starts (git) is run: stdin
//! closed or fed from a buffer on a thread of its own, stdout handed to a reader as it
//! arrives, stderr read to its end and kept up to a cap, a watchdog that stops the
//! program after a time limit or a stretch without output, and the end of its whole
//! process group once it is done. It does not build the command line (its callers
//! harden that) and does not decide whether a failure may pass.
//!
//! # Why a process group
//!
//! git runs helpers of its own (`git-remote-https` for `ls-remote`); killing git does
//! not reach them, and a helper stalled on a silent server lives on. Each program is
//! started as the leader of a new process group, and the group is sent `SIGKILL` when
//! a limit is reached and again once the leader has exited, so nothing it started
//! outlives it. On Linux the process is also a child subreaper, so helpers orphaned
//! by their parent's end are reparented to it and reaped here rather than left as
//! zombies. Reaping is bounded: a process that left the group (`setsid`) is out of
//! the group's reach, and the wait for the group's end gives up after
//! [`GROUP_GRACE`]; once such a process has exited and been orphaned here, as a
//! sandbox's inner process is, [`reap_orphaned_sessions`] reaps it.

use std::fmt;
use std::io::{self, BufRead, BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Condvar, Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

use crate::infra::messages;
use crate::infra::sanitize::excerpt;

/// How long the end of a process group and the close of its stderr are waited for.
pub const GROUP_GRACE: Duration = Duration::from_secs(2);

/// The longest the watchdog sleeps between two looks at the program.
const TICK: Duration = Duration::from_millis(20);

/// Holds the bounds a program runs within.
#[derive(Clone, Copy, Debug)]
pub struct Limits {
    /// The time the program may take in all.
    pub time: Option<Duration>,
    /// The time the program may go without writing a byte to stdout.
    pub idle: Option<Duration>,
    /// How many bytes of stderr are kept; the rest is read and dropped.
    pub max_stderr: usize,
}

/// Says which limit stopped a program.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// The time limit, of this length.
    Time(Duration),
    /// The idle limit, of this length.
    Idle(Duration),
}

/// Holds what a program did.
#[derive(Debug)]
pub struct Finished<T> {
    /// The exit status; `None` when the program was stopped by a limit.
    pub status: Option<ExitStatus>,
    /// What the reader made of stdout.
    pub read: anyhow::Result<T>,
    /// The first bytes of stderr, up to the cap.
    pub stderr: Vec<u8>,
    /// The limit that stopped the program, if one did.
    pub stop: Option<Stop>,
}

/// Runs `command` within `limits`, writing `input` to its stdin (stdin is closed
/// when there is none), and hands its stdout to `read` as it arrives.
///
/// The program is killed, with its process group, when a limit is reached or when
/// `read` fails; either way it is waited for. Fails only when it cannot be started.
pub fn run<T>(
    mut command: Command,
    limits: &Limits,
    input: Option<Vec<u8>>,
    read: impl FnOnce(&mut dyn BufRead) -> anyhow::Result<T>,
) -> io::Result<Finished<T>> {
    become_subreaper();
    command
        .stdin(if input.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0);
    let mut child = command.spawn()?;
    let group = Group(child.id() as i32);
    if let (Some(mut stdin), Some(input)) = (child.stdin.take(), input) {
        // Fed on a thread of its own: the program answers while it reads, and
        // would block on a full stdout pipe if nobody read it. Killing the group
        // ends a blocked write (EPIPE).
        thread::spawn(move || {
            let _ = stdin.write_all(&input);
        });
    }
    let stderr = child.stderr.take().map(|err| {
        let (tx, rx) = mpsc::channel();
        let cap = limits.max_stderr;
        thread::spawn(move || {
            // The rest is read and dropped: a program blocked on a full stderr
            // pipe would look like a hung one.
            let mut err = err;
            let (kept, _) = read_capped(&mut err, cap);
            let _ = io::copy(&mut err, &mut io::sink());
            let _ = tx.send(kept);
        });
        rx
    });
    let stdout = child.stdout.take();
    let watch = Watch {
        progress: AtomicU64::new(0),
        state: Mutex::new(State::default()),
        wake: Condvar::new(),
    };

    let (read, status, stop) = thread::scope(|scope| {
        let watchdog = scope.spawn(|| watch.run(child, group, limits));
        let read = match stdout {
            Some(stdout) => {
                let mut out = BufReader::with_capacity(
                    64 * 1024,
                    Counted {
                        inner: stdout,
                        progress: &watch.progress,
                    },
                );
                read(&mut out)
            }
            None => Err(anyhow::anyhow!("the program's stdout was not piped")),
        };
        // A reader that gave up wants no more: stop the program rather than let
        // it block on a pipe nobody reads.
        watch.finish(read.is_err());
        let (status, stop) = watchdog.join().unwrap_or((None, None));
        (read, status, stop)
    });
    group.end();
    let stderr = stderr
        .and_then(|rx| rx.recv_timeout(GROUP_GRACE).ok())
        .unwrap_or_default();
    Ok(Finished {
        status,
        read,
        stderr,
        stop,
    })
}

/// Holds what a program printed, read whole up to a cap.
#[derive(Debug)]
pub struct Output {
    /// `None` when a limit stopped the program.
    pub status: Option<ExitStatus>,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub stop: Option<Stop>,
    /// True when stdout passed `max_stdout`: reading stopped there and the program
    /// was ended.
    pub is_truncated: bool,
}

/// Runs `command` within `limits` with stdin closed and keeps at most `max_stdout`
/// bytes of its stdout.
pub fn output(command: Command, limits: &Limits, max_stdout: usize) -> io::Result<Output> {
    let finished = run(command, limits, None, |out| {
        let (bytes, is_cut) = read_capped(out, max_stdout);
        if is_cut {
            // Past the cap the rest is not wanted: an error ends the program.
            anyhow::bail!(Truncated(bytes));
        }
        Ok(bytes)
    })?;
    let (stdout, is_truncated) = match finished.read {
        Ok(bytes) => (bytes, false),
        Err(err) => match err.downcast::<Truncated>() {
            Ok(Truncated(bytes)) => (bytes, true),
            Err(_) => (Vec::new(), false),
        },
    };
    Ok(Output {
        status: finished.status,
        stdout,
        stderr: finished.stderr,
        stop: finished.stop,
        is_truncated,
    })
}

/// Carries the bytes read before the cap out of a reader that stopped at it.
#[derive(Debug)]
struct Truncated(Vec<u8>);

impl fmt::Display for Truncated {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "the output passed {} bytes", self.0.len())
    }
}

impl std::error::Error for Truncated {}

/// Says why a program this crate ran gave no answer: the one failure type of every
/// call to git.
#[derive(Debug)]
pub struct Failure {
    /// How messages name the program, e.g. `git ls-remote`.
    pub command: String,
    pub cause: Cause,
    /// How many times the program was run before this was given up, when it was
    /// tried again; `None` when it ran once and a retry was never in question.
    pub tries: Option<u32>,
}

/// Says what went wrong with a program (a census row's failure has its own
/// [`crate::infra::error::FailureKind`]).
#[derive(Debug)]
pub enum Cause {
    /// It could not be started (not installed?).
    Start(io::Error),
    /// A limit stopped it.
    Stopped(Stop),
    /// It exited with a failure; `stderr` is what it said.
    Exited { status: ExitStatus, stderr: String },
    /// Its output could not be read or was not what was asked for.
    Output(String),
}

impl Failure {
    /// Returns a failure of `command`.
    pub fn new(command: impl Into<String>, cause: Cause) -> Failure {
        Failure {
            command: command.into(),
            cause,
            tries: None,
        }
    }

    /// Returns the failure of a finished program: its stop, its exit status or its
    /// reader's error, or `None` when it succeeded.
    pub fn of<T>(command: &str, finished: Finished<T>) -> Result<T, Failure> {
        let fail = |cause| Err(Failure::new(command, cause));
        if let Some(stop) = finished.stop {
            return fail(Cause::Stopped(stop));
        }
        let value = match finished.read {
            Ok(value) => value,
            Err(err) => return fail(Cause::Output(format!("{err:#}"))),
        };
        match finished.status {
            Some(status) if status.success() => Ok(value),
            Some(status) => fail(Cause::Exited {
                status,
                stderr: String::from_utf8_lossy(&finished.stderr).into_owned(),
            }),
            None => fail(Cause::Output("the program vanished".into())),
        }
    }

    /// Returns what the program wrote on stderr when it exited with a failure.
    pub fn stderr(&self) -> Option<&str> {
        match &self.cause {
            Cause::Exited { stderr, .. } => Some(stderr),
            _ => None,
        }
    }
}

impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let command = &self.command;
        match &self.cause {
            Cause::Start(e) => write!(f, "running '{command}': {e}")?,
            Cause::Stopped(Stop::Time(limit)) => write!(
                f,
                "{command} took longer than {} s and was stopped",
                limit.as_secs_f64()
            )?,
            Cause::Stopped(Stop::Idle(limit)) => write!(
                f,
                "'{command}' wrote nothing for {} s and was stopped (a fifo or a hung file \
                 system in the repository?)",
                limit.as_secs_f64()
            )?,
            Cause::Exited { status, stderr } => {
                let code = match status.code() {
                    Some(code) => format!("exit {code}"),
                    None => "killed".to_string(),
                };
                let why = cause_line(stderr).unwrap_or("no message");
                write!(f, "{command} failed ({code}): {}", excerpt(why))?;
            }
            Cause::Output(why) => f.write_str(why)?,
        }
        if let Some(tries) = self.tries {
            let noun = messages::noun(tries, "try", "tries");
            write!(f, " (gave up after {tries} {noun})")?;
        }
        Ok(())
    }
}

impl std::error::Error for Failure {}

/// The `fatal:` lines git's client writes after the remote side already failed:
/// they say that it stopped, not why.
const FOLLOW_ON: [&str; 3] = [
    "fatal: early eof",
    "fatal: fetch-pack: invalid index-pack output",
    "fatal: the remote end hung up unexpectedly",
];

/// Returns the line of a failed git's `stderr` that says why: its first `fatal:`
/// line that is not a mere follow-on of another, else its first `fatal:` line, else
/// its first `error:` line, else its first line that is not blank. Git may first
/// warn of something harmless (`warning: filtering not recognized by server,
/// ignoring`) or relay the remote's own words (`remote: ...`); the line it stops on
/// names the cause. The remote's and the client's lines share one stream, so the
/// client's `fatal: early EOF` may come first.
pub fn cause_line(stderr: &str) -> Option<&str> {
    let lines = || stderr.lines().map(str::trim).filter(|l| !l.is_empty());
    let follow_on = |l: &str| FOLLOW_ON.contains(&l.to_ascii_lowercase().as_str());
    lines()
        .find(|l| l.starts_with("fatal:") && !follow_on(l))
        .or_else(|| lines().find(|l| l.starts_with("fatal:")))
        .or_else(|| lines().find(|l| l.starts_with("error:")))
        .or_else(|| lines().next())
}

/// Reaps every child of this process that has exited and led a session of its own,
/// without waiting. No program this process starts is a session leader (each leads
/// a group in this process's session), so such a child is an orphan: a sandbox's
/// inner process (bubblewrap's `--new-session`) whose parent died first, handed to
/// this process as the subreaper. Waiting for the dead parent's group never reaches
/// it, and a survey would keep one zombie per sandboxed server until it ended.
pub fn reap_orphaned_sessions() {
    #[cfg(target_os = "linux")]
    {
        let me = std::process::id().to_string();
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return;
        };
        for entry in entries.flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|n| n.parse::<i32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
                continue;
            };
            // `PID (COMM) STATE PPID PGRP SESSION ...`; COMM may hold anything.
            let Some(at) = stat.rfind(')') else { continue };
            let fields: Vec<&str> = stat[at + 1..].split_ascii_whitespace().take(4).collect();
            let is_orphan = matches!(fields.as_slice(), [state, ppid, _, session]
                if *state == "Z" && *ppid == me && *session == pid.to_string());
            if is_orphan {
                let mut status = 0;
                // SAFETY: waitpid(2) with WNOHANG writes one int through the pointer.
                unsafe {
                    libc::waitpid(pid, &mut status, libc::WNOHANG);
                }
            }
        }
    }
}

/// A process group, named by its leader's id.
#[derive(Clone, Copy)]
struct Group(i32);

impl Group {
    /// Sends `SIGKILL` to every process of the group.
    fn kill(self) {
        // SAFETY: kill(2) takes plain integers; a negative pid names a group.
        unsafe {
            libc::kill(-self.0, libc::SIGKILL);
        }
    }

    /// Kills what is left of the group once its leader has been waited for, and
    /// reaps the members that became this process's children, for at most
    /// [`GROUP_GRACE`].
    fn end(self) {
        let deadline = Instant::now() + GROUP_GRACE;
        loop {
            self.kill();
            let mut status = 0;
            // SAFETY: waitpid(2) with WNOHANG writes one int through the pointer.
            let reaped = unsafe { libc::waitpid(-self.0, &mut status, libc::WNOHANG) };
            if reaped < 0 {
                // ECHILD: no child of this process is left in the group.
                reap_orphaned_sessions();
                return;
            }
            if reaped == 0 {
                if Instant::now() >= deadline {
                    return;
                }
                thread::sleep(Duration::from_millis(5));
            }
        }
    }
}

/// Makes this process the reaper of its descendants' orphans (Linux), once.
fn become_subreaper() {
    #[cfg(target_os = "linux")]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            // SAFETY: prctl(2) with PR_SET_CHILD_SUBREAPER takes integers only.
            unsafe {
                libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
            }
        });
    }
}

/// Holds what the reader and the watchdog share.
struct Watch {
    /// Bytes read from stdout so far.
    progress: AtomicU64,
    state: Mutex<State>,
    wake: Condvar,
}

#[derive(Default)]
struct State {
    /// The reader is done with stdout.
    is_read: bool,
    /// The reader failed: the program is to be stopped.
    is_abandoned: bool,
}

impl Watch {
    /// Tells the watchdog the reader is done, and whether it failed.
    fn finish(&self, is_abandoned: bool) {
        let mut state = lock(&self.state);
        state.is_read = true;
        state.is_abandoned |= is_abandoned;
        self.wake.notify_all();
    }

    /// Watches `child` until it exits, killing its group at a limit or when the
    /// reader gives up; returns its status (none when stopped at a limit) and the
    /// limit. Once the leader has exited the rest of its group is killed, so that a
    /// helper holding stdout open cannot keep the reader waiting.
    fn run(
        &self,
        mut child: Child,
        group: Group,
        limits: &Limits,
    ) -> (Option<ExitStatus>, Option<Stop>) {
        let started = Instant::now();
        let mut seen = self.progress.load(Ordering::Relaxed);
        let mut since = started;
        let mut state = lock(&self.state);
        let mut was_read = false;
        loop {
            if let Ok(Some(status)) = child.try_wait() {
                group.kill();
                return (Some(status), None);
            }
            let now = Instant::now();
            let moved = self.progress.load(Ordering::Relaxed);
            // Output moved, or the reader just finished: the idle clock restarts.
            if moved != seen || state.is_read != was_read {
                seen = moved;
                was_read = state.is_read;
                since = now;
            }
            let stop = match (limits.time, limits.idle) {
                (Some(time), _) if now.duration_since(started) >= time => Some(Stop::Time(time)),
                (_, Some(idle)) if now.duration_since(since) >= idle => Some(Stop::Idle(idle)),
                _ => None,
            };
            if stop.is_some() || state.is_abandoned {
                group.kill();
                let status = child.wait().ok();
                return (if stop.is_some() { None } else { status }, stop);
            }
            let mut pause = TICK;
            if let Some(time) = limits.time {
                pause = pause.min((started + time).saturating_duration_since(now));
            }
            state = self
                .wake
                .wait_timeout(state, pause.max(Duration::from_millis(1)))
                .map(|(guard, _)| guard)
                .unwrap_or_else(|poisoned| poisoned.into_inner().0);
        }
    }
}

/// Locks `mutex`, whether or not a thread panicked holding it.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Reads `reader` to its end or to `cap` bytes; true when the cap was passed. Past
/// the cap nothing more is read.
fn read_capped(reader: impl Read, cap: usize) -> (Vec<u8>, bool) {
    let mut bytes = Vec::new();
    let limit = u64::try_from(cap).unwrap_or(u64::MAX).saturating_add(1);
    let _ = reader.take(limit).read_to_end(&mut bytes);
    let is_cut = bytes.len() > cap;
    bytes.truncate(cap);
    (bytes, is_cut)
}

/// Counts the bytes read through it, for the watchdog.
struct Counted<'p, R> {
    inner: R,
    progress: &'p AtomicU64,
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.fetch_add(n as u64, Ordering::Relaxed);
        Ok(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(time: Option<u64>, idle: Option<u64>) -> Limits {
        Limits {
            time: time.map(Duration::from_millis),
            idle: idle.map(Duration::from_millis),
            max_stderr: 1000,
        }
    }

    #[test]
    fn a_failure_names_the_line_git_stops_on_escaped() {
        let failed = |stderr: &str| {
            let status = sh("exit 128").status().unwrap();
            let stderr = stderr.to_string();
            Failure::new("git clone", Cause::Exited { status, stderr }).to_string()
        };
        assert_eq!(
            failed(
                "warning: filtering not recognized by server, ignoring\n\
                 remote: fatal: Failed to traverse parents of commit c138\n\
                 error: git upload-pack: git-pack-objects died with error.\n\
                 fatal: git upload-pack: aborting due to possible repository corruption\n\
                 fatal: early EOF\n"
            ),
            "git clone failed (exit 128): fatal: git upload-pack: aborting due to possible \
             repository corruption"
        );
        // The client's own stop, written before the remote's cause in one stream.
        assert_eq!(
            failed(
                "fatal: early EOF\n\
                 fatal: git upload-pack: aborting due to possible repository corruption\n\
                 fatal: fetch-pack: invalid index-pack output\n"
            ),
            "git clone failed (exit 128): fatal: git upload-pack: aborting due to possible \
             repository corruption"
        );
        assert_eq!(
            failed("fatal: the remote end hung up unexpectedly\n"),
            "git clone failed (exit 128): fatal: the remote end hung up unexpectedly"
        );
        assert_eq!(
            failed("warning: x\nerror: RPC failed; HTTP 503\n"),
            "git clone failed (exit 128): error: RPC failed; HTTP 503"
        );
        assert_eq!(
            failed("\n  warning: only this\n"),
            "git clone failed (exit 128): warning: only this"
        );
        assert_eq!(failed(""), "git clone failed (exit 128): no message");
        assert_eq!(
            failed("fatal: '/a\u{1b}[31m' does not appear to be a git repository"),
            "git clone failed (exit 128): fatal: '/a\\u{1b}[31m' does not appear to be a git \
             repository"
        );
    }

    fn sh(script: &str) -> Command {
        let mut c = Command::new("sh");
        c.args(["-c", script]);
        c
    }

    /// Returns true while a process with id `pid` exists and is no zombie.
    fn is_alive(pid: &str) -> bool {
        std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
            !stat
                .rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
    }

    #[test]
    fn a_command_past_its_time_is_killed() {
        let started = Instant::now();
        let out = output(sh("sleep 20"), &limits(Some(200), None), 10).unwrap();
        assert_eq!(out.stop, Some(Stop::Time(Duration::from_millis(200))));
        assert!(out.status.is_none());
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn the_whole_group_ends_with_its_leader() {
        // The shell starts a child that outlives it and holds stdout open; the
        // child's pid comes first on stdout.
        let out = output(
            sh("sleep 30 & echo $!; sleep 30"),
            &limits(Some(300), None),
            100,
        )
        .unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(!pid.is_empty() && out.stop.is_some(), "{out:?}");
        assert!(!is_alive(&pid), "the child {pid} outlived its group");

        // A leader that exits at once still takes its group with it.
        let started = Instant::now();
        let out = output(sh("sleep 30 & echo $!"), &limits(None, None), 100).unwrap();
        let pid = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(out.status.is_some_and(|s| s.success()), "{out:?}");
        assert!(!is_alive(&pid), "the child {pid} outlived its leader");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
    }

    #[test]
    fn a_silent_command_is_stopped_and_a_talking_one_is_not() {
        let out = output(sh("sleep 20"), &limits(None, Some(200)), 10).unwrap();
        assert_eq!(out.stop, Some(Stop::Idle(Duration::from_millis(200))));
        let out = output(
            sh("for i in 1 2 3 4 5 6; do echo $i; sleep 0.1; done"),
            &limits(None, Some(400)),
            100,
        )
        .unwrap();
        assert_eq!(out.stop, None);
        assert_eq!(out.stdout, b"1\n2\n3\n4\n5\n6\n");
    }

    #[test]
    fn output_past_its_cap_is_cut() {
        let out = output(
            sh("yes | head -c 100000; echo done >&2"),
            &limits(Some(10_000), None),
            1000,
        )
        .unwrap();
        assert!(
            out.is_truncated && out.stdout.len() == 1000,
            "{}",
            out.stdout.len()
        );
        let out = output(
            sh("printf abc; read x; echo \"[$x]\" >&2"),
            &limits(Some(10_000), None),
            1000,
        )
        .unwrap();
        assert_eq!(out.stdout, b"abc");
        assert_eq!(out.stderr, b"[]\n", "stdin is closed");
    }

    #[test]
    fn input_is_fed_while_output_is_read() {
        let input = vec![b'x'; 1 << 20];
        let finished = run(sh("cat"), &limits(Some(10_000), None), Some(input), |out| {
            let mut n = 0u64;
            let mut buf = [0u8; 4096];
            loop {
                match out.read(&mut buf)? {
                    0 => return Ok(n),
                    k => n += k as u64,
                }
            }
        })
        .unwrap();
        assert_eq!(finished.read.unwrap(), 1 << 20);
        assert!(finished.status.is_some_and(|s| s.success()));
    }

    #[test]
    fn failures_say_what_stopped_the_command() {
        let failure = |script: &str, l: Limits| {
            let finished = run(sh(script), &l, None, |out| {
                let mut s = String::new();
                out.read_to_string(&mut s)?;
                Ok(s)
            })
            .unwrap();
            Failure::of("git ls-remote", finished)
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            failure(
                "echo; echo 'fatal: nope' >&2; echo more >&2; exit 128",
                limits(None, None)
            ),
            "git ls-remote failed (exit 128): fatal: nope"
        );
        assert_eq!(
            failure("sleep 5", limits(Some(100), None)),
            "git ls-remote took longer than 0.1 s and was stopped"
        );
        let mut f = Failure::new(
            "git ls-remote",
            Cause::Stopped(Stop::Time(Duration::from_secs(2))),
        );
        f.tries = Some(2);
        assert_eq!(
            f.to_string(),
            "git ls-remote took longer than 2 s and was stopped (gave up after 2 tries)"
        );
        let e = run(
            Command::new("/nonexistent/program"),
            &limits(None, None),
            None,
            |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::NotFound);
    }
}
