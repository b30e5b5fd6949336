//! A PyPI index, as the user's own uv or pip is set up to read it: which index, a
//! release's files with their sha256 and upload times, a version pinned to one
//! artifact by its digest, and which of a release's wheels went into a venv.
//!
//! The index is the user's: `UV_DEFAULT_INDEX` or `UV_INDEX_URL` when set (uv reads
//! them itself), else the one pip is configured with (`PIP_INDEX_URL`, `pip.conf`'s
//! `index-url`, as `pip config list` shows them), else PyPI. A release's files, their
//! `Requires-Python`, yanked marks and upload times come from the index's Simple API,
//! which mirrors and private indexes serve too (PEP 691 JSON, PEP 700 `upload-time`
//! and `versions`, PEP 592 `yanked`; PEP 503 HTML where JSON is not served); PyPI's
//! own JSON API only where the Simple API gives no upload time. The credentials in
//! the index URL's user info, else `~/.netrc`'s for its host, go with each request
//! to the index and never into a message. It installs nothing and runs no package:
//! that is `survey::install`'s (docs/probe.md, "Registry packages").

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use reqwest::Url;
use serde_json::Value;

use super::client::{basic_credential, get, shown, without_credentials, Failed};
use super::pinned::{Kind, Miss, Pinned};
use crate::fetch::digest::Digest;
use crate::fetch::http::{self, Credential};
use crate::infra::date;
use crate::infra::environment;
use crate::infra::process::{self, Limits};
use crate::infra::sanitize::sanitize;

/// The index when nothing else is configured.
const PYPI: &str = "https://pypi.org/simple";

/// Holds the index an install reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Index {
    /// Its simple API's URL, without a trailing `/`.
    pub url: String,
    /// Whether uv is configured with it already (`UV_DEFAULT_INDEX`, `UV_INDEX_URL`),
    /// so that it needs no `--default-index`.
    pub is_uv_own: bool,
}

/// Returns the index an install reads, found once per run.
pub fn index() -> &'static Index {
    static INDEX: OnceLock<Index> = OnceLock::new();
    INDEX.get_or_init(|| {
        let uv_own = ["UV_DEFAULT_INDEX", "UV_INDEX_URL"]
            .iter()
            .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()));
        match uv_own {
            Some(url) => Index {
                url: url.trim().trim_end_matches('/').to_string(),
                is_uv_own: true,
            },
            None => Index {
                url: pip_index().unwrap_or_else(|| PYPI.to_string()),
                is_uv_own: false,
            },
        }
    })
}

/// Returns the index-url pip is configured with, as `pip config list` shows it: the
/// environment's first, then the `install` section's, then the `global` one's.
fn pip_index() -> Option<String> {
    if let Some(url) = std::env::var("PIP_INDEX_URL")
        .ok()
        .filter(|v| !v.trim().is_empty())
    {
        return Some(url.trim().trim_end_matches('/').to_string());
    }
    let mut command = environment::command("python3");
    command.args(["-m", "pip", "config", "list", "--disable-pip-version-check"]);
    let limits = Limits {
        time: Some(Duration::from_secs(60)),
        idle: None,
        max_stderr: 64 << 10,
    };
    let out = process::output(command, &limits, 1 << 20).ok()?;
    if !out.status.is_some_and(|s| s.success()) {
        return None;
    }
    pip_config_index(&String::from_utf8_lossy(&out.stdout))
}

/// Returns the index-url of `pip config list`'s output, by pip's precedence.
fn pip_config_index(listed: &str) -> Option<String> {
    let value = |section: &str| {
        listed.lines().find_map(|line| {
            let value = line.strip_prefix(section)?.strip_prefix(".index-url=")?;
            let value = value.trim().trim_matches(|c| c == '\'' || c == '"');
            (!value.is_empty()).then(|| value.trim_end_matches('/').to_string())
        })
    };
    value(":env:")
        .or_else(|| value("install"))
        .or_else(|| value("global"))
}

/// Returns the JSON API's base of a simple index, `None` when it does not end in
/// `/simple`.
fn json_base(index: &str) -> Option<String> {
    index
        .trim_end_matches('/')
        .strip_suffix("/simple")
        .map(|root| format!("{root}/pypi"))
}

/// What a project page is asked for as: PEP 691's JSON, else PEP 503's HTML.
const SIMPLE_ACCEPT: &str = "application/vnd.pypi.simple.v1+json, text/html;q=0.01";

/// Holds what the index says of one release.
#[derive(Debug)]
pub struct Release {
    /// The latest upload time of its files (PEP 700's `upload-time`), or why the
    /// Simple API gives none (with the JSON API's time, when it has one).
    pub uploaded: Result<String, String>,
    /// Its wheels: file name and sha256.
    pub wheels: Vec<(String, String)>,
    /// How many sdists it has.
    pub sdists: usize,
    /// The `Requires-Python` its files declare (PEP 503's `data-requires-python`,
    /// PEP 691's `requires-python`), the first a wheel gives, else an sdist's.
    pub requires_python: Option<String>,
}

impl Release {
    /// Returns true when the index lists no file of it.
    pub fn is_missing(&self) -> bool {
        self.sdists == 0 && self.wheels.is_empty()
    }

    /// Returns true when it has files and none of them is a wheel.
    pub fn has_only_sdists(&self) -> bool {
        self.sdists > 0 && self.wheels.is_empty()
    }
}

/// One file of a project page.
#[derive(Clone, Debug, Default, PartialEq)]
struct File {
    name: String,
    /// The file's URL as the page gives it (relative to the page, or absolute).
    url: String,
    sha256: Option<String>,
    uploaded: Option<String>,
    requires_python: Option<String>,
    /// PEP 592: why the file is yanked (empty when no reason is given), `None`
    /// when it is not.
    yanked: Option<String>,
    /// PEP 658: whether the index serves the file's core metadata at its URL and
    /// `.metadata`.
    has_metadata: bool,
}

/// GETs `url` of the index, with the credential the index URL carries or netrc
/// gives, and returns the answer's content type and body; an error names the URL
/// without credentials.
fn get_index(url: &str, accept: &str) -> Result<(String, Vec<u8>), Failed> {
    let parsed = Url::parse(url).ok();
    let credential: Option<Credential> = parsed.as_ref().and_then(basic_credential);
    get(&without_credentials(url), accept, credential.as_ref())
}

/// Returns what the index says of `name` at `version`: its files from the project
/// page of the Simple API (PEP 691 JSON where the index serves it, else PEP 503
/// HTML), the upload time from PEP 700's `upload-time`; only where it lacks one is
/// the JSON API asked (`/simple` → `/pypi/NAME/VERSION/json`, PyPI's own). An error
/// names the URL.
pub fn release(index: &str, name: &str, version: &str) -> Result<Release, String> {
    let page = project(index, name).map_err(|f| f.why)?;
    let files: Vec<File> = page.files_of(name, version).into_iter().cloned().collect();
    let mut release = Release {
        uploaded: latest_upload(&files),
        wheels: Vec::new(),
        sdists: 0,
        requires_python: None,
    };
    for file in &files {
        if file.name.ends_with(".whl") {
            if let Some(sha) = &file.sha256 {
                release.wheels.push((file.name.clone(), sha.clone()));
            }
        } else {
            release.sdists += 1;
        }
    }
    let wheel_first = files
        .iter()
        .filter(|f| f.name.ends_with(".whl"))
        .chain(files.iter().filter(|f| !f.name.ends_with(".whl")));
    release.requires_python = wheel_first
        .filter_map(|f| f.requires_python.clone())
        .find(|r| !r.trim().is_empty());
    // uv's --exclude-newer reads upload times from the Simple API and leaves out
    // every file without one: a time only the JSON API gives cannot date the
    // resolution, and is kept in the reason for the row.
    if let Err(simple_why) = &release.uploaded {
        release.uploaded = Err(match json_api_upload(index, name, version) {
            Ok(time) => format!(
                "{simple_why}, which uv's --exclude-newer reads (its JSON API says it was \
                 uploaded at {})",
                sanitize(&time)
            ),
            Err(json_why) => format!("{simple_why}, and {json_why}"),
        });
    }
    Ok(release)
}

/// Returns the newest final release of `name` on `index` whose files were all
/// uploaded by `time` (PEP 700's `upload-time`, to the second): what stood on a
/// release's day. `Ok(None)` when none had been, or the page gives no upload times.
pub fn newest_by(index: &str, name: &str, time: &str) -> Result<Option<String>, String> {
    let until = upload_secs(time).ok_or_else(|| format!("'{}' is not a time", sanitize(time)))?;
    let page = project(index, name).map_err(|f| f.why)?;
    let mut stood: std::collections::BTreeMap<String, bool> = Default::default();
    for file in &page.files {
        let Some(version) = file_version(&file.name, name) else {
            continue;
        };
        let by = file
            .uploaded
            .as_deref()
            .and_then(upload_secs)
            .is_some_and(|at| at <= until);
        *stood.entry(version.to_string()).or_insert(true) &= by;
    }
    Ok(stood
        .into_iter()
        .filter(|(version, by)| *by && !is_prerelease(version))
        .filter_map(|(version, _)| release_numbers(&version).map(|key| (key, version)))
        .max()
        .map(|(_, version)| version))
}

/// Holds a project page of the Simple API: its URL (file URLs are relative to it),
/// its files, and the versions it lists (PEP 700), else those its files name.
struct Project {
    url: String,
    files: Vec<File>,
    versions: Vec<String>,
}

impl Project {
    /// Returns the files of the project `name` at `version`, in the page's order.
    fn files_of(&self, name: &str, version: &str) -> Vec<&File> {
        self.files
            .iter()
            .filter(|f| file_version(&f.name, name).is_some_and(|v| same_version(v, version)))
            .collect()
    }
}

/// Reads the project page of `name` on `index`: PEP 691 JSON where the index serves
/// it, else PEP 503 HTML. An HTML answer that is no project page (an error page, a
/// login form) lists no file and is an error.
fn project(index: &str, name: &str) -> Result<Project, Failed> {
    let url = format!("{}/{}/", index.trim_end_matches('/'), normalize(name));
    let (kind, body) = get_index(&url, SIMPLE_ACCEPT)?;
    let not_a_page = |why: String| Failed {
        kind: http::Kind::Mismatch,
        why: format!("GET {}: {why}", shown(&url)),
    };
    let (files, listed) = if kind.contains("json") {
        let files = json_files(&body).map_err(not_a_page)?;
        let listed: Option<Vec<String>> =
            serde_json::from_slice::<Value>(&body)
                .ok()
                .and_then(|page| {
                    let versions = page.get("versions")?.as_array()?;
                    Some(
                        versions
                            .iter()
                            .filter_map(|v| v.as_str().map(String::from))
                            .collect(),
                    )
                });
        (files, listed)
    } else {
        let text = String::from_utf8_lossy(&body);
        let files = html_files(&text);
        if files.is_empty() && !text.to_ascii_lowercase().contains("<a") {
            let head = crate::infra::sanitize::excerpt(&text);
            return Err(not_a_page(format!(
                "the answer ('{}', {head}) lists no file",
                sanitize(&kind)
            )));
        }
        (files, None)
    };
    let versions = listed.unwrap_or_else(|| {
        let mut named: Vec<String> = Vec::new();
        for file in &files {
            if let Some(v) = file_version(&file.name, name) {
                if !named.iter().any(|n| same_version(n, v)) {
                    named.push(v.to_string());
                }
            }
        }
        named
    });
    Ok(Project {
        url,
        files,
        versions,
    })
}

/// Pins `name` at `version` (when `None`, the newest release that is neither yanked
/// nor a pre-release) to one artifact of the index `index` by its sha256: the
/// pure-Python wheel (`*-none-any.whl`) if there is one, else the sdist (`.tar.gz`,
/// then `.zip`), else the first wheel in the index's order. A yanked file is pinned
/// only when its version is named (PEP 592 keeps it downloadable), and says so.
pub fn pin(index: &str, name: &str, version: Option<&str>) -> Result<Pinned, Miss> {
    let page = project(index, name).map_err(|f| match f.kind {
        http::Kind::NotFound => Miss::absent(f.why),
        _ => Miss::failed(f.why),
    })?;
    let at = || format!("GET {}", shown(&page.url));
    let of = |v: &str| page.files_of(name, v);
    let version = match version {
        Some(v) => v.to_string(),
        None => {
            let mut candidates: Vec<((Vec<u64>, u64), &String)> = page
                .versions
                .iter()
                .filter(|v| !is_prerelease(v))
                .filter(|v| {
                    let files = of(v);
                    !files.is_empty() && files.iter().any(|f| f.yanked.is_none())
                })
                .filter_map(|v| Some((release_numbers(v)?, v)))
                .collect();
            candidates.sort();
            match candidates.last() {
                Some((_, v)) => v.to_string(),
                None => {
                    return Err(Miss::absent(format!(
                        "{}: no release that is neither yanked nor a pre-release",
                        at()
                    )))
                }
            }
        }
    };
    let files = of(&version);
    if files.is_empty() {
        return Err(Miss::absent(format!(
            "{}: no file of version '{}'",
            at(),
            sanitize(&version)
        )));
    }
    let by_end = |end: &str| files.iter().find(|f| f.name.ends_with(end));
    let chosen = by_end("-none-any.whl")
        .or_else(|| by_end(".tar.gz"))
        .or_else(|| by_end(".zip"))
        .or_else(|| by_end(".whl"))
        .ok_or_else(|| {
            Miss::absent(format!(
                "{}: version '{}' has no wheel or sdist",
                at(),
                sanitize(&version)
            ))
        })?;
    let digest = chosen
        .sha256
        .as_deref()
        .and_then(|hex| Digest::parse(&format!("sha256:{hex}")))
        .ok_or_else(|| {
            Miss::failed(format!(
                "{}: the index gives no sha256 for '{}'",
                at(),
                sanitize(&chosen.name)
            ))
        })?;
    let url = Url::parse(&page.url)
        .and_then(|base| base.join(&chosen.url))
        .map_err(|e| Miss::failed(format!("{}: '{}': {e}", at(), shown(&chosen.url))))?;
    let version = file_version(&chosen.name, name)
        .unwrap_or(&version)
        .to_string();
    let exact_dependencies = match chosen.has_metadata {
        true => exact_requires_dist(url.as_str()),
        false => Ok(Vec::new()),
    };
    Ok(Pinned {
        registry: Kind::Pypi,
        name: name.to_string(),
        version,
        artifact: chosen.name.clone(),
        url: without_credentials(url.as_str()),
        digest,
        repository: None,
        commit: None,
        yanked: chosen.yanked.clone(),
        exact_dependencies,
    })
}

/// Returns the exact-pinned `Requires-Dist` of the file at `url`, read from the core
/// metadata the index serves beside it (PEP 658, `URL.metadata`), in its order. A
/// file without it (an sdist, an index that does not serve it) has no family here.
fn exact_requires_dist(url: &str) -> Result<Vec<(String, String)>, String> {
    let mut metadata = Url::parse(url).map_err(|e| format!("'{}': {e}", shown(url)))?;
    metadata.set_fragment(None);
    metadata.set_path(&format!("{}.metadata", metadata.path()));
    let (_, body) = get_index(metadata.as_str(), "*/*").map_err(|f| f.why)?;
    Ok(super::family::exact_requires_dist(
        &String::from_utf8_lossy(&body),
    ))
}

/// Returns true when a PEP 440 version is a pre-release or a development release.
fn is_prerelease(version: &str) -> bool {
    version_tokens(version)
        .iter()
        .any(|t| matches!(t.as_str(), "a" | "b" | "rc" | "dev"))
}

/// Returns the release numbers of a final or post release for ordering (`1.10.0`
/// after `1.9`, a post release after its release), epoch first; `None` for a
/// version that is not one.
fn release_numbers(version: &str) -> Option<(Vec<u64>, u64)> {
    let (epoch, rest) = match version.split_once('!') {
        Some((e, r)) => (e.parse().ok()?, r),
        None => (0, version),
    };
    let public = rest.split('+').next().unwrap_or_default();
    let mut numbers = vec![epoch];
    let mut post = None;
    let tokens = version_tokens(public);
    let mut words = tokens.iter();
    while let Some(token) = words.next() {
        match token.parse::<u64>() {
            Ok(n) if post.is_none() => numbers.push(n),
            _ if token == "post" => post = Some(words.next()?.parse().ok()?),
            _ => return None,
        }
    }
    // `1.0` and `1.0.0` are one version: trailing zeros do not order.
    while numbers.len() > 2 && numbers.last() == Some(&0) {
        numbers.pop();
    }
    Some((numbers, post.unwrap_or(0)))
}

/// Returns the latest PEP 700 `upload-time` of `files`, or why there is none.
fn latest_upload(files: &[File]) -> Result<String, String> {
    let mut latest: Option<(i64, &str)> = None;
    for time in files.iter().filter_map(|f| f.uploaded.as_deref()) {
        let secs = upload_secs(time)
            .ok_or_else(|| format!("'{}' is not an upload time", sanitize(time)))?;
        if latest.is_none_or(|(t, _)| secs >= t) {
            latest = Some((secs, time));
        }
    }
    latest
        .map(|(_, time)| time.to_string())
        .ok_or_else(|| "the index's Simple API gives no upload time (PEP 700)".to_string())
}

/// Returns the latest `upload_time_iso_8601` the JSON API gives of a release.
fn json_api_upload(index: &str, name: &str, version: &str) -> Result<String, String> {
    let base = json_base(index).ok_or_else(|| {
        format!(
            "the index '{}' does not end in /simple, so no JSON API is known",
            sanitize(index)
        )
    })?;
    let url = format!("{base}/{}/{version}/json", normalize(name));
    let (_, body) = get_index(&url, "application/json").map_err(|f| f.why)?;
    let json: Value =
        serde_json::from_slice(&body).map_err(|e| format!("GET {}: not JSON: {e}", shown(&url)))?;
    let files: Vec<File> = json["urls"]
        .as_array()
        .ok_or_else(|| format!("GET {}: no 'urls'", shown(&url)))?
        .iter()
        .map(|f| File {
            uploaded: f["upload_time_iso_8601"].as_str().map(String::from),
            ..File::default()
        })
        .collect();
    latest_upload(&files).map_err(|why| format!("GET {}: {why}", shown(&url)))
}

/// Returns the files of a PEP 691 JSON project page.
fn json_files(body: &[u8]) -> Result<Vec<File>, String> {
    let page: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let files = page["files"].as_array().ok_or("no 'files' (PEP 691)")?;
    Ok(files
        .iter()
        .map(|f| File {
            name: f["filename"].as_str().unwrap_or_default().to_string(),
            url: f["url"].as_str().unwrap_or_default().to_string(),
            sha256: f["hashes"]["sha256"].as_str().map(String::from),
            uploaded: f["upload-time"].as_str().map(String::from),
            requires_python: f["requires-python"].as_str().map(String::from),
            // PEP 691: `yanked` is false, true, or the reason as a string.
            yanked: match &f["yanked"] {
                Value::Bool(true) => Some(String::new()),
                Value::String(why) => Some(why.clone()),
                _ => None,
            },
            // PEP 714's name, else PEP 658's first one: false, true or the hashes.
            has_metadata: [&f["core-metadata"], &f["data-dist-info-metadata"]]
                .iter()
                .any(|v| !matches!(v, Value::Null | Value::Bool(false))),
        })
        .collect())
}

/// Returns the files of a PEP 503 HTML project page: each anchor's text, the
/// `sha256=` of its URL's fragment and its `data-requires-python`.
fn html_files(body: &str) -> Vec<File> {
    body.split("<a ")
        .skip(1)
        .filter_map(|anchor| {
            let (attributes, rest) = anchor.split_once('>')?;
            let (text, _) = rest.split_once("</a>")?;
            let href = attribute(attributes, "href").unwrap_or_default();
            let (url, fragment) = href.split_once('#').unwrap_or((&href, ""));
            let sha256 = fragment.strip_prefix("sha256=").map(String::from);
            // PEP 592: `data-yanked`, with the reason as its value or none.
            let yanked = attribute(attributes, "data-yanked").or_else(|| {
                attributes
                    .split(|c: char| c.is_whitespace() || c == '/')
                    .any(|word| word == "data-yanked")
                    .then(String::new)
            });
            Some(File {
                name: unescape(text.trim()),
                url: url.to_string(),
                sha256,
                uploaded: None,
                requires_python: attribute(attributes, "data-requires-python"),
                yanked,
                has_metadata: ["data-core-metadata", "data-dist-info-metadata"]
                    .iter()
                    .any(|name| attributes.contains(name)),
            })
        })
        .collect()
}

/// Returns the unescaped value of `name="..."` (or `'...'`) among an anchor's
/// attributes.
fn attribute(attributes: &str, name: &str) -> Option<String> {
    let mut rest = attributes;
    while let Some(at) = rest.find(name) {
        let before = rest[..at].chars().last();
        let after = rest[at + name.len()..].trim_start();
        rest = &rest[at + name.len()..];
        if before.is_some_and(|c| !c.is_whitespace()) {
            continue;
        }
        let Some(value) = after.strip_prefix('=') else {
            continue;
        };
        let value = value.trim_start();
        let quote = value.chars().next()?;
        if quote != '"' && quote != '\'' {
            continue;
        }
        let (inner, _) = value[1..].split_once(quote)?;
        return Some(unescape(inner));
    }
    None
}

/// Returns HTML text with the entities an index writes (`&lt;` `&gt;` `&amp;`
/// `&quot;` `&#39;`) decoded.
fn unescape(text: &str) -> String {
    text.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// Returns the version a wheel's or sdist's file name gives for the project `name`,
/// `None` when the file is another project's or not a distribution.
fn file_version<'f>(file: &'f str, name: &str) -> Option<&'f str> {
    let wanted = normalize(name);
    if let Some(stem) = file.strip_suffix(".whl") {
        let mut parts = stem.split('-');
        let dist = parts.next()?;
        return (normalize(dist) == wanted).then(|| parts.next()).flatten();
    }
    let stem = [".tar.gz", ".zip", ".tar.bz2", ".tgz"]
        .iter()
        .find_map(|ext| file.strip_suffix(ext))?;
    let (dist, version) = stem.rsplit_once('-')?;
    (normalize(dist) == wanted).then_some(version)
}

/// Returns true when two spellings name one version as PEP 440 normalizes them: case,
/// a leading `v`, separators and the pre-release spellings aside (`0.2.0-rc.3` is
/// the `0.2.0rc3` of the file names, `1.0-beta1` is `1.0b1`).
fn same_version(a: &str, b: &str) -> bool {
    version_tokens(a) == version_tokens(b)
}

/// Returns a version's numbers and words, separators dropped, numbers without
/// leading zeros and words in PEP 440's spelling.
fn version_tokens(version: &str) -> Vec<String> {
    let lower = version
        .trim()
        .trim_start_matches(['v', 'V'])
        .to_ascii_lowercase();
    let mut tokens: Vec<String> = Vec::new();
    let mut current = String::new();
    let mut push = |token: &mut String| {
        if token.is_empty() {
            return;
        }
        let word = match token.as_str() {
            "alpha" => "a",
            "beta" => "b",
            "c" | "pre" | "preview" => "rc",
            "rev" | "r" => "post",
            other => other,
        };
        let word = match word.parse::<u64>() {
            Ok(n) => n.to_string(),
            Err(_) => word.to_string(),
        };
        tokens.push(word);
        token.clear();
    };
    for c in lower.chars() {
        let switches = current
            .chars()
            .last()
            .is_some_and(|last| last.is_ascii_digit() != c.is_ascii_digit());
        if !c.is_ascii_alphanumeric() || switches {
            push(&mut current);
        }
        if c.is_ascii_alphanumeric() {
            current.push(c);
        }
    }
    push(&mut current);
    tokens
}

/// Returns the Unix second of an ISO 8601 UTC time (`2026-01-02T03:04:05.123456Z`,
/// fractions dropped).
fn upload_secs(time: &str) -> Option<i64> {
    let whole = time.strip_suffix('Z')?;
    let whole = whole.split_once('.').map_or(whole, |(secs, _)| secs);
    date::parse_utc(&format!("{whole}Z"))
}

/// Returns uv's `--exclude-newer` for resolving as of `time` (an upload time, or a
/// `YYYY-MM-DD` as of the start of that day in UTC, as npm reads `--before`): the
/// next second, since uv keeps only files uploaded before it and the release's own
/// files were uploaded at that time.
pub fn exclude_newer(time: &str) -> Option<String> {
    let secs = match date::parts(time) {
        Some(_) => date::parse_utc(&format!("{time}T00:00:00Z"))?,
        None => upload_secs(time)?,
    };
    Some(date::rfc3339(secs + 1))
}

/// Returns the `sha256:` of the wheel of `release` installed in the venv `prefix`:
/// the only wheel, else the one whose tags are those of the installed `.dist-info`'s
/// `WHEEL` file. Empty when it cannot be told.
pub fn installed_wheel(prefix: &Path, name: &str, release: &Release) -> String {
    let chosen = match release.wheels.as_slice() {
        [] => None,
        [only] => Some(only),
        many => {
            let tags = installed_tags(prefix, name);
            many.iter()
                .find(|(file, _)| !tags.is_empty() && wheel_tags(file) == tags)
        }
    };
    chosen.map_or_else(String::new, |(_, sha)| format!("sha256:{sha}"))
}

/// Returns the `Tag:` lines of the `WHEEL` file of `name`'s `.dist-info` in a venv.
fn installed_tags(prefix: &Path, name: &str) -> Vec<String> {
    let Some(dist_info) = dist_info(prefix, name) else {
        return Vec::new();
    };
    let text = std::fs::read_to_string(dist_info.join("WHEEL")).unwrap_or_default();
    let mut tags: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("Tag:").map(|t| t.trim().to_string()))
        .collect();
    tags.sort();
    tags
}

/// Returns the `.dist-info` folder of `name` in the venv `prefix`.
pub(crate) fn dist_info(prefix: &Path, name: &str) -> Option<PathBuf> {
    let wanted = normalize(name);
    let libs = std::fs::read_dir(prefix.join("lib")).ok()?;
    for lib in libs.flatten() {
        let Ok(entries) = std::fs::read_dir(lib.path().join("site-packages")) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = file.strip_suffix(".dist-info") else {
                continue;
            };
            if stem.split('-').next().map(normalize).as_deref() == Some(wanted.as_str()) {
                return Some(entry.path());
            }
        }
    }
    None
}

/// Returns the tags a wheel's file name stands for, expanded and sorted
/// (`x-1-py2.py3-none-any.whl` → `py2-none-any`, `py3-none-any`).
fn wheel_tags(file: &str) -> Vec<String> {
    let parts: Vec<&str> = file.trim_end_matches(".whl").split('-').collect();
    let [.., python, abi, platform] = parts.as_slice() else {
        return Vec::new();
    };
    let mut tags = Vec::new();
    for p in python.split('.') {
        for a in abi.split('.') {
            for x in platform.split('.') {
                tags.push(format!("{p}-{a}-{x}"));
            }
        }
    }
    tags.sort();
    tags
}

pub use super::family::is_valid_pypi_name as is_valid_name;

/// Returns a PyPI name normalized as PEP 503 says: lower case, runs of `-_.` one `-`.
pub fn normalize(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars() {
        if "-_.".contains(c) {
            if !out.ends_with('-') {
                out.push('-');
            }
        } else {
            out.push(c.to_ascii_lowercase());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_is_pips_by_its_precedence() {
        let listed = "global.index-url='https://g/simple'\n\
                      install.index-url='https://i/simple/'\n\
                      :env:.cert='/x'\n";
        assert_eq!(
            pip_config_index(listed).as_deref(),
            Some("https://i/simple")
        );
        let listed = format!("{listed}:env:.index-url='https://e/simple'\n");
        assert_eq!(
            pip_config_index(&listed).as_deref(),
            Some("https://e/simple")
        );
        assert_eq!(pip_config_index(":env:.cert='/x'\n"), None);
        assert_eq!(
            json_base("https://pypi.org/simple/").as_deref(),
            Some("https://pypi.org/pypi")
        );
        assert_eq!(json_base("https://mirror.example/root/+simple"), None);
    }

    #[test]
    fn a_project_page_is_read_as_json_or_html() {
        let json = br#"{"meta": {"api-version": "1.1"}, "name": "x-mcp", "files": [
            {"filename": "x_mcp-1.0-py3-none-any.whl", "hashes": {"sha256": "aa"},
             "requires-python": ">=3.12", "upload-time": "2026-01-02T03:04:05.123456Z"},
            {"filename": "x_mcp-1.0.tar.gz", "hashes": {}, "upload-time": "2026-01-02T03:04:09Z"}]}"#;
        let files = json_files(json).unwrap();
        assert_eq!(files[0].requires_python.as_deref(), Some(">=3.12"));
        assert_eq!(files[0].sha256.as_deref(), Some("aa"));
        assert_eq!(latest_upload(&files).as_deref(), Ok("2026-01-02T03:04:09Z"));
        let html = "<html><body>\n\
            <a href=\"../../f/x_mcp-1.0-py3-none-any.whl#sha256=bb\" data-requires-python=\"&gt;=3.10,&lt;4\">x_mcp-1.0-py3-none-any.whl</a><br/>\n\
            <a data-requires-python='' href='x-mcp-0.9.tar.gz'>x-mcp-0.9.tar.gz</a>\n</body></html>";
        let files = html_files(html);
        assert_eq!(
            files[0],
            File {
                name: "x_mcp-1.0-py3-none-any.whl".into(),
                url: "../../f/x_mcp-1.0-py3-none-any.whl".into(),
                sha256: Some("bb".into()),
                uploaded: None,
                requires_python: Some(">=3.10,<4".into()),
                yanked: None,
                has_metadata: false,
            }
        );
        assert_eq!(files[1].name, "x-mcp-0.9.tar.gz");
        let with =
            html_files("<a href='x-1.0-py3-none-any.whl' data-core-metadata=\"sha256=cc\">x</a>");
        assert!(
            with[0].has_metadata,
            "PEP 714's attribute names the metadata file"
        );
        let json = br#"{"files":[{"filename":"a","url":"a","core-metadata":{"sha256":"cc"}},
            {"filename":"b","url":"b","data-dist-info-metadata":true},
            {"filename":"c","url":"c","core-metadata":false}]}"#;
        let has: Vec<bool> = json_files(json)
            .unwrap()
            .iter()
            .map(|f| f.has_metadata)
            .collect();
        assert_eq!(has, [true, true, false]);
        assert_eq!(
            latest_upload(&files),
            Err("the index's Simple API gives no upload time (PEP 700)".to_string())
        );
        assert!(json_files(b"{}").unwrap_err().contains("no 'files'"));
    }

    #[test]
    fn the_newest_final_release_is_the_latest() {
        let mut versions = [
            "1.9",
            "1.10.0",
            "1.10.1rc1",
            "2.0.dev3",
            "1.10.0.post1",
            "0.9",
        ];
        versions.sort_by_key(|v| release_numbers(v));
        assert_eq!(
            versions.iter().rfind(|v| !is_prerelease(v)),
            Some(&"1.10.0.post1")
        );
        assert!(release_numbers("1.0") == release_numbers("1.0.0"));
        assert!(release_numbers("1.0") < release_numbers("1.0.1"));
        assert!(release_numbers("1!0.1") > release_numbers("9.9"));
        assert!(is_prerelease("1.0b2") && is_prerelease("1.0-rc.1") && !is_prerelease("1.0"));
        let html = "<a href='x-1.0.tar.gz#sha256=aa' data-yanked>x-1.0.tar.gz</a>\
                    <a href='x-1.1.tar.gz' data-yanked=\"broken\">x-1.1.tar.gz</a>";
        let files = html_files(html);
        assert_eq!(files[0].yanked.as_deref(), Some(""));
        assert_eq!(files[1].yanked.as_deref(), Some("broken"));
    }

    #[test]
    fn a_file_belongs_to_the_project_and_version_its_name_says() {
        assert_eq!(
            file_version("X_Mcp-1.0-py3-none-any.whl", "x-mcp"),
            Some("1.0")
        );
        assert_eq!(
            file_version("x_mcp-1.0-1-cp311-cp311-any.whl", "x.mcp"),
            Some("1.0")
        );
        assert_eq!(
            file_version("x-mcp-server-2.0.tar.gz", "x-mcp-server"),
            Some("2.0")
        );
        assert_eq!(file_version("x-mcp-server-2.0.tar.gz", "x-mcp"), None);
        assert_eq!(file_version("x_mcp-1.0.exe", "x-mcp"), None);
        assert!(same_version("v1.0.0", "1.0.0") && !same_version("1.0", "1.0.0"));
        assert!(same_version("0.2.0-rc.3", "0.2.0rc3"));
        assert!(same_version("1.0-Beta1", "1.0b1") && same_version("2.01", "2.1"));
        assert!(!same_version("1.0rc1", "1.0") && !same_version("1.0.post1", "1.0.1"));
    }

    #[test]
    fn uv_is_told_the_second_after_the_time_resolved_as_of() {
        assert_eq!(
            exclude_newer("2026-01-02T03:04:05.999999Z").as_deref(),
            Some("2026-01-02T03:04:06Z")
        );
        assert_eq!(
            exclude_newer("2026-12-31T23:59:59Z").as_deref(),
            Some("2027-01-01T00:00:00Z")
        );
        assert_eq!(
            exclude_newer("2026-03-01").as_deref(),
            Some("2026-03-01T00:00:01Z")
        );
        for bad in ["", "yesterday", "2026-01-02T03:04:05", "2026-13-01"] {
            assert_eq!(exclude_newer(bad), None, "{bad}");
        }
    }

    #[test]
    fn a_wheel_names_the_tags_it_was_built_for() {
        assert_eq!(
            wheel_tags("x-1.0-py2.py3-none-any.whl"),
            ["py2-none-any", "py3-none-any"]
        );
        assert_eq!(
            wheel_tags("x-1.0-1-cp311-cp311-manylinux_2_17_x86_64.manylinux2014_x86_64.whl"),
            [
                "cp311-cp311-manylinux2014_x86_64",
                "cp311-cp311-manylinux_2_17_x86_64"
            ]
        );
        assert_eq!(normalize("Mcp_Server..X"), "mcp-server-x");
    }
}
