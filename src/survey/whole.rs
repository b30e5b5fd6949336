//! `registry-survey`: the whole survey of one saved listing, in one command. Each
//! step is a command of this tool, run as a child process of its own, so that a
//! step is exactly what a person would type and its failure is the step's alone:
//! the corpora pinned, what ships counted at the listing's latest and at every
//! version, the repositories counted, the wire probed, the wire joined to the
//! source, and the report written (docs/surveys.md, "The registry survey, from one
//! saved listing").
//!
//! This module owns the order of the steps, the paths they share under the survey's
//! folder, the run's log (`run-DATE.csv`: each step's name, the time and the bytes
//! the folder and the cache held, at its start, every 5 s and at its end) and which
//! steps a resumed run skips. It computes no figure: the commands it runs do.

use std::collections::BTreeSet;
use std::ffi::OsString;
use std::fs;
use std::io::Write as _;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use crate::cli::{Half, RegistrySurveyArgs};
use crate::infra::atomic::write_bytes;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::sanitize::sanitize;

use super::budget::disk_size;

/// How often a running step's disk is sampled into the log.
const SAMPLE_EVERY: Duration = Duration::from_secs(5);

/// Holds what every step of one run shares.
struct Run<'a> {
    args: &'a RegistrySurveyArgs,
    /// This binary, which every step runs.
    program: PathBuf,
    /// The run's log, `DIR/run-DATE.csv`.
    log: PathBuf,
    /// The steps an earlier run finished, named in `DIR/.registry-survey-DATE`.
    done_file: PathBuf,
    done: BTreeSet<String>,
    /// The folders whose bytes the log samples: DIR and the cache.
    watched: Vec<PathBuf>,
    /// True once a step has run in this process: the first step run by a resumed
    /// run is the one it was in, whose log lines stay.
    has_run: bool,
    /// When the run started, and how many steps it has come to, for the line each
    /// step starts with.
    started: Instant,
    steps: usize,
}

/// Runs `registry-survey`.
pub fn run(args: &RegistrySurveyArgs) -> Result<ExitStatus> {
    if !args.listing.exists() {
        return Err(UsageError(format!(
            "the listing '{}' does not exist",
            args.listing.display()
        ))
        .into());
    }
    let out = &args.out;
    for sub in ["shipped", "versions", "repositories", "wire", "history"] {
        fs::create_dir_all(out.join(sub))
            .with_context(|| format!("creating '{}'", out.join(sub).display()))?;
    }
    let date = &args.date;
    let done_file = out.join(format!(".registry-survey-{date}"));
    let done = match args.resume {
        true => fs::read_to_string(&done_file)
            .unwrap_or_default()
            .lines()
            .map(str::to_string)
            .collect(),
        false => {
            let _ = fs::remove_file(&done_file);
            BTreeSet::new()
        }
    };
    let log = out.join(format!("run-{date}.csv"));
    if !log.is_file() {
        write_bytes(&log, b"step,unix_seconds,disk_bytes\n")?;
    }
    let cache = args.cache.clone().or_else(crate::corpus::default_cache);
    let mut run = Run {
        args,
        program: std::env::current_exe().context("finding this program to run each step")?,
        log,
        done_file,
        done,
        watched: std::iter::once(out.clone()).chain(cache).collect(),
        has_run: false,
        started: Instant::now(),
        steps: 0,
    };
    run.all()?;
    let _ = fs::remove_file(&run.done_file);
    Ok(ExitStatus::Ok)
}

impl Run<'_> {
    fn runs(&self, half: Half) -> bool {
        self.args.halves.contains(&half)
    }

    fn path(&self, parts: &str) -> PathBuf {
        self.args.out.join(parts)
    }

    /// Returns the words `--pages LISTING --date DATE` every `corpus registry` step
    /// starts with.
    fn registry(&self) -> Vec<OsString> {
        words(&["corpus", "registry", "--pages"])
            .into_iter()
            .chain([self.args.listing.clone().into_os_string()])
            .chain(words(&["--date", &self.args.date]))
            .collect()
    }

    /// Returns `--mirrors DIR` when one was given, for the steps that read the
    /// repositories.
    fn mirrors(&self) -> Vec<OsString> {
        folder_option("--mirrors", self.args.mirrors.as_deref())
    }

    /// Returns `--cache DIR` when one was given.
    fn cache(&self) -> Vec<OsString> {
        folder_option("--cache", self.args.cache.as_deref())
    }

    /// Returns the corpus `half` counts (the wire: the servers it probes), under the
    /// survey's folder.
    fn corpus(&self, half: Half) -> PathBuf {
        self.path(match half {
            Half::Shipped => "shipped/shipped.toml",
            Half::Versions => "versions/versions.toml",
            Half::Repositories => "repositories/repos.toml",
            Half::Wire => "wire/packages.toml",
            Half::History => "history/history.toml",
        })
    }

    /// Pins the corpora the halves run need: again only when a half that counts is
    /// run, the repositories first, since the other corpora are written beside them.
    fn pin(&mut self) -> Result<()> {
        let date = self.args.date.clone();
        let repos = self.corpus(Half::Repositories);
        let shipped = self.corpus(Half::Shipped);
        let versions = self.corpus(Half::Versions);
        let servers = [
            OsString::from("--packages"),
            self.corpus(Half::Wire).into(),
            "--remotes".into(),
            self.path("wire/remotes.toml").into(),
        ];
        let history = self.corpus(Half::History);
        let is_counting = [Half::Shipped, Half::Versions, Half::Repositories]
            .iter()
            .any(|&h| self.runs(h));
        if !self.args.no_pin && (is_counting || self.runs(Half::History)) {
            if self.runs(Half::Repositories) || !repos.is_file() {
                let mut command = self.registry();
                command.extend([
                    "--out".into(),
                    repos.clone().into(),
                    "--shipped".into(),
                    shipped.clone().into(),
                ]);
                command.extend(servers.clone());
                command.extend(self.cache());
                command.extend(self.mirrors());
                self.step("pin the listing", command)?;
            } else if self.runs(Half::Shipped) {
                let mut command = self.registry();
                command.extend(["--out".into(), repos.clone().into(), "--pinned".into()]);
                command.extend(["--shipped".into(), shipped.clone().into()]);
                command.extend(servers.clone());
                self.step("pin what ships", command)?;
            }
            if self.runs(Half::Versions) {
                let mut command = self.registry();
                command.extend([
                    "--all-versions".into(),
                    "--out".into(),
                    repos.clone().into(),
                ]);
                command.extend([
                    "--pinned".into(),
                    "--shipped".into(),
                    versions.clone().into(),
                ]);
                self.step("pin what ships at every version", command)?;
            }
            if self.runs(Half::History) {
                let mut command = self.registry();
                command.extend(words(&[
                    "--since",
                    &self.args.history_since,
                    "--every",
                    "1month",
                ]));
                command.extend(words(&["--until", &date, "--at", &date, "--out"]));
                command.push(history.clone().into());
                command.extend(self.cache());
                command.extend(self.mirrors());
                self.step("pin the repositories month by month", command)?;
            }
        } else if !self.args.no_pin && self.runs(Half::Wire) && repos.is_file() {
            let mut command = self.registry();
            command.extend(["--out".into(), repos.clone().into(), "--pinned".into()]);
            command.extend(servers.clone());
            self.step("write the servers files from the pinned corpus", command)?;
        }
        Ok(())
    }

    /// Runs every step in order.
    fn all(&mut self) -> Result<()> {
        let date = self.args.date.clone();
        let wire_date = match &self.args.wire_date {
            Some(day) => day.clone(),
            None => date::resolve(None)?,
        };
        let repos = self.corpus(Half::Repositories);
        let shipped = self.corpus(Half::Shipped);
        let versions = self.corpus(Half::Versions);
        let history = self.corpus(Half::History);
        // 1. The corpora.
        self.pin()?;
        // 2. What ships and the repositories, counted; a failed row is named in its table.
        let counts = [
            (
                Half::Versions,
                "count what ships at every version",
                &versions,
                "versions",
            ),
            (Half::Shipped, "count what ships", &shipped, "shipped"),
            (
                Half::Repositories,
                "count the repositories",
                &repos,
                "repositories",
            ),
            (
                Half::History,
                "count the repositories month by month",
                &history,
                "history",
            ),
        ];
        for (half, name, corpus, out) in counts {
            if self.runs(half) && corpus.is_file() {
                let mut command = words(&["census", "--corpus"]);
                command.push(corpus.into());
                command.extend(words(&["--date", &date, "--out"]));
                command.push(self.path(out).into());
                command.push("--resume".into());
                command.extend(self.cache());
                if matches!(half, Half::Repositories | Half::History) {
                    command.extend(self.mirrors());
                }
                self.step(name, command)?;
            }
        }
        // 3. The wire.
        let wire = self.path(&format!("wire/wire-{wire_date}.csv"));
        if self.runs(Half::Wire) && self.corpus(Half::Wire).is_file() {
            let mut command = words(&["probe", "--servers"]);
            command.push(self.corpus(Half::Wire).into());
            command.extend(words(&["--date", &wire_date, "--out"]));
            command.push(self.path("wire").into());
            command.push("--resume".into());
            command.extend(self.cache());
            command.extend(self.args.probe_args.iter().map(OsString::from));
            self.step("probe the wire", command)?;
        }
        // The remote endpoints, only where they can be reached.
        let remote = self.path(&format!("remote/wire-{wire_date}.csv"));
        if self.args.remotes && self.path("wire/remotes.toml").is_file() {
            let mut command = words(&["probe", "--servers"]);
            command.push(self.path("wire/remotes.toml").into());
            command.extend(words(&["--date", &wire_date, "--out"]));
            command.push(self.path("remote").into());
            command.push("--resume".into());
            self.step("probe the remote endpoints", command)?;
        }
        // 4. The wires joined to the source, then every entry.
        let shipped_table = self.path(&format!("shipped/census-{date}.csv"));
        let repos_table = self.path(&format!("repositories/census-{date}.csv"));
        let remote = Some(remote).filter(|_| self.args.remotes);
        let joins = [
            (
                Some(&wire),
                "join the wire to what ships",
                &shipped_table,
                None,
            ),
            (
                Some(&wire),
                "join the wire to the repositories",
                &repos_table,
                Some("repositories"),
            ),
            (
                remote.as_ref(),
                "join the remote endpoints to the repositories",
                &repos_table,
                Some("remote"),
            ),
        ];
        for (wire, name, table, out) in joins {
            let Some(wire) = wire.filter(|w| w.is_file() && table.is_file()) else {
                continue;
            };
            let mut command = vec![OsString::from("join"), wire.clone().into()];
            command.extend(["--source-table".into(), table.clone().into()]);
            if let Some(out) = out {
                command.extend(["--out".into(), self.path(out).into()]);
            }
            self.step(name, command)?;
        }
        self.report(&shipped_table, &repos_table, &wire, remote.as_deref())
    }

    /// Writes the report from the tables the steps wrote, and copies it to the
    /// folder's README.md.
    fn report(
        &self,
        shipped_table: &Path,
        repos_table: &Path,
        wire: &Path,
        remote: Option<&Path>,
    ) -> Result<()> {
        let date = &self.args.date;
        let mut command = words(&["survey", "--pages"]);
        command.push(self.args.listing.clone().into());
        command.extend(words(&["--date", date, "--out"]));
        command.push(self.args.out.clone().into());
        command.extend(["--shipped".into(), self.corpus(Half::Shipped).into()]);
        command.extend(["--shipped-table".into(), shipped_table.into()]);
        if repos_table.is_file() {
            command.extend(["--repos".into(), self.corpus(Half::Repositories).into()]);
            command.extend(["--repos-table".into(), repos_table.into()]);
            let from = self.args.repos_from.clone().or_else(|| {
                self.args
                    .mirrors
                    .as_ref()
                    .map(|_| "pinned and read from local mirrors of the repositories".to_string())
            });
            if let Some(from) = from {
                command.extend(["--repos-from".into(), from.into()]);
            }
        }
        for wire in std::iter::once(wire).chain(remote) {
            if wire.is_file() {
                command.extend(["--wire".into(), wire.into()]);
            }
        }
        let versions_table = self.path(&format!("versions/census-{date}.csv"));
        if versions_table.is_file() {
            command.extend(["--versions".into(), self.corpus(Half::Versions).into()]);
            command.extend(["--versions-table".into(), versions_table.into()]);
        }
        let history_table = self.path(&format!("history/census-{date}.csv"));
        if history_table.is_file() {
            command.extend(["--history".into(), self.corpus(Half::History).into()]);
            command.extend(["--history-table".into(), history_table.into()]);
        }
        if let Some(from) = &self.args.listing_from {
            command.extend(["--listing-from".into(), from.into()]);
        }
        command.extend(["--run-log".into(), self.log.clone().into()]);
        command.extend([
            "--run-on".into(),
            self.args.run_on.clone().unwrap_or_else(machine).into(),
        ]);
        let status = self.child(&command)?;
        if !status.success() {
            anyhow::bail!("the report could not be written (survey exited with {status})");
        }
        let md = self.path(&format!("survey-{date}.md"));
        fs::copy(&md, self.path("README.md"))
            .with_context(|| format!("copying '{}' to README.md", md.display()))?;
        Ok(())
    }

    /// Runs step `name` (a command line of this tool), sampled into the log while
    /// it runs, unless a resumed run finished it; its failure is the command's own,
    /// named in the tables it writes, and does not stop the survey.
    fn step(&mut self, name: &str, command: Vec<OsString>) -> Result<()> {
        if self.done.contains(name) {
            messages::note(format!(
                "registry-survey: '{name}' finished before, not run again"
            ));
            return Ok(());
        }
        // A step run again replaces the lines an earlier run of it left, as it
        // replaces the tables they stand for; the one a resumed run was in adds to them.
        if !self.args.resume || self.has_run {
            self.forget(name)?;
        }
        self.has_run = true;
        self.steps += 1;
        let elapsed = self.started.elapsed().as_secs();
        messages::note(format!(
            "registry-survey: step {}, {}:{:02} in: {name}",
            self.steps,
            elapsed / 60,
            elapsed % 60
        ));
        self.sample(name)?;
        let stop = AtomicBool::new(false);
        let status = std::thread::scope(|scope| {
            let sampler = scope.spawn(|| {
                let mut waited = Duration::ZERO;
                while !stop.load(Ordering::Relaxed) {
                    std::thread::sleep(Duration::from_millis(100));
                    waited += Duration::from_millis(100);
                    if waited >= SAMPLE_EVERY {
                        waited = Duration::ZERO;
                        let _ = self.sample(name);
                    }
                }
            });
            let status = self.child(&command);
            stop.store(true, Ordering::Relaxed);
            let _ = sampler.join();
            status
        })?;
        self.sample(name)?;
        if !status.success() {
            messages::warning(format!(
                "registry-survey: step '{name}' exited with {status}"
            ));
        }
        // A step that ended, even with failed rows, is done; one killed is not.
        if status.code().is_some() {
            let mut file = fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(&self.done_file)
                .with_context(|| format!("writing '{}'", self.done_file.display()))?;
            writeln!(file, "{name}")?;
        }
        Ok(())
    }

    /// Runs this tool with `command`, ended with this process if it dies first.
    fn child(&self, command: &[OsString]) -> Result<std::process::ExitStatus> {
        let mut child = Command::new(&self.program);
        child.args(command);
        // SAFETY: prctl is async-signal-safe and touches no memory of the parent.
        unsafe {
            child.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        child
            .status()
            .with_context(|| format!("running '{}'", self.program.display()))
    }

    /// Appends one line to the log: the step (quoted as CSV quotes a cell), now, and
    /// the bytes the watched folders hold.
    fn sample(&self, name: &str) -> Result<()> {
        let bytes: u64 = self.watched.iter().map(|dir| disk_size(dir)).sum();
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let mut file = fs::OpenOptions::new()
            .append(true)
            .open(&self.log)
            .with_context(|| format!("writing '{}'", self.log.display()))?;
        writeln!(file, "\"{}\",{now},{bytes}", name.replace('"', "\"\""))?;
        Ok(())
    }

    /// Removes the log's lines of step `name`, quoted or bare.
    fn forget(&self, name: &str) -> Result<()> {
        let text = fs::read_to_string(&self.log)
            .with_context(|| format!("reading '{}'", self.log.display()))?;
        let quoted = format!("\"{}\",", name.replace('"', "\"\""));
        let bare = format!("{name},");
        let kept: String = text
            .lines()
            .filter(|l| !l.starts_with(&quoted) && !l.starts_with(&bare))
            .map(|l| format!("{l}\n"))
            .collect();
        write_bytes(&self.log, kept.as_bytes())
    }
}

/// Returns `flag DIR` when `dir` was given, else nothing.
fn folder_option(flag: &str, dir: Option<&Path>) -> Vec<OsString> {
    dir.map_or_else(Vec::new, |dir| {
        vec![flag.into(), dir.as_os_str().to_owned()]
    })
}

/// Returns `texts` as command-line words.
fn words(texts: &[&str]) -> Vec<OsString> {
    texts.iter().map(OsString::from).collect()
}

/// Returns what this machine is, in words: cores, memory and system.
fn machine() -> String {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let memory = fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|text| {
            let line = text.lines().find(|l| l.starts_with("MemTotal:"))?;
            let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
            Some(format!(", {} GiB of memory", kib >> 20))
        })
        .unwrap_or_default();
    let read = |p: &str| {
        fs::read_to_string(p)
            .map(|t| t.trim().to_string())
            .unwrap_or_default()
    };
    let system = format!(
        "{} {}",
        read("/proc/sys/kernel/ostype"),
        read("/proc/sys/kernel/osrelease")
    );
    sanitize(format!("{cores} cores{memory}, {}", system.trim()))
}
