//! The tree's own packages: where a module that an import names by package rather
//! than by relative path lands among the tree's files (docs/method.md, "How hints
//! are resolved").
//!
//! - Go: an import path under a module a `go.mod` of the tree declares, or one a
//!   `replace` (of a `go.mod` or a `go.work`) maps to a folder of the tree, is that
//!   folder's package;
//! - Python: an absolute module (`from app.tools.presets import X`) is looked for
//!   under each folder from the importing file's own up to the tree's top, under
//!   their `src/` (a package root, the `src/` layout), and under the package roots
//!   a `pyproject.toml` there declares;
//! - TypeScript and JavaScript: a bare specifier matched by the `paths` (or read
//!   under the `baseUrl`) of the nearest `tsconfig.json` or `jsconfig.json`, and
//!   the name of a workspace package (a `package.json` of the tree, its `exports`,
//!   `main`, `module` or `types`, and their sources under `src/`).
//!
//! Manifests are read from bytes as they arrive and kept small (see [`manifests`](super::manifests)); nothing here
//! follows a path out of the tree (a `replace` to `../outside` is dropped) and every
//! walk is bounded.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use super::manifests::Manifest;
use super::model::Family;
pub(crate) use super::paths::{extension, extension_as_written, join, parent};

/// At most this many `extends` are followed from one `tsconfig.json`.
const MAX_EXTENDS: usize = 8;

/// What a `go.mod` says of the MCP SDK it requires (see `Manifest::GoMod`).
#[derive(Clone, Copy, Debug)]
struct GoMod {
    /// The official Go SDK it requires sends a `false` hint.
    sends_false: bool,
    /// The SDK it requires: the official one, else mcp-go.
    sdk: Option<Family>,
}

/// The tree's packages, from its manifests: where a [`Spec::Package`] lands.
#[derive(Default)]
pub(crate) struct Layout {
    /// Go module path → the folder it is at, longest path first.
    go_modules: Vec<(String, Vec<u8>)>,
    /// Folder of a `go.mod` → what it says of the SDK it requires.
    go_mods: BTreeMap<Vec<u8>, GoMod>,
    /// Folder → the Go files the tree holds there, in path order.
    go_files: BTreeMap<Vec<u8>, Vec<Vec<u8>>>,
    /// Folder → the `tsconfig.json` or `jsconfig.json` there, resolved (its
    /// `extends` followed).
    ts_configs: BTreeMap<Vec<u8>, Resolved>,
    /// A Python file's or folder's name → the folders holding it: where an
    /// absolute import of a module of that first element may be rooted.
    py_roots: HashMap<String, BTreeSet<Vec<u8>>>,
    /// Folder of a `pyproject.toml` → the package roots it declares.
    py_projects: HashMap<Vec<u8>, Vec<Vec<u8>>>,
    /// Workspace packages by name: folder and exports (subpath → target); the
    /// first in path order of two of one name.
    packages: HashMap<String, Workspace>,
}

/// A `package.json` of the tree: its folder and exports (subpath → target).
type Workspace = (Vec<u8>, Vec<(String, String)>);

/// A `tsconfig.json` with what it extends applied.
#[derive(Default)]
struct Resolved {
    base_url: Option<Vec<u8>>,
    /// Patterns and targets, joined to the folder they are relative to.
    paths: Vec<(String, Vec<Vec<u8>>)>,
}

impl Layout {
    /// Builds the layout from the manifests and the paths of every file the
    /// resolver may meet.
    pub(crate) fn new<'p>(
        manifests: &BTreeMap<Vec<u8>, Manifest>,
        paths: impl Iterator<Item = &'p [u8]>,
    ) -> Layout {
        let mut layout = Layout::default();
        let mut paths_py = Vec::new();
        for path in paths {
            if matches!(extension(path).as_slice(), b"py" | b"pyi") {
                paths_py.push(path);
                continue;
            }
            if extension(path) != b"go" {
                continue;
            }
            layout
                .go_files
                .entry(parent(path).to_vec())
                .or_default()
                .push(path.to_vec());
        }
        for path in paths_py.iter() {
            // `a/b/c.py` roots `a` at the top, `b` at `a`, `c` at `a/b`.
            let mut root: &[u8] = b"";
            for part in path.split(|&b| b == b'/') {
                let name = part
                    .strip_suffix(b".py")
                    .or_else(|| part.strip_suffix(b".pyi"))
                    .unwrap_or(part);
                if let Ok(name) = std::str::from_utf8(name) {
                    layout
                        .py_roots
                        .entry(name.to_string())
                        .or_default()
                        .insert(root.to_vec());
                }
                root = &path
                    [..(root.len() + part.len() + usize::from(!root.is_empty())).min(path.len())];
            }
        }
        for files in layout.go_files.values_mut() {
            files.sort();
            files.dedup();
        }
        for (path, manifest) in manifests {
            let dir = parent(path);
            match manifest {
                Manifest::GoMod {
                    module,
                    replaced,
                    sends_false,
                    sdk,
                } => {
                    if path.ends_with(b"go.mod") {
                        let go_mod = GoMod {
                            sends_false: *sends_false,
                            sdk: *sdk,
                        };
                        layout.go_mods.insert(dir.to_vec(), go_mod);
                    }
                    if let Some(m) = module {
                        layout.go_modules.push((m.clone(), dir.to_vec()));
                    }
                    layout.go_modules.extend(replaced.iter().cloned());
                }
                Manifest::Package { name, exports } => {
                    layout
                        .packages
                        .entry(name.clone())
                        .or_insert_with(|| (dir.to_vec(), exports.clone()));
                }
                Manifest::PyProject { roots } => {
                    layout.py_projects.insert(dir.to_vec(), roots.clone());
                }
                Manifest::TsConfig(_) => {
                    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
                    if matches!(name, b"tsconfig.json" | b"jsconfig.json") {
                        let resolved = resolve_config(manifests, path);
                        let slot = layout.ts_configs.entry(dir.to_vec()).or_default();
                        // `tsconfig.json` over `jsconfig.json` in one folder.
                        if name == b"tsconfig.json" || slot.paths.is_empty() {
                            *slot = resolved;
                        }
                    }
                }
            }
        }
        layout
            .go_modules
            .sort_by(|a, b| b.0.len().cmp(&a.0.len()).then(a.cmp(b)));
        layout
    }

    /// Returns the paths a module named by package may be at, seen from the file at
    /// `from`, in the order they are tried; none when the tree does not hold it.
    pub(crate) fn paths(&self, from: &[u8], package: &str) -> Vec<Vec<u8>> {
        match extension(from).as_slice() {
            b"go" => self.go_package(package),
            b"py" | b"pyi" => python_module(from, package, &self.py_roots, &self.py_projects),
            ext if is_script(ext) => self
                .js_stems(from, package)
                .iter()
                .flat_map(|stem| script_paths(stem))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Returns the Go files of the folder an import path names.
    fn go_package(&self, import: &str) -> Vec<Vec<u8>> {
        for (module, dir) in &self.go_modules {
            let rest = match import.strip_prefix(module.as_str()) {
                Some("") => "",
                Some(rest) if rest.starts_with('/') => &rest[1..],
                _ => continue,
            };
            if let Some(folder) = join(dir, rest) {
                return self.go_files.get(&folder).cloned().unwrap_or_default();
            }
        }
        Vec::new()
    }

    /// Returns the stems (paths without extension, or with one a script names) a
    /// bare specifier may be at: the nearest config's `paths` and `baseUrl`, then
    /// a workspace package of that name.
    fn js_stems(&self, from: &[u8], spec: &str) -> Vec<Vec<u8>> {
        let mut out = Vec::new();
        if let Some(config) = self.nearest_config(from) {
            out.extend(config_stems(config, spec));
        }
        // A package's name is its specifier's first element, or first two when scoped.
        let parts = if spec.starts_with('@') { 2 } else { 1 };
        let end = spec
            .match_indices('/')
            .nth(parts - 1)
            .map_or(spec.len(), |(i, _)| i);
        if let Some((dir, exports)) = self.packages.get(&spec[..end]) {
            let sub = format!(".{}", &spec[end..]);
            out.extend(package_stems(dir, &sub, exports));
        }
        out
    }

    fn nearest_config(&self, from: &[u8]) -> Option<&Resolved> {
        self.nearest_config_at(from).map(|(_, config)| config)
    }

    /// The nearest config of the file at `from`, and the folder it is in (a prefix
    /// of `from`).
    fn nearest_config_at<'f>(&self, from: &'f [u8]) -> Option<(&'f [u8], &Resolved)> {
        let mut dir = parent(from);
        loop {
            if let Some(config) = self.ts_configs.get(dir) {
                return Some((dir, config));
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent(dir);
        }
    }

    /// All that [`Layout::paths`] reads of the importing file at `from`, beside
    /// its language: a script's nearest config (the folder it is in), a Python
    /// file's own folder, and of a Go file nothing. Files of one scope find a
    /// package at the same paths.
    fn scope<'f>(&self, from: &'f [u8]) -> Scope<'f> {
        match extension(from).as_slice() {
            b"go" => Scope::Anywhere,
            ext if is_script(ext) => match self.nearest_config_at(from) {
                Some((dir, _)) => Scope::Config(dir),
                None => Scope::Anywhere,
            },
            _ => Scope::Folder(parent(from)),
        }
    }
}

/// Follows a config's `extends` within the tree: `baseUrl` and `paths` of the
/// nearest config that sets them, `paths` relative to its `baseUrl` or its folder.
fn resolve_config(manifests: &BTreeMap<Vec<u8>, Manifest>, path: &[u8]) -> Resolved {
    let mut resolved = Resolved::default();
    let (mut base_url, mut paths) = (None, None);
    let mut at = path.to_vec();
    for _ in 0..MAX_EXTENDS {
        let Some(Manifest::TsConfig(config)) = manifests.get(&at) else {
            break;
        };
        if base_url.is_none() {
            base_url = config.base_url.clone();
        }
        if paths.is_none() {
            if let Some(p) = &config.paths {
                let folder = config.base_url.clone().or(base_url.clone());
                paths = Some((p.clone(), folder.unwrap_or_else(|| parent(&at).to_vec())));
            }
        }
        match &config.extends {
            Some(next) => at = next.clone(),
            None => break,
        }
    }
    resolved.base_url = base_url;
    if let Some((patterns, folder)) = paths {
        resolved.paths = patterns
            .into_iter()
            .map(|(pattern, targets)| {
                let joined = targets.iter().filter_map(|t| join(&folder, t)).collect();
                (pattern, joined)
            })
            .collect();
    }
    resolved
}

/// The stems a config gives a specifier: the `paths` pattern with the longest
/// prefix that matches (its `*` substituted), else the specifier under `baseUrl`.
fn config_stems(config: &Resolved, spec: &str) -> Vec<Vec<u8>> {
    let mut best: Option<(usize, &Vec<Vec<u8>>, &str)> = None;
    for (pattern, targets) in &config.paths {
        let matched = match pattern.split_once('*') {
            None if pattern == spec => Some((pattern.len(), "")),
            None => None,
            Some((prefix, suffix)) => spec
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
                .map(|star| (prefix.len(), star)),
        };
        if let Some((len, star)) = matched {
            if best.is_none_or(|(l, ..)| len > l) {
                best = Some((len, targets, star));
            }
        }
    }
    let mut out = Vec::new();
    if let Some((_, targets, star)) = best {
        for target in targets {
            let target = String::from_utf8_lossy(target).replacen('*', star, 1);
            out.push(target.into_bytes());
        }
    }
    if let Some(base) = &config.base_url {
        out.extend(join(base, spec));
    }
    out
}

/// The stems a workspace package's subpath may be at: its export's target and that
/// target's source (a build folder's `dist/x.js` read as `src/x`), then the
/// subpath itself and under `src/`.
fn package_stems(dir: &[u8], sub: &str, exports: &[(String, String)]) -> Vec<Vec<u8>> {
    let mut targets: Vec<String> = Vec::new();
    for (key, target) in exports {
        if key == sub {
            targets.push(target.clone());
        } else if let Some((prefix, suffix)) = key.split_once('*') {
            if let Some(star) = sub
                .strip_prefix(prefix)
                .and_then(|rest| rest.strip_suffix(suffix))
            {
                targets.push(target.replacen('*', star, 1));
            }
        }
    }
    if sub == "." {
        targets.extend(["./src/index".to_string(), "./index".to_string()]);
    } else {
        targets.push(sub.to_string());
        targets.push(format!("./src/{}", &sub[2..]));
    }
    let mut out = Vec::new();
    for target in targets {
        let target = target.trim_start_matches("./");
        let target = [".d.ts", ".d.mts", ".d.cts"]
            .iter()
            .find_map(|e| target.strip_suffix(e))
            .unwrap_or(target);
        out.extend(join(dir, target));
        for build in ["dist/", "build/", "lib/", "out/"] {
            if let Some(rest) = target.strip_prefix(build) {
                let rest = rest.trim_start_matches("esm/").trim_start_matches("cjs/");
                out.extend(join(dir, &format!("src/{rest}")));
            }
        }
    }
    out.dedup();
    out
}

/// Returns true for the extension (lower case) of a TypeScript or JavaScript file,
/// whose package specifiers are looked for as scripts' (see [`Layout::paths`]).
fn is_script(ext: &[u8]) -> bool {
    matches!(
        ext,
        b"ts" | b"tsx" | b"mts" | b"cts" | b"js" | b"mjs" | b"cjs" | b"jsx"
    )
}

/// Returns the files a stem of a script may be (`x`, `x.ts`, `x/index.ts`, and
/// `x.ts` for a `x.js` a compiled import names), as relative imports are tried.
pub(crate) fn script_paths(joined: &[u8]) -> Vec<Vec<u8>> {
    const CANDIDATES: [&str; 13] = [
        "",
        ".ts",
        ".tsx",
        ".mts",
        ".cts",
        ".js",
        ".mjs",
        ".cjs",
        ".jsx",
        "/index.ts",
        "/index.js",
        "/index.mjs",
        "/index.tsx",
    ];
    let mut stems = vec![joined.to_vec()];
    // TypeScript imports name the compiled file: `./presets.js` is `presets.ts`.
    for ext in [".js", ".mjs", ".cjs", ".jsx"] {
        if let Some(stem) = joined.strip_suffix(ext.as_bytes()) {
            stems.push(stem.to_vec());
        }
    }
    let mut paths = Vec::with_capacity(stems.len() * CANDIDATES.len());
    for stem in &stems {
        for c in CANDIDATES {
            let mut p = stem.clone();
            p.extend_from_slice(c.as_bytes());
            paths.push(p);
        }
    }
    paths
}

/// Returns where a Python absolute module (`/`-separated, `app/tools/presets`) may
/// be: under each folder from the importing file's own up to the tree's top, then
/// under that folder's `src/`, then under the package roots a `pyproject.toml`
/// there declares, as a module or a package.
/// Only a folder `roots` holds (one where the tree has a file or folder named as
/// the module's first element) is tried, so that the many imports of packages the
/// tree does not hold (`typing`, `pydantic`) cost a lookup each.
fn python_module(
    from: &[u8],
    module: &str,
    roots: &HashMap<String, BTreeSet<Vec<u8>>>,
    projects: &HashMap<Vec<u8>, Vec<Vec<u8>>>,
) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    let first = module.split('/').next().unwrap_or(module);
    let Some(roots) = roots.get(first) else {
        return out;
    };
    let mut dir = parent(from);
    loop {
        let mut src = dir.to_vec();
        if !src.is_empty() {
            src.push(b'/');
        }
        src.extend_from_slice(b"src");
        let declared = projects.get(dir).map_or(&[][..], Vec::as_slice);
        for root in [dir, src.as_slice()]
            .into_iter()
            .chain(declared.iter().map(Vec::as_slice))
            .filter(|r| roots.contains(*r))
        {
            if let Some(stem) = join(root, module) {
                for ext in [&b".py"[..], b"/__init__.py", b".pyi"] {
                    let mut p = stem.clone();
                    p.extend_from_slice(ext);
                    out.push(p);
                }
            }
        }
        if dir.is_empty() {
            return out;
        }
        dir = parent(dir);
    }
}

/// A module an import names.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) enum Spec {
    /// Its path relative to the importing file's folder, `/`-separated, without
    /// extension (`presets`, `../shared/annotations`, `.` for a package's own `__init__`).
    Relative(String),
    /// A name the tree's own packages may answer to (see `packages`): a Go import
    /// path, a Python absolute module (`/`-separated, `app/tools/presets`), a
    /// JavaScript bare specifier (`@acme/core`, `@/lib/presets`).
    Package(String),
}

impl Spec {
    /// Returns the module `name` under this one (`from . import presets`).
    pub(crate) fn child(&self, name: &str) -> Spec {
        match self {
            Spec::Relative(rel) => Spec::Relative(format!("{rel}/{name}")),
            Spec::Package(p) => Spec::Package(format!("{p}/{name}")),
        }
    }
}

/// Returns the paths a module may be at, seen from the file at `from`, in the
/// order the importing language tries them (`./x.js` for `x.ts`, `x/index.ts`,
/// `x/__init__.py`); a module named by package where `layout` places it. None
/// when a relative path climbs above the tree's top folder.
pub(crate) fn module_paths(from: &[u8], spec: &Spec, layout: &Layout) -> Vec<Vec<u8>> {
    let rel = match spec {
        Spec::Relative(rel) => rel,
        Spec::Package(package) => return layout.paths(from, package),
    };
    let Some(joined) = join(parent(from), rel) else {
        return Vec::new();
    };
    let candidates: &[&str] = match extension(from).as_slice() {
        b"py" | b"pyi" => &[".py", "/__init__.py", ".pyi"],
        // `require_relative "presets"` and `require_relative "presets.rb"`.
        b"rb" => &[".rb", ""],
        _ => return script_paths(&joined),
    };
    candidates
        .iter()
        .map(|c| {
            let mut p = joined.clone();
            p.extend_from_slice(c.as_bytes());
            p
        })
        .collect()
}

/// The files of one tree that the modules imports name may be, each name asked of
/// [`module_paths`] once: the resolver and the chains of imports ask the same
/// imports again in every round of a tree's resolution, and most of the paths
/// `module_paths` tries (`x.ts`, `x/index.js`, ...) are files the tree does not
/// hold. Every file the resolver may meet is known when it is built (files are
/// parsed or kept aside before any is resolved), so a file's id, its place in
/// path order, stays the same through the rounds.
#[derive(Default)]
pub(crate) struct Modules {
    layout: Layout,
    /// Every file, in path order; a file's id is its index here.
    paths: Vec<Vec<u8>>,
    /// The answers so far, by a hash of (the importing file's [`Scope`], its
    /// extension, the spec): what `module_paths` returns depends on the importing
    /// file through these two only. A hit allocates nothing.
    found: RefCell<HashMap<u64, Vec<Found>>>,
}

/// One answer of [`Modules::of`]: the scope and extension (lower case) of the
/// importing file, the spec, and the ids of the files [`module_paths`] gives that
/// the tree holds, in the order tried.
type Found = (OwnedScope, Vec<u8>, Spec, Rc<[usize]>);

/// What a module's paths depend on of the importing file beside its extension
/// (see [`Layout::scope`]): its folder for a relative module, and for a package
/// less, so that the files of a tree's many folders share one answer.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
enum Scope<'f> {
    Folder(&'f [u8]),
    Config(&'f [u8]),
    Anywhere,
}

impl Scope<'_> {
    fn to_owned(self) -> OwnedScope {
        match self {
            Scope::Folder(f) => OwnedScope::Folder(f.to_vec()),
            Scope::Config(d) => OwnedScope::Config(d.to_vec()),
            Scope::Anywhere => OwnedScope::Anywhere,
        }
    }
}

/// A [`Scope`] kept in [`Modules`].
enum OwnedScope {
    Folder(Vec<u8>),
    Config(Vec<u8>),
    Anywhere,
}

impl OwnedScope {
    fn as_ref(&self) -> Scope<'_> {
        match self {
            OwnedScope::Folder(f) => Scope::Folder(f),
            OwnedScope::Config(d) => Scope::Config(d),
            OwnedScope::Anywhere => Scope::Anywhere,
        }
    }
}

impl Modules {
    /// Indexes `paths` (every file the resolver may meet) and lays out the tree's
    /// packages from its manifests (see [`Layout::new`]).
    pub(crate) fn new<'p>(
        manifests: &BTreeMap<Vec<u8>, Manifest>,
        paths: impl Iterator<Item = &'p [u8]> + Clone,
    ) -> Modules {
        let layout = Layout::new(manifests, paths.clone());
        let mut paths: Vec<Vec<u8>> = paths.map(<[u8]>::to_vec).collect();
        paths.sort_unstable();
        paths.dedup();
        Modules {
            layout,
            paths,
            found: RefCell::default(),
        }
    }

    /// Returns the ids of the files a module may be, seen from the file at `from`:
    /// those of [`module_paths`] the tree holds, in the same order.
    pub(crate) fn of(&self, from: &[u8], spec: &Spec) -> Rc<[usize]> {
        let ext = extension_as_written(from);
        let scope = match spec {
            Spec::Relative(_) => Scope::Folder(parent(from)),
            Spec::Package(_) => self.layout.scope(from),
        };
        let mut hasher = std::hash::DefaultHasher::new();
        scope.hash(&mut hasher);
        for b in ext {
            b.to_ascii_lowercase().hash(&mut hasher);
        }
        spec.hash(&mut hasher);
        let key = hasher.finish();
        let same = |(s, e, sp, _): &&Found| {
            s.as_ref() == scope && e.eq_ignore_ascii_case(ext) && sp == spec
        };
        if let Some((.., ids)) = self
            .found
            .borrow()
            .get(&key)
            .and_then(|v| v.iter().find(same))
        {
            return ids.clone();
        }
        let ids: Rc<[usize]> = self.held(module_paths(from, spec, &self.layout)).into();
        let found = (
            scope.to_owned(),
            ext.to_ascii_lowercase(),
            spec.clone(),
            ids.clone(),
        );
        self.found.borrow_mut().entry(key).or_default().push(found);
        ids
    }

    /// Returns the ids of those of `paths` the tree holds, in the same order.
    pub(crate) fn held(&self, paths: Vec<Vec<u8>>) -> Vec<usize> {
        paths.iter().filter_map(|p| self.id(p)).collect()
    }

    /// Returns where the tree's packages are.
    pub(crate) fn layout(&self) -> &Layout {
        &self.layout
    }

    /// Returns the path of the file with this id.
    pub(crate) fn path(&self, id: usize) -> &[u8] {
        &self.paths[id]
    }

    /// Returns the id of the file at `path`, if the tree holds one.
    pub(crate) fn id(&self, path: &[u8]) -> Option<usize> {
        self.paths.binary_search_by(|p| p.as_slice().cmp(path)).ok()
    }

    /// Returns the id of each of `paths` the tree holds, with its place in
    /// `paths`. Given in path order (as callers give them), each is searched for
    /// past the one before.
    pub(crate) fn ids<'p>(&self, paths: impl Iterator<Item = &'p [u8]>) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut id = 0;
        for (i, path) in paths.enumerate() {
            if id > 0 && self.paths[id - 1].as_slice() >= path {
                id = 0;
            }
            id += self.paths[id..].partition_point(|p| p.as_slice() < path);
            if self.paths.get(id).is_some_and(|p| p == path) {
                out.push((id, i));
                id += 1;
            }
        }
        out
    }

    /// Returns true when the `go.mod` nearest above `path` requires a version of
    /// the official Go SDK that sends a `false` `ReadOnlyHint` or `IdempotentHint`;
    /// false without one (the SDK's older versions never send it).
    pub(crate) fn go_sends_false(&self, path: &[u8]) -> bool {
        self.nearest_go_mod(path).is_some_and(|m| m.sends_false)
    }

    /// Returns the SDK the `go.mod` nearest above `path` requires (the official
    /// one, else mcp-go); `None` without one.
    pub(crate) fn go_sdk(&self, path: &[u8]) -> Option<Family> {
        self.nearest_go_mod(path).and_then(|m| m.sdk)
    }

    /// Returns what the `go.mod` nearest above `path` says, if any does.
    fn nearest_go_mod(&self, path: &[u8]) -> Option<&GoMod> {
        let mut dir = parent(path);
        loop {
            if let Some(found) = self.layout.go_mods.get(dir) {
                return Some(found);
            }
            if dir.is_empty() {
                return None;
            }
            dir = parent(dir);
        }
    }

    /// Returns how many files there are: every id is below.
    pub(crate) fn len(&self) -> usize {
        self.paths.len()
    }

    /// Returns the ids of the files a module named in `folder` (given with its
    /// trailing `/`) may be, whatever its name: a file right in it (`x.ts`, `x.py`,
    /// `x`), or a folder's own module one level down (`x/index.ts`,
    /// `x/__init__.py`), as [`module_paths`] tries them.
    pub(crate) fn named_in<'m>(&'m self, folder: &'m [u8]) -> impl Iterator<Item = usize> + 'm {
        let start = self.paths.partition_point(|p| p.as_slice() < folder);
        let end = start + self.paths[start..].partition_point(|p| p.starts_with(folder));
        (start..end).filter(move |&id| {
            let rest = &self.paths[id][folder.len()..];
            match rest.iter().position(|&b| b == b'/') {
                None => true,
                Some(slash) => {
                    let own = &rest[slash + 1..];
                    own.starts_with(b"index.") || own.starts_with(b"__init__.")
                }
            }
        })
    }
}

/// Returns true for a relative module specifier of JavaScript and TypeScript:
/// `./x`, `../y`, `.` or `..`.
pub(crate) fn is_relative(spec: &str) -> bool {
    spec.starts_with("./") || spec.starts_with("../") || spec == "." || spec == ".."
}

/// Returns a spec for a module named by package, or relative.
pub(crate) fn spec_of(spec: &str) -> Spec {
    match is_relative(spec) {
        true => Spec::Relative(spec.to_string()),
        false => Spec::Package(spec.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::super::manifests::read;
    use super::*;

    fn layout(manifests: &[(&str, &str)], files: &[&str]) -> Layout {
        let manifests = manifests
            .iter()
            .filter_map(|(p, t)| Some((p.as_bytes().to_vec(), read(p.as_bytes(), t.as_bytes())?)))
            .collect();
        Layout::new(&manifests, files.iter().map(|f| f.as_bytes()))
    }

    #[test]
    fn the_modules_named_in_a_folder_are_its_files_and_its_folders_own() {
        let files = [
            "app/tools.py",
            "app/tools/__init__.py",
            "app/tools/search.py",
            "app/tools/deep/inner.py",
            "app/tools/web/index.ts",
            "app/tools/web/page.ts",
            "app/toolsets.py",
        ];
        let modules = Modules::new(&BTreeMap::new(), files.iter().map(|f| f.as_bytes()));
        let named: Vec<&[u8]> = modules
            .named_in(b"app/tools/")
            .map(|id| modules.path(id))
            .collect();
        assert_eq!(
            named,
            [
                &b"app/tools/__init__.py"[..],
                b"app/tools/search.py",
                b"app/tools/web/index.ts",
            ]
        );
        let top: Vec<&[u8]> = modules.named_in(b"").map(|id| modules.path(id)).collect();
        assert!(top.is_empty(), "{top:?}");
    }

    fn strings(paths: Vec<Vec<u8>>) -> Vec<String> {
        paths
            .into_iter()
            .map(|p| String::from_utf8(p).unwrap())
            .collect()
    }

    #[test]
    fn a_go_import_path_under_the_module_is_its_folder() {
        let l = layout(
            &[
                ("go.mod", "module github.com/me/srv\n\ngo 1.26\nreplace (\n\tgithub.com/me/lib => ./third_party/lib\n\tgithub.com/me/far v1.0.0 => ../../outside\n)\nreplace github.com/me/up => ../up\n"),
                ("nested/go.mod", "module \"github.com/me/srv/nested/v2\"\n"),
            ],
            &["internal/toolutil/a.go", "internal/toolutil/b.go", "third_party/lib/x.go", "nested/n.go", "nested/v2/w.go"],
        );
        assert_eq!(
            strings(l.paths(b"cmd/main.go", "github.com/me/srv/internal/toolutil")),
            ["internal/toolutil/a.go", "internal/toolutil/b.go"]
        );
        assert_eq!(
            strings(l.paths(b"a.go", "github.com/me/lib")),
            ["third_party/lib/x.go"]
        );
        // The nested module's own path wins over the outer module's folder.
        assert_eq!(
            strings(l.paths(b"a.go", "github.com/me/srv/nested/v2")),
            ["nested/n.go"]
        );
        // Replacements out of the tree are never followed.
        assert!(l.paths(b"a.go", "github.com/me/far").is_empty());
        assert!(l.paths(b"a.go", "github.com/me/up").is_empty());
        assert!(l.paths(b"a.go", "github.com/other/x").is_empty());
        assert!(l.paths(b"a.go", "github.com/me/srvx").is_empty());
    }

    #[test]
    fn a_package_is_looked_for_once_a_scope_and_found_as_from_each_file() {
        let manifests: BTreeMap<Vec<u8>, Manifest> = [
            (
                "apps/a/tsconfig.json",
                "{\"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@/*\": [\"src/*\"]}}}",
            ),
            (
                "apps/b/tsconfig.json",
                "{\"compilerOptions\": {\"baseUrl\": \".\", \"paths\": {\"@/*\": [\"lib/*\"]}}}",
            ),
        ]
        .iter()
        .filter_map(|(p, t)| Some((p.as_bytes().to_vec(), read(p.as_bytes(), t.as_bytes())?)))
        .collect();
        let files = [
            "apps/a/deep/er/f.ts",
            "apps/a/g.js",
            "apps/a/src/x.ts",
            "apps/b/h.ts",
            "apps/b/lib/x.ts",
            "top.ts",
        ];
        let modules = Modules::new(&manifests, files.iter().map(|f| f.as_bytes()));
        let spec = Spec::Package("@/x".to_string());
        let found = |from: &str| -> Vec<&str> {
            let ids = modules.of(from.as_bytes(), &spec);
            // As if asked for the first time, from this file.
            let fresh = modules.held(module_paths(from.as_bytes(), &spec, modules.layout()));
            assert_eq!(ids.to_vec(), fresh, "{from}");
            ids.iter()
                .map(|&id| std::str::from_utf8(modules.path(id)).unwrap())
                .collect()
        };
        // The first asks for the scope of `apps/a`'s config; the others of it share
        // the answer, and `apps/b`'s config and no config give their own.
        assert_eq!(found("apps/a/deep/er/f.ts"), ["apps/a/src/x.ts"]);
        assert_eq!(found("apps/a/g.js"), ["apps/a/src/x.ts"]);
        assert_eq!(found("apps/b/h.ts"), ["apps/b/lib/x.ts"]);
        assert!(found("top.ts").is_empty());
        assert_eq!(found("apps/a/src/x.ts"), ["apps/a/src/x.ts"]);
    }

    #[test]
    fn tsconfig_paths_base_url_and_workspace_packages_give_stems() {
        let l = layout(
            &[
                ("tsconfig.base.json", "{\n // comment\n \"compilerOptions\": { \"baseUrl\": \".\", \"paths\": { \"@/*\": [\"src/*\"], \"@lib\": [\"lib/index.ts\"], }, },\n}"),
                ("apps/web/tsconfig.json", "{ \"extends\": \"../../tsconfig.base.json\" }"),
                ("packages/core/package.json", "{\"name\": \"@acme/core\", \"exports\": {\".\": {\"types\": \"./dist/index.d.ts\", \"import\": \"./dist/index.js\"}, \"./presets\": \"./dist/presets.js\"}}"),
            ],
            &[],
        );
        let stems = l.js_stems(b"apps/web/page.ts", "@/lib/presets");
        assert_eq!(strings(stems), ["src/lib/presets", "@/lib/presets"]);
        assert_eq!(
            strings(l.js_stems(b"apps/web/x.ts", "@lib")),
            ["lib/index.ts", "@lib"]
        );
        // Outside the config's folder no config applies.
        assert!(l.js_stems(b"other/x.ts", "@/a").is_empty());
        let core = strings(l.js_stems(b"other/x.ts", "@acme/core"));
        assert_eq!(
            core[..2],
            ["packages/core/dist/index.js", "packages/core/src/index.js"]
        );
        let sub = strings(l.js_stems(b"x.ts", "@acme/core/presets"));
        assert_eq!(
            sub[..2],
            [
                "packages/core/dist/presets.js",
                "packages/core/src/presets.js"
            ]
        );
        assert!(l.js_stems(b"x.ts", "@acme/corex").is_empty());
    }

    #[test]
    fn python_modules_are_looked_for_from_the_file_up() {
        let l = layout(&[], &["src/app/server.py", "app/x.py", "src/app/app/y.py"]);
        let got = strings(l.paths(b"src/app/server.py", "app/presets"));
        assert_eq!(
            got[..3],
            [
                "src/app/app/presets.py",
                "src/app/app/presets/__init__.py",
                "src/app/app/presets.pyi"
            ]
        );
        assert!(got.contains(&"src/app/presets.py".to_string()));
        assert!(got.contains(&"app/presets.py".to_string()));
        assert_eq!(got.last().unwrap(), "src/app/presets.pyi");
    }

    #[test]
    fn malformed_manifests_are_ignored() {
        assert_eq!(read(b"package.json", b"{not json"), None);
        assert_eq!(read(b"go.mod", b"\xff\xfe"), None);
        assert_eq!(read(b"tsconfig.json", b"{}"), None);
        assert_eq!(read(b"package.json", b"{\"private\": true}"), None);
    }
}
