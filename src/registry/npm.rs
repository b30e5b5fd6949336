//! An npm registry, as the user's own npm is set up to read it: which registry a
//! package comes from, the credential npm would send, and a version pinned to its
//! tarball by `dist.integrity`.
//!
//! The configuration is npm's layers, the first that sets a key winning: the
//! environment (`npm_config_*`, any case), the project's `.npmrc` (the current
//! folder's), the user's (`$NPM_CONFIG_USERCONFIG`, else `~/.npmrc`), the global one
//! (`$NPM_CONFIG_GLOBALCONFIG`, else `PREFIX/etc/npmrc` beside the `node` on `PATH`),
//! then `https://registry.npmjs.org/`. A scoped package reads `@scope:registry`
//! first. Credentials are keyed as npm keys them, by `//host/path/:_authToken`,
//! `:_auth` or `:username` and `:_password`, `${VAR}` expanded; they are sent only
//! to the place they name and never written anywhere. The packument is read over
//! HTTP; npm itself is not needed.

use std::collections::HashMap;
use std::path::PathBuf;

use base64::Engine;
use reqwest::Url;
use serde_json::Value;

use super::client::{get, shown};
use super::pinned::{Kind, Miss, Pinned};
use crate::fetch::digest::Digest;
use crate::fetch::http::{self, Credential};
use crate::infra::sanitize::sanitize;

/// The registry when nothing else is configured.
pub const DEFAULT_REGISTRY: &str = "https://registry.npmjs.org/";

/// Holds npm's configuration as far as reading a registry needs: each key's value
/// from the layer that sets it first.
#[derive(Clone, Debug, Default)]
pub struct Config {
    values: HashMap<String, String>,
}

impl Config {
    /// Returns the configuration of this machine and folder, read as npm reads it.
    pub fn from_machine() -> Config {
        let env: Vec<(String, String)> = std::env::vars().collect();
        let home = dirs::home_dir();
        let user = std::env::var_os("NPM_CONFIG_USERCONFIG")
            .or_else(|| std::env::var_os("npm_config_userconfig"))
            .map(PathBuf::from)
            .or_else(|| home.map(|h| h.join(".npmrc")));
        let global = std::env::var_os("NPM_CONFIG_GLOBALCONFIG")
            .or_else(|| std::env::var_os("npm_config_globalconfig"))
            .map(PathBuf::from)
            .or_else(global_npmrc);
        let read = |path: Option<PathBuf>| {
            path.and_then(|p| std::fs::read_to_string(p).ok())
                .unwrap_or_default()
        };
        Config::layered(
            &env,
            &[
                read(Some(PathBuf::from(".npmrc"))),
                read(user),
                read(global),
            ],
        )
    }

    /// Returns the configuration of `env` (highest) over the `.npmrc` texts
    /// `files`, highest first.
    pub fn layered(env: &[(String, String)], files: &[String]) -> Config {
        let lookup = |name: &str| env.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
        let mut values = HashMap::new();
        for (key, value) in env {
            let lower = key.to_ascii_lowercase();
            if let Some(name) = lower.strip_prefix("npm_config_") {
                // npm reads `npm_config_foo_bar` as `foo-bar`; a scope's registry
                // keeps its `@scope:registry` spelling.
                let name = match name.contains(':') {
                    true => name.to_string(),
                    false => name.replace('_', "-"),
                };
                values.entry(name).or_insert_with(|| value.clone());
            }
        }
        for text in files {
            for (key, value) in ini_pairs(text) {
                values.entry(key).or_insert_with(|| expand(&value, &lookup));
            }
        }
        Config { values }
    }

    /// Returns the registry `name` is read from, ending in `/`.
    pub fn registry_for(&self, name: &str) -> String {
        let scoped = name
            .split_once('/')
            .filter(|(scope, _)| scope.starts_with('@'))
            .and_then(|(scope, _)| self.values.get(&format!("{scope}:registry")));
        let url = scoped
            .or_else(|| self.values.get("registry"))
            .map_or(DEFAULT_REGISTRY, String::as_str);
        match url.ends_with('/') {
            true => url.to_string(),
            false => format!("{url}/"),
        }
    }

    /// Returns the credential npm would send to `url`: the user info of the URL, else
    /// the `//host/path/:` keys of the longest path above it that has one.
    pub fn credential_for(&self, url: &str) -> Option<Credential> {
        let parsed = Url::parse(url).ok()?;
        if !parsed.username().is_empty() {
            return super::client::basic_credential(&parsed);
        }
        let host = match parsed.port() {
            Some(port) => format!("{}:{port}", parsed.host_str()?),
            None => parsed.host_str()?.to_string(),
        };
        let path = parsed.path();
        let mut prefix = &path[..path.rfind('/').map_or(0, |i| i + 1)];
        loop {
            let nerf = format!("//{host}{prefix}");
            if let Some(header) = self.header_at(&nerf) {
                let mut place = parsed.clone();
                place.set_path(prefix);
                place.set_query(None);
                return Credential::new(header, &place);
            }
            if prefix.len() <= 1 {
                return None;
            }
            let parent = prefix[..prefix.len() - 1].rfind('/').map_or(0, |i| i + 1);
            prefix = &prefix[..parent];
        }
    }

    /// Returns the `Authorization` the keys under `nerf` (`//host/path/`) give.
    fn header_at(&self, nerf: &str) -> Option<String> {
        let key = |name: &str| self.values.get(&format!("{nerf}:{name}"));
        if let Some(token) = key("_authtoken").or_else(|| key("_authToken")) {
            return Some(format!("Bearer {token}"));
        }
        if let Some(auth) = key("_auth") {
            return Some(format!("Basic {auth}"));
        }
        let user = key("username")?;
        let password = key("_password")?;
        let password = base64::engine::general_purpose::STANDARD
            .decode(password)
            .ok()
            .and_then(|p| String::from_utf8(p).ok())?;
        let pair = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
        Some(format!("Basic {pair}"))
    }
}

/// Returns `PREFIX/etc/npmrc` for the `node` on `PATH` (`/usr/bin/node` →
/// `/usr/etc/npmrc`), npm's global configuration by default.
fn global_npmrc() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    let node = std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|p| p.is_file())?;
    let node = std::fs::canonicalize(&node).unwrap_or(node);
    Some(node.parent()?.parent()?.join("etc").join("npmrc"))
}

/// Returns the `key = value` pairs of an `.npmrc`'s text, keys as npm folds them (a
/// `_authToken` key keeps its case in npm; both spellings are looked up).
fn ini_pairs(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| {
            let line = line.trim();
            if line.is_empty() || line.starts_with([';', '#', '[']) {
                return None;
            }
            let (key, value) = line.split_once('=')?;
            let value = value.trim();
            let value = value
                .strip_prefix('"')
                .and_then(|v| v.strip_suffix('"'))
                .unwrap_or(value);
            Some((key.trim().to_string(), value.to_string()))
        })
        .collect()
}

/// Returns `value` with each `${NAME}` replaced by the variable's value (empty when
/// unset), as npm expands `.npmrc` values.
fn expand(value: &str, lookup: &dyn Fn(&str) -> Option<String>) -> String {
    let mut out = String::new();
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        out.push_str(&rest[..at]);
        match rest[at + 2..].find('}') {
            Some(end) => {
                out.push_str(&lookup(&rest[at + 2..at + 2 + end]).unwrap_or_default());
                rest = &rest[at + 3 + end..];
            }
            None => {
                out.push_str(&rest[at..]);
                rest = "";
            }
        }
    }
    out.push_str(rest);
    out
}

/// Returns the packument's URL of `name` on `registry` (`@scope/name` is asked as
/// `@scope%2fname`, as npm asks it).
pub fn packument_url(registry: &str, name: &str) -> String {
    format!("{registry}{}", name.replace('/', "%2f"))
}

/// Returns true when `name` is a name npm publishes: lower-case URL-safe characters,
/// at most one `@scope/`, no leading `.` or `_`.
pub fn is_valid_name(name: &str) -> bool {
    let (scope, bare) = match name.strip_prefix('@') {
        Some(rest) => match rest.split_once('/') {
            Some((scope, bare)) => (Some(scope), bare),
            None => return false,
        },
        None => (None, name),
    };
    let is_part = |part: &str| {
        !part.is_empty()
            && part.len() <= 214
            && !part.starts_with(['.', '_'])
            && part
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"-._~".contains(&b))
    };
    scope.is_none_or(is_part) && is_part(bare)
}

/// Pins `name` at `version` (the `latest` dist-tag when `None`) to its tarball and
/// `dist.integrity` (else `dist.shasum`), as the configured registry serves it.
pub fn pin(config: &Config, name: &str, version: Option<&str>) -> Result<Pinned, Miss> {
    if !is_valid_name(name) {
        return Err(Miss::absent(format!(
            "'{}' is not an npm package name",
            sanitize(name)
        )));
    }
    let registry = config.registry_for(name);
    let url = packument_url(&registry, name);
    let credential = config.credential_for(&url);
    let (kind, body) =
        get(&url, "application/json", credential.as_ref()).map_err(|f| match f.kind {
            http::Kind::NotFound => Miss::absent(f.why),
            _ => Miss::failed(f.why),
        })?;
    let at = || format!("GET {}", shown(&url));
    if !kind.contains("json") && !body.starts_with(b"{") {
        return Err(Miss::failed(format!(
            "{}: the answer is '{}', not a packument",
            at(),
            sanitize(&kind)
        )));
    }
    let doc: Value = serde_json::from_slice(&body)
        .map_err(|e| Miss::failed(format!("{}: not JSON: {e}", at())))?;
    read_version(&doc, name, version).map_err(|miss| Miss {
        why: format!("{}: {}", at(), miss.why),
        ..miss
    })
}

/// Reads one version of a packument into a pin.
fn read_version(doc: &Value, name: &str, version: Option<&str>) -> Result<Pinned, Miss> {
    let latest = doc["dist-tags"]["latest"].as_str();
    let version = match version.or(latest) {
        // A dist-tag (`latest`, `next`) names the version it points to, as npm
        // reads `name@tag`.
        Some(v) if doc["versions"].get(v).is_none() => doc["dist-tags"][v].as_str().unwrap_or(v),
        Some(v) => v,
        None => return Err(Miss::absent("no version is tagged latest".to_string())),
    };
    let Some(manifest) = doc["versions"].get(version) else {
        let latest = latest.map_or(String::new(), |l| {
            format!(" (the latest is '{}')", sanitize(l))
        });
        return Err(Miss::absent(format!(
            "no version '{}'{latest}",
            sanitize(version)
        )));
    };
    let dist = &manifest["dist"];
    let tarball = dist["tarball"]
        .as_str()
        .filter(|t| !t.is_empty())
        .ok_or_else(|| Miss::failed("the version has no dist.tarball".to_string()))?;
    let digest = dist["integrity"]
        .as_str()
        .and_then(Digest::parse)
        .or_else(|| dist["shasum"].as_str().and_then(Digest::sha1_hex))
        .ok_or_else(|| {
            Miss::failed("the version has no dist.integrity or dist.shasum".to_string())
        })?;
    let artifact = artifact_name(tarball)
        .ok_or_else(|| Miss::failed(format!("'{}' names no file", shown(tarball))))?;
    let repository = match &manifest["repository"] {
        Value::String(url) => Some(url.clone()),
        Value::Object(o) => o.get("url").and_then(Value::as_str).map(String::from),
        _ => None,
    }
    .filter(|r| !r.trim().is_empty())
    .map(|r| super::client::without_credentials(r.trim()));
    let commit = manifest["gitHead"]
        .as_str()
        .filter(|c| c.len() >= 7 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(str::to_ascii_lowercase);
    // A dependency pinned to one exact version is the package's family, sorted by
    // name so that the order is not the packument's.
    let mut exact_dependencies: Vec<(String, String)> = manifest["dependencies"]
        .as_object()
        .into_iter()
        .flatten()
        .filter_map(|(dep, spec)| Some((dep, spec.as_str()?)))
        .filter(|(dep, spec)| is_valid_name(dep) && super::family::is_exact_npm(spec))
        .map(|(dep, spec)| (dep.clone(), spec.to_string()))
        .collect();
    exact_dependencies.sort();
    Ok(Pinned {
        registry: Kind::Npm,
        name: name.to_string(),
        version: version.to_string(),
        artifact,
        url: super::client::without_credentials(tarball),
        digest,
        repository,
        commit,
        yanked: None,
        exact_dependencies: Ok(exact_dependencies),
    })
}

/// Returns the file name at the end of an artifact's URL, when it is a plain one.
pub fn artifact_name(url: &str) -> Option<String> {
    let path = Url::parse(url).ok()?.path().to_string();
    let name = path.rsplit('/').next()?;
    let name = super::client::percent_decoded(name);
    crate::fetch::is_file_name(&name).then_some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn the_first_layer_that_sets_a_key_wins() {
        let project = "registry=https://project.example/npm/\n".to_string();
        let user =
            "registry=https://user.example/\n@acme:registry=https://acme.example/r\n".to_string();
        let config = Config::layered(&[], &[project.clone(), user.clone()]);
        assert_eq!(config.registry_for("x"), "https://project.example/npm/");
        assert_eq!(config.registry_for("@acme/x"), "https://acme.example/r/");
        assert_eq!(
            config.registry_for("@other/x"),
            "https://project.example/npm/"
        );
        let config = Config::layered(
            &env(&[("NPM_CONFIG_REGISTRY", "https://env.example")]),
            &[project, user],
        );
        assert_eq!(config.registry_for("x"), "https://env.example/");
        assert_eq!(Config::default().registry_for("x"), DEFAULT_REGISTRY);
    }

    #[test]
    fn a_token_goes_to_the_place_its_key_names() {
        let npmrc = "//reg.example:8080/npm/:_authToken=${TOKEN}\n\
                     //other.example/:username=u\n//other.example/:_password=cEBzcw==\n"
            .to_string();
        let config = Config::layered(&env(&[("TOKEN", "t0k")]), &[npmrc]);
        let at = |url: &str| config.credential_for(url);
        let token = at("http://reg.example:8080/npm/@a%2fb").unwrap();
        assert!(token.belongs_to(&Url::parse("http://reg.example:8080/npm/a/-/a-1.tgz").unwrap()));
        assert!(!token.belongs_to(&Url::parse("http://reg.example:8080/other").unwrap()));
        assert!(at("http://reg.example:8080/elsewhere/x").is_none());
        assert!(at("https://other.example/deep/path/x").is_some());
        assert!(at("https://third.example/x").is_none());
    }

    #[test]
    fn a_packument_version_becomes_a_pin() {
        let doc: Value = serde_json::from_str(
            r#"{"dist-tags":{"latest":"1.1.0"},"versions":{
                "1.0.0":{"dist":{"tarball":"https://r.example/a/-/a-1.0.0.tgz",
                  "shasum":"a9993e364706816aba3e25717850c26c9cd0d89d"}},
                "1.1.0":{"gitHead":"ABCDEF1234567","repository":{"url":"git+https://g.example/o/a.git"},
                  "dist":{"tarball":"https://r.example/a/-/a-1.1.0.tgz",
                  "integrity":"sha512-3a81oZNherrMQXNJriBBMRLm+k6JqX6iCp7u5ktV05ohkpkqJ0/BqDa6PCOj/uu9RU1EI2Q86A4qmslPpUyknw=="}}}}"#,
        )
        .unwrap();
        let latest = read_version(&doc, "a", None).unwrap();
        assert_eq!(
            (latest.version.as_str(), latest.artifact.as_str()),
            ("1.1.0", "a-1.1.0.tgz")
        );
        assert!(latest.digest.as_str().starts_with("sha512-"));
        assert_eq!(latest.commit.as_deref(), Some("abcdef1234567"));
        assert_eq!(
            latest.repository.as_deref(),
            Some("git+https://g.example/o/a.git")
        );
        let old = read_version(&doc, "a", Some("1.0.0")).unwrap();
        assert_eq!(
            old.digest.as_str(),
            "sha1:a9993e364706816aba3e25717850c26c9cd0d89d"
        );
        let tagged = read_version(&doc, "a", Some("latest")).unwrap();
        assert_eq!(tagged.version, "1.1.0", "a dist-tag names its version");
        let missing = read_version(&doc, "a", Some("2.0.0")).unwrap_err();
        assert!(missing.is_absent);
        assert_eq!(missing.why, "no version '2.0.0' (the latest is '1.1.0')");
    }

    #[test]
    fn names_are_checked_before_any_request() {
        for good in ["a", "@s/a-b.c", "a_b~c"] {
            assert!(is_valid_name(good), "{good}");
        }
        for bad in ["", "@s", "@s/", "../x", ".a", "a/b", "A B", "@s/a/b", "@/a"] {
            assert!(!is_valid_name(bad), "{bad}");
        }
        assert_eq!(
            packument_url("https://r.example/", "@s/a"),
            "https://r.example/@s%2fa"
        );
    }
}
