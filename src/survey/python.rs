//! Which Python a PyPI package's venv is made from: the interpreters this machine
//! has, and the ones a release's `Requires-Python` admits, newest first.
//!
//! The interpreters are every `python3` and `python3.N` on PATH that answers when
//! asked its version (a pyenv shim of a version not selected does not), those given
//! with `--python`, and, where uv is used, those uv finds installed (`uv python list
//! --only-installed`); none is ever downloaded. Those installed in the usual places
//! but offered by none of these (pyenv's versions, uv's managed Pythons, /usr/bin and
//! /usr/local/bin) are not used: a release only they would admit names them, with how
//! to offer them. Each is asked once per run. It installs nothing: that is
//! `install`'s (docs/probe.md, "Registry packages").

use std::cmp::Reverse;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use crate::infra::environment;
use crate::infra::process::{self, Limits};
use crate::infra::sanitize::sanitize;

/// Holds one interpreter of the machine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interpreter {
    /// Its executable, as it reports it (`sys.executable`).
    pub path: PathBuf,
    /// Its major, minor and micro version.
    pub version: [u32; 3],
}

impl fmt::Display for Interpreter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [major, minor, micro] = self.version;
        write!(f, "{major}.{minor}.{micro}")
    }
}

/// Returns the interpreters this machine offers, asked once per run, newest first:
/// one per minor version, its newest micro (the first found on PATH, then of
/// `offered` (`--python`), then uv's, of that one), since a second 3.11 would
/// resolve as the first did.
pub fn found(uv: Option<&Path>, offered: &[Interpreter]) -> &'static [Interpreter] {
    static FOUND: OnceLock<Vec<Interpreter>> = OnceLock::new();
    FOUND.get_or_init(|| {
        let mut all: Vec<Interpreter> = on_path();
        all.extend(offered.iter().cloned());
        if let Some(uv) = uv {
            all.extend(uv_found(uv));
        }
        newest_per_minor(all)
    })
}

/// Returns the interpreter at `path` (`--python`), or why it is not one.
pub fn offered(path: &Path) -> Result<Interpreter, String> {
    ask(path).ok_or_else(|| {
        format!(
            "'{}' is not a CPython 3 interpreter that answers when asked its version",
            sanitize(path.display().to_string())
        )
    })
}

/// Returns the interpreters installed in the usual places whose minor version none
/// of `found` has, asked once per run, newest first (the first of equals): those of
/// pyenv (`$PYENV_ROOT/versions/*/bin`, `~/.pyenv` without it), of uv's managed
/// Pythons (`$UV_PYTHON_INSTALL_DIR`, else `$XDG_DATA_HOME/uv/python` or
/// `~/.local/share/uv/python`), then /usr/bin's and /usr/local/bin's.
pub fn elsewhere(found: &[Interpreter]) -> &'static [Interpreter] {
    static ELSEWHERE: OnceLock<Vec<Interpreter>> = OnceLock::new();
    ELSEWHERE.get_or_init(|| {
        let env = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
        let home = env("HOME").map(PathBuf::from);
        let pyenv = env("PYENV_ROOT")
            .map(PathBuf::from)
            .or_else(|| home.as_ref().map(|h| h.join(".pyenv")));
        let uv = env("UV_PYTHON_INSTALL_DIR").map(PathBuf::from).or_else(|| {
            env("XDG_DATA_HOME")
                .map(|d| PathBuf::from(d).join("uv/python"))
                .or_else(|| home.as_ref().map(|h| h.join(".local/share/uv/python")))
        });
        let mut bins: Vec<PathBuf> = Vec::new();
        for root in [pyenv.map(|p| p.join("versions")), uv]
            .into_iter()
            .flatten()
        {
            bins.extend(sorted_dirs(&root).into_iter().map(|d| d.join("bin")));
        }
        bins.extend(["/usr/bin", "/usr/local/bin"].map(PathBuf::from));
        let mut all: Vec<Interpreter> = Vec::new();
        for bin in bins {
            for name in python_names(&bin) {
                let Some(interpreter) = ask(&bin.join(name)) else {
                    continue;
                };
                let is_found = found
                    .iter()
                    .any(|f| f.version[..2] == interpreter.version[..2]);
                if !is_found && !all.iter().any(|a| a.path == interpreter.path) {
                    all.push(interpreter);
                }
            }
        }
        // Stable: of equal versions, the first place keeps its rank.
        all.sort_by_key(|i| Reverse(i.version));
        all
    })
}

/// Returns the folders in `dir`, sorted by name.
fn sorted_dirs(dir: &Path) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

/// Returns the `python3.N` names of `dir`, sorted (`python3` is one of them).
fn python_names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| is_python_name(name) && name != "python3")
        .collect();
    names.sort();
    names
}

/// Returns the newest of each minor version of `all` (the first of equals), newest
/// first.
fn newest_per_minor(all: Vec<Interpreter>) -> Vec<Interpreter> {
    let mut kept: Vec<Interpreter> = Vec::new();
    for interpreter in all {
        match kept
            .iter_mut()
            .find(|k| k.version[..2] == interpreter.version[..2])
        {
            Some(k) if k.version < interpreter.version => *k = interpreter,
            Some(_) => {}
            None => kept.push(interpreter),
        }
    }
    kept.sort_by_key(|i| Reverse(i.version));
    kept
}

/// Returns the interpreters of `all` (newest first) that `requires` admits, in the
/// same order; an error names what was asked and what the machine has, and those of
/// `elsewhere` (installed, not offered) that would do, with how to offer them.
pub fn fitting<'a>(
    requires: Option<&str>,
    all: &'a [Interpreter],
    elsewhere: &[Interpreter],
) -> Result<Vec<&'a Interpreter>, String> {
    let has = || match all {
        [] => "no Python 3 on PATH".to_string(),
        _ => format!(
            "this machine has {}",
            all.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ),
    };
    let Some(requires) = requires.map(str::trim).filter(|r| !r.is_empty()) else {
        return match all.is_empty() {
            true => Err(format!(
                "needs Python 3; {}{}",
                has(),
                not_offered(None, elsewhere)
            )),
            false => Ok(all.iter().collect()),
        };
    };
    let mut admitted = Vec::new();
    for interpreter in all {
        match admits(requires, interpreter.version) {
            Some(true) => admitted.push(interpreter),
            Some(false) => {}
            None => {
                return Err(format!(
                    "Requires-Python '{}' is not a version specifier this probe reads",
                    sanitize(requires)
                ))
            }
        }
    }
    match admitted.is_empty() {
        true => Err(format!(
            "needs Python {}; {}{}",
            sanitize(requires),
            has(),
            not_offered(Some(requires), elsewhere)
        )),
        false => Ok(admitted),
    }
}

/// The most interpreters a row names as installed but not offered.
const NAMED: usize = 4;

/// Returns `; installed here but not offered: ...` naming the interpreters of
/// `elsewhere` that `requires` admits, with how to offer one; empty when none.
fn not_offered(requires: Option<&str>, elsewhere: &[Interpreter]) -> String {
    let would: Vec<&Interpreter> = elsewhere
        .iter()
        .filter(|i| requires.is_none_or(|r| admits(r, i.version) == Some(true)))
        .collect();
    if would.is_empty() {
        return String::new();
    }
    format!(
        "; installed here but not offered: {} (give --python PATH, or put its folder on PATH)",
        named(&would)
    )
}

/// Returns the first few of `interpreters` as `3.13.0 'PATH'`, then how many more.
pub fn named(interpreters: &[&Interpreter]) -> String {
    let mut named: Vec<String> = interpreters
        .iter()
        .take(NAMED)
        .map(|i| format!("{i} '{}'", sanitize(i.path.display().to_string())))
        .collect();
    if interpreters.len() > NAMED {
        named.push(format!("{} more", interpreters.len() - NAMED));
    }
    named.join(", ")
}

/// Returns whether the PEP 440 specifier set `spec` (`>=3.10,<4`, `~=3.11`,
/// `==3.12.*`, `!=3.9.*`, ...) admits the Python `version`; `None` when it is not
/// one.
fn admits(spec: &str, version: [u32; 3]) -> Option<bool> {
    let mut all = true;
    for clause in spec.split(',').map(str::trim).filter(|c| !c.is_empty()) {
        let at = clause.find(|c: char| c.is_ascii_digit())?;
        let (operator, operand) = (clause[..at].trim(), clause[at..].trim());
        let (operand, is_prefix) = match operand.strip_suffix(".*") {
            Some(stem) => (stem, true),
            None => (operand, false),
        };
        let release = release(operand)?;
        let compared = compare(version, &release);
        let prefix_equal = version.iter().zip(&release).all(|(a, b)| a == b);
        let holds = match (operator, is_prefix) {
            ("==", true) => prefix_equal,
            ("!=", true) => !prefix_equal,
            ("==" | "===", false) => compared.is_eq(),
            ("!=", false) => compared.is_ne(),
            (">=", false) => compared.is_ge(),
            ("<=", false) => compared.is_le(),
            (">", false) => compared.is_gt(),
            ("<", false) => compared.is_lt(),
            ("~=", false) if release.len() >= 2 => {
                let stem = &release[..release.len() - 1];
                compared.is_ge() && version.iter().zip(stem).all(|(a, b)| a == b)
            }
            _ => return None,
        };
        all &= holds;
    }
    Some(all)
}

/// Returns the numbers of a release segment (`3.10`, `3.10.0`); a pre-release or
/// other suffix on the last number is dropped (`3.13.0rc1` reads as `3.13.0`).
fn release(text: &str) -> Option<Vec<u32>> {
    let numbers: Vec<u32> = text
        .split('.')
        .map(|part| {
            let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect::<Option<_>>()?;
    (!numbers.is_empty() && numbers.len() <= 3).then_some(numbers)
}

/// Compares a version with a release segment, the shorter padded with zeros.
fn compare(version: [u32; 3], release: &[u32]) -> std::cmp::Ordering {
    let padded: Vec<u32> = (0..3)
        .map(|i| release.get(i).copied().unwrap_or(0))
        .collect();
    version.as_slice().cmp(padded.as_slice())
}

/// The limits of asking an interpreter its version.
fn limits() -> Limits {
    Limits {
        time: Some(Duration::from_secs(20)),
        idle: None,
        max_stderr: 4096,
    }
}

/// Returns every `python3` and `python3.N` on PATH that answers, in PATH's order.
fn on_path() -> Vec<Interpreter> {
    let Some(path) = std::env::var_os("PATH") else {
        return Vec::new();
    };
    let mut found = Vec::new();
    for dir in std::env::split_paths(&path) {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|name| is_python_name(name))
            .collect();
        names.sort();
        for name in names {
            if let Some(interpreter) = ask(&dir.join(name)) {
                found.push(interpreter);
            }
        }
    }
    found
}

/// Returns true for `python3` and `python3.N`.
fn is_python_name(name: &str) -> bool {
    match name.strip_prefix("python3") {
        Some("") => true,
        Some(rest) => rest
            .strip_prefix('.')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())),
        None => false,
    }
}

/// Asks `program` its version and executable; `None` when it does not answer as a
/// CPython 3 does.
fn ask(program: &Path) -> Option<Interpreter> {
    let mut command = environment::command(program);
    command.args([
        "-I",
        "-c",
        "import sys; print(sys.implementation.name, '%d.%d.%d' % sys.version_info[:3], sys.executable)",
    ]);
    let out = process::output(command, &limits(), 64 << 10).ok()?;
    if !out.status.is_some_and(|s| s.success()) {
        return None;
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let mut words = text.trim().splitn(3, ' ');
    let (implementation, version, executable) = (words.next()?, words.next()?, words.next()?);
    let numbers = release(version)?;
    let version = [numbers[0], *numbers.get(1)?, *numbers.get(2)?];
    (implementation == "cpython" && version[0] == 3 && !executable.is_empty()).then(|| {
        Interpreter {
            path: PathBuf::from(executable),
            version,
        }
    })
}

/// Returns the CPython interpreters uv finds installed, without downloading any.
fn uv_found(uv: &Path) -> Vec<Interpreter> {
    let mut command = environment::command(uv);
    command.args([
        "python",
        "list",
        "--only-installed",
        "--no-python-downloads",
        "--output-format",
        "json",
        "--quiet",
    ]);
    let Ok(out) = process::output(command, &limits(), 4 << 20) else {
        return Vec::new();
    };
    if !out.status.is_some_and(|s| s.success()) {
        return Vec::new();
    }
    let listed: Value = serde_json::from_slice(&out.stdout).unwrap_or_default();
    listed
        .as_array()
        .into_iter()
        .flatten()
        .filter(|entry| entry["implementation"].as_str() == Some("cpython"))
        .filter_map(|entry| {
            let numbers = release(entry["version"].as_str()?)?;
            let version = [numbers[0], *numbers.get(1)?, *numbers.get(2)?];
            let path = PathBuf::from(entry["path"].as_str()?);
            (version[0] == 3 && path.is_file()).then_some(Interpreter { path, version })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn machine(versions: &[[u32; 3]]) -> Vec<Interpreter> {
        versions
            .iter()
            .map(|v| Interpreter {
                path: PathBuf::from(format!("/x/python{}.{}", v[0], v[1])),
                version: *v,
            })
            .collect()
    }

    fn chosen(requires: Option<&str>, all: &[Interpreter]) -> Result<Vec<String>, String> {
        fitting(requires, all, &[]).map(|list| list.iter().map(|i| i.to_string()).collect())
    }

    #[test]
    fn the_newest_python_a_release_admits_comes_first() {
        let all = machine(&[[3, 13, 0], [3, 12, 1], [3, 11, 7], [3, 10, 13]]);
        assert_eq!(chosen(Some(">=3.12"), &all).unwrap(), ["3.13.0", "3.12.1"]);
        assert_eq!(
            chosen(Some(">=3.10, <3.13"), &all).unwrap(),
            ["3.12.1", "3.11.7", "3.10.13"]
        );
        assert_eq!(
            chosen(Some("~=3.11"), &all).unwrap(),
            ["3.13.0", "3.12.1", "3.11.7"]
        );
        assert_eq!(chosen(Some("~=3.11.2"), &all).unwrap(), ["3.11.7"]);
        assert_eq!(chosen(Some("==3.12.*"), &all).unwrap(), ["3.12.1"]);
        assert_eq!(
            chosen(Some("!=3.12.*,>=3.11"), &all).unwrap(),
            ["3.13.0", "3.11.7"]
        );
        assert_eq!(chosen(Some(">3.12"), &all).unwrap(), ["3.13.0", "3.12.1"]);
        assert_eq!(
            chosen(Some("<=3.11.7"), &all).unwrap(),
            ["3.11.7", "3.10.13"]
        );
        assert_eq!(
            chosen(Some("==3.10"), &all),
            Err(
                "needs Python ==3.10; this machine has 3.13.0, 3.12.1, 3.11.7, 3.10.13".to_string()
            )
        );
        assert_eq!(chosen(Some(">=3.13.0rc1"), &all).unwrap(), ["3.13.0"]);
        assert_eq!(chosen(None, &all).unwrap().len(), 4);
        assert_eq!(chosen(Some("  "), &all).unwrap().len(), 4);
    }

    #[test]
    fn a_python_the_machine_lacks_is_named_with_what_it_has() {
        let all = machine(&[[3, 11, 2]]);
        assert_eq!(
            chosen(Some(">=3.12"), &all),
            Err("needs Python >=3.12; this machine has 3.11.2".to_string())
        );
        assert_eq!(
            chosen(Some(">=3.12"), &[]),
            Err("needs Python >=3.12; no Python 3 on PATH".to_string())
        );
        assert!(chosen(Some(">=three"), &all)
            .unwrap_err()
            .contains("is not a version specifier"));
        assert!(chosen(Some("^3.10"), &all).is_err());
    }

    #[test]
    fn a_python_installed_but_not_offered_is_named_when_it_would_do() {
        let all = machine(&[[3, 11, 7]]);
        let elsewhere = machine(&[[3, 13, 0], [3, 12, 1], [3, 10, 13]]);
        assert_eq!(
            fitting(Some(">=3.12"), &all, &elsewhere).unwrap_err(),
            "needs Python >=3.12; this machine has 3.11.7; installed here but not offered: \
             3.13.0 '/x/python3.13', 3.12.1 '/x/python3.12' (give --python PATH, or put its \
             folder on PATH)"
        );
        assert_eq!(
            fitting(Some(">=3.99"), &all, &elsewhere).unwrap_err(),
            "needs Python >=3.99; this machine has 3.11.7"
        );
        let many = machine(&[[3, 14, 0], [3, 13, 0], [3, 12, 1], [3, 12, 0], [3, 11, 0]]);
        let err = fitting(None, &[], &many).unwrap_err();
        assert!(
            err.starts_with(
                "needs Python 3; no Python 3 on PATH; installed here but not offered: 3.14.0 "
            ) && err.contains(", 1 more (give --python PATH"),
            "{err}"
        );
    }

    /// A pyenv tree's interpreters, not on PATH, are found where pyenv keeps them,
    /// with the version each reports, once those on PATH are left aside.
    #[test]
    fn the_interpreters_of_a_pyenv_tree_are_found_off_path() {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print(sys.executable)"])
            .output()
            .expect("python3, which the probe's tests need, runs");
        let real = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let Some(real) = ask(&real) else {
            panic!("python3 at {} does not answer", real.display())
        };
        let [_, minor, micro] = real.version;
        let root = tempfile::tempdir().unwrap();
        let bin = root.path().join(format!("versions/3.{minor}.{micro}/bin"));
        std::fs::create_dir_all(&bin).unwrap();
        let link = bin.join(format!("python3.{minor}"));
        std::os::unix::fs::symlink(&real.path, &link).unwrap();
        std::os::unix::fs::symlink("/nowhere/python3.99", bin.join("python3.99")).unwrap();
        // Not a static: the run's own lookups are once per process.
        let dirs = sorted_dirs(&root.path().join("versions"));
        assert_eq!(dirs, [bin.parent().unwrap()]);
        let names = python_names(&bin);
        assert_eq!(
            names,
            [format!("python3.{minor}"), "python3.99".to_string()]
        );
        let asked: Vec<Interpreter> = names.iter().filter_map(|n| ask(&bin.join(n))).collect();
        assert_eq!(
            asked,
            [Interpreter {
                path: link.clone(),
                version: real.version
            }]
        );
        assert_eq!(offered(&link), Ok(asked[0].clone()));
        assert!(offered(&bin.join("python3.99"))
            .unwrap_err()
            .contains("is not a CPython 3 interpreter"));
    }

    #[test]
    fn one_python_stands_for_each_minor_version_its_newest() {
        let kept = newest_per_minor(machine(&[[3, 11, 2], [3, 12, 1], [3, 11, 7], [3, 11, 7]]));
        let kept: Vec<String> = kept.iter().map(ToString::to_string).collect();
        assert_eq!(kept, ["3.12.1", "3.11.7"]);
    }

    #[test]
    fn only_python3_names_are_asked() {
        for name in ["python3", "python3.12", "python3.9"] {
            assert!(is_python_name(name), "{name}");
        }
        for name in [
            "python",
            "python3.12-config",
            "python3.",
            "python3.1x",
            "python2.7",
        ] {
            assert!(!is_python_name(name), "{name}");
        }
    }

    /// The machine's own `python3`, asked by the test as by the probe, is among the
    /// interpreters found, with the version it reports itself.
    #[test]
    fn the_machines_python3_is_found_with_its_own_version() {
        let out = std::process::Command::new("python3")
            .args(["-c", "import sys; print('%d.%d.%d' % sys.version_info[:3])"])
            .output()
            .expect("python3, which the probe's tests need, runs");
        let said = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let said = release(&said).expect("a version");
        let all = found(None, &[]);
        // Its minor version is there, by it or by a newer micro of that minor.
        assert!(
            all.iter()
                .any(|i| i.version[..2] == said[..2] && i.version[2] >= said[2]),
            "python3 says {said:?}; found {all:?}"
        );
        assert!(
            all.windows(2).all(|w| w[0].version > w[1].version),
            "{all:?}"
        );
    }
}
