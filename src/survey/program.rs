//! Which program of an installed PyPI distribution starts its server: read from
//! what the distribution declares (its `.dist-info`'s `entry_points.txt`
//! `[console_scripts]`, its top-level modules), never from running it.
//!
//! The order is docs/probe.md's ("Registry packages"): the console script named after
//! the package, else its only one, else the one the registry entry names (`program`,
//! or `python -m` its `module`), else, of its scripts not ending `-test`, `-dev` or
//! `-debug`, the only one or the only one named as the package is without an `mcp`
//! affix (`pdf4vllm` of `pdf4vllm-mcp`), else the only one named a server
//! (`-server`, `-mcp`, `mcp-`), else `python -m` its only top-level module that can be
//! run so. It installs and runs nothing: `install` does.

use std::path::Path;

use crate::infra::sanitize::sanitize;
use crate::registry::pypi::{dist_info, normalize};

/// What to run of an installed distribution.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Program {
    /// A console script of the venv's `bin`.
    Script(String),
    /// A module, run as `python -m`.
    Module(String),
}

/// Holds what a distribution declares that can be run.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Declared {
    /// Its console scripts, in `entry_points.txt`'s order.
    pub scripts: Vec<String>,
    /// Its top-level modules `python -m` can run (a package with `__main__.py`, or
    /// a module file).
    pub modules: Vec<String>,
    /// Its own folders: the top-level packages its `RECORD` lists, beside their
    /// site-packages folder (what a server that writes beside its code writes into).
    pub folders: Vec<std::path::PathBuf>,
}

/// Returns the program to run, chosen in the module's order; an error names the
/// candidates.
pub fn choose(
    package: &str,
    declared: &Declared,
    program: Option<&str>,
    module: Option<&str>,
    is_in_bin: impl Fn(&str) -> bool,
) -> Result<Program, String> {
    let own = normalize(package);
    if let Some(script) = declared.scripts.iter().find(|s| normalize(s) == own) {
        return Ok(Program::Script(script.clone()));
    }
    if let [only] = declared.scripts.as_slice() {
        return Ok(Program::Script(only.clone()));
    }
    if let Some(program) = program {
        if declared.scripts.iter().any(|s| s == program) || is_in_bin(program) {
            return Ok(Program::Script(program.to_string()));
        }
    }
    if let Some(module) = module {
        return Ok(Program::Module(module.to_string()));
    }
    if let Some(script) = by_stem(package, &declared.scripts) {
        return Ok(Program::Script(script.to_string()));
    }
    if declared.scripts.is_empty() {
        if let [only] = declared.modules.as_slice() {
            return Ok(Program::Module(only.clone()));
        }
    }
    let list = |names: &[String]| {
        names
            .iter()
            .map(|n| format!("'{}'", sanitize(n)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let named = match program {
        Some(p) => format!(", and no program '{}'", sanitize(p)),
        None => String::new(),
    };
    Err(
        match (declared.scripts.as_slice(), declared.modules.as_slice()) {
            ([], []) => {
                format!("declares no console script and no module python -m can run{named}")
            }
            ([], modules) => format!(
                "declares no console script{named}, and several modules python -m can run: {}; \
             name one with module = \"...\" in the servers file",
                list(modules)
            ),
            (scripts, _) => format!(
                "declares the console scripts {}, none named after the package{named}; \
             name one with program = \"...\" in the servers file",
                list(scripts)
            ),
        },
    )
}

/// The suffixes of a script a server would not be started by while another remains.
const AUXILIARY: [&str; 3] = ["-test", "-dev", "-debug"];
/// The affixes a package's name may carry beside its program's: the longest first.
const MCP_SUFFIXES: [&str; 3] = ["-mcp-server", "-mcp", "-server"];
const MCP_PREFIX: &str = "mcp-";

/// Returns the name without its `mcp` affixes (one of `-mcp-server`, `-mcp`, `_mcp`,
/// `-server` at its end, `mcp-` at its start), PEP 503-normalized.
fn stem(name: &str) -> String {
    let name = normalize(name);
    let cut = |rest: Option<&str>, whole: &str| match rest {
        Some(rest) if !rest.is_empty() => rest.to_string(),
        _ => whole.to_string(),
    };
    let name = cut(
        MCP_SUFFIXES.iter().find_map(|s| name.strip_suffix(s)),
        &name,
    );
    cut(name.strip_prefix(MCP_PREFIX), &name)
}

/// Returns the script of `scripts` a reader would start, leaving aside those ending
/// `-test`, `-dev` or `-debug` while another remains: the only one left, else the
/// only one named as the package is without an `mcp` affix, else the only one named
/// a server (`-server`, `-mcp`, `mcp-`); `None` when two remain.
fn by_stem<'s>(package: &str, scripts: &'s [String]) -> Option<&'s str> {
    let is_auxiliary = |s: &str| AUXILIARY.iter().any(|a| normalize(s).ends_with(a));
    let main: Vec<&String> = scripts.iter().filter(|s| !is_auxiliary(s)).collect();
    let candidates: Vec<&String> = match main.is_empty() {
        true => scripts.iter().collect(),
        false => main,
    };
    if let [only] = candidates.as_slice() {
        return Some(only.as_str());
    }
    let own = stem(package);
    let named: Vec<&&String> = candidates.iter().filter(|s| stem(s) == own).collect();
    if let [only] = named.as_slice() {
        return Some(only.as_str());
    }
    // A reader starts the one that names itself a server.
    let servers: Vec<&&String> = candidates.iter().filter(|s| is_named_server(s)).collect();
    match servers.as_slice() {
        [only] => Some(only.as_str()),
        _ => None,
    }
}

/// Returns true for a script whose name says it is a server: ending `-server` or
/// `-mcp`, or starting `mcp-` (PEP 503-normalized, so `_mcp` too).
fn is_named_server(script: &str) -> bool {
    let name = normalize(script);
    name.ends_with("-server") || name.ends_with("-mcp") || name.starts_with(MCP_PREFIX)
}

/// Returns what the distribution `name` installed in the venv `prefix` declares;
/// empty when its `.dist-info` is not found.
pub fn declared(prefix: &Path, name: &str) -> Declared {
    let Some(dist_info) = dist_info(prefix, name) else {
        return Declared::default();
    };
    let entry_points =
        std::fs::read_to_string(dist_info.join("entry_points.txt")).unwrap_or_default();
    let record = std::fs::read_to_string(dist_info.join("RECORD")).unwrap_or_default();
    let site = dist_info.parent().unwrap_or(prefix);
    Declared {
        scripts: console_scripts(&entry_points),
        modules: runnable_modules(&record, |path| site.join(path).is_file()),
        folders: top_folders(&record)
            .into_iter()
            .map(|top| site.join(top))
            .filter(|dir| dir.is_dir())
            .collect(),
    }
}

/// Returns the top-level folders a `RECORD` lists under site-packages, sorted: not
/// its `.dist-info` or `.data`, nothing outside it (`..`).
fn top_folders(record: &str) -> Vec<String> {
    let mut folders: Vec<String> = record
        .lines()
        .filter_map(|line| line.split(',').next())
        .filter_map(|path| path.split_once('/').map(|(top, _)| top))
        .filter(|top| {
            !top.is_empty()
                && *top != ".."
                && *top != "."
                && !top.ends_with(".dist-info")
                && !top.ends_with(".data")
        })
        .map(String::from)
        .collect();
    folders.sort();
    folders.dedup();
    folders
}

/// Returns the names of the `[console_scripts]` section of an `entry_points.txt`.
fn console_scripts(text: &str) -> Vec<String> {
    let mut section = "";
    let mut names = Vec::new();
    for line in text.lines().map(str::trim) {
        if line.is_empty() || line.starts_with('#') || line.starts_with(';') {
            continue;
        }
        if let Some(name) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            section = name.trim();
            continue;
        }
        if section == "console_scripts" {
            if let Some((name, _)) = line.split_once('=') {
                names.push(name.trim().to_string());
            }
        }
    }
    names
}

/// Returns the top-level modules a `RECORD` lists that `python -m` can run: a
/// package whose `__main__.py` exists, or a module file, sorted.
fn runnable_modules(record: &str, exists: impl Fn(&str) -> bool) -> Vec<String> {
    let mut modules: Vec<String> = Vec::new();
    for path in record.lines().filter_map(|l| l.split(',').next()) {
        let mut parts = path.split('/');
        let (Some(top), rest) = (parts.next(), parts.next()) else {
            continue;
        };
        if top.ends_with(".dist-info")
            || top.ends_with(".data")
            || top == ".."
            || top.starts_with('_')
        {
            continue;
        }
        let name = match rest {
            Some("__main__.py") if exists(&format!("{top}/__main__.py")) => top.to_string(),
            None => match top.strip_suffix(".py") {
                Some(stem) if exists(top) => stem.to_string(),
                _ => continue,
            },
            _ => continue,
        };
        if !modules.contains(&name) {
            modules.push(name);
        }
    }
    modules.sort();
    modules
}

#[cfg(test)]
mod tests {
    use super::*;

    fn declared(scripts: &[&str], modules: &[&str]) -> Declared {
        Declared {
            folders: Vec::new(),
            scripts: scripts.iter().map(|s| s.to_string()).collect(),
            modules: modules.iter().map(|s| s.to_string()).collect(),
        }
    }

    fn script(name: &str) -> Result<Program, String> {
        Ok(Program::Script(name.to_string()))
    }

    #[test]
    fn the_program_is_chosen_in_the_documented_order() {
        let none = |_: &str| false;
        let d = declared(&["pdf-cli", "Weather_MCP"], &["weather_mcp"]);
        assert_eq!(
            choose("weather-mcp", &d, Some("pdf-cli"), None, none),
            script("Weather_MCP")
        );
        let d = declared(&["pdf4vllm-server"], &[]);
        assert_eq!(
            choose("pdf4vllm-mcp", &d, None, None, none),
            script("pdf4vllm-server")
        );
        let d = declared(&["a", "b"], &["m"]);
        assert_eq!(choose("x", &d, Some("b"), None, none), script("b"));
        assert_eq!(choose("x", &d, Some("c"), None, |p| p == "c"), script("c"));
        assert_eq!(
            choose("x", &d, None, Some("x.server"), none),
            Ok(Program::Module("x.server".to_string()))
        );
        let d = declared(&[], &["x_mcp"]);
        assert_eq!(
            choose("x", &d, None, None, none),
            Ok(Program::Module("x_mcp".to_string()))
        );
    }

    #[test]
    fn a_script_named_as_the_package_without_its_mcp_affix_is_chosen_and_never_a_test_one() {
        let none = |_: &str| false;
        let d = declared(&["pdf4vllm-test", "pdf4vllm"], &[]);
        assert_eq!(
            choose("pdf4vllm-mcp", &d, None, None, none),
            script("pdf4vllm")
        );
        for (package, scripts, chosen) in [
            ("mcp-weather", &["weather", "weather-cli"][..], "weather"),
            ("weather_mcp", &["weather-cli", "weather"][..], "weather"),
            ("weather-mcp-server", &["weather", "setup"][..], "weather"),
            ("weather-server", &["weather", "setup"][..], "weather"),
            // The script bears the affix, the package not.
            (
                "weather",
                &["weather-mcp", "weather-cli"][..],
                "weather-mcp",
            ),
            // The test, dev and debug scripts are left aside while another remains.
            ("tool", &["serve", "serve-dev", "serve-debug"][..], "serve"),
            ("tool", &["serve-test"][..], "serve-test"),
        ] {
            assert_eq!(
                choose(package, &declared(scripts, &[]), None, None, none),
                script(chosen),
                "{package} {scripts:?}"
            );
        }
        // The registry entry's program comes first.
        assert_eq!(
            choose("pdf4vllm-mcp", &d, Some("pdf4vllm-test"), None, none),
            script("pdf4vllm-test")
        );
        // Among several, the only one named a server.
        for (package, scripts, chosen) in [
            (
                "huoshui-pdf-converter",
                &["huoshui-pdf", "huoshui-pdf-server"][..],
                "huoshui-pdf-server",
            ),
            ("x-mcp", &["x", "x-server", "x-test"][..], "x-server"),
            ("tools", &["tools_mcp", "tools-cli"][..], "tools_mcp"),
            ("tools", &["mcp-tools", "tools-cli"][..], "mcp-tools"),
        ] {
            let got = choose(package, &declared(scripts, &[]), None, None, none);
            assert_eq!(got, script(chosen), "{package} {scripts:?}");
        }
        // Two left: refused, naming them.
        for (package, scripts) in [
            ("x-mcp", &["x-a", "x-b"][..]),
            ("x", &["a-server", "b-server"][..]),
            ("x", &["a-test", "b-test"][..]),
        ] {
            let err = choose(package, &declared(scripts, &[]), None, None, none).unwrap_err();
            assert!(err.starts_with("declares the console scripts '"), "{err}");
        }
        assert_eq!(stem("mcp"), "mcp");
        assert_eq!(stem("Mcp_Server"), "mcp");
        assert_eq!(stem("mcp-weather-server"), "weather");
    }

    #[test]
    fn a_program_that_cannot_be_chosen_names_the_candidates() {
        let none = |_: &str| false;
        let err = choose("x", &declared(&["a", "b"], &[]), Some("c"), None, none).unwrap_err();
        assert_eq!(
            err,
            "declares the console scripts 'a', 'b', none named after the package, and no program 'c'; \
             name one with program = \"...\" in the servers file"
        );
        let err = choose("x", &declared(&[], &["m", "n"]), None, None, none).unwrap_err();
        assert!(
            err.contains("several modules python -m can run: 'm', 'n'"),
            "{err}"
        );
        let err = choose("x", &declared(&[], &[]), None, None, none).unwrap_err();
        assert_eq!(
            err,
            "declares no console script and no module python -m can run"
        );
    }

    #[test]
    fn entry_points_and_records_are_read_as_written() {
        let text = "[gui_scripts]\ng = x:main\n\n[console_scripts]\n; a comment\nmcp-x = x.cli:main\n  other=x:o [extra]\n[x.plugins]\np = x:p\n";
        assert_eq!(console_scripts(text), ["mcp-x", "other"]);
        let record = "x/__init__.py,sha256=a,1\nx/__main__.py,sha256=b,2\ny/__init__.py,,\n\
                      z.py,,\n_private.py,,\nx-1.0.dist-info/RECORD,,\n../../bin/x,,\n";
        let exists = |p: &str| ["x/__main__.py", "z.py", "_private.py"].contains(&p);
        assert_eq!(runnable_modules(record, exists), ["x", "z"]);
    }
}
