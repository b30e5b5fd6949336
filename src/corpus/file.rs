//! Reads and validates `corpus.toml`: the trees to count, where their archives are,
//! and the terms to count in them.
//!
//! Configuration is data: adding a tree or a term is an edit to the TOML file, never
//! to Rust. This module checks everything before anything is downloaded, and names
//! the file, the line and the key of each mistake. It does not fetch or count.

use std::collections::HashMap;
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;
use toml::Spanned;

use crate::archive::check_subfolder;
use crate::count::terms::{self, line_of, Columns, RawColumn, DEFAULT_CONTROLS, DEFAULT_TERMS};
use crate::fetch::digest::Digest;
use crate::infra::commit::Commit;
use crate::infra::date::Date;
use crate::infra::error::UsageError;
use crate::infra::shard::Shard;
use crate::registry;
use crate::table::{Dating, NotYet, Shipped, TreeKey};

/// GitHub's tarball endpoint, the default archive location.
pub const DEFAULT_ARCHIVE_URL: &str = "https://codeload.github.com/{repo}/tar.gz/{commit}";

/// The corpus of the published census, built in so that the binary runs anywhere.
pub const PUBLISHED: &str = include_str!("../../corpus.toml");

/// Holds a validated corpus.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Corpus {
    /// How messages name the corpus: its file, or `<built-in corpus>`.
    pub source: String,
    pub columns: Columns,
    pub trees: Vec<Tree>,
    /// The trees of a dated corpus at dates before their repository's first commit,
    /// sorted: `[[no_commit_yet]]`.
    pub not_yet: Vec<NotYet>,
}

/// Holds one repository at a pinned commit, or one subfolder of it; or one
/// package version of a registry, pinned to its artifact by digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tree {
    /// `owner/name`; for a package, `REGISTRY:NAME` (`npm:@scope/name`).
    pub repo: String,
    pub pin: Pin,
    /// The folder counted, relative to the archive's top folder; `None` for all of it.
    pub subfolder: Option<String>,
    /// The date the pin stands for, `YYYY-MM-DD` (the default branch at the end of
    /// that day, UTC); `None` for a tree of no date.
    pub as_of: Option<Date>,
    /// The committer time of the commit, Unix seconds, when the corpus gives it
    /// (`committed`, as a dated corpus is written).
    pub committed: Option<i64>,
    /// The server's name (for a registry survey, the registry's name).
    pub name: Option<String>,
    pub note: Option<String>,
    /// The archive's URL, its template filled in.
    pub archive_url: String,
}

/// Holds what a tree is pinned to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pin {
    /// A repository's commit.
    Commit(Commit),
    /// A package's version and artifact.
    Package(Box<Package>),
}

/// Holds a package version pinned to one artifact: what `[[package]]` says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Package {
    pub registry: registry::Kind,
    /// The name as the registry spells it.
    pub name: String,
    pub version: String,
    /// The artifact's file name.
    pub artifact: String,
    /// The registry's digest of the artifact.
    pub digest: Digest,
    /// The source repository the package's metadata (or its registry entry) names.
    pub repository: Option<String>,
    /// The commit the package's metadata says it was built from.
    pub commit: Option<String>,
    /// Why the index marks the file yanked, when it does.
    pub yanked: Option<String>,
    /// For a family member, the packages that pin it to this exact version, each
    /// `REGISTRY:NAME@VERSION`, space-separated; `None` for a package of its own.
    pub family: Option<String>,
}

impl Package {
    /// Returns the package's cells in a table.
    pub fn cells(&self) -> Shipped {
        Shipped {
            artifact: self.artifact.clone(),
            digest: self.digest.to_string(),
            repository: self.repository.clone().unwrap_or_default(),
            family: self.family.clone().unwrap_or_default(),
        }
    }
}

impl Corpus {
    /// Returns true when the trees carry dates (then every one does).
    pub fn is_dated(&self) -> bool {
        self.trees.iter().any(|t| t.as_of.is_some())
    }

    /// Returns what the corpus says of each package's artifact, for the table: empty
    /// for a corpus of repositories.
    pub fn shipped(&self) -> std::collections::BTreeMap<TreeKey, Shipped> {
        self.trees
            .iter()
            .filter_map(|t| Some((t.key(), t.package()?.cells())))
            .collect()
    }

    /// Returns what the corpus says of its commits beside the trees, for the table.
    pub fn dating(&self) -> Dating {
        Dating {
            not_yet: self.not_yet.clone(),
            committed: self
                .trees
                .iter()
                .filter_map(|t| Some((t.key(), t.committed?)))
                .collect(),
        }
    }
}

impl Tree {
    /// Returns the commit a repository's tree is pinned to; `None` for a package.
    pub fn commit(&self) -> Option<&Commit> {
        match &self.pin {
            Pin::Commit(commit) => Some(commit),
            Pin::Package(_) => None,
        }
    }

    /// Returns the package a package's tree is; `None` for a repository.
    pub fn package(&self) -> Option<&Package> {
        match &self.pin {
            Pin::Commit(_) => None,
            Pin::Package(package) => Some(package),
        }
    }

    /// Returns the pin as written: the commit, or the package's version.
    pub fn pin_text(&self) -> &str {
        match &self.pin {
            Pin::Commit(commit) => commit.as_str(),
            Pin::Package(package) => &package.version,
        }
    }

    /// Returns `owner/name@commit` (with `:subfolder`), how errors name the tree.
    pub fn label(&self) -> String {
        self.key().label()
    }

    /// Returns the key of the tree's row.
    pub fn key(&self) -> TreeKey {
        TreeKey {
            repo: self.repo.clone(),
            pinned: Some(self.pin_text().to_string()),
            subfolder: self.subfolder.clone(),
            as_of: self.as_of.as_ref().map(Date::to_string),
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCorpus {
    census: Option<RawCensus>,
    /// The corpus's own spelling-profile columns, in the form a profile file has.
    #[serde(default)]
    column: Vec<RawColumn>,
    #[serde(default, rename = "tree")]
    trees: Vec<Spanned<RawTree>>,
    #[serde(default, rename = "package")]
    packages: Vec<Spanned<RawPackage>>,
    #[serde(default)]
    no_commit_yet: Vec<Spanned<RawNotYet>>,
}

/// A repository at a date before its first commit, as a dated corpus records it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawNotYet {
    repo: Spanned<String>,
    subfolder: Option<Spanned<String>>,
    as_of: Spanned<String>,
    first_commit: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawCensus {
    archive_url: Option<Spanned<String>>,
    terms: Option<Vec<Spanned<String>>>,
    controls: Option<Vec<Spanned<String>>>,
    /// Spelling profiles whose columns every table gains: built-in names or files.
    profiles: Option<Vec<Spanned<String>>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawTree {
    repo: Spanned<String>,
    commit: Spanned<String>,
    subfolder: Option<Spanned<String>>,
    as_of: Option<Spanned<String>>,
    committed: Option<Spanned<String>>,
    name: Option<String>,
    note: Option<String>,
    archive_url: Option<Spanned<String>>,
}

/// A package version pinned to its artifact, as `corpus packages` writes it.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPackage {
    registry: Spanned<String>,
    name: Spanned<String>,
    version: Spanned<String>,
    artifact: Spanned<String>,
    url: Spanned<String>,
    digest: Spanned<String>,
    repository: Option<String>,
    commit: Option<Spanned<String>>,
    yanked: Option<String>,
    /// The packages whose family it is: `REGISTRY:NAME@VERSION`, space-separated.
    family: Option<Spanned<String>>,
    /// The server's name (for a registry survey, the registry's name).
    server: Option<String>,
    note: Option<String>,
}

/// Reads the corpus at `path`, or the built-in published corpus when `path` is
/// `None` and there is no `corpus.toml` in the current folder.
pub fn load(path: Option<&Path>) -> Result<Corpus> {
    let (name, text) = match path {
        Some(path) => {
            let text = std::fs::read_to_string(path)
                .map_err(|e| UsageError(format!("reading corpus '{}': {e}", path.display())))?;
            (path.display().to_string(), text)
        }
        None if Path::new("corpus.toml").is_file() => {
            let text = std::fs::read_to_string("corpus.toml")
                .map_err(|e| UsageError(format!("reading corpus 'corpus.toml': {e}")))?;
            ("corpus.toml".to_string(), text)
        }
        None => ("<built-in corpus>".to_string(), PUBLISHED.to_string()),
    };
    Ok(parse(&name, &text)?)
}

/// Says where in a corpus file a mistake is: the file's name and its text, for the
/// line of a span.
struct Place<'a> {
    name: &'a str,
    text: &'a str,
}

impl Place<'_> {
    /// Returns the error `what`, named by the file and the line `span` starts on.
    fn at(&self, span: std::ops::Range<usize>, what: String) -> UsageError {
        UsageError(format!(
            "{}:{}: {what}",
            self.name,
            line_of(self.text, span.start)
        ))
    }

    /// Returns the error `what`, named by the file alone.
    fn file(&self, what: String) -> UsageError {
        UsageError(format!("{}: {what}", self.name))
    }
}

/// Parses and validates corpus `text`; `name` is how errors name the file.
pub fn parse(name: &str, text: &str) -> std::result::Result<Corpus, UsageError> {
    let place = Place { name, text };
    // The parser's message may take several lines ("invalid table header" and
    // "expected `.`, `]`"); an error is one line, so they are joined.
    let raw: RawCorpus = toml::from_str(text).map_err(|e| {
        let message = crate::table::one_line_with(e.message().trim(), "; ");
        match e.span() {
            Some(span) => place.at(span, message),
            None => place.file(message),
        }
    })?;
    let census = raw.census.unwrap_or(RawCensus {
        archive_url: None,
        terms: None,
        controls: None,
        profiles: None,
    });
    let default_url = match &census.archive_url {
        Some(url) => {
            check_template(url.get_ref())
                .map_err(|why| place.at(url.span(), format!("key 'census.archive_url': {why}")))?;
            url.get_ref().clone()
        }
        None => DEFAULT_ARCHIVE_URL.to_string(),
    };
    let terms = term_list(census.terms, &DEFAULT_TERMS);
    let controls = term_list(census.controls, &DEFAULT_CONTROLS);
    check_terms(&place, &terms, &controls)?;
    let mut trees = tree_list(&place, &raw.trees, &default_url)?;
    if !raw.packages.is_empty() {
        trees = with_packages(&place, &raw.trees, &raw.packages, trees)?;
    }
    if trees.is_empty() {
        return Err(place.file("the corpus has no [[tree]] or [[package]]".to_string()));
    }
    let is_dated = trees.iter().any(|t| t.as_of.is_some());
    let not_yet =
        not_yet_list(&raw.no_commit_yet, is_dated).map_err(|(span, why)| place.at(span, why))?;
    let columns = columns_of(&place, terms, controls, &census.profiles, &raw.column)?;
    Ok(Corpus {
        source: name.to_string(),
        columns,
        trees,
        not_yet,
    })
}

/// Checks the term and control lists: no term empty, none twice across both (ASCII
/// case-insensitively), and at least one term.
fn check_terms(
    place: &Place,
    terms: &[Spanned<String>],
    controls: &[Spanned<String>],
) -> std::result::Result<(), UsageError> {
    let mut seen: HashMap<String, &'static str> = HashMap::new();
    for (key, list) in [("census.terms", terms), ("census.controls", controls)] {
        for term in list {
            if term.get_ref().is_empty() {
                return Err(place.at(term.span(), format!("key '{key}': a term is empty")));
            }
            let folded = term.get_ref().to_ascii_lowercase();
            if let Some(first) = seen.get(&folded) {
                return Err(place.at(
                    term.span(),
                    format!(
                        "key '{key}': '{}' is already in '{first}' (terms compare ASCII case-insensitively)",
                        term.get_ref()
                    ),
                ));
            }
            seen.insert(folded, key);
        }
    }
    if terms.is_empty() {
        return Err(place.file("key 'census.terms': the list is empty".to_string()));
    }
    Ok(())
}

/// Returns the trees, each checked, in corpus order: no tree twice, and either every
/// tree has a date or none has (a table has one schema).
fn tree_list(
    place: &Place,
    raw: &[Spanned<RawTree>],
    default_url: &str,
) -> std::result::Result<Vec<Tree>, UsageError> {
    let mut trees: Vec<Tree> = Vec::with_capacity(raw.len());
    // Trees by their key, compared as the archive host compares them.
    let mut keys: HashMap<TreeKey, usize> = HashMap::with_capacity(raw.len());
    let mut first_dated: Option<(usize, bool)> = None;
    for (i, raw_tree) in raw.iter().enumerate() {
        let whole = raw_tree.span();
        let raw_tree = raw_tree.get_ref();
        let number = i + 1;
        let checked = tree_key(place, number, raw_tree)?;
        let key = &checked.key;
        let is_dated = key.as_of.is_some();
        match first_dated {
            None => first_dated = Some((number, is_dated)),
            Some((first, was_dated)) if was_dated != is_dated => {
                let (with, without) = if was_dated {
                    (first, number)
                } else {
                    (number, first)
                };
                return Err(place.at(
                    whole,
                    format!(
                        "tree {number}: tree {with} has an 'as_of' date and tree {without} has none; \
                         either every tree has one or none has"
                    ),
                ));
            }
            Some(_) => {}
        }
        let folded = TreeKey {
            repo: key.repo.to_ascii_lowercase(),
            pinned: key.pinned.as_deref().map(str::to_ascii_lowercase),
            ..key.clone()
        };
        if let Some(first) = keys.get(&folded) {
            return Err(place.at(
                whole,
                format!(
                    "tree {number}: '{}' is already tree {}",
                    key.label(),
                    first + 1
                ),
            ));
        }
        keys.insert(folded, i);
        trees.push(tree_of(place, number, raw_tree, checked, default_url)?);
    }
    Ok(trees)
}

/// Returns `trees` and the corpus's packages in the order the file lists them
/// (a package is a tree too); no package twice, and none in a dated corpus.
fn with_packages(
    place: &Place,
    raw_trees: &[Spanned<RawTree>],
    raw_packages: &[Spanned<RawPackage>],
    trees: Vec<Tree>,
) -> std::result::Result<Vec<Tree>, UsageError> {
    if let Some(dated) = trees.iter().find(|t| t.as_of.is_some()) {
        return Err(place.file(format!(
            "the trees have 'as_of' dates ('{}'), and a package has none; a dated corpus \
             holds repositories only",
            dated.label()
        )));
    }
    let mut keys: HashMap<TreeKey, usize> = trees
        .iter()
        .enumerate()
        .map(|(i, t)| (t.key(), i))
        .collect();
    let mut placed: Vec<(usize, Tree)> = raw_trees
        .iter()
        .map(|t| t.span().start)
        .zip(trees)
        .collect();
    for (i, spanned) in raw_packages.iter().enumerate() {
        let number = i + 1;
        let tree = package_of(place, number, spanned.get_ref())?;
        let folded = TreeKey {
            repo: tree.repo.to_ascii_lowercase(),
            ..tree.key()
        };
        if keys.insert(folded, i).is_some() {
            return Err(place.at(
                spanned.span(),
                format!(
                    "package {number}: '{}' is already in the corpus",
                    tree.label()
                ),
            ));
        }
        placed.push((spanned.span().start, tree));
    }
    placed.sort_by_key(|(at, _)| *at);
    Ok(placed.into_iter().map(|(_, tree)| tree).collect())
}

/// Returns package `number` (counted from 1), each key checked.
fn package_of(
    place: &Place,
    number: usize,
    raw: &RawPackage,
) -> std::result::Result<Tree, UsageError> {
    let at = |span: std::ops::Range<usize>, key: &str, why: String| {
        place.at(span, format!("package {number}: key '{key}': {why}"))
    };
    let Some(kind) = registry::Kind::parse(raw.registry.get_ref()) else {
        return Err(at(
            raw.registry.span(),
            "registry",
            format!("'{}' is neither npm nor pypi", raw.registry.get_ref()),
        ));
    };
    let name = raw.name.get_ref();
    let is_name = match kind {
        registry::Kind::Npm => registry::npm::is_valid_name(name),
        registry::Kind::Pypi => registry::pypi::is_valid_name(name),
    };
    if !is_name {
        let why = format!("'{name}' is not a {} package name", kind.as_str());
        return Err(at(raw.name.span(), "name", why));
    }
    let version = raw.version.get_ref();
    let is_version = !version.is_empty()
        && version.len() <= 128
        && !matches!(version.as_str(), "." | "..")
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+-!".contains(&b));
    if !is_version {
        let why = format!("'{version}' is not a version");
        return Err(at(raw.version.span(), "version", why));
    }
    let artifact = raw.artifact.get_ref();
    if !crate::fetch::is_file_name(artifact) {
        let why = format!("'{artifact}' is not a file name");
        return Err(at(raw.artifact.span(), "artifact", why));
    }
    let url = raw.url.get_ref();
    if !(url.starts_with("https://") || url.starts_with("http://")) {
        let why = format!("'{url}' is not an http(s) URL");
        return Err(at(raw.url.span(), "url", why));
    }
    let Some(digest) = Digest::parse(raw.digest.get_ref()) else {
        let why = format!(
            "'{}' is neither 'sha512-BASE64' (or sha256, sha1) nor 'sha256:HEX'",
            raw.digest.get_ref()
        );
        return Err(at(raw.digest.span(), "digest", why));
    };
    let commit = match &raw.commit {
        Some(commit) => match Commit::parse(commit.get_ref()) {
            Some(c) => Some(c.to_string()),
            None => {
                let why = format!("'{}' is not 4 to 40 hex digits", commit.get_ref());
                return Err(at(commit.span(), "commit", why));
            }
        },
        None => None,
    };
    let family = match &raw.family {
        Some(family) => {
            let is_key = |key: &str| {
                let name = key.strip_prefix(&format!("{}:", kind.as_str()))?;
                let (name, version) = name[1.min(name.len())..]
                    .rsplit_once('@')
                    .map(|(_, v)| (&name[..name.len() - v.len() - 1], v))?;
                let is_name = match kind {
                    registry::Kind::Npm => registry::npm::is_valid_name(name),
                    registry::Kind::Pypi => registry::pypi::is_valid_name(name),
                };
                (is_name && !version.is_empty()).then_some(())
            };
            let text = family.get_ref();
            if text.split(' ').any(|key| is_key(key).is_none()) {
                let why = format!(
                    "'{text}' is not one or more '{}:NAME@VERSION', space-separated",
                    kind.as_str()
                );
                return Err(at(family.span(), "family", why));
            }
            Some(text.clone())
        }
        None => None,
    };
    Ok(Tree {
        repo: format!("{}:{name}", kind.as_str()),
        pin: Pin::Package(Box::new(Package {
            registry: kind,
            name: name.clone(),
            version: version.clone(),
            artifact: artifact.clone(),
            digest,
            repository: raw.repository.clone().filter(|r| !r.is_empty()),
            commit,
            yanked: raw.yanked.clone(),
            family,
        })),
        subfolder: None,
        as_of: None,
        committed: None,
        name: raw.server.clone(),
        note: raw.note.clone(),
        archive_url: url.clone(),
    })
}

/// Returns the key of tree `number` (counted from 1), its repository, commit,
/// subfolder and date checked.
fn tree_key(
    place: &Place,
    number: usize,
    raw: &RawTree,
) -> std::result::Result<Checked, UsageError> {
    let repo = raw.repo.get_ref();
    if !is_repo(repo) {
        return Err(place.at(
            raw.repo.span(),
            format!("tree {number}: key 'repo': '{repo}' is not of the form 'owner/name'"),
        ));
    }
    let Some(commit) = Commit::parse(raw.commit.get_ref()) else {
        let commit = raw.commit.get_ref();
        return Err(place.at(
            raw.commit.span(),
            format!("tree {number} ('{repo}'): key 'commit': '{commit}' is not 4 to 40 hex digits"),
        ));
    };
    let subfolder = match &raw.subfolder {
        Some(sub) => {
            check_subfolder(sub.get_ref()).map_err(|why| {
                place.at(
                    sub.span(),
                    format!("tree {number} ('{repo}'): key 'subfolder': {why}"),
                )
            })?;
            Some(sub.get_ref().clone())
        }
        None => None,
    };
    let as_of = match &raw.as_of {
        Some(date) => Some(Date::parse(date.get_ref()).map_err(|why| {
            place.at(
                date.span(),
                format!("tree {number} ('{repo}'): key 'as_of': {why}"),
            )
        })?),
        None => None,
    };
    let key = TreeKey {
        repo: repo.clone(),
        pinned: Some(commit.to_string()),
        subfolder,
        as_of: as_of.as_ref().map(Date::to_string),
    };
    Ok(Checked { key, commit, as_of })
}

/// Holds what [`tree_key`] checked of a tree: its key, and its commit and date
/// parsed.
struct Checked {
    key: TreeKey,
    commit: Commit,
    as_of: Option<Date>,
}

/// Returns tree `number`, `checked`: its archive URL filled in from its template (or
/// `default_url`) and its commit time read.
fn tree_of(
    place: &Place,
    number: usize,
    raw: &RawTree,
    checked: Checked,
    default_url: &str,
) -> std::result::Result<Tree, UsageError> {
    let Checked { key, commit, as_of } = checked;
    let repo = &key.repo;
    let template = match &raw.archive_url {
        Some(url) => {
            check_template(url.get_ref()).map_err(|why| {
                place.at(
                    url.span(),
                    format!("tree {number} ('{repo}'): key 'archive_url': {why}"),
                )
            })?;
            url.get_ref().as_str()
        }
        None => default_url,
    };
    let (owner, short) = repo.split_once('/').unwrap_or((repo, ""));
    let archive_url = template
        .replace("{repo}", repo)
        .replace("{owner}", owner)
        .replace("{name}", short)
        .replace("{commit}", commit.as_str());
    let committed = match &raw.committed {
        Some(time) => Some(utc_time(time).map_err(|why| {
            place.at(
                time.span(),
                format!("tree {number} ('{repo}'): key 'committed': {why}"),
            )
        })?),
        None => None,
    };
    Ok(Tree {
        repo: key.repo,
        pin: Pin::Commit(commit),
        subfolder: key.subfolder,
        as_of,
        committed,
        name: raw.name.clone(),
        note: raw.note.clone(),
        archive_url,
    })
}

/// Returns the table's columns: the terms and controls, then the columns of the
/// spelling profiles named and of the corpus's own `[[column]]`s.
fn columns_of(
    place: &Place,
    terms: Vec<Spanned<String>>,
    controls: Vec<Spanned<String>>,
    profiles: &Option<Vec<Spanned<String>>>,
    raw_columns: &[RawColumn],
) -> std::result::Result<Columns, UsageError> {
    let terms: Vec<String> = terms.into_iter().map(Spanned::into_inner).collect();
    let controls: Vec<String> = controls.into_iter().map(Spanned::into_inner).collect();
    let mut columns = Columns::new(&terms, &controls)
        .map_err(|why| place.file(format!("key 'census.terms': {why}")))?;
    let mut profile = Vec::new();
    for spec in profiles.iter().flatten() {
        let added = terms::load_profile(spec.get_ref())
            .map_err(|e| place.at(spec.span(), format!("key 'census.profiles': {e}")))?;
        profile.extend(added);
    }
    for raw_column in raw_columns {
        let column =
            terms::profile_column(raw_column).map_err(|(span, why)| place.at(span, why))?;
        profile.push(column);
    }
    if !profile.is_empty() {
        columns = columns
            .with_profile(profile)
            .map_err(|why| place.file(why.to_string()))?;
    }
    Ok(columns)
}

/// Returns the `[[no_commit_yet]]` entries, checked and sorted; they belong to a
/// dated corpus only. The error gives the span it is about.
fn not_yet_list(
    raw: &[Spanned<RawNotYet>],
    is_dated: bool,
) -> std::result::Result<Vec<NotYet>, (std::ops::Range<usize>, String)> {
    let mut out = Vec::with_capacity(raw.len());
    for (i, entry) in raw.iter().enumerate() {
        let whole = entry.span();
        let entry = entry.get_ref();
        let what = format!("no_commit_yet {}", i + 1);
        if !is_dated {
            return Err((whole, format!("{what}: the trees have no 'as_of' date")));
        }
        let repo = entry.repo.get_ref();
        if !is_repo(repo) {
            let why = format!("{what}: key 'repo': '{repo}' is not of the form 'owner/name'");
            return Err((entry.repo.span(), why));
        }
        let subfolder = match &entry.subfolder {
            Some(sub) => {
                check_subfolder(sub.get_ref())
                    .map_err(|why| (sub.span(), format!("{what}: key 'subfolder': {why}")))?;
                sub.get_ref().clone()
            }
            None => String::new(),
        };
        crate::infra::date::parse_arg(entry.as_of.get_ref())
            .map_err(|why| (entry.as_of.span(), format!("{what}: key 'as_of': {why}")))?;
        let first_commit = utc_time(&entry.first_commit).map_err(|why| {
            (
                entry.first_commit.span(),
                format!("{what}: key 'first_commit': {why}"),
            )
        })?;
        out.push(NotYet {
            repo: repo.clone(),
            subfolder,
            as_of: entry.as_of.get_ref().clone(),
            first_commit,
        });
    }
    out.sort();
    out.dedup();
    Ok(out)
}

/// Reads a UTC time written `YYYY-MM-DDTHH:MM:SSZ`, as a dated corpus writes them.
fn utc_time(text: &Spanned<String>) -> std::result::Result<i64, String> {
    crate::infra::date::parse_utc(text.get_ref()).ok_or_else(|| {
        format!(
            "'{}' is not a UTC time YYYY-MM-DDTHH:MM:SSZ",
            text.get_ref()
        )
    })
}

fn term_list(given: Option<Vec<Spanned<String>>>, default: &[&str]) -> Vec<Spanned<String>> {
    given.unwrap_or_else(|| {
        default
            .iter()
            .map(|t| Spanned::new(0..0, t.to_string()))
            .collect()
    })
}

/// Returns true for an owner or a repository name made of the characters GitHub
/// allows: ASCII letters, digits, `-`, `_` and `.`, and neither `.` nor `..`.
pub fn is_repo_part(part: &str) -> bool {
    !part.is_empty()
        && part != "."
        && part != ".."
        && part
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(&b))
}

/// Returns true for `owner/name` made of the characters GitHub allows.
fn is_repo(repo: &str) -> bool {
    matches!(repo.split_once('/'), Some((owner, name)) if is_repo_part(owner) && is_repo_part(name))
}

/// Checks an archive URL template: http(s), and no placeholder but the four known.
fn check_template(url: &str) -> std::result::Result<(), String> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Err(format!("'{url}' is not an http:// or https:// URL"));
    }
    let mut rest = url;
    while let Some(open) = rest.find('{') {
        let close = rest[open..]
            .find('}')
            .ok_or_else(|| format!("'{url}' has a '{{' that is never closed"))?;
        let key = &rest[open + 1..open + close];
        if !["repo", "owner", "name", "commit"].contains(&key) {
            return Err(format!(
                "'{url}' has the unknown placeholder '{{{key}}}' (known: {{repo}}, {{owner}}, {{name}}, {{commit}})"
            ));
        }
        rest = &rest[open + close + 1..];
    }
    Ok(())
}

impl Shard {
    /// Returns the corpus restricted to this shard's trees, in corpus order.
    pub fn select(self, corpus: &Corpus) -> Corpus {
        Corpus {
            source: corpus.source.clone(),
            columns: corpus.columns.clone(),
            trees: corpus
                .trees
                .iter()
                .skip(self.k - 1)
                .step_by(self.n)
                .cloned()
                .collect(),
            // The dates' facts are the corpus's: every shard reports them whole.
            not_yet: corpus.not_yet.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::infra::shard::ShardSpec;

    fn err(text: &str) -> String {
        parse("c.toml", text).unwrap_err().to_string()
    }

    #[test]
    fn a_toml_syntax_error_is_one_line_naming_the_file_and_line() {
        let msg = err("[census]\n[census\nx = 1\n");
        assert!(!msg.contains('\n'), "{msg:?}");
        assert!(msg.starts_with("c.toml:2: "), "{msg:?}");
        assert!(msg.contains("invalid table header"), "{msg:?}");
        assert!(msg.contains("; expected"), "{msg:?}");
    }

    #[test]
    fn the_published_corpus_is_valid() {
        let corpus = parse("corpus.toml", PUBLISHED).unwrap();
        assert_eq!(corpus.columns.terms(), DEFAULT_TERMS);
        assert_eq!(corpus.columns.controls(), DEFAULT_CONTROLS);
        assert_eq!(corpus.trees.len(), 8);
        assert_eq!(corpus.trees[0].repo, "modelcontextprotocol/servers");
        assert_eq!(
            corpus.trees[0].archive_url,
            "https://codeload.github.com/modelcontextprotocol/servers/tar.gz/d73f99e"
        );
    }

    #[test]
    fn templates_are_filled_per_tree() {
        let c = parse(
            "c.toml",
            "[census]\narchive_url = \"http://127.0.0.1:9/{owner}/{name}/{commit}.tgz\"\n\
             [[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n\
             [[tree]]\nrepo = \"c/d\"\ncommit = \"ABCDEF\"\narchive_url = \"http://m/{repo}\"\n",
        )
        .unwrap();
        assert_eq!(c.trees[0].archive_url, "http://127.0.0.1:9/a/b/abcd.tgz");
        assert_eq!(c.trees[1].archive_url, "http://m/c/d");
    }

    #[test]
    fn mistakes_name_the_line_and_the_key() {
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\ncomit = \"x\"\n");
        assert!(e.starts_with("c.toml:4:") && e.contains("comit"), "{e}");
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"xyz1\"\n");
        assert!(
            e.starts_with("c.toml:3:") && e.contains("'commit'") && e.contains("xyz1"),
            "{e}"
        );
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abc\"\n");
        assert!(e.contains("4 to 40 hex digits"), "{e}");
        let e = err("[[tree]]\nrepo = \"ab\"\ncommit = \"abcd\"\n");
        assert!(
            e.starts_with("c.toml:2:") && e.contains("owner/name"),
            "{e}"
        );
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n[[tree]]\nrepo = \"a/b\"\ncommit = \"ABCD\"\n");
        assert!(
            e.starts_with("c.toml:4:") && e.contains("already tree 1"),
            "{e}"
        );
        let e =
            err("[census]\nterms = [\"x\", \"\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(e.starts_with("c.toml:2:") && e.contains("empty"), "{e}");
        let e = err("[census]\nterms = [\"ReadOnlyHint\"]\ncontrols = [\"readonlyhint\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(
            e.starts_with("c.toml:3:") && e.contains("census.controls"),
            "{e}"
        );
        let e = err("[census]\narchive_url = \"https://x/{sha}\"\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(e.starts_with("c.toml:2:") && e.contains("{sha}"), "{e}");
        let e = err("[census]\n");
        assert!(e.contains("no [[tree]]"), "{e}");
    }

    #[test]
    fn shards_parse_and_cover_the_corpus_once() {
        let given = |t: &str| t.parse::<ShardSpec>();
        assert_eq!(given("2/3"), Ok(ShardSpec::Given(Shard { k: 2, n: 3 })));
        assert_eq!(given("env"), Ok(ShardSpec::FromEnv { n: None }));
        assert_eq!(given("env/4"), Ok(ShardSpec::FromEnv { n: Some(4) }));
        for bad in ["0/3", "4/3", "3", "a/b", "1/0", "env/0", "envy"] {
            assert!(given(bad).is_err(), "{bad}");
        }
        let corpus = parse("c", PUBLISHED).unwrap();
        let mut seen: Vec<String> = (1..=3)
            .flat_map(|k| Shard { k, n: 3 }.select(&corpus).trees)
            .map(|t| t.label())
            .collect();
        seen.sort();
        let mut all: Vec<String> = corpus.trees.iter().map(|t| t.label()).collect();
        all.sort();
        assert_eq!(seen, all);
    }

    #[test]
    fn shards_come_from_the_engines_variables() {
        fn env<'p>(pairs: &'p [(&str, &str)]) -> impl Fn(&str) -> Option<String> + 'p {
            move |name| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        }
        let from_env = ShardSpec::FromEnv { n: None };
        let slurm = [
            ("SLURM_ARRAY_TASK_ID", "7"),
            ("SLURM_ARRAY_TASK_MIN", "5"),
            ("SLURM_ARRAY_TASK_COUNT", "4"),
        ];
        assert_eq!(from_env.resolve(env(&slurm)).unwrap(), Shard { k: 3, n: 4 });
        let aws = [
            ("AWS_BATCH_JOB_ARRAY_INDEX", "0"),
            ("AWS_BATCH_JOB_ARRAY_SIZE", "2"),
        ];
        assert_eq!(from_env.resolve(env(&aws)).unwrap(), Shard { k: 1, n: 2 });
        let k8s = [("JOB_COMPLETION_INDEX", "4")];
        let e = from_env.resolve(env(&k8s)).unwrap_err().to_string();
        assert!(e.contains("env/N"), "{e}");
        assert_eq!(
            ShardSpec::FromEnv { n: Some(5) }
                .resolve(env(&k8s))
                .unwrap(),
            Shard { k: 5, n: 5 }
        );
        let e = ShardSpec::FromEnv { n: Some(4) }
            .resolve(env(&k8s))
            .unwrap_err()
            .to_string();
        assert!(e.contains("Kubernetes") && e.contains("5 of 4"), "{e}");
        let e = from_env.resolve(env(&[])).unwrap_err().to_string();
        assert!(e.contains("SLURM_ARRAY_TASK_ID"), "{e}");
        // Grid Engine: tasks 3, 5, 7, 9 of `-t 3-9:2`; task 7 is the third of four.
        let sge = [
            ("SGE_TASK_ID", "7"),
            ("SGE_TASK_FIRST", "3"),
            ("SGE_TASK_LAST", "9"),
            ("SGE_TASK_STEPSIZE", "2"),
        ];
        assert_eq!(from_env.resolve(env(&sge)).unwrap(), Shard { k: 3, n: 4 });
        let off_step = [
            ("SGE_TASK_ID", "4"),
            ("SGE_TASK_FIRST", "3"),
            ("SGE_TASK_LAST", "9"),
            ("SGE_TASK_STEPSIZE", "2"),
        ];
        let e = from_env.resolve(env(&off_step)).unwrap_err().to_string();
        assert!(e.contains("SGE_TASK_ID 4"), "{e}");
        // Outside an array Grid Engine says `undefined` and LSF says 0: the next
        // engine's variables are read.
        let plain = [
            ("SGE_TASK_ID", "undefined"),
            ("LSB_JOBINDEX", "0"),
            ("PBS_ARRAYID", "2"),
        ];
        let e = from_env.resolve(env(&plain)).unwrap_err().to_string();
        assert!(e.contains("PBS_ARRAYID") && e.contains("env/N"), "{e}");
        assert_eq!(
            ShardSpec::FromEnv { n: Some(3) }
                .resolve(env(&plain))
                .unwrap(),
            Shard { k: 2, n: 3 }
        );
        let lsf = [("LSB_JOBINDEX", "4"), ("LSB_JOBINDEX_END", "6")];
        assert_eq!(from_env.resolve(env(&lsf)).unwrap(), Shard { k: 4, n: 6 });
        let pbs = [("PBS_ARRAY_INDEX", "5")];
        let e = ShardSpec::FromEnv { n: Some(4) }
            .resolve(env(&pbs))
            .unwrap_err()
            .to_string();
        assert!(e.contains("PBS") && e.contains("5 of 4"), "{e}");
        let e = from_env
            .resolve(env(&[("SLURM_ARRAY_TASK_ID", "x")]))
            .unwrap_err()
            .to_string();
        assert!(e.contains("'x'"), "{e}");
    }

    #[test]
    fn profiles_add_columns_from_a_built_in_name_or_the_corpus() {
        let c = parse(
            "c.toml",
            "[census]\nprofiles = [\"sdk\"]\n[[column]]\nname = \"mine\"\nexact = [\"X\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n",
        )
        .unwrap();
        let names: Vec<&str> = c.columns.names().collect();
        assert_eq!(
            names[4..],
            [
                "readOnlyHint_sdk",
                "destructiveHint_sdk",
                "idempotentHint_sdk",
                "openWorldHint_sdk",
                "mine",
                "annotations"
            ]
        );
        let e =
            err("[census]\nprofiles = [\"nope\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(e.starts_with("c.toml:2:") && e.contains("nope"), "{e}");
        let e = err("[[column]]\nname = \"x\"\ninsensitive = [\"ab\", \"xaby\"]\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n");
        assert!(
            e.starts_with("c.toml:3:") && e.contains("'ab' and 'xaby'"),
            "{e}"
        );
    }

    #[test]
    fn subfolders_are_plain_relative_paths() {
        for good in ["a", "src/mcp", "a.b/c-d_e"] {
            assert_eq!(check_subfolder(good), Ok(()), "{good}");
        }
        for bad in [
            "", "/a", "a/", "a//b", "./a", "a/../b", "..", "a\\b", "a\nb",
        ] {
            assert!(check_subfolder(bad).is_err(), "{bad:?}");
        }
        let c = parse("c.toml", "[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\nsubfolder = \"x\"\nname = \"io.github.a/x\"\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\nsubfolder = \"y\"\n[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n").unwrap();
        assert_eq!(c.trees.len(), 3);
        assert_eq!(c.trees[0].label(), "a/b@abcd:x");
        assert_eq!(c.trees[0].name.as_deref(), Some("io.github.a/x"));
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\nsubfolder = \"x\"\n[[tree]]\nrepo = \"A/b\"\ncommit = \"ABCD\"\nsubfolder = \"x\"\n");
        assert!(
            e.starts_with("c.toml:5:") && e.contains("already tree 1"),
            "{e}"
        );
        let e = err("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\nsubfolder = \"../x\"\n");
        assert!(e.starts_with("c.toml:4:") && e.contains("subfolder"), "{e}");
    }

    #[test]
    fn dated_trees_differ_by_date_and_never_mix_with_undated_ones() {
        let tree = |date: &str| {
            format!("[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\nas_of = \"{date}\"\n")
        };
        let c = parse("c.toml", &(tree("2025-06-01") + &tree("2025-09-01"))).unwrap();
        assert!(c.is_dated());
        assert_eq!(c.trees[1].as_of, Some(Date::parse("2025-09-01").unwrap()));
        assert_eq!(c.trees[0].label(), "a/b@abcd as of 2025-06-01");
        assert_ne!(c.trees[0].key(), c.trees[1].key());
        let e = err(&(tree("2025-06-01") + &tree("2025-06-01")));
        assert!(
            e.starts_with("c.toml:5:") && e.contains("already tree 1"),
            "{e}"
        );
        let e = err(&tree("2025-02-29"));
        assert!(e.starts_with("c.toml:4:") && e.contains("as_of"), "{e}");
        let e = err(&(tree("2025-06-01") + "[[tree]]\nrepo = \"c/d\"\ncommit = \"abcd\"\n"));
        assert!(
            e.starts_with("c.toml:5:")
                && e.contains("tree 1 has an 'as_of' date and tree 2 has none"),
            "{e}"
        );
        assert!(!parse("c.toml", PUBLISHED).unwrap().is_dated());
    }

    #[test]
    fn a_dated_corpus_records_commit_times_and_dates_with_no_commit_yet() {
        let text = "[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\nas_of = \"2025-06-01\"\n\
                    committed = \"2025-05-31T12:00:00Z\"\n\n\
                    [[no_commit_yet]]\nrepo = \"c/d\"\nsubfolder = \"srv\"\nas_of = \"2025-06-01\"\n\
                    first_commit = \"2025-06-15T08:00:00Z\"\n\n\
                    [[no_commit_yet]]\nrepo = \"c/d\"\nsubfolder = \"srv\"\nas_of = \"2025-01-01\"\n\
                    first_commit = \"2025-06-15T08:00:00Z\"\n";
        let c = parse("c.toml", text).unwrap();
        // 1748692800 is 2025-05-31T12:00:00Z, 1749974400 2025-06-15T08:00:00Z.
        assert_eq!(c.trees[0].committed, Some(1_748_692_800));
        let gap = |as_of: &str| NotYet {
            repo: "c/d".into(),
            subfolder: "srv".into(),
            as_of: as_of.into(),
            first_commit: 1_749_974_400,
        };
        let dating = c.dating();
        assert_eq!(dating.not_yet, [gap("2025-01-01"), gap("2025-06-01")]);
        assert_eq!(
            dating.committed.get(&c.trees[0].key()),
            Some(&1_748_692_800)
        );
        let shard = Shard { k: 2, n: 2 }.select(&c);
        assert!(shard.trees.is_empty() && shard.not_yet == c.not_yet);

        let undated = "[[tree]]\nrepo = \"a/b\"\ncommit = \"abcd\"\n\n[[no_commit_yet]]\n\
                       repo = \"c/d\"\nas_of = \"2025-01-01\"\nfirst_commit = \"2025-06-15T08:00:00Z\"\n";
        let e = err(undated);
        assert!(
            e.starts_with("c.toml:5:") && e.contains("no 'as_of' date"),
            "{e}"
        );
        let e = err(&text.replace("2025-05-31T12:00:00Z", "2025-05-31 12:00:00"));
        assert!(
            e.starts_with("c.toml:5:") && e.contains("key 'committed'"),
            "{e}"
        );
        let e = err(&text.replacen("2025-06-15T08:00:00Z", "soon", 1));
        assert!(
            e.starts_with("c.toml:11:") && e.contains("key 'first_commit'"),
            "{e}"
        );
        let e = err(&text.replacen("subfolder = \"srv\"", "subfolder = \"../x\"", 1));
        assert!(e.starts_with("c.toml:9:") && e.contains("subfolder"), "{e}");
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// Any text, however broken, parses or fails with a message naming the
        /// file; it never panics.
        #[test]
        fn arbitrary_text_never_panics(text in "\\PC{0,400}") {
            if let Err(e) = parse("f.toml", &text) {
                proptest::prop_assert!(e.to_string().starts_with("f.toml"), "{}", e);
            }
        }

        /// Mutations of a valid corpus (the published one cut, spliced and with
        /// bytes replaced) never panic either.
        #[test]
        fn mutated_corpora_never_panic(
            cut in 0usize..2200,
            at in 0usize..2200,
            insert in "[\\[\\]=\"'\\n a-z0-9{}/.#\u{0}-\u{1f}é]{0,12}",
        ) {
            let text = PUBLISHED;
            let cut = floor_char(text, cut.min(text.len()));
            let at = floor_char(text, at.min(text.len()));
            let mutated = format!("{}{}{}", &text[..at.min(cut)], insert, &text[cut.max(at)..]);
            if let Err(e) = parse("f.toml", &mutated) {
                proptest::prop_assert!(e.to_string().starts_with("f.toml"), "{}", e);
            }
        }
    }

    /// Returns the largest char boundary at or below `i`.
    fn floor_char(text: &str, mut i: usize) -> usize {
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        i
    }
}
