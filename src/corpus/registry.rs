//! Reads the server list of an MCP Registry: over HTTP from `GET {base}/v0.1/servers`,
//! following `metadata.nextCursor`, or from answer pages saved on disk.
//!
//! This module owns the registry's answer format (`{"servers": [{"server":
//! server.json, "_meta": ...}], "metadata": {"nextCursor": ...}}`, as in the
//! registry's `docs/reference/api/openapi.yaml`) and the bounds on reading it: page
//! size, page count, cursor loops, body size, timeouts and retries. It keeps only
//! what a corpus and a servers file need from each server.json and does not
//! resolve or pin anything.

use std::collections::HashSet;
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use serde::Deserialize;
use sha2::Digest;

use crate::fetch::http::{self, Breaker, Client, Kind, Retry};
use crate::infra::date;
use crate::infra::error::UsageError;

/// The official registry.
pub const DEFAULT_URL: &str = "https://registry.modelcontextprotocol.io";

/// The largest answer page read, in bytes: a page of 100 server.json documents
/// is well under a megabyte.
const MAX_PAGE_BYTES: u64 = 32 << 20;

/// Holds what a corpus and a servers file need from one server.json.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    /// The registry name, e.g. `io.github.owner/server`.
    pub name: String,
    pub version: Option<String>,
    /// `repository.url`, when given and not empty.
    pub repository: Option<String>,
    /// `repository.subfolder`, when given and not empty.
    pub subfolder: Option<String>,
    pub remotes: Vec<Remote>,
    /// `packages[]`, in the entry's order: their identifiers are what release tags
    /// may be named after, and npm and PyPI ones can be installed and probed.
    pub packages: Vec<Package>,
    /// `_meta["io.modelcontextprotocol.registry/official"].isLatest`, when given.
    pub is_latest: Option<bool>,
    /// The UTC day of `_meta["io.modelcontextprotocol.registry/official"].publishedAt`
    /// (`YYYY-MM-DD`), when given as an RFC 3339 time: the day this version was
    /// published, at which a repository without its release tag is pinned.
    pub published: Option<String>,
    /// `_meta["io.modelcontextprotocol.registry/official"].status` (`active`,
    /// `deprecated`, `deleted`), when given.
    pub status: Option<String>,
}

/// Holds one entry of `remotes`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Remote {
    /// `streamable-http` or `sse`.
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(default)]
    pub url: String,
    #[serde(default)]
    pub headers: Vec<Header>,
}

/// Holds one header a remote declares; its value is never kept.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
pub struct Header {
    pub name: String,
    #[serde(default, rename = "isRequired")]
    pub is_required: bool,
    #[serde(default, rename = "isSecret")]
    pub is_secret: bool,
}

/// Holds a registry entry that could not be read, and why.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BadEntry {
    /// The entry's name when it has one, else empty.
    pub name: String,
    pub why: String,
}

/// Holds everything read from a registry.
#[derive(Debug, Default)]
pub struct Listing {
    pub entries: Vec<Entry>,
    pub bad: Vec<BadEntry>,
    pub pages: usize,
}

/// Holds how the registry is read over HTTP.
#[derive(Clone, Debug)]
pub struct HttpOptions {
    /// The base URL, e.g. [`DEFAULT_URL`].
    pub base: String,
    /// Servers per page, 1 to 100.
    pub limit: u16,
    /// The most pages read before giving up.
    pub max_pages: usize,
    /// Asks for each server's latest version only (`version=latest`).
    pub is_latest_only: bool,
    pub timeout: Duration,
    pub retry: Retry,
    /// A folder each page is saved to as `page-NNNN.json`.
    pub save: Option<PathBuf>,
}

#[derive(Deserialize)]
struct RawPage {
    servers: Vec<serde_json::Value>,
    #[serde(default)]
    metadata: Option<RawMetadata>,
}

#[derive(Deserialize)]
struct RawMetadata {
    #[serde(default, rename = "nextCursor")]
    next_cursor: Option<String>,
}

#[derive(Deserialize)]
struct RawResponse {
    server: RawServer,
    #[serde(default, rename = "_meta")]
    meta: Option<RawMeta>,
}

/// Returns the UTC day of an RFC 3339 time as the registry writes `publishedAt`
/// (`2025-09-16T16:43:44.243434Z`): its date when the text is a real date followed
/// by `T` and a time in UTC (`Z`), else `None`. A zone other than UTC is refused
/// rather than guessed, as it could move the day.
fn published_day(text: &str) -> Option<String> {
    let day = text.get(..10)?;
    let time = text.get(10..)?;
    let is_utc = time.starts_with('T') && (time.ends_with('Z') || time.ends_with("+00:00"));
    (is_utc && date::parts(day).is_some()).then(|| day.to_string())
}

/// The registry's own data about an entry, beside the publisher's server.json.
#[derive(Deserialize)]
struct RawMeta {
    #[serde(default, rename = "io.modelcontextprotocol.registry/official")]
    official: Option<RawOfficial>,
}

#[derive(Deserialize)]
struct RawOfficial {
    #[serde(default)]
    status: Option<String>,
    #[serde(default, rename = "isLatest")]
    is_latest: Option<bool>,
    #[serde(default, rename = "publishedAt")]
    published_at: Option<String>,
}

/// Holds one entry of `packages`, as server.json's `Package` has it (camelCase keys:
/// `registryType`, `identifier`, `version`, `runtimeHint`, `runtimeArguments`,
/// `packageArguments`, `environmentVariables`, `transport`). Every field may be
/// missing; a package whose fields are of the wrong type keeps its identifier and
/// says why in `malformed`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Package {
    #[serde(default)]
    pub registry_type: String,
    #[serde(default)]
    pub identifier: String,
    #[serde(default)]
    pub version: Option<String>,
    #[serde(default)]
    pub runtime_hint: Option<String>,
    #[serde(default)]
    pub runtime_arguments: Vec<Argument>,
    #[serde(default)]
    pub package_arguments: Vec<Argument>,
    #[serde(default)]
    pub environment_variables: Vec<Variable>,
    #[serde(default)]
    pub transport: Option<Transport>,
    /// Why the package's fields could not be read, when they could not.
    #[serde(skip)]
    pub malformed: Option<String>,
}

/// Holds a package's `transport`; only its type matters here.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Transport {
    #[serde(default, rename = "type")]
    pub kind: String,
}

/// Holds one command-line argument (`Argument`: `positional` or `named`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Argument {
    /// `positional` or `named`.
    #[serde(default, rename = "type")]
    pub kind: String,
    /// The flag of a named argument, leading dashes included.
    #[serde(default)]
    pub name: Option<String>,
    /// A positional argument's label, not part of the command line.
    #[serde(default)]
    pub value_hint: Option<String>,
    #[serde(flatten)]
    pub input: Input,
}

/// Holds one environment variable (`KeyValueInput`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
pub struct Variable {
    pub name: String,
    #[serde(flatten)]
    pub input: Input,
}

/// Holds an `Input`: a fixed value, a default, and the `{variables}` the value may
/// name.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Input {
    #[serde(default)]
    pub value: Option<String>,
    #[serde(default)]
    pub default: Option<String>,
    #[serde(default)]
    pub format: Option<String>,
    /// The values it may take, when the entry lists them; kept as written, so that a
    /// list of another type leaves the rest of the package readable.
    #[serde(default)]
    pub choices: serde_json::Value,
    #[serde(default)]
    pub is_required: bool,
    #[serde(default)]
    pub is_secret: bool,
    #[serde(default)]
    pub variables: std::collections::BTreeMap<String, Input>,
}

impl Package {
    /// Reads one `packages[]` element leniently: a package whose fields are of the
    /// wrong type keeps what identifies it, so that the entry is still pinned.
    fn from_value(value: serde_json::Value) -> Package {
        match serde_json::from_value::<Package>(value.clone()) {
            Ok(package) => package,
            Err(e) => Package {
                registry_type: text_at(&value, "registryType"),
                identifier: text_at(&value, "identifier"),
                version: Some(text_at(&value, "version")).filter(|v| !v.is_empty()),
                malformed: Some(e.to_string()),
                ..Package::default()
            },
        }
    }
}

fn text_at(value: &serde_json::Value, key: &str) -> String {
    value
        .get(key)
        .and_then(|v| v.as_str())
        .unwrap_or("")
        .to_string()
}

#[derive(Deserialize)]
struct RawServer {
    name: String,
    #[serde(default)]
    version: Option<String>,
    #[serde(default)]
    repository: Option<RawRepository>,
    #[serde(default)]
    remotes: Vec<Remote>,
    #[serde(default)]
    packages: Vec<serde_json::Value>,
}

#[derive(Deserialize)]
struct RawRepository {
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    subfolder: Option<String>,
}

/// Parses one answer page, or a listing saved whole as a bare array of the page's
/// records; `source` names it in errors. Returns the entries and the next cursor
/// (`None` when absent, null or empty, and always for a saved listing).
///
/// A page that is not the registry's answer format is an error; one entry that
/// is malformed becomes a [`BadEntry`] and the rest are kept.
pub fn parse_page(bytes: &[u8], source: &str) -> Result<(Listing, Option<String>)> {
    // A listing saved whole (as daily copies of the registry keep it) is a bare
    // array of the same `{server, _meta}` records, often behind a UTF-8 byte-order
    // mark; it has no cursor, so it is a complete listing by itself.
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    let page: RawPage = match bytes.iter().find(|b| !b.is_ascii_whitespace()) {
        Some(b'[') => RawPage {
            servers: serde_json::from_slice(bytes).with_context(|| {
                format!("'{source}' is not a saved registry listing (an array of servers)")
            })?,
            metadata: None,
        },
        _ => serde_json::from_slice(bytes)
            .with_context(|| format!("'{source}' is not a registry answer page"))?,
    };
    // The older /v0 answers list each server.json flat, without `server` and
    // `_meta`: every entry would be malformed, so the page is refused whole.
    let is_flat = |v: &serde_json::Value| v.get("server").is_none() && v.get("name").is_some();
    if !page.servers.is_empty() && page.servers.iter().all(is_flat) {
        bail!(
            "'{source}' looks like a page of the older /v0 API (each server listed flat, \
             without 'server' and '_meta'); save pages from /v0.1/servers"
        );
    }
    let mut listing = Listing {
        pages: 1,
        ..Listing::default()
    };
    for value in page.servers {
        let name = value
            .pointer("/server/name")
            .and_then(|n| n.as_str())
            .unwrap_or("")
            .to_string();
        match serde_json::from_value::<RawResponse>(value) {
            Ok(raw) => {
                let (repository, subfolder) = match raw.server.repository {
                    Some(r) => (non_empty(r.url), non_empty(r.subfolder)),
                    None => (None, None),
                };
                let official = raw.meta.and_then(|m| m.official);
                listing.entries.push(Entry {
                    name: raw.server.name,
                    version: non_empty(raw.server.version),
                    repository,
                    subfolder,
                    remotes: raw.server.remotes,
                    packages: raw
                        .server
                        .packages
                        .into_iter()
                        .map(Package::from_value)
                        .filter(|p| !p.identifier.trim().is_empty())
                        .collect(),
                    is_latest: official.as_ref().and_then(|o| o.is_latest),
                    published: official
                        .as_ref()
                        .and_then(|o| o.published_at.as_deref())
                        .and_then(published_day),
                    status: official.and_then(|o| non_empty(o.status)),
                });
            }
            Err(e) => listing.bad.push(BadEntry {
                name,
                why: format!("malformed registry entry: {e}"),
            }),
        }
    }
    let next = non_empty(page.metadata.and_then(|m| m.next_cursor));
    Ok((listing, next))
}

fn non_empty(text: Option<String>) -> Option<String> {
    text.filter(|t| !t.trim().is_empty())
}

/// Returns the entries a survey reads, in listing order: each server's latest (the
/// entry marked `isLatest`, or, of a server none of whose entries says, every one),
/// or with `is_all_versions` every version; deleted entries left out, a version
/// listed twice kept once.
pub fn current(entries: &[Entry], is_all_versions: bool) -> Vec<&Entry> {
    let mut seen = HashSet::new();
    let marked: HashSet<&str> = entries
        .iter()
        .filter(|e| e.is_latest == Some(true))
        .map(|e| e.name.as_str())
        .collect();
    entries
        .iter()
        .filter(|e| e.status.as_deref() != Some("deleted"))
        .filter(|e| match e.is_latest {
            _ if is_all_versions => true,
            Some(latest) => latest,
            None => !marked.contains(e.name.as_str()),
        })
        .filter(|e| seen.insert((e.name.as_str(), e.version.as_deref())))
        .collect()
}

impl Listing {
    fn append(&mut self, other: Listing) {
        self.entries.extend(other.entries);
        self.bad.extend(other.bad);
        self.pages += other.pages;
    }
}

/// Reads saved answer pages: each path is a page file, or a folder whose `*.json`
/// files are pages. Cursors are not followed; the pages are taken as the list. A
/// page given twice (the same bytes) is read once.
///
/// A set in which every page carries a `nextCursor` was cut short: the last page's
/// successor is missing. It is refused, naming that cursor, unless `is_partial`.
pub fn read_saved(paths: &[PathBuf], is_partial: bool) -> Result<Listing> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let mut found: Vec<PathBuf> = fs::read_dir(path)
                .map_err(|e| UsageError(format!("reading the folder '{}': {e}", path.display())))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "json") && p.is_file())
                .collect();
            if found.is_empty() {
                return Err(UsageError(format!(
                    "the folder '{}' holds no *.json page",
                    path.display()
                ))
                .into());
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let mut listing = Listing::default();
    let mut seen: HashSet<Vec<u8>> = HashSet::new();
    let mut has_end = false;
    let mut last_cursor: Option<(String, PathBuf)> = None;
    for file in files {
        let bytes = read_file_capped(&file)?;
        let digest = sha2::Sha256::digest(&bytes).to_vec();
        if !seen.insert(digest) {
            continue;
        }
        let (page, next) = parse_page(&bytes, &file.display().to_string())?;
        match next {
            Some(cursor) => last_cursor = Some((cursor, file.clone())),
            None => has_end = true,
        }
        listing.append(page);
    }
    if let (false, false, Some((cursor, file))) = (has_end, is_partial, last_cursor) {
        return Err(UsageError(format!(
            "the saved pages are cut short: every page names a next one, and no page \
             answers the cursor '{}' of '{}' (add the missing pages, or give --partial \
             to use these as they are)",
            crate::infra::sanitize::excerpt(&cursor),
            file.display()
        ))
        .into());
    }
    Ok(listing)
}

fn read_file_capped(path: &Path) -> Result<Vec<u8>> {
    // A page that is not there is the user's input being wrong, as a missing
    // corpus or list is.
    let file = fs::File::open(path)
        .map_err(|e| UsageError(format!("opening '{}': {e}", path.display())))?;
    let mut bytes = Vec::new();
    file.take(MAX_PAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("reading '{}'", path.display()))?;
    if bytes.len() as u64 > MAX_PAGE_BYTES {
        bail!(
            "'{}' is larger than {MAX_PAGE_BYTES} bytes, too large for a page",
            path.display()
        );
    }
    Ok(bytes)
}

/// Returns the URL of one page: `{base}/v0.1/servers?limit=N&version=latest`, and
/// the cursor form-encoded when there is one.
pub fn page_url(
    base: &str,
    limit: u16,
    is_latest_only: bool,
    cursor: Option<&str>,
) -> Result<reqwest::Url> {
    let text = format!("{}/v0.1/servers", base.trim_end_matches('/'));
    let mut url = reqwest::Url::parse(&text)
        .map_err(|e| UsageError(format!("--url '{base}' is not a URL: {e}")))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(UsageError(format!("--url '{base}' is not an http:// or https:// URL")).into());
    }
    {
        let mut query = url.query_pairs_mut();
        query.append_pair("limit", &limit.to_string());
        if is_latest_only {
            query.append_pair("version", "latest");
        }
        if let Some(cursor) = cursor {
            query.append_pair("cursor", cursor);
        }
    }
    Ok(url)
}

/// Reads every page of the registry at `options.base`, following cursors.
///
/// Fails when a cursor comes back after it was followed (the pages would loop),
/// past `max_pages` pages, or when a page fails after its retries.
pub fn fetch_all(options: &HttpOptions) -> Result<Listing> {
    let client = Client::new(http::Options {
        timeout: options.timeout,
        retry: options.retry,
        token: None,
    })?;
    // Each page is needed: its own retries decide, no run of failures stops early.
    let breaker = Breaker::new(0);
    if let Some(dir) = &options.save {
        fs::create_dir_all(dir).with_context(|| format!("creating '{}'", dir.display()))?;
    }
    let mut listing = Listing::default();
    let mut seen: HashSet<String> = HashSet::new();
    let mut cursor: Option<String> = None;
    loop {
        if listing.pages >= options.max_pages {
            bail!(
                "the registry has more than {} pages (raise --max-pages to read more)",
                options.max_pages
            );
        }
        let url = page_url(
            &options.base,
            options.limit,
            options.is_latest_only,
            cursor.as_deref(),
        )?;
        let bytes = client
            .get(url.as_str(), Some("application/json"), &breaker, read_page)
            .with_context(|| format!("GET {url}"))?;
        if let Some(dir) = &options.save {
            let path = dir.join(format!("page-{:04}.json", listing.pages + 1));
            fs::write(&path, &bytes).with_context(|| format!("writing '{}'", path.display()))?;
        }
        let (page, next) = parse_page(&bytes, url.as_str())?;
        listing.append(page);
        match next {
            None => return Ok(listing),
            Some(next) => {
                if !seen.insert(next.clone()) {
                    bail!(
                        "the registry's pages loop: cursor '{}' came back after it was followed (GET {url})",
                        crate::infra::sanitize::excerpt(&next)
                    );
                }
                cursor = Some(next);
            }
        }
    }
}

/// Reads one answer page's body, refusing one past [`MAX_PAGE_BYTES`].
fn read_page(response: reqwest::blocking::Response) -> Result<Vec<u8>, http::Error> {
    let mut bytes = Vec::new();
    response
        .take(MAX_PAGE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| http::Error::new(Kind::Network, format!("reading the answer: {e}")))?;
    if bytes.len() as u64 > MAX_PAGE_BYTES {
        return Err(http::Error::new(
            Kind::Mismatch,
            format!("the answer is larger than {MAX_PAGE_BYTES} bytes, too large for a page"),
        ));
    }
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_published_time_gives_its_utc_day_or_nothing() {
        let day = |t: &str| published_day(t);
        assert_eq!(
            day("2025-09-16T16:43:44.243434Z").as_deref(),
            Some("2025-09-16")
        );
        assert_eq!(
            day("2025-12-31T23:59:59+00:00").as_deref(),
            Some("2025-12-31")
        );
        // Another zone could move the day: refused, not guessed.
        assert_eq!(day("2025-12-31T23:59:59-05:00"), None);
        assert_eq!(day("2025-02-30T10:00:00Z"), None);
        assert_eq!(day("2025-09-16"), None);
        assert_eq!(day("yesterday"), None);
    }

    #[test]
    fn pages_keep_what_a_corpus_needs() {
        let page = br#"{"servers":[
            {"server":{"name":"io.github.a/b","description":"d","version":"1.0.0",
              "repository":{"url":"https://github.com/a/b","source":"github","subfolder":"src/b"},
              "remotes":[{"type":"streamable-http","url":"https://x/mcp",
                "headers":[{"name":"Authorization","isRequired":true,"isSecret":true,"value":"Bearer {t}"}]}]},
             "_meta":{"io.modelcontextprotocol.registry/official":{"status":"active","isLatest":true}}},
            {"server":{"name":"io.github.c/d","version":"2","repository":{"url":"","source":""}}},
            {"server":{"version":"1"}},
            {"server":{"name":"x/y","version":"1","remotes":[{"url":"https://x"}]}}
          ],"metadata":{"nextCursor":"io.github.c/d:2","count":4}}"#;
        let (listing, next) = parse_page(page, "p.json").unwrap();
        assert_eq!(next.as_deref(), Some("io.github.c/d:2"));
        assert_eq!(listing.entries.len(), 2);
        let e = &listing.entries[0];
        assert_eq!(e.repository.as_deref(), Some("https://github.com/a/b"));
        assert_eq!(e.subfolder.as_deref(), Some("src/b"));
        assert_eq!(e.remotes[0].headers[0].name, "Authorization");
        assert!(e.remotes[0].headers[0].is_required && e.remotes[0].headers[0].is_secret);
        assert_eq!(
            listing.entries[1].repository, None,
            "an empty URL is no repository"
        );
        assert_eq!(listing.bad.len(), 2);
        assert_eq!(listing.bad[0].name, "");
        assert_eq!(listing.bad[1].name, "x/y");
        assert!(
            listing.bad[1].why.contains("type"),
            "{}",
            listing.bad[1].why
        );
    }

    #[test]
    fn the_last_page_has_no_cursor() {
        for end in [
            r#"{"servers":[]}"#,
            r#"{"servers":[],"metadata":{"nextCursor":null}}"#,
            r#"{"servers":[],"metadata":{"nextCursor":""}}"#,
        ] {
            assert_eq!(parse_page(end.as_bytes(), "p").unwrap().1, None, "{end}");
        }
        let e = parse_page(b"<html>", "p.json").unwrap_err();
        assert!(format!("{e:#}").contains("'p.json' is not a registry answer page"));
    }

    #[test]
    fn a_listing_saved_whole_is_read_as_one_page_with_no_cursor() {
        // As daily copies of the registry keep it: a bare array, a byte-order mark,
        // every version of a server with the latest marked.
        let saved = "\u{feff}[\n {\"server\":{\"name\":\"a/b\",\"version\":\"1.0.0\"},
              \"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"isLatest\":false}}},
             {\"server\":{\"name\":\"a/b\",\"version\":\"1.0.1\",
              \"packages\":[{\"registryType\":\"npm\",\"identifier\":\"b\",\"version\":\"1.0.1\"}]},
              \"_meta\":{\"io.modelcontextprotocol.registry/official\":{\"isLatest\":true}}},
             {\"server\":{\"version\":\"1\"}}]";
        let (listing, next) = parse_page(saved.as_bytes(), "servers.json").unwrap();
        assert_eq!(next, None);
        let versions: Vec<_> = listing
            .entries
            .iter()
            .map(|e| (e.version.as_deref(), e.is_latest))
            .collect();
        assert_eq!(
            versions,
            [(Some("1.0.0"), Some(false)), (Some("1.0.1"), Some(true))]
        );
        assert_eq!(listing.entries[1].packages[0].identifier, "b");
        assert_eq!(
            listing.bad.len(),
            1,
            "a record without a name is a bad entry"
        );
        let e = parse_page(b"\xEF\xBB\xBF[1,", "s.json").unwrap_err();
        assert!(format!("{e:#}").contains("'s.json' is not a saved registry listing"));
    }

    #[test]
    fn cursors_are_form_encoded() {
        let url = page_url("http://127.0.0.1:9/base/", 100, true, Some("a/b:1.0 +&=")).unwrap();
        assert_eq!(
            url.as_str(),
            "http://127.0.0.1:9/base/v0.1/servers?limit=100&version=latest&cursor=a%2Fb%3A1.0+%2B%26%3D"
        );
        assert!(page_url("ftp://x", 1, true, None).is_err());
        assert!(page_url("not a url", 1, true, None).is_err());
        let all = page_url("http://x", 5, false, None).unwrap();
        assert_eq!(all.as_str(), "http://x/v0.1/servers?limit=5");
    }
}
