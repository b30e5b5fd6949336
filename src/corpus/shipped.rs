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
use crate::registry::{self, family, npm, pypi, Kind, Miss, Pinned};

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
    /// For a family member, the packages that pin it to this exact version, each as
    /// `REGISTRY:NAME@VERSION`; empty for a package wanted for itself.
    pub family_of: Vec<String>,
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
                family_of: Vec::new(),
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
                    family_of: Vec::new(),
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

/// Pins every wanted package, `jobs` at a time, each asked of its index once, then
/// their families: each package's dependencies pinned to one exact version, one
/// level deep and at most [`family::MAX_MEMBERS`] a package, asked of the same
/// index and written after the first package that pins them (docs/method.md, "A
/// package's family"). A member that cannot be pinned is skipped with why; its
/// package is kept.
pub fn pin_all(wanted: Vec<Wanted>, jobs: usize) -> anyhow::Result<Shipped> {
    let npm_config = npm::Config::from_machine();
    let index = pypi::index().url.clone();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.max(1))
        .build()
        .context("starting the worker threads")?;
    let pin = |wanted: &[Wanted]| -> Vec<Result<Pinned, Miss>> {
        pool.install(|| {
            wanted
                .par_iter()
                .map(|w| match w.registry {
                    Kind::Npm => npm::pin(&npm_config, &w.name, w.version.as_deref()),
                    Kind::Pypi => pypi::pin(&index, &w.name, w.version.as_deref()),
                })
                .collect()
        })
    };
    let answers = pin(&wanted);
    let mut shipped = Shipped::default();
    shipped.add(wanted, answers);
    let (members, skipped) = family_members(&shipped.pinned);
    shipped.skipped.extend(skipped);
    let answers = pin(&members);
    let mut family = Shipped::default();
    family.add(members, answers);
    shipped.failures += family.failures;
    shipped.skipped.extend(family.skipped);
    // Each member goes after the first package of its family, in the order pinned.
    for (wanted, pinned) in family.pinned {
        let first = &wanted.family_of[0];
        let at = shipped
            .pinned
            .iter()
            .rposition(|(w, p)| package_key(p) == *first || w.family_of.first() == Some(first))
            .map_or(shipped.pinned.len(), |i| i + 1);
        shipped.pinned.insert(at, (wanted, pinned));
    }
    Ok(shipped)
}

impl Shipped {
    /// Adds each wanted package with the index's answer: pinned, else skipped.
    fn add(&mut self, wanted: Vec<Wanted>, answers: Vec<Result<Pinned, Miss>>) {
        for (w, answer) in wanted.into_iter().zip(answers) {
            match answer {
                Ok(mut pinned) => {
                    if pinned.repository.is_none() {
                        pinned.repository = w.repository.clone();
                    }
                    self.pinned.push((w, pinned));
                }
                Err(miss) => {
                    self.failures += usize::from(!miss.is_absent);
                    let reason = match w.family_of.first() {
                        Some(of) => format!(
                            "an exact-pinned dependency of '{}', not pinned: {}",
                            sanitize(of),
                            miss.why
                        ),
                        None => miss.why,
                    };
                    self.skipped.push(skip_of(&w, reason));
                }
            }
        }
    }
}

/// Returns the skipped row of `wanted`, with `reason`.
fn skip_of(wanted: &Wanted, reason: String) -> Skip {
    Skip {
        name: format!("{}:{}", wanted.registry.as_str(), wanted.name),
        version: wanted.version.clone().unwrap_or_default(),
        repository: wanted
            .repository
            .as_deref()
            .map(registry::without_credentials)
            .unwrap_or_default(),
        subfolder: String::new(),
        reason,
    }
}

/// Returns how a family names a pinned package: `REGISTRY:NAME@VERSION`.
pub fn package_key(p: &Pinned) -> String {
    format!("{}:{}@{}", p.registry.as_str(), p.name, p.version)
}

/// Returns the family members of `pinned` to pin, each once (a member of several
/// packages names them all), leaving out those pinned already; and the skipped rows
/// of what is not pinned: members past [`family::MAX_MEMBERS`] of a package, and a
/// package whose metadata could not be read.
fn family_members(pinned: &[(Wanted, Pinned)]) -> (Vec<Wanted>, Vec<Skip>) {
    let same = |kind: Kind, name: &str, version: &str, w: &Wanted| {
        w.registry == kind
            && folded(kind, &w.name) == folded(kind, name)
            && w.version.as_deref() == Some(version)
    };
    let mut members: Vec<Wanted> = Vec::new();
    let mut skipped = Vec::new();
    for (wanted, p) in pinned {
        let key = package_key(p);
        let dependencies = match &p.exact_dependencies {
            Ok(dependencies) => dependencies,
            Err(why) => {
                let reason = format!("its exact-pinned dependencies were not read: {why}");
                skipped.push(skip_of(wanted, reason));
                continue;
            }
        };
        for (i, (name, version)) in dependencies.iter().enumerate() {
            let member = Wanted {
                registry: p.registry,
                name: name.clone(),
                version: Some(version.clone()),
                servers: Vec::new(),
                repository: None,
                family_of: vec![key.clone()],
            };
            if i >= family::MAX_MEMBERS {
                let reason = format!(
                    "an exact-pinned dependency of '{}' past the first {} pinned with it",
                    sanitize(&key),
                    family::MAX_MEMBERS
                );
                skipped.push(skip_of(&member, reason));
                continue;
            }
            let is_pinned = pinned.iter().any(|(_, q)| {
                q.registry == p.registry
                    && folded(p.registry, &q.name) == folded(p.registry, name)
                    && q.version == *version
            });
            match members
                .iter_mut()
                .find(|m| same(p.registry, name, version, m))
            {
                _ if is_pinned => {}
                Some(m) => m.family_of.push(key.clone()),
                None => members.push(member),
            }
        }
    }
    (members, skipped)
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
        if !wanted.family_of.is_empty() {
            key("family", &wanted.family_of.join(" "));
        }
        let how = match (&wanted.version, &p.yanked) {
            _ if !wanted.family_of.is_empty() => {
                let of: Vec<String> = wanted.family_of.iter().map(|k| family_label(k)).collect();
                format!("exact-pinned dependency of {}", of.join(", "))
            }
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

/// Returns how a note names a family's package: `NAME VERSION` of its
/// `REGISTRY:NAME@VERSION`.
fn family_label(key: &str) -> String {
    let name = key.split_once(':').map_or(key, |(_, name)| name);
    match name[1.min(name.len())..].rsplit_once('@') {
        Some((_, version)) => format!("{} {version}", &name[..name.len() - version.len() - 1]),
        None => name.to_string(),
    }
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
