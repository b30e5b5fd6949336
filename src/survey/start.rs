//! An install and what starts it: the package named, the install and its failure
//! (the types `install` fills), and the command that starts the server (npm's bin as
//! npx would choose it, the program a PyPI distribution declares), the folders outside
//! the system's its interpreter reads, its own folders, and what identifies the bytes
//! installed and the resolution. It reads an install; it installs and runs nothing
//! (`install` installs, `servers` runs).

use std::fmt;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::program::{self, Program};
use crate::infra::sanitize::sanitize;
use crate::registry::pypi::normalize;

/// Names one package of the servers file.
#[derive(Clone, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PackageRef {
    /// `npm` or `pypi`.
    pub registry: String,
    pub name: String,
    pub version: String,
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
    pub(super) fn leaving(self, prefix: &Path) -> InstallError {
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
pub(super) const BEFORE_FILE: &str = ".before";
/// The file in a prefix that holds why its install was not resolved by date.
pub(super) const NOTE_FILE: &str = ".before-note";

/// The file in a PyPI prefix that holds its `pip freeze`.
pub(super) const FREEZE_FILE: &str = ".freeze.txt";
/// The file in a PyPI prefix that holds the `sha256:` of the wheel installed.
pub(super) const ARTIFACT_FILE: &str = ".artifact";

/// What to start of an installed package.
#[derive(Debug, Clone, Default)]
pub struct Start<'a> {
    /// The program (an npm bin, a console script); default as npx and uvx choose.
    pub program: Option<&'a str>,
    /// The module `python -m` runs.
    pub module: Option<&'a str>,
    pub args: &'a [String],
}

pub(super) fn failed(why: impl Into<String>) -> InstallError {
    InstallError {
        kind: InstallKind::Failed,
        why: why.into(),
        cause: String::new(),
        is_stopped: false,
        prefix: None,
    }
}

/// Returns whether `text` may be a package name or version in a path and on a
/// command line: ASCII letters, digits and `@/._-+~!`, no `..`, no leading `-`.
pub(super) fn is_plain(text: &str) -> bool {
    !text.is_empty()
        && !text.starts_with('-')
        && !text.contains("..")
        && text
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "@/._-+~!".contains(c))
}

/// Returns the lock of an npm prefix: `package-lock.json` without its root entry,
/// keys sorted; `None` when there is none.
pub(super) fn npm_lock(lock: &Value) -> Option<Lock> {
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

/// Returns the path of `name` on PATH.
pub(super) fn on_path(name: &str) -> Option<PathBuf> {
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
pub(super) fn npm_start(
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
pub(super) fn pip_start(
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
}
