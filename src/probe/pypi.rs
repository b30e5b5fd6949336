//! What a PyPI install needs to know of the index: which index pip would read, when a
//! release was uploaded (so that its dependencies resolve as of that time), which of
//! its wheels went into a venv, and whether it has only sdists.
//!
//! The index is the user's: `UV_DEFAULT_INDEX` or `UV_INDEX_URL` when set (uv reads
//! them itself), else the one pip is configured with (`PIP_INDEX_URL`, `pip.conf`'s
//! `index-url`, as `pip config list` shows them), else PyPI. The release's upload
//! time comes from the index's JSON API (`/simple` → `/pypi/NAME/VERSION/json`, as
//! PyPI and its mirrors serve it). It installs nothing and runs no package: that is
//! `install`'s (docs/probe.md, "Registry packages").

use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use serde_json::Value;

use crate::infra::date;
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
    let mut command = Command::new("python3");
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

/// Holds what the JSON API says of one release.
#[derive(Debug, Default)]
pub struct Release {
    /// The latest upload time of its files, as the index gives it.
    pub uploaded: Option<String>,
    /// Its wheels: file name and sha256.
    pub wheels: Vec<(String, String)>,
}

/// Returns what the index's JSON API says of `name` at `version`, or why it says
/// nothing (the reason goes into the servers table).
pub fn release(index: &str, name: &str, version: &str) -> Result<Release, String> {
    let base = json_base(index).ok_or_else(|| {
        format!(
            "the index '{}' does not end in /simple, so its JSON API is not known",
            sanitize(index)
        )
    })?;
    let url = format!("{base}/{}/{version}/json", normalize(name));
    let client = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| format!("GET {url}: {e}"))?;
    let body = client
        .get(&url)
        .send()
        .and_then(|r| r.error_for_status())
        .and_then(|r| r.bytes())
        .map_err(|e| format!("GET {url}: {e}"))?;
    let json: Value =
        serde_json::from_slice(&body).map_err(|e| format!("GET {url}: not JSON: {e}"))?;
    let files = json["urls"]
        .as_array()
        .ok_or_else(|| format!("GET {url}: no 'urls'"))?;
    let mut release = Release::default();
    let mut latest: Option<i64> = None;
    for file in files {
        if let Some(time) = file["upload_time_iso_8601"].as_str() {
            let Some(secs) = upload_secs(time) else {
                return Err(format!(
                    "GET {url}: '{}' is not an upload time",
                    sanitize(time)
                ));
            };
            if latest.is_none_or(|t| secs >= t) {
                latest = Some(secs);
                release.uploaded = Some(time.to_string());
            }
        }
        let filename = file["filename"].as_str().unwrap_or_default();
        if let (true, Some(sha)) = (
            filename.ends_with(".whl"),
            file["digests"]["sha256"].as_str(),
        ) {
            release.wheels.push((filename.to_string(), sha.to_string()));
        }
    }
    Ok(release)
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
    let wanted = normalize(name);
    let Ok(libs) = std::fs::read_dir(prefix.join("lib")) else {
        return Vec::new();
    };
    for lib in libs.flatten() {
        let Ok(entries) = std::fs::read_dir(lib.path().join("site-packages")) else {
            continue;
        };
        for entry in entries.flatten() {
            let file = entry.file_name().to_string_lossy().into_owned();
            let Some(stem) = file.strip_suffix(".dist-info") else {
                continue;
            };
            if stem.split('-').next().map(normalize) != Some(wanted.clone()) {
                continue;
            }
            let text = std::fs::read_to_string(entry.path().join("WHEEL")).unwrap_or_default();
            let mut tags: Vec<String> = text
                .lines()
                .filter_map(|l| l.strip_prefix("Tag:").map(|t| t.trim().to_string()))
                .collect();
            tags.sort();
            return tags;
        }
    }
    Vec::new()
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

/// Returns true when the index lists files of `name` at `version` and none of them
/// is a wheel. Asked only once an install has failed, to say why.
pub fn has_only_sdists(name: &str, version: &str) -> bool {
    let url = format!("{}/{}/", index().url, normalize(name));
    let Ok(client) = reqwest::blocking::Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
    else {
        return false;
    };
    let Ok(body) = client
        .get(&url)
        .header("Accept", "text/html")
        .send()
        .and_then(|r| r.error_for_status()?.text())
    else {
        return false;
    };
    let (mut wheels, mut sdists) = (0, 0);
    for file in body
        .split("</a>")
        .filter_map(|a| a.rsplit_once('>').map(|(_, text)| text.trim()))
    {
        if let Some(stem) = file.strip_suffix(".whl") {
            let mut parts = stem.split('-');
            if parts.next().map(normalize) == Some(normalize(name)) && parts.next() == Some(version)
            {
                wheels += 1;
            }
        } else if let Some(stem) = file
            .strip_suffix(".tar.gz")
            .or_else(|| file.strip_suffix(".zip"))
        {
            if stem
                .rsplit_once('-')
                .is_some_and(|(dist, v)| normalize(dist) == normalize(name) && v == version)
            {
                sdists += 1;
            }
        }
    }
    sdists > 0 && wheels == 0
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
