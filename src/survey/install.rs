//! Installs a registry package of the servers file into a folder of its own, without
//! running any of its code, and says what command starts it.
//!
//! Owns the package cache (`--cache`, one prefix per registry, package and version,
//! reused once complete), the npm and pip command lines and their bounds in time
//! (`--install-timeout`) and disk (`--max-install-size`: for uv, first from the
//! wheel sizes the index lists for the resolution, so that an install past it is
//! never downloaded; for every install once it ends, unpacked). npm runs with
//! `--ignore-scripts`, so no install script of the package or its dependencies runs;
//! uv (or, where uv is not installed, pip) with `--only-binary :all:`, so no sdist
//! is built (building one runs its code). npm resolves as of the version's publish
//! time and uv as of the release's upload time (`pypi`), unless `--before` says
//! otherwise; where no resolution stood then (npm's ETARGET, uv's `No solution
//! found`), each resolves again on the day, as npx and uvx would. pip cannot resolve
//! by date; an install not resolved by date says why in [`Installed::before_note`]. What each install resolved to is kept as a [`Lock`].
//! Which registry they read is the user's ordinary npm and pip configuration. It
//! does not run the server: that is `stdio`'s, inside `sandbox`'s walls.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::budget::{self, disk_size};
use super::start::{self, failed, is_plain, ARTIFACT_FILE, BEFORE_FILE, FREEZE_FILE, NOTE_FILE};
pub use super::start::{InstallError, InstallKind, Installed, Lock, PackageRef, Start};

use super::python::{self, Interpreter};
use crate::infra::environment;
use crate::infra::messages;
use crate::infra::process::{self, Limits};
use crate::infra::sanitize::sanitize;
use crate::probe::stderr;
use crate::registry::pypi;

/// The stderr kept of an installer, in bytes.
const MAX_STDERR: usize = 64 << 10;
/// How many of an installer's last stderr lines a failure quotes.
const QUOTED_LINES: usize = 8;
/// The most bytes of a resolution's lock read: a few hundred packages take a few
/// hundred KiB.
const MAX_LOCK: u64 = 16 << 20;

/// Returns the bytes the wheels of a PEP 751 lock (`pylock.toml`) take as the index
/// listed them, and how many wheels it names; a lock that does not parse counts
/// nothing. uv writes, for one platform, the one wheel of each package it installs.
fn wheel_bytes(lock: &str) -> (u64, usize) {
    let Ok(lock) = lock.parse::<toml::Table>() else {
        return (0, 0);
    };
    let wheels: Vec<&toml::Value> = lock
        .get("packages")
        .and_then(toml::Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|package| package.get("wheels")?.as_array())
        .flatten()
        .collect();
    let size = wheels
        .iter()
        .filter_map(|wheel| wheel.get("size")?.as_integer())
        .map(|size| u64::try_from(size).unwrap_or(0))
        .fold(0u64, u64::saturating_add);
    (size, wheels.len())
}

/// Holds how packages are installed.
#[derive(Clone, Debug)]
pub struct Installer {
    /// The folder the prefixes are kept in.
    pub cache: PathBuf,
    /// npm and uv resolve dependencies as of this date (`--before`), when given.
    pub before: Option<String>,
    /// uv, which installs PyPI packages when found; else pip does, undated.
    pub uv: Option<PathBuf>,
    pub timeout: Duration,
    /// The most bytes one prefix may take.
    pub max_size: u64,
    /// The folder npm's and uv's caches go in, shared by the installs of a run
    /// (`budget`); `None`: theirs, as the user configured them.
    pub downloads: Option<PathBuf>,
    /// The interpreters offered beside those found (`--python`).
    pub pythons: Vec<Interpreter>,
}

/// Keeps npm from writing a log file per command: its failure would otherwise end
/// by naming that file, a path of this run, so that the same failure read
/// differently from one run to the next in the tables that quote it.
const NO_LOG_FILES: [&str; 2] = ["--logs-max", "0"];

/// The note of a PyPI install where uv is not installed.
const NO_UV: &str = "uv is not installed: pip resolved the dependencies on the day";
/// What a run installing PyPI packages without uv says once at its start.
pub const NO_UV_AT_START: &str = "uv is not on PATH: PyPI packages are installed with pip, \
    which cannot resolve as of a date, so their dependencies are the day's, not those of \
    each release's upload time (hint: install uv, the survey's resolver: `pip install uv`, \
    or see https://docs.astral.sh/uv/getting-started/installation/)";

/// Holds what bounds a uv resolution: the time it is as of (`--exclude-newer`), and
/// a constraints file (`--constraint`).
#[derive(Clone, Copy)]
struct Resolution<'a> {
    exclude_newer: Option<&'a str>,
    constraints: Option<&'a Path>,
}

/// The MCP SDKs of PyPI a server may be written against, and the models they are
/// built on, whose later releases break the SDKs' earlier ones (`mcp` 1.16 under
/// today's pydantic, fastmcp 2.10 under pydantic 2.12).
const PYPI_SDKS: [&str; 4] = ["mcp", "fastmcp", "pydantic", "pydantic-settings"];

/// Returns the bound of each MCP SDK, and what it is built on, to what stood at
/// `time` on `index` (`mcp<=1.9.4`), for those the index knows then.
fn sdk_as_of(index: &str, time: &str) -> Vec<String> {
    PYPI_SDKS
        .iter()
        .filter_map(|sdk| {
            let version = pypi::newest_by(index, sdk, time).ok()??;
            Some(format!("{sdk}<={version}"))
        })
        .collect()
}

impl Installer {
    /// Installs `package` (or finds it installed) and returns the command starting it.
    pub fn install(&self, package: &PackageRef, start: &Start) -> Result<Installed, InstallError> {
        if !is_plain(&package.name) || !is_plain(&package.version) {
            return Err(failed(format!(
                "'{}' '{}' is not a package name and exact version this probe installs",
                sanitize(&package.name),
                sanitize(&package.version)
            )));
        }
        // Without --before, npm and uv resolve as of the version's publish time: one
        // resolution per version, so the key needs no date.
        let mut key = format!("{}@{}", package.name.replace('/', "+"), package.version);
        if let Some(before) = &self.before {
            key.push_str(&format!("+before-{before}"));
        }
        let prefix = self.cache.join(&package.registry).join(key);
        match package.registry.as_str() {
            "npm" => {
                if !prefix.is_dir() {
                    let before = match &self.before {
                        Some(date) => Some(date.clone()),
                        None => self.published(package),
                    };
                    self.fill(&prefix, |dir| {
                        let mut note = match before {
                            Some(_) => String::new(),
                            None => "the registry gave no publish time: npm resolved the dependencies on the day".to_string(),
                        };
                        let mut before = before;
                        match self.npm(package, dir, before.as_deref()) {
                            // A dependency range no version published by then meets
                            // (npm's ETARGET): what npx installs is the day's.
                            Err(err) if self.before.is_none() && before.is_some() && err.cause.contains("notarget") => {
                                self.npm(package, dir, None)?;
                                note = format!(
                                    "{}: npm resolved the dependencies on the day",
                                    err.cause.trim_start_matches("npm error ").trim_end_matches('.')
                                );
                                before = None;
                            }
                            done => done?,
                        }
                        write(&dir.join(NOTE_FILE), note.as_bytes())?;
                        write(
                            &dir.join(BEFORE_FILE),
                            before.unwrap_or_default().as_bytes(),
                        )
                    })?;
                }
                start::npm_start(&prefix, package, start).map_err(|e| e.leaving(&prefix))
            }
            "pypi" => {
                let prefix = self.pypi(package, &prefix)?;
                start::pip_start(&prefix, package, start).map_err(|e| e.leaving(&prefix))
            }
            other => Err(failed(format!(
                "packages of '{}' are not installed by this probe",
                sanitize(other)
            ))),
        }
    }

    /// Makes `prefix` by `install` into a sibling folder, checks its size and
    /// renames it into place, so that a prefix that exists is complete.
    fn fill(
        &self,
        prefix: &Path,
        install: impl FnOnce(&Path) -> Result<(), InstallError>,
    ) -> Result<(), InstallError> {
        let parent = prefix.parent().expect("a prefix is in the cache");
        std::fs::create_dir_all(parent)
            .map_err(|e| failed(format!("creating '{}': {e}", parent.display())))?;
        let partial = tempfile::Builder::new()
            .prefix(&budget::partial_prefix())
            .tempdir_in(parent)
            .map_err(|e| failed(format!("creating a folder in '{}': {e}", parent.display())))?;
        install(partial.path())?;
        self.bound(partial.path())?;
        let kept = partial.keep();
        if std::fs::rename(&kept, prefix).is_err() {
            // Another probe of the same package finished first: its prefix is as good.
            let _ = std::fs::remove_dir_all(&kept);
            if !prefix.is_dir() {
                return Err(failed(format!("could not make '{}'", prefix.display())));
            }
        }
        Ok(())
    }

    /// Fails, removing it, when `dir` takes more than `max_size` bytes.
    fn bound(&self, dir: &Path) -> Result<(), InstallError> {
        let size = disk_size(dir);
        if size > self.max_size {
            let _ = std::fs::remove_dir_all(dir);
            return Err(InstallError {
                kind: InstallKind::TooLarge,
                // Another Python installs the same dependencies.
                is_stopped: true,
                ..failed(format!(
                    "the install takes {size} bytes, more than --max-install-size ({} bytes)",
                    self.max_size
                ))
            });
        }
        Ok(())
    }

    /// Points npm and uv at the run's shared caches, when there are.
    fn share_downloads(&self, command: &mut Command) {
        if let Some(dir) = &self.downloads {
            command
                .env("npm_config_cache", dir.join("npm"))
                .env("UV_CACHE_DIR", dir.join("uv"))
                .env("PIP_CACHE_DIR", dir.join("pip"));
        }
    }

    fn limits(&self) -> Limits {
        Limits {
            time: Some(self.timeout),
            idle: None,
            max_stderr: MAX_STDERR,
        }
    }

    /// Returns the time npm's registry says `package` was published (the packument's
    /// `time[version]`), asked through npm so that its configuration holds; `None`
    /// when the registry does not say.
    fn published(&self, package: &PackageRef) -> Option<String> {
        let mut command = environment::command("npm");
        command
            .args(["view", "--json", "--loglevel", "error"])
            .args(NO_LOG_FILES)
            .arg("--")
            .arg(format!("{}@{}", package.name, package.version))
            .arg("time")
            .env("npm_config_update_notifier", "false");
        self.share_downloads(&mut command);
        let out = process::output(command, &self.limits(), 4 << 20).ok()?;
        if !out.status.is_some_and(|s| s.success()) {
            return None;
        }
        let times: Value = serde_json::from_slice(&out.stdout).ok()?;
        let time = times[package.version.as_str()].as_str()?;
        // npm reads it as a Date; only a plain timestamp goes on its command line.
        time.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-:.+".contains(c))
            .then(|| time.to_string())
    }

    fn npm(
        &self,
        package: &PackageRef,
        dir: &Path,
        before: Option<&str>,
    ) -> Result<(), InstallError> {
        let mut command = environment::command("npm");
        command
            .args(["install", "--ignore-scripts", "--no-audit", "--no-fund"])
            .args(NO_LOG_FILES)
            .args(["--loglevel", "error", "--prefix"])
            .arg(dir)
            .env("npm_config_update_notifier", "false");
        self.share_downloads(&mut command);
        if let Some(before) = before {
            command.args(["--before", before]);
        }
        // Checked when the servers file was read (`file::load`), and after `--`
        // all the same: a spec is never read as an option.
        command
            .arg("--")
            .arg(format!("{}@{}", package.name, package.version));
        run("npm install", command, &self.limits())
    }

    /// Installs a PyPI package (or finds it installed) and returns its prefix: `dated`
    /// when uv resolved it as of a date, else the same with `+undated`. The venv is
    /// made from the newest Python of the machine the release admits, the next one
    /// when the install fails with it. Where uv finds no resolution as of the upload
    /// time, it resolves on the day, into the `+undated` prefix.
    fn pypi(&self, package: &PackageRef, dated: &Path) -> Result<PathBuf, InstallError> {
        let undated = dated.with_file_name(format!(
            "{}+undated",
            dated.file_name().unwrap_or_default().to_string_lossy()
        ));
        let is_complete = |prefix: &Path| prefix.join(".complete").is_file();
        match &self.uv {
            Some(_) if is_complete(dated) => return Ok(dated.to_path_buf()),
            None if is_complete(&undated) => return Ok(undated),
            _ => {}
        }
        let index = pypi::index();
        let release = pypi::release(&index.url, &package.name, &package.version);
        if let Ok(release) = &release {
            if release.is_missing() {
                return Err(failed(format!(
                    "the index '{}' lists no file of {}=={}",
                    sanitize(&index.url),
                    package.name,
                    package.version
                )));
            }
            if release.has_only_sdists() {
                return Err(InstallError {
                    kind: InstallKind::NoWheel,
                    ..failed(format!(
                        "{}=={} has no wheel, only sdists, which are not built (building one runs its code)",
                        package.name, package.version
                    ))
                });
            }
        }
        let requires = release
            .as_ref()
            .ok()
            .and_then(|r| r.requires_python.as_deref());
        let found = python::found(self.uv.as_deref(), &self.pythons);
        let pythons = python::fitting(requires, found, &[]).map_err(|_| {
            // Asked again, naming those installed but not offered that would do.
            let why = python::fitting(requires, found, python::elsewhere(found))
                .err()
                .unwrap_or_default();
            InstallError {
                kind: InstallKind::NoPython,
                ..failed(format!("{}=={} {why}", package.name, package.version))
            }
        })?;
        let Some(uv) = &self.uv else {
            each_python(&pythons, |python| {
                self.fill_venv(&undated, |prefix| {
                    self.pip(python, package, prefix)?;
                    Ok((String::new(), NO_UV.to_string()))
                })
            })?;
            return Ok(undated);
        };
        let before = match (&self.before, &release) {
            (Some(date), _) => Ok(date.clone()),
            (None, Ok(release)) => release.uploaded.clone(),
            (None, Err(why)) => Err(why.clone()),
        };
        let bound = before.as_ref().ok().and_then(|b| pypi::exclude_newer(b));
        let prefix = match (&before, &bound) {
            (Ok(_), Some(_)) => dated.to_path_buf(),
            _ if is_complete(&undated) => return Ok(undated),
            _ => undated.clone(),
        };
        let install = |prefix: &Path, bound: Option<&str>, sdk: Option<&Path>, note: &str| {
            each_python(&pythons, |python| {
                self.fill_venv(prefix, |prefix| {
                    let resolution = Resolution {
                        exclude_newer: bound,
                        constraints: sdk,
                    };
                    self.uv(uv, python, index, package, prefix, resolution)?;
                    if let Ok(release) = &release {
                        let artifact = pypi::installed_wheel(prefix, &package.name, release);
                        write(&prefix.join(ARTIFACT_FILE), artifact.as_bytes())?;
                    }
                    Ok(match (&before, bound) {
                        (Ok(before), Some(_)) => (before.clone(), String::new()),
                        _ => (String::new(), note.to_string()),
                    })
                })
            })
        };
        let note = match &before {
            Ok(before) => format!(
                "'{}' is not a time: uv resolved the dependencies on the day",
                sanitize(before)
            ),
            Err(why) => format!("{why}: uv resolved the dependencies on the day"),
        };
        match install(&prefix, bound.as_deref(), None, &note) {
            // No resolution stood as of the release's upload time (a dependency then
            // had no wheel, say): what uvx installs is the day's, as npm's ETARGET
            // falls back to.
            Err(err) if self.before.is_none() && bound.is_some() && is_unsolvable(&err) => {
                if is_complete(&undated) {
                    return Ok(undated);
                }
                let at = before.as_deref().unwrap_or_default();
                // The MCP SDK stays what stood on the release's day: the day's would
                // be a later major version the server was never written for.
                let held = sdk_as_of(&index.url, at);
                let constraints = tempfile::NamedTempFile::new_in(&self.cache)
                    .and_then(|mut file| {
                        std::io::Write::write_all(&mut file, held.join("\n").as_bytes())?;
                        Ok(file)
                    })
                    .map_err(|e| failed(format!("writing the MCP SDK's bound: {e}")))?;
                let note = format!(
                    "as of {}, {}: uv resolved the dependencies on the day{}",
                    sanitize(at),
                    match err.cause.trim_start_matches("error: ") {
                        "" => "no solution was found",
                        cause => cause,
                    }
                    .trim_end_matches('.'),
                    match held.is_empty() {
                        true => String::new(),
                        false => format!(
                            ", the MCP SDK held to what stood then ({})",
                            held.join(", ")
                        ),
                    }
                );
                let sdk = (!held.is_empty()).then(|| constraints.path());
                install(&undated, None, sdk, &note)?;
                Ok(undated)
            }
            done => done.map(|()| prefix),
        }
    }

    /// Makes the venv `prefix` by `install`, which returns the date it resolved as of
    /// and why none, then freezes and bounds it. A venv's scripts name its folder: it
    /// is made where it stays, and marked complete last.
    fn fill_venv(
        &self,
        prefix: &Path,
        install: impl FnOnce(&Path) -> Result<(String, String), InstallError>,
    ) -> Result<(), InstallError> {
        let _ = std::fs::remove_dir_all(prefix);
        let made = install(prefix).and_then(|(before, note)| {
            write(&prefix.join(BEFORE_FILE), before.as_bytes())?;
            write(&prefix.join(NOTE_FILE), note.as_bytes())?;
            self.freeze(prefix)?;
            self.bound(prefix)?;
            write(&prefix.join(".complete"), b"")
        });
        made.inspect_err(|_| {
            let _ = std::fs::remove_dir_all(prefix);
        })
    }

    /// Installs with uv into a venv it makes: wheels only, from the index pip would
    /// read, as `resolution` bounds it.
    fn uv(
        &self,
        uv: &Path,
        python: &Interpreter,
        index: &pypi::Index,
        package: &PackageRef,
        prefix: &Path,
        resolution: Resolution,
    ) -> Result<(), InstallError> {
        let Resolution {
            exclude_newer,
            constraints,
        } = resolution;
        let mut venv = environment::command(uv);
        venv.args(["venv", "--quiet", "--no-python-downloads", "--python"])
            .arg(&python.path)
            .arg(prefix);
        self.share_downloads(&mut venv);
        run("uv venv", venv, &self.limits())?;
        own(prefix)?;
        let resolve = |verb: &str| {
            let mut command = environment::command(uv);
            self.share_downloads(&mut command);
            command
                .args(["pip", verb, "--quiet", "--only-binary", ":all:"])
                .args(["--no-python-downloads", "--python"])
                .arg(prefix.join("bin/python"));
            if !index.is_uv_own {
                command.args(["--default-index", &index.url]);
            }
            if let Some(date) = exclude_newer {
                command.args(["--exclude-newer", date]);
            }
            if let Some(file) = constraints {
                command.arg("--constraint").arg(file);
            }
            command
        };
        self.bound_by_index(resolve("compile"), package)?;
        let mut install = resolve("install");
        install
            .arg("--")
            .arg(format!("{}=={}", package.name, package.version));
        run("uv pip install", install, &self.limits())
    }

    /// Fails as too large, before any wheel is installed, when the wheels of
    /// `package`'s resolution add up to more than `max_size` bytes as the index lists
    /// them (PEP 700's `size`, in the PEP 751 lock `compile`, a `uv pip compile`
    /// with the install's own options, writes). From an index that serves each
    /// wheel's metadata apart (PEP 658, as PyPI does) only that metadata is
    /// downloaded. The wheels are compressed, so an
    /// install that passes may still be too large once unpacked: [`Installer::bound`]
    /// checks that when it ends. A resolution that fails, or an index that lists no
    /// sizes, leaves the install to say what it finds.
    fn bound_by_index(
        &self,
        mut compile: Command,
        package: &PackageRef,
    ) -> Result<(), InstallError> {
        compile.args(["--format", "pylock.toml", "--no-header", "-"]);
        let requirement = format!("{}=={}\n", package.name, package.version);
        let Ok(done) = process::run(
            compile,
            &self.limits(),
            Some(requirement.into_bytes()),
            |out| {
                let mut text = String::new();
                out.take(MAX_LOCK).read_to_string(&mut text)?;
                Ok(text)
            },
        ) else {
            return Ok(());
        };
        let (Some(status), Ok(lock)) = (done.status, done.read) else {
            return Ok(());
        };
        if !status.success() {
            return Ok(());
        }
        let (size, wheels) = wheel_bytes(&lock);
        if size <= self.max_size {
            return Ok(());
        }
        Err(InstallError {
            kind: InstallKind::TooLarge,
            is_stopped: true,
            ..failed(format!(
                "its resolution's wheels take {size} bytes compressed as the index lists \
                 them ({}), more than --max-install-size ({} bytes), so it was not installed",
                messages::count(wheels as u64, "wheel", "wheels"),
                self.max_size
            ))
        })
    }

    fn pip(
        &self,
        python: &Interpreter,
        package: &PackageRef,
        prefix: &Path,
    ) -> Result<(), InstallError> {
        let mut venv = environment::command(&python.path);
        venv.args(["-m", "venv"]).arg(prefix);
        run("python -m venv", venv, &self.limits())?;
        own(prefix)?;
        let mut pip = environment::command(prefix.join("bin/python"));
        pip.args(["-m", "pip", "install", "--only-binary=:all:"])
            .args(["--disable-pip-version-check", "--no-input", "--quiet"])
            .arg("--report")
            .arg(prefix.join(".report.json"))
            .arg("--")
            .arg(format!("{}=={}", package.name, package.version));
        self.share_downloads(&mut pip);
        run("pip install", pip, &self.limits())
    }

    /// Writes the venv's `pip freeze` into the prefix: what the install resolved to.
    /// A venv uv made has no pip: uv lists it.
    fn freeze(&self, prefix: &Path) -> Result<(), InstallError> {
        let python = prefix.join("bin/python");
        let freeze = match &self.uv {
            Some(uv) if !prefix.join(".report.json").is_file() => {
                let mut uv = environment::command(uv);
                uv.args(["pip", "freeze", "--quiet", "--python"])
                    .arg(python);
                uv
            }
            _ => {
                let mut pip = environment::command(python);
                pip.args(["-m", "pip", "freeze", "--disable-pip-version-check"]);
                pip
            }
        };
        let mut freeze = freeze;
        self.share_downloads(&mut freeze);
        let out = process::output(freeze, &self.limits(), 4 << 20)
            .map_err(|e| failed(format!("running pip freeze: {e}")))?;
        if !out.status.is_some_and(|s| s.success()) {
            return Err(failed(format!(
                "pip freeze failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            )));
        }
        write(&prefix.join(FREEZE_FILE), &out.stdout)
    }
}

/// Runs an installer; a failure quotes the last lines of its stderr.
fn run(what: &str, command: Command, limits: &Limits) -> Result<(), InstallError> {
    let out = process::output(command, limits, 1 << 20)
        .map_err(|e| failed(format!("running {what}: {e}")))?;
    match (out.stop, out.status) {
        (Some(_), _) => Err(InstallError {
            is_stopped: true,
            ..failed(format!(
                "{what} took longer than --install-timeout ({} s) and was stopped",
                limits.time.unwrap_or_default().as_secs()
            ))
        }),
        (None, Some(status)) if status.success() => Ok(()),
        (None, status) => {
            let text = String::from_utf8_lossy(&out.stderr);
            let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
            let tail = &lines[lines.len().saturating_sub(QUOTED_LINES)..];
            let code = status
                .and_then(|s| s.code())
                .map_or("killed".to_string(), |c| format!("exit {c}"));
            let cause = stderr::installer_cause(&text);
            Err(InstallError {
                cause: cause.clone(),
                ..failed(format!(
                    "{what} failed ({code}): {cause}\n{}",
                    tail.join("\n")
                ))
            })
        }
    }
}

/// Writes this run's process id into the venv `prefix` being made, so that a later
/// run removes it when this one is killed before completing it (`budget`).
fn own(prefix: &Path) -> Result<(), InstallError> {
    write(
        &prefix.join(budget::OWNER_FILE),
        std::process::id().to_string().as_bytes(),
    )
}

fn write(path: &Path, bytes: &[u8]) -> Result<(), InstallError> {
    std::fs::write(path, bytes).map_err(|e| failed(format!("writing '{}': {e}", path.display())))
}

/// Returns uv's path when it is on PATH: PyPI packages are then installed with it.
pub fn find_uv() -> Option<PathBuf> {
    start::on_path("uv")
}

/// Returns true when uv found no resolution (`No solution found when resolving
/// dependencies`), rather than failing to reach the index or to install.
fn is_unsolvable(err: &InstallError) -> bool {
    err.kind == InstallKind::Failed && !err.is_stopped && err.why.contains("No solution found")
}

/// Runs `install` with each Python of `pythons` (newest first) until one succeeds;
/// all failing, the error is the newest one's, naming the others tried. A stopped
/// install or another kind of failure ends the tries.
fn each_python(
    pythons: &[&Interpreter],
    mut install: impl FnMut(&Interpreter) -> Result<(), InstallError>,
) -> Result<(), InstallError> {
    let mut first: Option<InstallError> = None;
    for python in pythons {
        match install(python) {
            Ok(()) => return Ok(()),
            Err(err) if err.kind == InstallKind::Failed && !err.is_stopped => {
                first.get_or_insert(err);
            }
            Err(err) => return Err(err),
        }
    }
    let mut err = first.unwrap_or_else(|| failed("no Python to install with"));
    if let [newest, rest @ ..] = pythons {
        let (first_line, more) = err.why.split_once('\n').unwrap_or((err.why.as_str(), ""));
        let tried = match rest {
            [] => format!(" (Python {newest})"),
            _ => format!(
                " (Python {newest}; {} failed too)",
                rest.iter()
                    .map(|p| p.to_string())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        };
        err.why = format!("{first_line}{tried}\n{more}")
            .trim_end()
            .to_string();
    }
    Err(err)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locks_wheels_are_summed_and_its_sdists_left_out() {
        let lock = r#"
lock-version = "1.0"
[[packages]]
name = "torch"
version = "2.15.0"
wheels = [{ url = "https://x/torch.whl", size = 539172785, hashes = { sha256 = "00" } }]
[[packages]]
name = "tqdm"
version = "4.70.1"
sdist = { url = "https://x/tqdm.tar.gz", size = 171846 }
wheels = [{ url = "https://x/tqdm.whl", size = 80199 }]
[[packages]]
name = "local"
version = "1.0"
wheels = [{ url = "https://x/nosize.whl" }]
"#;
        assert_eq!(wheel_bytes(lock), (539_172_785 + 80_199, 3));
        assert_eq!(wheel_bytes("not toml ["), (0, 0));
        assert_eq!(wheel_bytes("lock-version = \"1.0\"\n"), (0, 0));
    }
    use crate::survey::start::npm_lock;

    #[test]
    fn names_that_could_leave_the_cache_are_refused() {
        for bad in ["../x", "-rf", "a b", "", "a\nb", "x/../../y"] {
            assert!(!is_plain(bad), "{bad:?}");
        }
        for good in ["@scope/pkg", "pkg", "1.2.3-beta.1", "mcp_server.x"] {
            assert!(is_plain(good), "{good:?}");
        }
    }

    #[test]
    fn an_npm_lock_leaves_out_the_folder_it_was_installed_in() {
        let lock = |root: &str| {
            serde_json::json!({"name": root, "lockfileVersion": 3, "requires": true,
                "packages": {"": {"name": root, "dependencies": {"x": "1.0.0"}},
                             "node_modules/x": {"version": "1.0.0", "integrity": "sha512-a"}}})
        };
        let a = npm_lock(&lock(".partial-abc")).unwrap();
        assert_eq!(a, npm_lock(&lock(".partial-xyz")).unwrap());
        let text = String::from_utf8(a.bytes).unwrap();
        assert!(text.contains("\"node_modules/x\""), "{text}");
        assert!(!text.contains("partial"), "{text}");
        assert_eq!(npm_lock(&serde_json::json!({})), None);
    }
}
