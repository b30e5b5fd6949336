//! The servers file of `probe --servers` (TOML): each server's name, how it starts
//! (a command, a URL or a registry package), its environment and headers (a header's
//! value always from the environment, so that no secret is written in the file) and
//! what joins it to its census row. Every mistake in the file is a usage error, found
//! before anything starts; an environment variable that is not set fails only its
//! server (docs/probe.md, "Many servers, one table").

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use anyhow::Result;
use serde::Deserialize;

use super::install::PackageRef;
use crate::infra::error::UsageError;
use crate::infra::sanitize::sanitize;
use crate::probe::Target;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ServersFile {
    #[serde(default)]
    pub(super) server: Vec<Entry>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct Entry {
    pub(super) name: String,
    pub(super) command: Option<String>,
    #[serde(default)]
    pub(super) args: Vec<String>,
    #[serde(default)]
    pub(super) env: BTreeMap<String, Value>,
    pub(super) url: Option<String>,
    #[serde(default)]
    pub(super) headers: BTreeMap<String, Value>,
    /// A registry package, installed and run in the sandbox.
    pub(super) package: Option<PackageRef>,
    /// The package's program to start (an npm bin, a console script).
    pub(super) program: Option<String>,
    /// The module of a PyPI package `python -m` runs.
    pub(super) module: Option<String>,
    /// What must be given before the server can start; an entry with needs never runs.
    #[serde(default)]
    pub(super) needs: Vec<String>,
    /// The required variables and arguments given a placeholder in `env` and `args`:
    /// a server that lists is `listed with placeholders`.
    #[serde(default)]
    pub(super) placeholders: Vec<String>,
    /// The join to the census row: the registry name, repository and subfolder.
    pub(super) registry_name: Option<String>,
    pub(super) repository: Option<String>,
    pub(super) subfolder: Option<String>,
    /// The commit of the repository the corpus pinned for it, when known.
    pub(super) commit: Option<String>,
}

/// A value written in the file, or named there and read from the environment.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(super) enum Value {
    Literal(String),
    FromEnv(FromEnv),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct FromEnv {
    pub(super) env: String,
    #[serde(default)]
    pub(super) prefix: String,
}

/// One server of the file, checked, with its values not yet looked up.
pub(super) struct Server {
    pub(super) name: String,
    pub(super) entry: Entry,
}

impl Server {
    /// Returns how the server's row reads once it has listed: `listed with
    /// placeholders` when its file, or the run (`filled`), gave it placeholders.
    pub(super) fn listed_kind(&self, filled: &[String]) -> super::outcome::Kind {
        match self.entry.placeholders.is_empty() && filled.is_empty() {
            true => super::outcome::Kind::Listed,
            false => super::outcome::Kind::ListedWithPlaceholders,
        }
    }

    /// Returns the servers table's `placeholders` cell: the file's, then the run's.
    pub(super) fn placeholders_cell(&self, filled: &[String]) -> String {
        let all: Vec<&str> = self
            .entry
            .placeholders
            .iter()
            .chain(filled)
            .map(String::as_str)
            .collect();
        all.join("; ")
    }

    /// Returns the cells of the servers table that come from the file, not from the
    /// probe: the join to the census row and the package.
    pub(super) fn file_cells(&self) -> [String; 8] {
        let entry = &self.entry;
        let text = |v: &Option<String>| v.clone().unwrap_or_default();
        let (registry, package, version) = match &entry.package {
            Some(p) => (p.registry.clone(), p.name.clone(), p.version.clone()),
            None => Default::default(),
        };
        [
            self.name.clone(),
            text(&entry.registry_name),
            text(&entry.repository),
            text(&entry.subfolder),
            text(&entry.commit),
            registry,
            package,
            version,
        ]
    }
}

/// Reads and checks the servers file; every mistake in it is a usage error.
pub(super) fn load(path: &Path) -> Result<Vec<Server>> {
    let text = std::fs::read_to_string(path)
        .map_err(|err| UsageError(format!("reading '{}': {err}", path.display())))?;
    let file: ServersFile = toml::from_str(&text)
        .map_err(|err| UsageError(format!("'{}': {}", path.display(), err.message())))?;
    let bad = |what: String| UsageError(format!("'{}': {what}", path.display()));
    if file.server.is_empty() {
        return Err(bad("it lists no [[server]]".to_string()).into());
    }
    let mut names = HashSet::new();
    let mut servers = Vec::new();
    for (index, entry) in file.server.into_iter().enumerate() {
        let name = entry.name.trim().to_string();
        if name.is_empty() {
            return Err(bad(format!("server {} has an empty name", index + 1)).into());
        }
        if !names.insert(name.clone()) {
            return Err(bad(format!("the name '{name}' is given twice")).into());
        }
        let ways = [
            entry.command.is_some(),
            entry.url.is_some(),
            entry.package.is_some(),
        ];
        if ways.iter().filter(|is| **is).count() != 1 {
            return Err(bad(format!(
                "server '{name}' needs one of a command, a url or a package"
            ))
            .into());
        }
        if entry.package.is_none()
            && (entry.program.is_some()
                || entry.module.is_some()
                || !entry.needs.is_empty()
                || !entry.placeholders.is_empty())
        {
            return Err(bad(format!(
                "server '{name}' has a program, module, needs or placeholders but no package; they go with a package"
            ))
            .into());
        }
        if let Some(commit) = &entry.commit {
            if !(7..=40).contains(&commit.len()) || !commit.bytes().all(|b| b.is_ascii_hexdigit()) {
                return Err(bad(format!(
                    "server '{name}': commit '{}' is not a commit (7 to 40 hex digits)",
                    sanitize(commit)
                ))
                .into());
            }
        }
        if let Some(package) = &entry.package {
            if !matches!(package.registry.as_str(), "npm" | "pypi") {
                return Err(bad(format!(
                    "server '{name}': package registry '{}' is not npm or pypi",
                    sanitize(&package.registry)
                ))
                .into());
            }
            if !entry.headers.is_empty() {
                return Err(bad(format!("server '{name}' has headers but no url")).into());
            }
        }
        match (&entry.command, &entry.url) {
            (Some(_), None) if !entry.headers.is_empty() => {
                return Err(bad(format!(
                    "server '{name}' has headers but no url; headers go with a url"
                ))
                .into())
            }
            (None, Some(_)) if !entry.args.is_empty() || !entry.env.is_empty() => {
                return Err(bad(format!(
                    "server '{name}' has args or env but no command; they go with a command"
                ))
                .into())
            }
            _ => {}
        }
        for (header, value) in &entry.headers {
            if let Value::Literal(_) = value {
                return Err(bad(format!(
                    "server '{name}': header '{header}' is written in the file; a header value comes from the environment, as {{ env = \"NAME\" }} or {{ env = \"NAME\", prefix = \"Bearer \" }}"
                ))
                .into());
            }
        }
        servers.push(Server { name, entry });
    }
    Ok(servers)
}

/// Looks up the values the file names in the environment.
pub(super) fn resolve(
    values: &BTreeMap<String, Value>,
    what: &str,
) -> Result<Vec<(String, String)>, String> {
    values
        .iter()
        .map(|(key, value)| match value {
            Value::Literal(text) => Ok((key.clone(), text.clone())),
            Value::FromEnv(from) => match std::env::var(&from.env) {
                Ok(found) => Ok((key.clone(), format!("{}{found}", from.prefix))),
                Err(_) => Err(format!(
                    "the environment variable '{}' for {what} '{key}' is not set",
                    from.env
                )),
            },
        })
        .collect()
}

/// Returns the values as `--write-commands` shows them, in the file's order: a
/// literal as it is, one read from the environment as `{"env": NAME, "prefix": TEXT}`,
/// never its value.
pub(super) fn named(values: &BTreeMap<String, Value>) -> Vec<(String, serde_json::Value)> {
    values
        .iter()
        .map(|(key, value)| {
            let shown = match value {
                Value::Literal(text) => serde_json::Value::from(text.as_str()),
                Value::FromEnv(from) => {
                    serde_json::json!({"env": from.env, "prefix": from.prefix})
                }
            };
            (key.clone(), shown)
        })
        .collect()
}

/// Builds the target of one server, looking up its environment values.
pub(super) fn target(entry: &Entry) -> Result<Target, String> {
    match (&entry.command, &entry.url) {
        (Some(command), _) => {
            let mut line = vec![command.clone()];
            line.extend(entry.args.iter().cloned());
            Ok(Target::Stdio {
                command: line,
                env: resolve(&entry.env, "env")?,
                is_sandboxed: false,
            })
        }
        (None, Some(url)) => Ok(Target::Http {
            url: url.clone(),
            headers: resolve(&entry.headers, "header")?,
        }),
        (None, None) => Err("no command and no url".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load_text(text: &str) -> Result<Vec<Server>> {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("servers.toml");
        std::fs::write(&path, text).unwrap();
        load(&path)
    }

    #[test]
    fn mistakes_in_the_file_are_usage_errors() {
        for (text, says) in [
            ("", "lists no [[server]]"),
            ("[[server]]\nname = \"a\"\n", "one of a command, a url or a package"),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nurl = \"http://h\"\n",
                "one of a command, a url or a package",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nneeds = [\"K\"]\n",
                "they go with a package",
            ),
            (
                "[[server]]\nname = \"a\"\npackage = { registry = \"cargo\", name = \"x\", version = \"1\" }\n",
                "is not npm or pypi",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\n[[server]]\nname = \"a\"\ncommand = \"y\"\n",
                "the name 'a' is given twice",
            ),
            (
                "[[server]]\nname = \"a\"\nurl = \"http://h\"\nheaders = { Authorization = \"Bearer s3cret\" }\n",
                "header 'Authorization' is written in the file",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\nextra = 1\n",
                "unknown field",
            ),
            (
                "[[server]]\nname = \"a\"\ncommand = \"x\"\ncommit = \"v1.0\"\n",
                "commit 'v1.0' is not a commit",
            ),
        ] {
            let err = load_text(text).err().expect(text);
            assert!(err.downcast_ref::<UsageError>().is_some(), "{text}");
            assert!(format!("{err:#}").contains(says), "{text}: {err:#}");
        }
    }

    #[test]
    fn values_come_from_the_file_or_the_environment() {
        let servers = load_text(
            "[[server]]\nname = \"a\"\nurl = \"http://h\"\n\
             headers = { Authorization = { env = \"MCP_HINT_CENSUS_TEST_UNSET_VAR\", prefix = \"Bearer \" } }\n\
             [[server]]\nname = \"b\"\ncommand = \"x\"\nargs = [\"-v\"]\nenv = { A = \"1\", B = { env = \"PATH\" } }\n",
        )
        .unwrap();
        let err = target(&servers[0].entry).unwrap_err();
        assert_eq!(
            err,
            "the environment variable 'MCP_HINT_CENSUS_TEST_UNSET_VAR' for header 'Authorization' is not set"
        );
        let Ok(Target::Stdio { command, env, .. }) = target(&servers[1].entry) else {
            panic!("a stdio target");
        };
        assert_eq!(command, ["x", "-v"]);
        assert_eq!(env[0], ("A".to_string(), "1".to_string()));
        assert_eq!(env[1].1, std::env::var("PATH").unwrap());
        let shown = named(&servers[1].entry.env);
        assert_eq!(shown[0], ("A".to_string(), serde_json::json!("1")));
        assert_eq!(
            shown[1],
            (
                "B".to_string(),
                serde_json::json!({"env": "PATH", "prefix": ""})
            )
        );
    }
}
