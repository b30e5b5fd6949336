//! `corpus packages FILE` and `corpus registry --shipped FILE`: what ships, as a
//! corpus. Each package version wanted (a list's line, or an npm or PyPI package a
//! registry entry names, whatever its transport) is pinned to one artifact by the
//! index's digest and written as a `[[package]]`, so that a census never asks the
//! index again.
//!
//! This module owns the list's syntax (`npm:NAME@VERSION`, `pypi:NAME==VERSION`, or
//! a bare name for the latest on the day), which packages of a listing are wanted,
//! pinning them a few at a time, and the text written. Asking an index is
//! `registry`'s; a package the index does not serve goes to the skipped list with the
//! index's answer.

use std::collections::BTreeSet;

use anyhow::Context;
use rayon::prelude::*;

use crate::corpus::build::Skip;
use crate::corpus::registry::Entry;
use crate::corpus::text::{opening, toml_list, toml_string, Provenance};
use crate::count::terms::{DEFAULT_CONTROLS, DEFAULT_TERMS};
use crate::infra::error::UsageError;
use crate::infra::messages;
use crate::infra::sanitize::sanitize;
use crate::registry::{self, npm, pypi, Kind, Miss, Pinned};

/// Holds one package version to pin.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Wanted {
    pub registry: Kind,
    pub name: String,
    /// The exact version; `None` for the latest on the day the corpus is built.
    pub version: Option<String>,
    /// The registry entries that name it (their server names), for the row.
    pub servers: Vec<String>,
    /// The source repository a registry entry names, for a package whose metadata
    /// names none.
    pub repository: Option<String>,
}

/// Returns the packages a list names: one a line, `npm:NAME@VERSION`,
/// `pypi:NAME==VERSION`, or either without a version; blank lines and `#` comments
/// skipped. A line that is none of these is a [`UsageError`] naming it; a package
/// named twice is kept once.
pub fn parse_list(file: &str, text: &str) -> Result<Vec<Wanted>, UsageError> {
    let mut wanted: Vec<Wanted> = Vec::new();
    let mut seen = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or_default().trim();
        if line.is_empty() {
            continue;
        }
        let at = |why: String| UsageError(format!("{file}:{}: {why}", i + 1));
        let (kind, spec) = match line.split_once(':') {
            Some(("npm", spec)) => (Kind::Npm, spec.trim()),
            Some(("pypi", spec)) => (Kind::Pypi, spec.trim()),
            _ => {
                return Err(at(format!(
                    "'{}' is neither npm:NAME[@VERSION] nor pypi:NAME[==VERSION]",
                    sanitize(line)
                )))
            }
        };
        let (name, version) = match kind {
            // A scope's `@` leads the name; the version's follows it.
            Kind::Npm => match spec[1.min(spec.len())..].rsplit_once('@') {
                Some((_, version)) => (&spec[..spec.len() - version.len() - 1], Some(version)),
                None => (spec, None),
            },
            Kind::Pypi => match spec.split_once("==") {
                Some((name, version)) => (name.trim(), Some(version.trim())),
                None => (spec, None),
            },
        };
        let is_name = match kind {
            Kind::Npm => npm::is_valid_name(name),
            Kind::Pypi => pypi::is_valid_name(name),
        };
        if !is_name {
            return Err(at(format!(
                "'{}' is not a {} package name",
                sanitize(name),
                kind.as_str()
            )));
        }
        if version.is_some_and(|v| v.is_empty() || v.contains(char::is_whitespace)) {
            return Err(at(format!("'{}' gives no version", sanitize(line))));
        }
        let key = (kind, folded(kind, name), version.map(str::to_string));
        if seen.insert(key) {
            wanted.push(Wanted {
                registry: kind,
                name: name.to_string(),
                version: version.map(str::to_string),
                servers: Vec::new(),
                repository: None,
            });
        }
    }
    if wanted.is_empty() {
        return Err(UsageError(format!("{file}: the list names no package")));
    }
    Ok(wanted)
}

/// Returns a name as its registry compares names.
fn folded(kind: Kind, name: &str) -> String {
    match kind {
        Kind::Npm => name.to_string(),
        Kind::Pypi => pypi::normalize(name),
    }
}

/// Returns every npm and PyPI package the entries a survey reads name (see
/// [`crate::corpus::registry::current`]), whatever its transport, at the entry's
/// version; one package named by several entries kept once with all their names. A package with no version is wanted at the latest.
pub fn wanted_of_entries(entries: &[Entry], is_all_versions: bool) -> Vec<Wanted> {
    let mut wanted: Vec<Wanted> = Vec::new();
    for entry in crate::corpus::registry::current(entries, is_all_versions) {
        for package in &entry.packages {
            let Some(kind) = Kind::parse(&package.registry_type) else {
                continue;
            };
            let name = package.identifier.trim();
            let version = package
                .version
                .as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty() && *v != "latest");
            let same = |w: &Wanted| {
                w.registry == kind
                    && folded(kind, &w.name) == folded(kind, name)
                    && w.version.as_deref() == version
            };
            match wanted.iter_mut().find(|w| same(w)) {
                Some(w) => {
                    if !w.servers.contains(&entry.name) {
                        w.servers.push(entry.name.clone());
                    }
                }
                None => wanted.push(Wanted {
                    registry: kind,
                    name: name.to_string(),
                    version: version.map(str::to_string),
                    servers: vec![entry.name.clone()],
                    repository: entry.repository.clone(),
                }),
            }
        }
    }
    wanted
}

/// Holds what pinning a list gave: the packages pinned, in the list's order, and
/// those that could not be, with why.
#[derive(Debug, Default)]
pub struct Shipped {
    pub pinned: Vec<(Wanted, Pinned)>,
    pub skipped: Vec<Skip>,
    /// How many were skipped for a failure to ask (not the index's "no such").
    pub failures: usize,
}

/// Pins every wanted package, `jobs` at a time, each asked of its index once.
pub fn pin_all(wanted: Vec<Wanted>, jobs: usize) -> anyhow::Result<Shipped> {
    let npm_config = npm::Config::from_machine();
    let index = pypi::index().url.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .context("starting the worker threads")?;
    let answers: Vec<Result<Pinned, Miss>> = pool.install(|| {
        wanted
            .par_iter()
            .map(|w| match w.registry {
                Kind::Npm => npm::pin(&npm_config, &w.name, w.version.as_deref()),
                Kind::Pypi => pypi::pin(&index, &w.name, w.version.as_deref()),
            })
            .collect()
    });
    let mut shipped = Shipped::default();
    for (w, answer) in wanted.into_iter().zip(answers) {
        match answer {
            Ok(mut pinned) => {
                if pinned.repository.is_none() {
                    pinned.repository = w.repository.clone();
                }
                shipped.pinned.push((w, pinned));
            }
            Err(miss) => {
                shipped.failures += usize::from(!miss.is_absent);
                shipped.skipped.push(Skip {
                    name: format!("{}:{}", w.registry.as_str(), w.name),
                    version: w.version.clone().unwrap_or_default(),
                    repository: w
                        .repository
                        .as_deref()
                        .map(registry::without_credentials)
                        .unwrap_or_default(),
                    subfolder: String::new(),
                    reason: miss.why,
                });
            }
        }
    }
    Ok(shipped)
}

/// Returns the corpus file of the pinned packages: a comment saying how it was
/// built, `[census]` with the default terms and controls, one `[[package]]` each.
pub fn corpus_text(shipped: &Shipped, from: &Provenance) -> String {
    let mut out = opening(
        from,
        &format!(
            "{} read; {} pinned; {} skipped, listed in {}.",
            messages::count(from.read as u64, "package", "packages"),
            shipped.pinned.len(),
            shipped.skipped.len(),
            from.skipped_file
        ),
    );
    out.push_str(
        "# Each package is pinned to one artifact by the digest its index gave that day: npm's\n\
         # version tarball (dist.integrity), PyPI's pure-Python wheel, else its sdist, else its\n\
         # first wheel (the Simple API's sha256). A census counts the artifact only when its\n\
         # bytes have that digest.\n\n",
    );
    out.push_str("[census]\n");
    out.push_str(&format!("terms = {}\n", toml_list(&DEFAULT_TERMS)));
    out.push_str(&format!("controls = {}\n", toml_list(&DEFAULT_CONTROLS)));
    for (wanted, p) in &shipped.pinned {
        out.push_str("\n[[package]]\n");
        let mut key = |name: &str, value: &str| {
            out.push_str(&format!("{name} = {}\n", toml_string(value)));
        };
        key("registry", p.registry.as_str());
        key("name", &p.name);
        key("version", &p.version);
        key("artifact", &p.artifact);
        key("url", &p.url);
        key("digest", p.digest.as_str());
        if let Some(repository) = &p.repository {
            key("repository", &registry::without_credentials(repository));
        }
        if let Some(commit) = &p.commit {
            key("commit", commit);
        }
        if let Some(why) = &p.yanked {
            key("yanked", why);
        }
        if !wanted.servers.is_empty() {
            key("server", &wanted.servers.join(" "));
        }
        let how = match (&wanted.version, &p.yanked) {
            (None, _) => "the latest release that day".to_string(),
            (Some(_), None) => "the version named".to_string(),
            (Some(_), Some(why)) if why.is_empty() => {
                "the version named; the index marks it yanked".to_string()
            }
            (Some(_), Some(why)) => {
                format!("the version named; the index marks it yanked: {why}")
            }
        };
        key("note", &how);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_list_names_packages_with_or_without_versions() {
        let text = "# servers\nnpm:@scope/a@1.2.3\nnpm:b\npypi:c-d==0.1 # pinned\n\
                    pypi:E\nnpm:@scope/a@1.2.3\n\n";
        let got: Vec<(Kind, String, Option<String>)> = parse_list("l.txt", text)
            .unwrap()
            .into_iter()
            .map(|w| (w.registry, w.name, w.version))
            .collect();
        let want = |k, n: &str, v: Option<&str>| (k, n.to_string(), v.map(String::from));
        assert_eq!(
            got,
            [
                want(Kind::Npm, "@scope/a", Some("1.2.3")),
                want(Kind::Npm, "b", None),
                want(Kind::Pypi, "c-d", Some("0.1")),
                want(Kind::Pypi, "E", None),
            ]
        );
        for (bad, why) in [
            ("cargo:x", "l.txt:1: 'cargo:x' is neither"),
            ("npm:../x", "l.txt:1: '../x' is not a npm package name"),
            ("pypi:x==", "l.txt:1: 'pypi:x==' gives no version"),
            ("# nothing", "l.txt: the list names no package"),
        ] {
            let err = parse_list("l.txt", bad).unwrap_err().0;
            assert!(err.starts_with(why), "{bad}: {err}");
        }
    }
}
