//! `corpus registry --packages FILE`: the registry's npm and PyPI packages as a
//! servers file for `probe --servers`.
//!
//! This module owns reading a server.json `Package` into what starting it means: the
//! package at its exact version, the program or module to run, the arguments with
//! their values or defaults, and the environment variables the entry declares. The
//! runner's own flags (`npx -y`, `uvx --from X`, `python -m MODULE`) are read into
//! that, never passed on. A required variable or argument with no value is given a
//! placeholder (its first choice, one of its format, a loopback address, a fixed
//! word: never a secret) and named in `placeholders`; what cannot be decided without
//! the user (a runner flag not understood, a missing version) is written as `needs`,
//! and `probe` never runs such an entry. It installs and runs nothing; that is
//! `probe`'s (see docs/method.md, "The wire survey").

use std::collections::{BTreeMap, BTreeSet};

use super::build::BuiltTree;
use super::registry::{Argument, Entry, Input, Package};
use super::text::{toml_string, Provenance};
use crate::infra::sanitize::sanitize;

/// Holds what starting one package means, read from its registry entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Launch {
    /// `npm` or `pypi`.
    pub registry: String,
    /// The package to install.
    pub package: String,
    pub version: String,
    /// The program of the package to start (an npm bin, a console script), when the
    /// runner names one.
    pub program: Option<String>,
    /// The module `python -m` runs.
    pub module: Option<String>,
    pub args: Vec<String>,
    /// Variables with their fixed value or default, sorted by name.
    pub env: BTreeMap<String, String>,
    /// What the user must give before the server can start.
    pub needs: Vec<String>,
    /// The required variables and arguments the entry gives no value, each given a
    /// placeholder in `env` or `args` ([`placeholder`]), in the order met.
    pub placeholders: Vec<String>,
}

/// Returns whether `package` is one `--packages` writes: npm or PyPI, over stdio.
pub fn is_stdio_package(package: &Package) -> bool {
    matches!(package.registry_type.as_str(), "npm" | "pypi")
        && package
            .transport
            .as_ref()
            .is_none_or(|t| t.kind.is_empty() || t.kind == "stdio")
}

/// Reads what starting `package` means.
pub fn launch(package: &Package) -> Launch {
    let mut launch = Launch {
        registry: package.registry_type.clone(),
        package: package.identifier.clone(),
        version: package.version.clone().unwrap_or_default(),
        ..Launch::default()
    };
    let mut needs = BTreeSet::new();
    if let Some(why) = &package.malformed {
        needs.insert(format!("a server.json package that reads ({why})"));
    }
    if launch.version.trim().is_empty() {
        needs.insert("a package version".to_string());
    }
    let mut placeholders = Vec::new();
    // A runner's own flags are read, never filled in: one missing is needed.
    let runtime = arguments(&package.runtime_arguments, &mut needs, None);
    let hint = package.runtime_hint.as_deref().unwrap_or("");
    match (package.registry_type.as_str(), hint) {
        ("npm", "" | "npx") => read_npx(&runtime, &mut launch, &mut needs),
        ("pypi", "" | "uvx") => read_uvx(&runtime, &mut launch, &mut needs),
        ("pypi", "python" | "python3") => read_python(&runtime, &mut launch, &mut needs),
        (_, other) => {
            needs.insert(format!(
                "a way to start it with runtime '{}'",
                sanitize(other)
            ));
        }
    }
    launch.args = arguments(
        &package.package_arguments,
        &mut needs,
        Some(&mut placeholders),
    );
    for variable in &package.environment_variables {
        let input = &variable.input;
        match value(input, &variable.name, &mut placeholders) {
            Some(text) => {
                launch.env.insert(variable.name.clone(), text);
            }
            None if input.is_required => {
                let text = placeholder(input, &variable.name);
                launch.env.insert(variable.name.clone(), text);
                placeholders.push(variable.name.clone());
            }
            None => {}
        }
    }
    launch.needs = needs.into_iter().collect();
    launch.placeholders = placeholders;
    launch
}

/// Returns the value a required input the entry gives none is started with in a
/// survey: its first choice, else one of its format (`number`, `boolean`, `filepath`:
/// a file every sandbox holds), else by its name: a loopback address for one that reads
/// as an address (`..._URL`, `_URI`, `_ENDPOINT`, `_HOST`), that file for a path or
/// file (`_PATH`, `_FILE`), `/tmp` for a folder (`_DIR`, `_FOLDER`), else a fixed word. Never a secret: the
/// sandbox has no network, so a placeholder reaches nothing (docs/method.md, "The
/// wire survey").
pub fn placeholder(input: &Input, name: &str) -> String {
    if let Some(first) = input.choices.as_array().and_then(|c| c.first()) {
        if let Some(text) = first.as_str() {
            return text.to_string();
        }
    }
    match input.format.as_deref() {
        Some("number") => return "1".to_string(),
        Some("boolean") => return "true".to_string(),
        Some("filepath") => return "/etc/hosts".to_string(),
        _ => {}
    }
    let name = name
        .trim_start_matches('-')
        .to_ascii_uppercase()
        .replace('-', "_");
    let ends = |suffix: &str| name == suffix || name.ends_with(&format!("_{suffix}"));
    if ["URL", "URI", "ENDPOINT"].iter().any(|s| ends(s)) {
        "http://127.0.0.1:9".to_string()
    } else if ends("HOST") {
        "127.0.0.1".to_string()
    } else if ["PATH", "FILE"].iter().any(|s| ends(s)) {
        "/etc/hosts".to_string()
    } else if ["DIR", "FOLDER", "DIRECTORY"].iter().any(|s| ends(s)) {
        "/tmp".to_string()
    } else {
        "placeholder".to_string()
    }
}

/// Reads `npx`'s flags: `-y`, `--yes`, `-q` and `--quiet` only answer its prompts;
/// `--package X` (or `-p X`) must name the package itself.
fn read_npx(runtime: &[String], launch: &mut Launch, needs: &mut BTreeSet<String>) {
    let mut rest = runtime.iter();
    while let Some(arg) = rest.next() {
        let package = match arg.as_str() {
            "-y" | "--yes" | "-q" | "--quiet" => continue,
            "-p" | "--package" => rest.next().cloned().unwrap_or_default(),
            other => match other.strip_prefix("--package=") {
                Some(spec) => spec.to_string(),
                None => {
                    // What follows may be the flag's value: one need says it all.
                    needs.insert(format!("a reading of npx's '{}'", sanitize(other)));
                    return;
                }
            },
        };
        let exact = format!("{}@{}", launch.package, launch.version);
        if package != launch.package && package != exact {
            needs.insert(format!(
                "a reading of npx's --package '{}', not the entry's package",
                sanitize(&package)
            ));
        }
    }
}

/// Reads `uvx`'s flags: `--from SPEC` installs SPEC and runs the entry's identifier
/// as the program, as `uvx --from SPEC COMMAND` does.
fn read_uvx(runtime: &[String], launch: &mut Launch, needs: &mut BTreeSet<String>) {
    let mut rest = runtime.iter();
    while let Some(arg) = rest.next() {
        let spec = match arg.as_str() {
            "--from" => rest.next().cloned().unwrap_or_default(),
            other => match other.strip_prefix("--from=") {
                Some(spec) => spec.to_string(),
                None => {
                    needs.insert(format!("a reading of uvx's '{}'", sanitize(other)));
                    return;
                }
            },
        };
        let end = spec
            .find(|c: char| "=<>!~@[; ".contains(c))
            .unwrap_or(spec.len());
        let (name, rest) = spec.split_at(end);
        if name.is_empty() {
            needs.insert("a package after uvx's --from".to_string());
            continue;
        }
        launch.program = Some(launch.package.clone());
        launch.package = name.to_string();
        match rest.strip_prefix("==") {
            _ if rest.is_empty() => {}
            Some(v) if !v.is_empty() && !v.contains(|c: char| "=<>!~,*; ".contains(c)) => {
                launch.version = v.to_string();
            }
            _ => {
                needs.insert(format!(
                    "an exact version in uvx's --from '{}'",
                    sanitize(&spec)
                ));
            }
        }
    }
}

/// Reads `python`'s flags: `-m MODULE` runs that module of the package.
fn read_python(runtime: &[String], launch: &mut Launch, needs: &mut BTreeSet<String>) {
    let mut rest = runtime.iter();
    while let Some(arg) = rest.next() {
        match arg.as_str() {
            "-m" => match rest.next() {
                Some(module) => launch.module = Some(module.clone()),
                None => {
                    needs.insert("a module after python's -m".to_string());
                }
            },
            other => {
                needs.insert(format!("a reading of python's '{}'", sanitize(other)));
                return;
            }
        }
    }
    if launch.module.is_none() {
        needs.insert("a module for python -m".to_string());
    }
}

/// Returns the command-line words of `args`: a positional argument's value or
/// default, a named one's flag and its value or default. An argument with neither is
/// left out, or, when it is required, given a [`placeholder`] where `placeholders`
/// collects them and needed where it does not.
fn arguments(
    args: &[Argument],
    needs: &mut BTreeSet<String>,
    placeholders: Option<&mut Vec<String>>,
) -> Vec<String> {
    let mut unused = Vec::new();
    let fills = placeholders.is_some();
    let placeholders = placeholders.unwrap_or(&mut unused);
    let mut out = Vec::new();
    for (index, arg) in args.iter().enumerate() {
        let word = arg.name.as_ref().or(arg.value_hint.as_ref());
        let label = match word {
            Some(word) => format!("argument '{}'", sanitize(word)),
            None => format!("argument {}", index + 1),
        };
        let mut text = value(&arg.input, &label, placeholders);
        if text.is_none()
            && fills
            && arg.input.is_required
            && matches!(
                (arg.kind.as_str(), &arg.name),
                ("named", Some(_)) | ("positional", _)
            )
        {
            text = Some(placeholder(&arg.input, word.map_or("", |w| w.as_str())));
            placeholders.push(label.clone());
        }
        match (arg.kind.as_str(), &arg.name, text) {
            ("named", Some(name), Some(text)) => {
                out.push(flag(name));
                out.push(text);
            }
            ("positional", _, Some(text)) => out.push(text),
            (_, _, None) if arg.input.is_required => {
                needs.insert(label);
            }
            ("named" | "positional", _, None) => {}
            (kind, _, _) => {
                needs.insert(format!("{label} of type '{}'", sanitize(kind)));
            }
        }
    }
    out
}

/// Returns a named argument's flag: its name, which the schema spells with its
/// dashes (`--port`); a name written without them (`port`, as some entries do) is
/// the long option `--port`, never a bare word the server would read as positional.
fn flag(name: &str) -> String {
    match name.starts_with('-') || name.is_empty() {
        true => name.to_string(),
        false => format!("--{name}"),
    }
}

/// Returns an input's value, else its default, with each `{variable}` replaced by
/// the variable's value or default. A variable with neither stays as written, as the
/// schema says, and is given a [`placeholder`] when it is required.
fn value(input: &Input, label: &str, placeholders: &mut Vec<String>) -> Option<String> {
    let mut text = input.value.clone().or_else(|| input.default.clone())?;
    for (name, variable) in &input.variables {
        let key = format!("{{{name}}}");
        if !text.contains(&key) {
            continue;
        }
        match variable.value.as_ref().or(variable.default.as_ref()) {
            Some(found) => text = text.replace(&key, found),
            None if variable.is_required => {
                text = text.replace(&key, &placeholder(variable, name));
                placeholders.push(format!("variable '{}' of {label}", sanitize(name)));
            }
            None => {}
        }
    }
    Some(text)
}

/// Returns the commit of `entry`'s tree among `trees`: the tree pinned for its name,
/// else the only tree of its repository (owner/name, ASCII case-insensitively) and
/// subfolder.
fn commit_of<'t>(entry: &Entry, trees: &'t [BuiltTree]) -> Option<&'t str> {
    let url = super::repo_url::parse(entry.repository.as_deref()?).ok()?;
    let subfolder = entry.subfolder.as_deref().unwrap_or("").trim_matches('/');
    let of_tree: Vec<&BuiltTree> = trees
        .iter()
        .filter(|t| {
            t.repo.eq_ignore_ascii_case(&url.repo)
                && t.subfolder.as_deref().unwrap_or("").trim_matches('/') == subfolder
        })
        .collect();
    let named = of_tree.iter().find(|t| t.names.contains(&entry.name));
    match (named, of_tree.as_slice()) {
        (Some(tree), _) | (None, [tree]) => Some(tree.commit.as_str()),
        _ => None,
    }
}

/// Returns the servers file of every npm and PyPI stdio package of the latest active
/// entries: one `[[server]]` per package, named after the entry (`NAME#2` for its
/// second package), with the registry name, repository, subfolder and, once `trees`
/// are pinned, commit that join it to its census row.
pub fn packages_text(entries: &[Entry], from: &Provenance, trees: &[BuiltTree]) -> String {
    let mut chosen: BTreeMap<&str, &Entry> = BTreeMap::new();
    for entry in entries {
        let is_active = entry.status.as_deref().is_none_or(|s| s == "active");
        if is_active && entry.is_latest != Some(false) {
            chosen.entry(entry.name.as_str()).or_insert(entry);
        }
    }
    let mut out = format!(
        "# npm and PyPI packages of the servers in {}, {}, for `probe --servers`.\n",
        sanitize(&from.source),
        from.date
    );
    out.push_str(
        "# One entry per package with stdio transport, at the latest active version. An entry\n\
         # with `needs` is never run: give what it names (env = { NAME = { env = \"NAME\" } })\n\
         # and remove the line. `placeholders` names the required values the entry gives\n\
         # none, filled here with placeholders (a loopback address, a fixed word: never a\n\
         # secret); `probe --no-placeholders` runs none of those. probe installs each\n\
         # package without its install scripts and runs it in a sandbox.\n",
    );
    for (name, entry) in chosen {
        let mut count = 0;
        for package in entry.packages.iter().filter(|p| is_stdio_package(p)) {
            count += 1;
            let label = match count {
                1 => name.to_string(),
                n => format!("{name}#{n}"),
            };
            out.push_str(&server_text(
                &label,
                entry,
                commit_of(entry, trees),
                &launch(package),
            ));
        }
    }
    out
}

fn server_text(label: &str, entry: &Entry, commit: Option<&str>, launch: &Launch) -> String {
    let list = |items: &[String]| {
        let quoted: Vec<String> = items.iter().map(|a| toml_string(a)).collect();
        format!("[{}]", quoted.join(", "))
    };
    let mut out = String::from("\n[[server]]\n");
    out.push_str(&format!("name = {}\n", toml_string(label)));
    out.push_str(&format!("registry_name = {}\n", toml_string(&entry.name)));
    if let Some(url) = &entry.repository {
        let url = super::repo_url::redact(url);
        out.push_str(&format!("repository = {}\n", toml_string(&url)));
    }
    if let Some(sub) = &entry.subfolder {
        out.push_str(&format!("subfolder = {}\n", toml_string(sub)));
    }
    if let Some(commit) = commit {
        out.push_str(&format!("commit = {}\n", toml_string(commit)));
    }
    out.push_str(&format!(
        "package = {{ registry = {}, name = {}, version = {} }}\n",
        toml_string(&launch.registry),
        toml_string(&launch.package),
        toml_string(&launch.version)
    ));
    if let Some(program) = &launch.program {
        out.push_str(&format!("program = {}\n", toml_string(program)));
    }
    if let Some(module) = &launch.module {
        out.push_str(&format!("module = {}\n", toml_string(module)));
    }
    if !launch.args.is_empty() {
        out.push_str(&format!("args = {}\n", list(&launch.args)));
    }
    if !launch.env.is_empty() {
        let pairs: Vec<String> = launch
            .env
            .iter()
            .map(|(k, v)| format!("{} = {}", toml_string(k), toml_string(v)))
            .collect();
        out.push_str(&format!("env = {{ {} }}\n", pairs.join(", ")));
    }
    if !launch.placeholders.is_empty() {
        out.push_str(&format!("placeholders = {}\n", list(&launch.placeholders)));
    }
    if !launch.needs.is_empty() {
        out.push_str(&format!("needs = {}\n", list(&launch.needs)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::registry::parse_page;

    fn package(json: serde_json::Value) -> Launch {
        let page = serde_json::json!({"servers": [{"server": {
            "name": "io.github.a/b", "version": "1", "packages": [json]}}]});
        let (listing, _) = parse_page(page.to_string().as_bytes(), "p").unwrap();
        launch(&listing.entries[0].packages[0])
    }

    #[test]
    fn runner_flags_become_what_they_mean() {
        let npx = package(serde_json::json!({
            "registryType": "npm", "identifier": "@a/srv", "version": "1.2.3",
            "runtimeHint": "npx", "transport": {"type": "stdio"},
            "runtimeArguments": [{"type": "positional", "value": "-y"},
                                 {"type": "named", "name": "--package", "value": "@a/srv@1.2.3"}],
            "packageArguments": [
                {"type": "positional", "valueHint": "dir", "default": "/tmp"},
                {"type": "named", "name": "--mode", "value": "{m}",
                 "variables": {"m": {"default": "local"}}},
                {"type": "named", "name": "--port", "format": "number"}],
            "environmentVariables": [
                {"name": "LOG", "default": "info"},
                {"name": "TOKEN", "isRequired": true, "isSecret": true},
                {"name": "OPT"}]}));
        assert_eq!(npx.args, ["/tmp", "--mode", "local"]);
        assert_eq!(npx.env.get("LOG").map(String::as_str), Some("info"));
        assert_eq!(
            npx.env.get("TOKEN").map(String::as_str),
            Some("placeholder")
        );
        assert_eq!(npx.placeholders, ["TOKEN"]);
        assert!(npx.needs.is_empty(), "{:?}", npx.needs);
        assert_eq!((npx.program, npx.module), (None, None));

        let uvx = package(serde_json::json!({
            "registryType": "pypi", "identifier": "srv-cmd", "version": "0.5.0",
            "runtimeHint": "uvx",
            "runtimeArguments": [{"type": "named", "name": "--from", "value": "srv-pkg==0.5.1"}]}));
        assert_eq!(
            (
                uvx.package.as_str(),
                uvx.version.as_str(),
                uvx.program.as_deref()
            ),
            ("srv-pkg", "0.5.1", Some("srv-cmd"))
        );
        assert!(uvx.needs.is_empty(), "{:?}", uvx.needs);

        let python = package(serde_json::json!({
            "registryType": "pypi", "identifier": "srv", "version": "2",
            "runtimeHint": "python",
            "runtimeArguments": [{"type": "positional", "value": "-m"},
                                 {"type": "positional", "value": "srv.main"}]}));
        assert_eq!(python.module.as_deref(), Some("srv.main"));
        assert!(python.needs.is_empty());

        let odd = package(serde_json::json!({
            "registryType": "pypi", "identifier": "srv", "runtimeHint": "uvx",
            "runtimeArguments": [{"type": "named", "name": "--with", "value": "x"},
                                 {"type": "positional", "valueHint": "p", "isRequired": true}]}));
        assert_eq!(
            odd.needs,
            [
                "a package version",
                "a reading of uvx's '--with'",
                "argument 'p'"
            ]
        );
    }

    #[test]
    fn a_required_input_without_a_value_is_given_a_placeholder_of_its_kind() {
        let filled = package(serde_json::json!({
            "registryType": "npm", "identifier": "srv", "version": "1.0.0",
            "packageArguments": [
                {"type": "named", "name": "--region", "isRequired": true,
                 "choices": ["eu", "us"]},
                {"type": "named", "name": "--api-url", "isRequired": true},
                {"type": "positional", "valueHint": "config", "isRequired": true,
                 "format": "filepath"},
                {"type": "named", "name": "--dsn", "value": "db://{user}@h",
                 "variables": {"user": {"isRequired": true}}},
                {"type": "named", "name": "--optional"},
                {"type": "named", "name": "allowed-directories", "isRequired": true}],
            "environmentVariables": [
                {"name": "PORT", "isRequired": true, "format": "number"},
                {"name": "DEBUG", "isRequired": true, "format": "boolean"},
                {"name": "DB_HOST", "isRequired": true},
                {"name": "LEVEL", "isRequired": true, "default": "info"},
                {"name": "ODD", "isRequired": true, "choices": [1, 2]},
                {"name": "API_KEY", "isRequired": true, "isSecret": true}]}));
        assert_eq!(
            filled.args,
            [
                "--region",
                "eu",
                "--api-url",
                "http://127.0.0.1:9",
                "/etc/hosts",
                "--dsn",
                "db://placeholder@h",
                "--allowed-directories",
                "placeholder"
            ]
        );
        let env = |name: &str| filled.env.get(name).map(String::as_str);
        assert_eq!(env("PORT"), Some("1"));
        assert_eq!(env("DEBUG"), Some("true"));
        assert_eq!(env("DB_HOST"), Some("127.0.0.1"));
        assert_eq!(env("LEVEL"), Some("info"), "a default is no placeholder");
        assert_eq!(env("ODD"), Some("placeholder"));
        assert_eq!(env("API_KEY"), Some("placeholder"));
        assert_eq!(
            filled.placeholders,
            [
                "argument '--region'",
                "argument '--api-url'",
                "argument 'config'",
                "variable 'user' of argument '--dsn'",
                "argument 'allowed-directories'",
                "PORT",
                "DEBUG",
                "DB_HOST",
                "ODD",
                "API_KEY"
            ]
        );
        assert!(filled.needs.is_empty(), "{:?}", filled.needs);
    }

    #[test]
    fn the_file_has_one_entry_per_stdio_package_of_the_latest_active_versions() {
        let page = serde_json::json!({"servers": [
            {"server": {"name": "io.github.a/b", "version": "2",
              "repository": {"url": "https://github.com/a/b", "subfolder": "srv"},
              "packages": [
                {"registryType": "npm", "identifier": "b", "version": "2.0.0",
                 "transport": {"type": "stdio"}},
                {"registryType": "pypi", "identifier": "b-py", "version": "2.0.0",
                 "transport": {"type": "stdio"}},
                {"registryType": "npm", "identifier": "b-http", "version": "2.0.0",
                 "transport": {"type": "streamable-http", "url": "http://localhost:3000"}},
                {"registryType": "oci", "identifier": "b/b", "version": "2.0.0",
                 "transport": {"type": "stdio"}}]},
             "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": true}}},
            {"server": {"name": "io.github.a/b", "version": "1",
              "packages": [{"registryType": "npm", "identifier": "b", "version": "1.0.0"}]},
             "_meta": {"io.modelcontextprotocol.registry/official": {"status": "active", "isLatest": false}}},
            {"server": {"name": "io.github.c/d", "version": "1",
              "packages": [{"registryType": "npm", "identifier": "d", "version": "1.0.0"}]},
             "_meta": {"io.modelcontextprotocol.registry/official": {"status": "deleted", "isLatest": true}}}
        ]});
        let (listing, _) = parse_page(page.to_string().as_bytes(), "p").unwrap();
        let from = Provenance {
            command: "corpus registry".into(),
            source: "the registry".into(),
            date: "2026-11-30".into(),
            read: 3,
            skipped_file: String::new(),
        };
        assert!(!packages_text(&listing.entries, &from, &[]).contains("commit ="));
        let tree = BuiltTree {
            repo: "A/b".into(),
            forge: super::super::repo_url::Forge::GitHub,
            commit: "c".repeat(40),
            subfolder: Some("srv".into()),
            as_of: None,
            committed: None,
            name: None,
            names: Vec::new(),
            note: String::new(),
        };
        let text = packages_text(&listing.entries, &from, &[tree]);
        let value: toml::Value = toml::from_str(&text).unwrap();
        let servers = value["server"].as_array().unwrap();
        let got: Vec<(&str, &str, &str)> = servers
            .iter()
            .map(|s| {
                (
                    s["name"].as_str().unwrap(),
                    s["package"]["name"].as_str().unwrap(),
                    s["package"]["version"].as_str().unwrap(),
                )
            })
            .collect();
        assert_eq!(
            got,
            [
                ("io.github.a/b", "b", "2.0.0"),
                ("io.github.a/b#2", "b-py", "2.0.0")
            ]
        );
        for s in servers {
            assert_eq!(s["registry_name"].as_str(), Some("io.github.a/b"));
            assert_eq!(s["repository"].as_str(), Some("https://github.com/a/b"));
            assert_eq!(s["subfolder"].as_str(), Some("srv"));
            assert_eq!(s["commit"].as_str(), Some("c".repeat(40).as_str()));
        }
    }
}
