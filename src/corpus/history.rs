//! Pins repositories at past dates: the commit a repository's default branch pointed
//! to at the end of a day (UTC), read from its first-parent history, for `corpus
//! --at DATE` and `corpus --since DATE --every STEP` (docs/method.md, "Dates").
//!
//! This module owns the dates a corpus is pinned at (the `--every` grammar and the
//! day's end), the commits-only clone cache and how its git calls are hardened, and
//! the choice of a commit for a date. It does not know about registries, lists or
//! corpus files; `build` does.
//!
//! # The clone and why nothing of the repository runs
//!
//! History comes from a bare clone of commits only (`git clone --bare
//! --filter=tree:0 --no-tags`, no checkout), cached under `<cache>/clones/HOST/
//! OWNER/NAME.git` and brought up to date with a `git fetch` of the remote's `HEAD`
//! on the next run. The clone's configuration is written by git itself and no
//! template is copied into it (`--template=`), so no hook or configured command of
//! the remote's reaches it; what a remote sends is refs and objects, and those are
//! only read. Every call starts as every git of the tool's does ([`crate::infra::git`]):
//! in an empty folder of the tool's own, so the checkout the tool runs from is never
//! read; the hooks path is `/dev/null`, `core.fsmonitor` is off, no prompt or askpass
//! program may wait for a person, stdin is closed, the variables that would point git
//! at another repository are removed, and `GIT_NO_LAZY_FETCH` keeps reading the history
//! from fetching anything. Each call runs through `process`, in a process group of
//! its own that is ended on its time limit and when it exits; every file git writes is capped by a file-size
//! limit (`RLIMIT_FSIZE`) and every fetch is kept as one pack
//! (`transfer.unpackLimit=1`), so a remote that ignores the filter and sends
//! everything fails at the cap instead of filling the disk.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::corpus::pin;
use crate::infra::date;
use crate::infra::date::Step;
use crate::infra::git::{self, Transport};
use crate::infra::messages;
use crate::infra::process::{self, Cause, Failure, Limits};
use crate::infra::sanitize::excerpt;

/// How many dates one corpus may be pinned at.
pub const MAX_DATES: usize = 1000;

/// How many bytes of `git rev-list` output are read: 52 bytes a commit, so more
/// than two million commits on the first-parent line.
const MAX_LISTING: usize = 128 << 20;

/// Returns the date `k` steps after `since`: days and weeks add days; months and
/// years keep the day of the month, or take the month's last day when it has fewer
/// (2025-01-31 plus one month is 2025-02-28). Each date is reckoned from `since`, so
/// a short month does not pull the later dates back.
fn step_from(since: (i64, u32, u32), step: Step, k: u32) -> String {
    let (year, month, day) = since;
    let k = i64::from(k);
    let months = match step {
        Step::Days(n) | Step::Weeks(n) => {
            let days = k * i64::from(n) * if matches!(step, Step::Weeks(_)) { 7 } else { 1 };
            return date::from_unix(date::day_end(year, month, day) + days * 86_400);
        }
        Step::Months(n) => k * i64::from(n),
        Step::Years(n) => k * i64::from(n) * 12,
    };
    let index = year * 12 + i64::from(month) - 1 + months;
    let (year, month) = (index.div_euclid(12), (index.rem_euclid(12) + 1) as u32);
    let day = day.min(date::days_in_month(year, month));
    format!("{year:04}-{month:02}-{day:02}")
}

/// Returns the dates a corpus is pinned at, sorted and without repeats: every
/// `--at`, and with `--since` every date from it, `--every` step apart, up to and
/// including `--until` (default `today`).
pub fn dates(
    at: &[String],
    since: Option<&str>,
    every: Option<Step>,
    until: Option<&str>,
    today: &str,
) -> Result<Vec<String>, String> {
    let mut out: Vec<String> = at.to_vec();
    if let Some(since) = since {
        let every = every.ok_or("--since needs --every STEP")?;
        let until = until.unwrap_or(today);
        let start = date::parts(since).ok_or_else(|| format!("--since '{since}' is not a date"))?;
        if since > until {
            return Err(format!("--since {since} is after --until {until}"));
        }
        for k in 0.. {
            let next = step_from(start, every, k);
            if next.as_str() > until {
                break;
            }
            if out.len() >= MAX_DATES {
                return Err(format!(
                    "--since {since} --every {} gives more than {MAX_DATES} dates",
                    step_text(every)
                ));
            }
            out.push(next);
        }
    } else if every.is_some() || until.is_some() {
        return Err("--every and --until need --since DATE".to_string());
    }
    out.sort();
    out.dedup();
    if out.len() > MAX_DATES {
        return Err(format!("more than {MAX_DATES} dates"));
    }
    Ok(out)
}

fn step_text(step: Step) -> String {
    let (n, one, many) = match step {
        Step::Days(n) => (n, "day", "days"),
        Step::Weeks(n) => (n, "week", "weeks"),
        Step::Months(n) => (n, "month", "months"),
        Step::Years(n) => (n, "year", "years"),
    };
    format!("{n}{}", messages::noun(n, one, many))
}

/// Holds how history is read.
#[derive(Clone, Debug)]
pub struct HistoryOptions {
    /// The cache folder; clones live in `clones/` under it.
    pub cache: PathBuf,
    /// The time one clone or fetch may take before its process group is stopped.
    pub timeout: Duration,
    /// The largest file git may write while cloning or fetching (the pack), bytes.
    pub max_size: u64,
    /// How many times a failure that may pass (a timeout, the network) is retried.
    pub retries: u32,
    /// The first pause before a retry; each retry doubles it.
    pub backoff: Duration,
}

/// Holds a branch's first-parent line: each commit's id and committer time (Unix
/// seconds), the tip first.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FirstParent {
    pub commits: Vec<(i64, String)>,
}

/// Holds the commit a date resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dated {
    /// 40 lower-case hex digits.
    pub commit: String,
    /// Its committer time, Unix seconds.
    pub time: i64,
}

impl FirstParent {
    /// Parses `git rev-list --first-parent --timestamp` output: `<time> <id>` lines.
    pub fn parse(text: &str) -> Result<FirstParent, String> {
        let mut commits = Vec::new();
        for line in text.lines() {
            let parsed = line.split_once(' ').and_then(|(time, id)| {
                let time: i64 = time.parse().ok()?;
                pin::is_commit_id(id).then(|| (time, id.to_ascii_lowercase()))
            });
            match parsed {
                Some(commit) => commits.push(commit),
                None => return Err(format!("git rev-list printed '{}'", excerpt(line))),
            }
        }
        Ok(FirstParent { commits })
    }

    /// Returns the commit the branch pointed to at the end of `day` (UTC): walking
    /// the first-parent line from the tip, the first commit whose committer time is
    /// at or before 23:59:59 of that day, as `git rev-list -1 --first-parent
    /// --before` chooses it. The error says why there is none.
    pub fn at(&self, day: &str) -> Result<Dated, String> {
        let (y, m, d) = date::parts(day).ok_or_else(|| format!("'{day}' is not a date"))?;
        let end = date::day_end(y, m, d);
        match self.commits.iter().find(|(time, _)| *time <= end) {
            Some((time, commit)) => Ok(Dated {
                commit: commit.clone(),
                time: *time,
            }),
            None => Err(match self.commits.last() {
                Some((first, _)) => format!(
                    "no commit on the default branch by the end of {day} (UTC); its first is of {} UTC",
                    date::utc_time(*first)
                ),
                None => "the default branch has no commit".to_string(),
            }),
        }
    }
}

/// Returns where the clone of `host/repo` is cached: names folded to lower case, as
/// the forges compare them.
pub fn clone_path(cache: &Path, host: &str, repo: &str) -> PathBuf {
    let (owner, name) = repo.split_once('/').unwrap_or((repo, ""));
    cache
        .join("clones")
        .join(host.to_ascii_lowercase())
        .join(owner.to_ascii_lowercase())
        .join(format!("{}.git", name.to_ascii_lowercase()))
}

/// Returns the first-parent line of the default branch of the repository at `url`,
/// from its cached clone brought up to date, or cloned now; failures that may pass
/// ([`pin::may_pass`]) are retried, and one that lasted says how many tries it took.
pub fn first_parent(
    url: &str,
    clone: &Path,
    options: &HistoryOptions,
) -> Result<FirstParent, Failure> {
    pin::refuse_option_url(GIT_CLONE, url)?;
    // git starts in a folder of its own (`infra::git`), so every path it is given
    // is absolute.
    let clone = &std::path::absolute(clone).map_err(|e| {
        Failure::new(
            GIT_CLONE,
            Cause::Output(format!("finding the folder '{}': {e}", clone.display())),
        )
    })?;
    pin::retrying(options.retries, options.backoff, || {
        if clone.is_dir() {
            fetch(url, clone, options)
        } else {
            clone_into(url, clone, options)
        }
    })?;
    read_first_parent(clone, options)
}

/// How messages name the commands.
const GIT_CLONE: &str = "git clone";
const GIT_FETCH: &str = "git fetch";
const GIT_REV_LIST: &str = "git rev-list";

/// Clones `url` into a temporary folder beside `clone` and renames it into place,
/// so an interrupted clone never passes for a cached one.
fn clone_into(url: &str, clone: &Path, options: &HistoryOptions) -> Result<(), Failure> {
    let parent = clone.parent().unwrap_or(Path::new("."));
    let local = |what: &str, e: io::Error| {
        Failure::new(
            GIT_CLONE,
            Cause::Output(format!("{what} '{}': {e}", parent.display())),
        )
    };
    fs::create_dir_all(parent).map_err(|e| local("creating", e))?;
    let temp = tempfile::Builder::new()
        .prefix(".clone-")
        .tempdir_in(parent)
        .map_err(|e| local("creating a folder in", e))?;
    let target = temp.path().join("repo.git");
    let mut command = git(options);
    command
        .args(["clone", "--bare", "--filter=tree:0", "--no-tags", "--quiet"])
        .arg("--template=")
        .arg("--")
        .arg(url)
        .arg(&target);
    run(command, GIT_CLONE, options, 64 << 10)?;
    match fs::rename(&target, clone) {
        Ok(()) => Ok(()),
        // Another run cloned it meanwhile: theirs is as good.
        Err(_) if clone.is_dir() => Ok(()),
        Err(e) => Err(local("moving a clone into", e)),
    }
}

/// Fetches `url`'s `HEAD` into the branch the clone's `HEAD` names, forced: a
/// branch that was force-pushed is what its history says now. The clone's remote is
/// pointed at `url` first: a clone cached from the forge may be read from a mirror
/// next time (`--mirrors`), or the other way round.
fn fetch(url: &str, clone: &Path, options: &HistoryOptions) -> Result<(), Failure> {
    let head = fs::read_to_string(clone.join("HEAD")).unwrap_or_default();
    let branch = head
        .strip_prefix("ref: ")
        .map(str::trim)
        .filter(|b| b.starts_with("refs/heads/") && pin::is_ref_name(b))
        .ok_or_else(|| {
            Failure::new(
                GIT_FETCH,
                Cause::Output(format!(
                    "the cached clone '{}' has no branch HEAD; delete it to clone again",
                    clone.display()
                )),
            )
        })?;
    let mut point = git(options);
    point
        .arg("-C")
        .arg(clone)
        .args(["config", "remote.origin.url", url]);
    run(point, GIT_FETCH, options, 4 << 10)?;
    let mut command = git(options);
    command
        .arg("-C")
        .arg(clone)
        .args(["fetch", "--no-tags", "--filter=tree:0", "--quiet"])
        .args(["--no-write-fetch-head", "origin"])
        .arg(format!("+HEAD:{branch}"));
    run(command, GIT_FETCH, options, 64 << 10)
        .map(drop)
        .inspect_err(|_| remove_temp_packs(clone))
}

/// Removes the temporary packs a failed fetch left in `repo`.
fn remove_temp_packs(repo: &Path) {
    let pack = repo.join("objects").join("pack");
    for entry in fs::read_dir(pack).into_iter().flatten().flatten() {
        if entry.file_name().to_string_lossy().starts_with("tmp_") {
            let _ = fs::remove_file(entry.path());
        }
    }
}

/// Reads the first-parent line of the clone's `HEAD`.
fn read_first_parent(clone: &Path, options: &HistoryOptions) -> Result<FirstParent, Failure> {
    let mut command = git(options);
    command
        .arg("-C")
        .arg(clone)
        .args(["rev-list", "--first-parent", "--timestamp", "HEAD", "--"]);
    let stdout = run(command, GIT_REV_LIST, options, MAX_LISTING)?;
    FirstParent::parse(&String::from_utf8_lossy(&stdout))
        .map_err(|why| Failure::new(GIT_REV_LIST, Cause::Output(why)))
}

/// Returns `git` set up to clone, fetch or read a commits-only clone and run
/// nothing a repository names (see the module documentation).
fn git(options: &HistoryOptions) -> Command {
    // Killing git on time does not reach the transport helper it started
    // (git-remote-https): curl's own low-speed limit, one second past the time
    // limit, makes a helper left stalled on a silent server end by itself.
    let stall = format!("http.lowSpeedTime={}", options.timeout.as_secs() + 1);
    let mut command = git::command(Transport::Remote);
    command
        .args(["-c", "transfer.unpackLimit=1"])
        .args(["-c", "gc.auto=0", "-c", "maintenance.auto=false"])
        .args(["-c", "http.lowSpeedLimit=1", "-c", &stall]);
    limit_files(&mut command, options.max_size);
    command
}

/// Runs a git call within the time limit, in a process group of its own that is
/// ended with it, and returns its stdout (at most `max_stdout` bytes).
fn run(
    command: Command,
    what: &str,
    options: &HistoryOptions,
    max_stdout: usize,
) -> Result<Vec<u8>, Failure> {
    let limits = Limits {
        time: Some(options.timeout),
        idle: None,
        max_stderr: 64 << 10,
    };
    let ran = process::output(command, &limits, max_stdout)
        .map_err(|e| Failure::new(what, Cause::Start(e)))?;
    if let Some(stop) = ran.stop {
        return Err(Failure::new(what, Cause::Stopped(stop)));
    }
    if ran.is_truncated {
        return Err(Failure::new(
            what,
            Cause::Output(format!("{what} printed more than {max_stdout} bytes")),
        ));
    }
    match ran.status {
        Some(status) if status.success() => Ok(ran.stdout),
        Some(status) => {
            let stderr = String::from_utf8_lossy(&ran.stderr).into_owned();
            // EFBIG, as strerror names it: a file reached the size limit. No retry
            // will change that.
            if stderr.contains("File too large") {
                let failed = Failure::new(what, Cause::Exited { status, stderr });
                return Err(Failure::new(
                    what,
                    Cause::Output(format!(
                        "{failed} (the history passed --max-history, {} bytes in one file)",
                        options.max_size
                    )),
                ));
            }
            Err(Failure::new(what, Cause::Exited { status, stderr }))
        }
        None => Err(Failure::new(
            what,
            Cause::Output(format!("{what} vanished")),
        )),
    }
}

/// Caps the size of every file the command writes at `max` bytes (`RLIMIT_FSIZE`,
/// inherited by the processes git starts): a write past it fails with `EFBIG`,
/// which git reports, since `SIGXFSZ` is ignored rather than left to end the
/// writer without a word.
fn limit_files(command: &mut Command, max: u64) {
    use std::os::unix::process::CommandExt;

    let limit = libc::rlimit {
        rlim_cur: libc::rlim_t::try_from(max).unwrap_or(libc::RLIM_INFINITY),
        rlim_max: libc::rlim_t::try_from(max).unwrap_or(libc::RLIM_INFINITY),
    };
    // SAFETY: the closure runs in the forked child before exec and calls only
    // signal(2) and setrlimit(2), which are async-signal-safe, on a value it owns.
    // An ignored signal stays ignored across exec.
    unsafe {
        command.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            if libc::setrlimit(libc::RLIMIT_FSIZE, &limit) == 0 {
                Ok(())
            } else {
                Err(io::Error::last_os_error())
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_read_a_number_and_a_unit() {
        assert_eq!("3months".parse(), Ok(Step::Months(3)));
        assert_eq!("1month".parse(), Ok(Step::Months(1)));
        assert_eq!("2weeks".parse(), Ok(Step::Weeks(2)));
        assert_eq!("1day".parse(), Ok(Step::Days(1)));
        assert_eq!("10days".parse(), Ok(Step::Days(10)));
        assert_eq!("1year".parse(), Ok(Step::Years(1)));
        for bad in [
            "",
            "months",
            "0months",
            "3",
            "3 months",
            "3month",
            "1months",
            "-1month",
            "+1month",
            "3fortnights",
            "99999days",
            "1Month",
        ] {
            assert!(bad.parse::<Step>().is_err(), "{bad}");
        }
    }

    #[test]
    fn months_keep_the_day_or_take_the_last() {
        let series = |since, every: &str, until| {
            dates(
                &[],
                Some(since),
                Some(every.parse().unwrap()),
                Some(until),
                "x",
            )
        };
        assert_eq!(
            series("2025-01-31", "1month", "2025-05-30").unwrap(),
            ["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"]
        );
        assert_eq!(
            series("2025-03-01", "3months", "2026-03-01").unwrap(),
            [
                "2025-03-01",
                "2025-06-01",
                "2025-09-01",
                "2025-12-01",
                "2026-03-01"
            ]
        );
        assert_eq!(
            series("2024-02-29", "1year", "2028-03-01").unwrap(),
            [
                "2024-02-29",
                "2025-02-28",
                "2026-02-28",
                "2027-02-28",
                "2028-02-29"
            ]
        );
        assert_eq!(
            series("2025-12-20", "2weeks", "2026-01-17").unwrap(),
            ["2025-12-20", "2026-01-03", "2026-01-17"]
        );
        assert_eq!(
            series("2025-06-01", "1day", "2025-06-01").unwrap(),
            ["2025-06-01"]
        );
        assert!(series("2025-06-02", "1day", "2025-06-01")
            .unwrap_err()
            .contains("after"));
        assert!(series("2000-01-01", "1day", "2026-01-01")
            .unwrap_err()
            .contains("more than 1000"));
    }

    #[test]
    fn at_and_since_join_sorted_once() {
        let got = dates(
            &["2025-09-01".into(), "2025-01-15".into()],
            Some("2025-08-01"),
            Some(Step::Months(1)),
            None,
            "2025-09-10",
        )
        .unwrap();
        assert_eq!(got, ["2025-01-15", "2025-08-01", "2025-09-01"]);
        assert!(dates(&[], None, Some(Step::Days(1)), None, "x").is_err());
        assert!(dates(&[], Some("2025-01-01"), None, None, "x").is_err());
    }

    const A: &str = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
    const B: &str = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";
    const C: &str = "cccccccccccccccccccccccccccccccccccccccc";

    #[test]
    fn a_date_takes_the_first_commit_at_or_before_its_last_second() {
        // 2025-06-01T23:59:59Z is 1748822399.
        let line = FirstParent::parse(&format!("1748822400 {C}\n1748822399 {B}\n1748649600 {A}\n"))
            .unwrap();
        assert_eq!(line.at("2025-06-01").unwrap().commit, B);
        assert_eq!(line.at("2025-06-02").unwrap().commit, C);
        assert_eq!(line.at("2025-05-31").unwrap().commit, A);
        let e = line.at("2025-05-30").unwrap_err();
        assert!(
            e.contains("by the end of 2025-05-30") && e.contains("2025-05-31 00:00:00 UTC"),
            "{e}"
        );
        // A commit dated later than its child (a skewed clock) is walked past, as
        // git rev-list --before walks past it.
        let skewed =
            FirstParent::parse(&format!("1748736000 {C}\n1748822400 {B}\n1748649600 {A}\n"))
                .unwrap();
        assert_eq!(skewed.at("2025-06-01").unwrap().commit, C);
        assert!(FirstParent::parse("12 nothex").is_err());
        assert!(FirstParent::default().at("2025-01-01").is_err());
    }

    #[test]
    fn clones_are_keyed_by_host_and_folded_repository() {
        assert_eq!(
            clone_path(Path::new("/c"), "GitHub.com", "Acme/Tools"),
            Path::new("/c/clones/github.com/acme/tools.git")
        );
    }
}
