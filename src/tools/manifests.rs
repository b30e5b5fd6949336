//! The manifests that say where a tree's own packages are: `go.mod` and `go.work`,
//! `pyproject.toml`, `package.json`, `tsconfig.json` and `jsconfig.json`, each read
//! from its bytes into what [`packages`](super::packages) needs of it, within
//! bounds (docs/method.md, "How hints are resolved"). It reads bytes it is given and
//! follows no path.

use serde_json::Value as Json;

use super::model::Family;
use super::paths::{join, parent};

/// A manifest larger than this is not read: real ones are a few KiB.
const MAX_MANIFEST_BYTES: usize = 1024 * 1024;
/// At most this many manifests are kept per tree (a monorepo of thousands of
/// packages keeps the first in path order).
pub(crate) const MAX_MANIFESTS: usize = 8192;
/// At most this many patterns or exports are kept per manifest.
const MAX_ENTRIES: usize = 256;

/// What the finder keeps of one manifest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Manifest {
    /// A `go.mod`: the module it declares, and the folders its `replace` lines map
    /// module paths to (joined to the tree; one pointing out of it is dropped).
    /// `sends_false` says whether the official Go SDK it requires sends a `false`
    /// `ReadOnlyHint` and `IdempotentHint` (see [`SENDS_FALSE_FROM`]).
    GoMod {
        module: Option<String>,
        replaced: Vec<(String, Vec<u8>)>,
        sends_false: bool,
        /// The SDK it requires: the official one where it requires it, else mcp-go
        /// where it requires that.
        sdk: Option<Family>,
    },
    /// A `package.json` with a `name`: the package's folder answers to it.
    Package {
        name: String,
        /// Subpath (`.`, `./utils`, `./*`) → target, as `exports` (or `main`,
        /// `module`, `types` for `.`) give them.
        exports: Vec<(String, String)>,
    },
    /// A `tsconfig.json` or `jsconfig.json` (or a `tsconfig.*.json` another extends).
    TsConfig(TsConfig),
    /// A `pyproject.toml` that places its packages: the folders (joined to the
    /// tree) its absolute imports are rooted at.
    PyProject { roots: Vec<Vec<u8>> },
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct TsConfig {
    /// The config it extends, joined to the tree.
    pub(super) extends: Option<Vec<u8>>,
    /// `compilerOptions.baseUrl`, joined to the tree.
    pub(super) base_url: Option<Vec<u8>>,
    /// `compilerOptions.paths`: pattern → targets, as written.
    pub(super) paths: Option<Vec<(String, Vec<String>)>>,
}

/// The official Go SDK's module path.
const GO_SDK: &str = "github.com/modelcontextprotocol/go-sdk";
/// mcp-go's module path.
const MCP_GO: &str = "github.com/mark3labs/mcp-go";
/// The first version of the official Go SDK whose `ToolAnnotations` sends
/// `ReadOnlyHint` and `IdempotentHint` when they are `false` (its `v1.7.0-pre.1`
/// and later: the fields lost `omitempty`); before it, a `false` was never sent.
const SENDS_FALSE_FROM: (u64, u64, u64) = (1, 7, 0);

/// Returns true for the name of a manifest the finder reads.
pub(crate) fn is_manifest(path: &[u8]) -> bool {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    matches!(
        name,
        b"go.mod" | b"go.work" | b"package.json" | b"jsconfig.json" | b"pyproject.toml"
    ) || (name.starts_with(b"tsconfig") && name.ends_with(b".json"))
}

/// Reads a manifest; `None` when it says nothing the finder uses, or is too large
/// or malformed.
pub(crate) fn read(path: &[u8], bytes: &[u8]) -> Option<Manifest> {
    if bytes.len() > MAX_MANIFEST_BYTES {
        return None;
    }
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    let dir = parent(path);
    match name {
        b"go.mod" | b"go.work" => go_mod(dir, std::str::from_utf8(bytes).ok()?),
        b"package.json" => package_json(&json(bytes)?),
        b"pyproject.toml" => pyproject(dir, std::str::from_utf8(bytes).ok()?),
        _ => ts_config(dir, &json(bytes)?),
    }
}

fn go_mod(dir: &[u8], text: &str) -> Option<Manifest> {
    let mut module = None;
    let mut replaced = Vec::new();
    let mut sends_false = false;
    let mut sdk = None;
    let mut in_replace = false;
    let mut in_require = false;
    for line in text.lines() {
        let line = line.split("//").next().unwrap_or("").trim();
        if in_replace {
            if line == ")" {
                in_replace = false;
            } else {
                replace(dir, line, &mut replaced);
            }
        } else if in_require {
            match line {
                ")" => in_require = false,
                one => required(one, &mut sends_false, &mut sdk),
            }
        } else if let Some(rest) = line.strip_prefix("require") {
            match rest.trim() {
                "(" => in_require = true,
                one => required(one, &mut sends_false, &mut sdk),
            }
        } else if let Some(rest) = line.strip_prefix("module") {
            module = Some(rest.trim().trim_matches('"').to_string()).filter(|m| !m.is_empty());
        } else if let Some(rest) = line.strip_prefix("replace") {
            match rest.trim() {
                "(" => in_replace = true,
                one => replace(dir, one, &mut replaced),
            }
        }
    }
    let is_kept = module.is_some() || !replaced.is_empty() || sends_false || sdk.is_some();
    is_kept.then_some(Manifest::GoMod {
        module,
        replaced,
        sends_false,
        sdk,
    })
}

/// Reads one requirement (`path version`): whether it is an SDK that sends `false`,
/// and which SDK it is (the official one wins over mcp-go).
fn required(line: &str, sends_false: &mut bool, sdk: &mut Option<Family>) {
    *sends_false |= requires_sending_sdk(line);
    match line.split_whitespace().next().map(|p| p.trim_matches('"')) {
        Some(GO_SDK) => *sdk = Some(Family::Go),
        Some(MCP_GO) if sdk.is_none() => *sdk = Some(Family::McpGo),
        _ => {}
    }
}

/// Returns true for a requirement (`path version`) of the official Go SDK at a
/// version that sends a `false` hint: [`SENDS_FALSE_FROM`] or later, its
/// pre-releases and pseudo-versions (`v1.7.0-pre.1`, `v1.7.0-0.2026...`) included.
fn requires_sending_sdk(line: &str) -> bool {
    let mut parts = line.split_whitespace();
    let (Some(path), Some(version)) = (parts.next(), parts.next()) else {
        return false;
    };
    if path.trim_matches('"') != GO_SDK {
        return false;
    }
    let Some(version) = version.strip_prefix('v') else {
        return false;
    };
    let release = version.split(['-', '+']).next().unwrap_or("");
    let mut numbers = release.split('.').map(|n| n.parse::<u64>().ok());
    match (numbers.next(), numbers.next(), numbers.next()) {
        (Some(Some(major)), Some(Some(minor)), Some(Some(patch))) => {
            (major, minor, patch) >= SENDS_FALSE_FROM
        }
        _ => false,
    }
}

/// Reads `old [version] => ./local`: only a path inside the tree is kept (Go's
/// local replacements start with `./` or `../`).
fn replace(dir: &[u8], line: &str, out: &mut Vec<(String, Vec<u8>)>) {
    let Some((old, new)) = line.split_once("=>") else {
        return;
    };
    let (Some(old), Some(new)) = (old.split_whitespace().next(), new.split_whitespace().next())
    else {
        return;
    };
    if !(new.starts_with("./") || new.starts_with("../")) || out.len() >= MAX_ENTRIES {
        return;
    }
    if let Some(folder) = join(dir, new) {
        out.push((old.trim_matches('"').to_string(), folder));
    }
}

/// Reads where a `pyproject.toml` places its packages: setuptools' `package-dir`
/// (`"" = "lib"`, or `pkg = "src/pkg"`) and `packages.find.where`, hatch's wheel
/// `packages` (`"src/pkg"`), poetry's `packages` (`{ include = "pkg", from = "src" }`).
/// Each root is a folder of the tree; one out of it is dropped.
fn pyproject(dir: &[u8], text: &str) -> Option<Manifest> {
    let doc: toml::Table = text.parse().ok()?;
    let tool = doc.get("tool")?;
    let at = |value: &toml::Value, path: &[&str]| {
        path.iter().try_fold(value, |v, key| v.get(key)).cloned()
    };
    let strings = |value: Option<toml::Value>| -> Vec<String> {
        match value {
            Some(toml::Value::String(s)) => vec![s],
            Some(toml::Value::Array(items)) => items
                .iter()
                .filter_map(|i| i.as_str().map(str::to_string))
                .collect(),
            _ => Vec::new(),
        }
    };
    let mut roots: Vec<String> = Vec::new();
    if let Some(toml::Value::Table(map)) = at(tool, &["setuptools", "package-dir"]) {
        for (package, folder) in map.iter().take(MAX_ENTRIES) {
            let Some(folder) = folder.as_str() else {
                continue;
            };
            match package.as_str() {
                "" => roots.push(folder.to_string()),
                // `pkg = "src/pkg"`: the package's folder under a root.
                name if !name.contains('.') => {
                    let folder = folder.trim_end_matches('/');
                    if let Some(root) = folder.strip_suffix(name) {
                        if root.is_empty() || root.ends_with('/') {
                            roots.push(root.to_string());
                        }
                    }
                }
                _ => {}
            }
        }
    }
    roots.extend(strings(at(
        tool,
        &["setuptools", "packages", "find", "where"],
    )));
    for path in [
        &["hatch", "build", "targets", "wheel", "packages"][..],
        &["hatch", "build", "packages"],
    ] {
        for package in strings(at(tool, path)) {
            let package = package.trim_end_matches('/');
            roots.push(
                package
                    .rsplit_once('/')
                    .map_or("", |(root, _)| root)
                    .to_string(),
            );
        }
    }
    if let Some(toml::Value::Array(items)) = at(tool, &["poetry", "packages"]) {
        for item in items.iter().take(MAX_ENTRIES) {
            if item.get("include").is_some() {
                let from = item.get("from").and_then(|f| f.as_str()).unwrap_or("");
                roots.push(from.to_string());
            }
        }
    }
    let mut roots: Vec<Vec<u8>> = roots
        .iter()
        .take(MAX_ENTRIES)
        .filter(|r| !r.starts_with('/'))
        .filter_map(|r| join(dir, r))
        .collect();
    roots.sort();
    roots.dedup();
    (!roots.is_empty()).then_some(Manifest::PyProject { roots })
}

fn package_json(doc: &Json) -> Option<Manifest> {
    let name = doc.get("name")?.as_str()?.to_string();
    let mut exports = Vec::new();
    match doc.get("exports") {
        Some(Json::String(s)) => exports.push((".".to_string(), s.clone())),
        Some(Json::Object(map)) if map.keys().all(|k| k.starts_with('.')) => {
            for (sub, target) in map.iter().take(MAX_ENTRIES) {
                if let Some(t) = condition(target, 0) {
                    exports.push((sub.clone(), t));
                }
            }
        }
        // Conditions for `.` alone (`{ "import": ..., "require": ... }`).
        Some(conditions @ Json::Object(_)) => {
            if let Some(t) = condition(conditions, 0) {
                exports.push((".".to_string(), t));
            }
        }
        _ => {}
    }
    for key in ["module", "main", "types", "typings"] {
        if let Some(t) = doc.get(key).and_then(Json::as_str) {
            exports.push((".".to_string(), t.to_string()));
        }
    }
    Some(Manifest::Package { name, exports })
}

/// Returns the target a conditional export gives, the conditions tried in the
/// order a bundler for source would (`source`, `import`, `default`, ...).
fn condition(target: &Json, depth: usize) -> Option<String> {
    match target {
        Json::String(s) => Some(s.clone()),
        Json::Object(map) if depth < 4 => {
            for key in ["source", "import", "default", "require", "node", "types"] {
                if let Some(t) = map.get(key).and_then(|v| condition(v, depth + 1)) {
                    return Some(t);
                }
            }
            map.values().find_map(|v| condition(v, depth + 1))
        }
        Json::Array(items) if depth < 4 => items.iter().find_map(|v| condition(v, depth + 1)),
        _ => None,
    }
}

fn ts_config(dir: &[u8], doc: &Json) -> Option<Manifest> {
    let extends = doc
        .get("extends")
        .and_then(Json::as_str)
        .filter(|e| e.starts_with("./") || e.starts_with("../"))
        .and_then(|e| join(dir, e))
        .map(|mut p| {
            if !p.ends_with(b".json") {
                p.extend_from_slice(b".json");
            }
            p
        });
    let options = doc.get("compilerOptions");
    let base_url = options
        .and_then(|o| o.get("baseUrl"))
        .and_then(Json::as_str)
        .and_then(|b| join(dir, b));
    let paths = options
        .and_then(|o| o.get("paths"))
        .and_then(Json::as_object)
        .map(|map| {
            map.iter()
                .take(MAX_ENTRIES)
                .map(|(pattern, targets)| {
                    let targets = match targets {
                        Json::Array(items) => items
                            .iter()
                            .filter_map(Json::as_str)
                            .map(str::to_string)
                            .collect(),
                        _ => Vec::new(),
                    };
                    (pattern.clone(), targets)
                })
                .collect()
        });
    let config = TsConfig {
        extends,
        base_url,
        paths,
    };
    (config != TsConfig::default()).then_some(Manifest::TsConfig(config))
}

/// Parses JSON as `tsconfig.json` is written: comments and trailing commas allowed.
fn json(bytes: &[u8]) -> Option<Json> {
    serde_json::from_slice(&strip_jsonc(bytes)).ok()
}

/// Returns the bytes with `//` and `/* */` comments and trailing commas (a `,`
/// before `}` or `]`) blanked, strings stepped over.
fn strip_jsonc(bytes: &[u8]) -> Vec<u8> {
    let mut out = bytes.to_vec();
    let mut i = 0;
    let mut last_comma: Option<usize> = None;
    while i < out.len() {
        match out[i] {
            b'"' => {
                last_comma = None;
                i += 1;
                while i < out.len() && out[i] != b'"' {
                    i += if out[i] == b'\\' { 2 } else { 1 };
                }
                i += 1;
            }
            b'/' if out.get(i + 1) == Some(&b'/') => {
                while i < out.len() && out[i] != b'\n' {
                    out[i] = b' ';
                    i += 1;
                }
            }
            b'/' if out.get(i + 1) == Some(&b'*') => {
                let end = out[i + 2..]
                    .windows(2)
                    .position(|w| w == b"*/")
                    .map_or(out.len(), |p| i + 2 + p + 2);
                out[i..end].iter_mut().for_each(|b| *b = b' ');
                i = end;
            }
            b',' => {
                last_comma = Some(i);
                i += 1;
            }
            b'}' | b']' => {
                if let Some(c) = last_comma.take() {
                    out[c] = b' ';
                }
                i += 1;
            }
            b if b.is_ascii_whitespace() => i += 1,
            _ => {
                last_comma = None;
                i += 1;
            }
        }
    }
    out
}
