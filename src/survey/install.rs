//! Installs a registry package of the servers file into a folder of its own, without
//! running any of its code, and says what command starts it.
//!
//! Owns the package cache (`--cache`, one prefix per registry, package and version,
//! reused once complete), the npm and pip command lines and their bounds in time
//! (`--install-timeout`) and disk (`--max-install-size`, checked once the install
//! ends, since neither installer can be stopped at a size). npm runs with
//! `--ignore-scripts`, so no install script of the package or its dependencies runs;
//! uv (or, where uv is not installed, pip) with `--only-binary :all:`, so no sdist
//! is built (building one runs its code). npm resolves as of the version's publish
//! time and uv as of the release's upload time (`pypi`), unless `--before` says
//! otherwise; where no resolution stood then (npm's ETARGET, uv's `No solution
//! found`), each resolves again on the day, as npx and uvx would. pip cannot resolve
//! by date; an install not resolved by date says why in [`Installed::before_note`]. What each install resolved to is kept as a [`Lock`].
//! Which registry they read is the user's ordinary npm and pip configuration. It
//! does not run the server: that is `stdio`'s, inside `sandbox`'s walls.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use serde_json::Value;

use super::budget::{self, disk_size};
use super::program::{self, Program};
use super::python::{self, Interpreter};
use crate::infra::environment;
use crate::infra::process::{self, Limits};
use crate::infra::sanitize::sanitize;
use crate::probe::stderr;
use crate::registry::pypi::{self, normalize};

/// The stderr kept of an installer, in bytes.
const MAX_STDERR: usize = 64 << 10;
/// How many of an installer's last stderr lines a failure quotes.
const QUOTED_LINES: usize = 8;

/// Names one package of the servers file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageRef {
    /// `npm` or `pypi`.
    pub registry: String,
    pub name: String,
    pub version: String,
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

/// Says why a package could not be installed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstallKind {
    Failed,
    /// The PyPI release has no wheel, only sdists, which are not built.
    NoWheel,
    /// The PyPI release needs a Python this machine does not have.
    NoPython,
    /// The install took more disk than `--max-install-size`, and was removed.
    TooLarge,
}

/// Holds an install that failed, and why.
#[derive(Debug)]
pub struct InstallError {
    pub kind: InstallKind,
    pub why: String,
    /// The installer's own sentence saying why, in one line; empty when none.
    pub cause: String,
    /// Whether it was stopped at a bound (`--install-timeout`, `--max-install-size`):
    /// another Python would not fare better.
    pub is_stopped: bool,
    /// The complete install it leaves in the cache, when there is one (its program
    /// could not be chosen): removed as a probed one is, unless installs are kept.
    pub prefix: Option<PathBuf>,
}

impl InstallError {
    /// Returns the error, saying that it leaves the install `prefix` in the cache.
    fn leaving(self, prefix: &Path) -> InstallError {
        InstallError {
            prefix: Some(prefix.to_path_buf()),
            ..self
        }
    }
}

impl fmt::Display for InstallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.why)
    }
}

impl std::error::Error for InstallError {}

/// Holds an installed package and the command that starts its server.
#[derive(Debug, Clone, Default)]
pub struct Installed {
    /// The prefix it was installed into.
    pub prefix: PathBuf,
    /// The command: an interpreter, the program's file, and the arguments.
    pub command: Vec<String>,
    /// Folders outside the system's the command needs to read (the interpreter's).
    pub runtime_dirs: Vec<PathBuf>,
    /// The package's own folders inside the prefix (npm's `node_modules/NAME`, a
    /// wheel's top-level packages): a sandbox sees each through a copy it may write.
    pub own_dirs: Vec<PathBuf>,
    /// What identifies the bytes installed: npm's `integrity`, a wheel's sha256.
    pub artifact: String,
    /// The date the dependencies were resolved as of (`--before`, else the version's
    /// publish time); empty when they were resolved on the day.
    pub before: String,
    /// Why they were resolved on the day, when they were (`before` empty).
    pub before_note: String,
    /// What the install resolved to, when known: see [`Lock`].
    pub lock: Option<Lock>,
    /// The Python version of a PyPI package's venv; empty for npm.
    pub python: String,
}

/// Holds the resolved dependency tree of an install, as bytes that are the same for
/// the same resolution: for npm, `package-lock.json`'s `lockfileVersion` and
/// `packages` without the root entry (named after the folder npm installed into),
/// sorted by key; for PyPI, the venv's `pip freeze`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lock {
    pub bytes: Vec<u8>,
    /// The file extension it is kept under: `json` or `txt`.
    pub extension: &'static str,
}

/// The file in a prefix that holds the date its install resolved as of.
const BEFORE_FILE: &str = ".before";
/// The file in a prefix that holds why its install was not resolved by date.
const NOTE_FILE: &str = ".before-note";
/// Keeps npm from writing a log file per command: its failure would otherwise end
/// by naming that file, a path of this run, so that the same failure read
/// differently from one run to the next in the tables that quote it.
const NO_LOG_FILES: [&str; 2] = ["--logs-max", "0"];

/// The file in a PyPI prefix that holds its `pip freeze`.
const FREEZE_FILE: &str = ".freeze.txt";
/// The file in a PyPI prefix that holds the `sha256:` of the wheel installed.
const ARTIFACT_FILE: &str = ".artifact";
/// The note of a PyPI install where uv is not installed.
const NO_UV: &str = "uv is not installed: pip resolved the dependencies on the day";
/// What a run installing PyPI packages without uv says once at its start.
pub const NO_UV_AT_START: &str = "uv is not on PATH: PyPI packages are installed with pip, \
    which cannot resolve as of a date, so their dependencies are the day's, not those of \
    each release's upload time (hint: install uv, the survey's resolver: `pip install uv`, \
    or see https://docs.astral.sh/uv/getting-started/installation/)";

/// What to start of an installed package.
#[derive(Debug, Clone, Default)]
pub struct Start<'a> {
    /// The program (an npm bin, a console script); default as npx and uvx choose.
    pub program: Option<&'a str>,
    /// The module `python -m` runs.
    pub module: Option<&'a str>,
    pub args: &'a [String],
}

fn failed(why: impl Into<String>) -> InstallError {
    InstallError {
        kind: InstallKind::Failed,
        why: why.into(),
        cause: String::new(),
        is_stopped: false,
        prefix: None,
    }
}

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

/// Returns whether `text` may be a package name or version in a path and on a
/// command line: ASCII letters, digits and `@/._-+~!`, no `..`, no leading `-`.
fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('-')
        && !text.contains("..")
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@/._-+~!".contains(c))
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
                npm_start(&prefix, package, start).map_err(|e| e.leaving(&prefix))
            }
            "pypi" => {
                let prefix = self.pypi(package, &prefix)?;
                pip_start(&prefix, package, start).map_err(|e| e.leaving(&prefix))
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
        let mut install = environment::command(uv);
        self.share_downloads(&mut install);
        install
            .args(["pip", "install", "--quiet", "--only-binary", ":all:"])
            .args(["--no-python-downloads", "--python"])
            .arg(prefix.join("bin/python"));
        if !index.is_uv_own {
            install.args(["--default-index", &index.url]);
        }
        if let Some(date) = exclude_newer {
            install.args(["--exclude-newer", date]);
        }
        if let Some(file) = constraints {
            install.arg("--constraint").arg(file);
        }
        install
            .arg("--")
            .arg(format!("{}=={}", package.name, package.version));
        run("uv pip install", install, &self.limits())
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

/// Returns the lock of an npm prefix: `package-lock.json` without its root entry,
/// keys sorted; `None` when there is none.
fn npm_lock(lock: &Value) -> Option<Lock> {
    let mut entries: Vec<(&String, &Value)> = lock["packages"]
        .as_object()?
        .iter()
        .filter(|(path, _)| !path.is_empty())
        .collect();
    entries.sort_by(|a, b| a.0.cmp(b.0));
    let packages: serde_json::Map<String, Value> = entries
        .into_iter()
        .map(|(path, entry)| (path.clone(), entry.clone()))
        .collect();
    let kept = serde_json::json!({
        "lockfileVersion": lock["lockfileVersion"],
        "packages": packages,
    });
    let mut bytes = serde_json::to_vec_pretty(&kept).ok()?;
    bytes.push(b'\n');
    Some(Lock {
        bytes,
        extension: "json",
    })
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
    on_path("uv")
}

/// Returns the path of `name` on PATH.
fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(name))
        .find(|file| file.is_file())
}

/// Returns the folders outside the system's that starting `interpreter` reads: the
/// folder of each symbolic link on the way to it (a venv made from a linked
/// `python3` runs through that link), and the folder it is installed in (the parent
/// of its `bin`). The system folders are bound anyway.
fn runtime_dirs(interpreter: &Path) -> Vec<PathBuf> {
    let is_system = |dir: &Path| {
        dir == Path::new("/")
            || ["/usr", "/bin", "/lib", "/sbin"]
                .iter()
                .any(|system| dir.starts_with(system))
    };
    let mut dirs: Vec<PathBuf> = Vec::new();
    let mut keep = |dir: &Path| {
        if !is_system(dir) && !dirs.iter().any(|d| d == dir) {
            dirs.push(dir.to_path_buf());
        }
    };
    // As the kernel does, at most 40 links are followed.
    let mut at = interpreter.to_path_buf();
    for _ in 0..40 {
        let (Ok(target), Some(folder)) = (std::fs::read_link(&at), at.parent()) else {
            break;
        };
        // Where the link really is: bwrap binds a path without `..` in it.
        let folder = std::fs::canonicalize(folder).unwrap_or_else(|_| folder.to_path_buf());
        keep(&folder);
        at = folder.join(target);
    }
    let real = std::fs::canonicalize(interpreter).ok();
    if let Some(prefix) = real
        .as_deref()
        .and_then(Path::parent)
        .and_then(Path::parent)
    {
        keep(prefix);
    }
    dirs
}

/// Returns the command starting an npm package's bin, chosen as npx chooses it: the
/// one named, else the only one, else the one named after the package.
fn npm_start(
    prefix: &Path,
    package: &PackageRef,
    start: &Start,
) -> Result<Installed, InstallError> {
    let root = prefix.join("node_modules").join(&package.name);
    let manifest: Value = std::fs::read(root.join("package.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| failed(format!("'{}' has no readable package.json", root.display())))?;
    let own = package.name.rsplit('/').next().unwrap_or(&package.name);
    let bin = match (&manifest["bin"], start.program) {
        (Value::String(file), None) => Some(file.clone()),
        (Value::String(file), Some(program)) if program == own => Some(file.clone()),
        (Value::Object(bins), Some(program)) => bins[program].as_str().map(String::from),
        (Value::Object(bins), None) if bins.len() == 1 => bins
            .values()
            .next()
            .and_then(Value::as_str)
            .map(String::from),
        (Value::Object(bins), None) => bins.get(own).and_then(Value::as_str).map(String::from),
        _ => None,
    };
    let bin = bin.ok_or_else(|| {
        failed(format!(
            "{}@{} names no program to run ({})",
            package.name,
            package.version,
            start
                .program
                .map_or("no bin chosen as npx chooses".to_string(), |p| {
                    format!("no bin '{}'", sanitize(p))
                })
        ))
    })?;
    let node = on_path("node").ok_or_else(|| failed("node is not on PATH"))?;
    let mut command = vec![
        node.display().to_string(),
        root.join(bin).display().to_string(),
    ];
    command.extend(start.args.iter().cloned());
    let lock: Value = std::fs::read(prefix.join("package-lock.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let key = format!("node_modules/{}", package.name);
    Ok(Installed {
        prefix: prefix.to_path_buf(),
        command,
        runtime_dirs: runtime_dirs(&node),
        own_dirs: vec![root.clone()],
        artifact: lock["packages"][key.as_str()]["integrity"]
            .as_str()
            .unwrap_or("")
            .to_string(),
        before: std::fs::read_to_string(prefix.join(BEFORE_FILE)).unwrap_or_default(),
        before_note: std::fs::read_to_string(prefix.join(NOTE_FILE)).unwrap_or_default(),
        lock: npm_lock(&lock),
        python: String::new(),
    })
}

/// Returns the command starting a PyPI package: the program its distribution
/// declares, chosen as `program` says (docs/probe.md, "Registry packages").
fn pip_start(
    prefix: &Path,
    package: &PackageRef,
    start: &Start,
) -> Result<Installed, InstallError> {
    let python = prefix.join("bin/python");
    let mut command = vec![python.display().to_string()];
    let bin = prefix.join("bin");
    let is_in_bin = |name: &str| is_plain(name) && bin.join(name).is_file();
    let declared = program::declared(prefix, &package.name);
    let chosen = program::choose(
        &package.name,
        &declared,
        start.program,
        start.module,
        is_in_bin,
    )
    .map_err(|why| failed(format!("{}=={} {why}", package.name, package.version)))?;
    match chosen {
        Program::Module(module) => command.extend(["-m".to_string(), module]),
        Program::Script(script) if is_in_bin(&script) => {
            // Run through the venv's python: the script's #! line is not read.
            command.push(bin.join(script).display().to_string());
        }
        Program::Script(script) => {
            return Err(failed(format!(
                "{}=={} declares the console script '{}', which is not in '{}'",
                package.name,
                package.version,
                sanitize(&script),
                bin.display()
            )))
        }
    }
    command.extend(start.args.iter().cloned());
    let cfg = std::fs::read_to_string(prefix.join("pyvenv.cfg")).unwrap_or_default();
    let value = |wanted: &str| {
        cfg.lines().find_map(|l| {
            let (key, value) = l.split_once('=')?;
            (key.trim() == wanted).then(|| value.trim().to_string())
        })
    };
    let home = value("home").map(PathBuf::from);
    // uv writes `version_info`, the venv module `version`.
    let python_version = value("version_info").or_else(|| value("version"));
    let artifact = match std::fs::read_to_string(prefix.join(ARTIFACT_FILE)) {
        Ok(artifact) => artifact,
        Err(_) => reported_wheel(prefix, &package.name),
    };
    // The venv's python links to the interpreter it was made from (which may be a
    // link too, as a pyenv tree's or --python's may be); its home names the folder.
    let mut dirs: Vec<PathBuf> = runtime_dirs(&python)
        .into_iter()
        .filter(|dir| !dir.starts_with(prefix))
        .collect();
    for dir in home
        .map(|h| runtime_dirs(&h.join("python3")))
        .unwrap_or_default()
    {
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    Ok(Installed {
        prefix: prefix.to_path_buf(),
        command,
        runtime_dirs: dirs,
        own_dirs: declared.folders.clone(),
        artifact,
        before: std::fs::read_to_string(prefix.join(BEFORE_FILE)).unwrap_or_default(),
        before_note: std::fs::read_to_string(prefix.join(NOTE_FILE)).unwrap_or_default(),
        lock: std::fs::read(prefix.join(FREEZE_FILE))
            .ok()
            .map(|bytes| Lock {
                bytes,
                extension: "txt",
            }),
        python: python_version.unwrap_or_default(),
    })
}

/// Returns the `sha256:` of the wheel pip's `--report` says it installed for `name`.
fn reported_wheel(prefix: &Path, name: &str) -> String {
    let report: Value = std::fs::read(prefix.join(".report.json"))
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok())
        .unwrap_or_default();
    let wanted = normalize(name);
    report["install"]
        .as_array()
        .into_iter()
        .flatten()
        .find(|i| i["metadata"]["name"].as_str().map(normalize) == Some(wanted.clone()))
        .and_then(|i| i["download_info"]["archive_info"]["hashes"]["sha256"].as_str())
        .map(|h| format!("sha256:{h}"))
        .unwrap_or_default()
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
    fn an_interpreter_reached_through_links_binds_every_folder_on_the_way() {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let real = root.join("runtime/bin");
        std::fs::create_dir_all(&real).unwrap();
        std::fs::write(real.join("python3.12"), "").unwrap();
        for dir in ["links", "venv/bin"] {
            std::fs::create_dir_all(root.join(dir)).unwrap();
        }
        // venv/bin/python3 -> ../../links/python3 -> the runtime's python3.12.
        std::os::unix::fs::symlink(real.join("python3.12"), root.join("links/python3")).unwrap();
        std::os::unix::fs::symlink("../../links/python3", root.join("venv/bin/python3")).unwrap();
        assert_eq!(
            runtime_dirs(&root.join("venv/bin/python3")),
            [
                root.join("venv/bin"),
                root.join("links"),
                root.join("runtime")
            ]
        );
        assert_eq!(
            runtime_dirs(&real.join("python3.12")),
            [root.join("runtime")]
        );
        assert_eq!(
            runtime_dirs(Path::new("/usr/bin/env")),
            Vec::<PathBuf>::new(),
            "system folders are bound anyway"
        );
    }

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
