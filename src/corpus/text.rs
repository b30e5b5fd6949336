//! The text `corpus` writes: the corpus file (TOML, provenance first), the list of
//! what was skipped (CSV), and the servers file of the registry's Streamable HTTP
//! endpoints for `probe --servers`. The same built trees give the same bytes.

use std::collections::BTreeMap;

use anyhow::{Context, Result};

use crate::corpus::file::DEFAULT_ARCHIVE_URL;
use crate::corpus::registry::{self, Entry};
use crate::count::terms::{DEFAULT_CONTROLS, DEFAULT_TERMS};
use crate::infra::date;
use crate::infra::messages;
use crate::infra::sanitize::sanitize;

use crate::corpus::build::{Built, Skip};

/// Returns `text` as a TOML basic string, quoted and escaped.
pub fn toml_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for ch in text.chars() {
        match ch {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// Says where a corpus came from, for the comment that opens it.
pub struct Provenance {
    /// The command, e.g. `corpus registry`.
    pub command: String,
    /// The source in words, e.g. `the MCP Registry at https://...`.
    pub source: String,
    /// `YYYY-MM-DD`.
    pub date: String,
    /// How many entries or lines were read.
    pub read: usize,
    /// The skipped list's file name.
    pub skipped_file: String,
}

/// Returns the comment that opens a corpus file: how it was built, from what and
/// when, then `tally` (what was read, written and skipped), escaped.
pub fn opening(from: &Provenance, tally: &str) -> String {
    let built = format!(
        "Built by `mcp-hint-census {}` from {} on {}.",
        from.command, from.source, from.date
    );
    format!("# {}\n# {}\n", sanitize(&built), sanitize(tally))
}

/// Returns `items` as a TOML list of basic strings.
pub fn toml_list(items: &[&str]) -> String {
    let quoted: Vec<String> = items.iter().map(|t| toml_string(t)).collect();
    format!("[{}]", quoted.join(", "))
}

/// Returns the corpus file: a comment saying how it was built, `[census]` with
/// the default terms and controls, and one `[[tree]]` per tree.
pub fn corpus_text(built: &Built, from: &Provenance) -> String {
    let mut out = opening(
        from,
        &format!(
            "{} read; {}; {} skipped, listed in {}.",
            messages::count(from.read as u64, "entry", "entries"),
            messages::count(built.trees.len() as u64, "tree", "trees"),
            built.skipped.len(),
            from.skipped_file
        ),
    );
    if built.trees.iter().any(|t| t.as_of.is_some()) {
        out.push_str(
            "# Each commit is the one the default branch pointed to at the end of its tree's\n\
             # as_of date (23:59:59 UTC): walking the first-parent history from today's tip, the\n\
             # first commit whose committer date is at or before it, read from a commits-only\n\
             # clone. Each tree's note gives that commit's date.\n\n",
        );
    } else {
        out.push_str(
            "# Each commit was resolved with git ls-remote: the release tag of the server's version\n\
             # (v{version}, {version}, then tags named after its packages) when there is one, else\n\
             # the default branch's HEAD, or the ref a list names. Each tree's note says which.\n\n",
        );
    }
    out.push_str("[census]\n");
    out.push_str(&format!(
        "archive_url = {}\n",
        toml_string(DEFAULT_ARCHIVE_URL)
    ));
    out.push_str(&format!("terms = {}\n", toml_list(&DEFAULT_TERMS)));
    out.push_str(&format!("controls = {}\n", toml_list(&DEFAULT_CONTROLS)));
    for tree in &built.trees {
        out.push_str("\n[[tree]]\n");
        out.push_str(&format!("repo = {}\n", toml_string(&tree.repo)));
        out.push_str(&format!("commit = {}\n", toml_string(&tree.commit)));
        if let Some(sub) = &tree.subfolder {
            out.push_str(&format!("subfolder = {}\n", toml_string(sub)));
        }
        if let Some(as_of) = &tree.as_of {
            out.push_str(&format!("as_of = {}\n", toml_string(as_of)));
        }
        if let Some(time) = tree.committed {
            out.push_str(&format!(
                "committed = {}\n",
                toml_string(&date::rfc3339(time))
            ));
        }
        if let Some(name) = &tree.name {
            out.push_str(&format!("name = {}\n", toml_string(name)));
        }
        out.push_str(&format!("note = {}\n", toml_string(&tree.note)));
        if let Some(template) = tree.forge.archive_template() {
            out.push_str(&format!("archive_url = {}\n", toml_string(template)));
        }
    }
    if !built.not_yet.is_empty() {
        out.push_str(
            "\n# The repositories that had no commit on the default branch yet at a date: no\n\
             # tree to count, reported beside the trees that were.\n",
        );
    }
    for gap in &built.not_yet {
        out.push_str("\n[[no_commit_yet]]\n");
        out.push_str(&format!("repo = {}\n", toml_string(&gap.repo)));
        if !gap.subfolder.is_empty() {
            out.push_str(&format!("subfolder = {}\n", toml_string(&gap.subfolder)));
        }
        out.push_str(&format!("as_of = {}\n", toml_string(&gap.as_of)));
        let first = date::rfc3339(gap.first_commit);
        out.push_str(&format!("first_commit = {}\n", toml_string(&first)));
    }
    out
}

/// Returns the skipped list as CSV: `name,version,repository,subfolder,reason`.
pub fn skipped_csv(skipped: &[Skip]) -> Result<Vec<u8>> {
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(["name", "version", "repository", "subfolder", "reason"])?;
    for s in skipped {
        writer.write_record([&s.name, &s.version, &s.repository, &s.subfolder, &s.reason])?;
    }
    writer.into_inner().context("writing the skipped list")
}

/// Returns the servers file for `probe --servers`: one `[[server]]` with `name` and
/// `url` per Streamable HTTP endpoint, and the registry name, repository and
/// subfolder that join its wire rows to the survey's entry and its repository's
/// census row, as for packages. No header value is ever written; a server that
/// declares headers gets a comment naming them.
pub fn remotes_text(entries: &[Entry], from: &Provenance) -> String {
    type Urls<'e> = BTreeMap<&'e str, Vec<&'e registry::Header>>;
    let mut endpoints: BTreeMap<&str, (&Entry, Urls)> = BTreeMap::new();
    for entry in entries {
        for remote in &entry.remotes {
            if remote.kind == "streamable-http" {
                endpoints
                    .entry(entry.name.as_str())
                    .or_insert_with(|| (entry, BTreeMap::new()))
                    .1
                    .entry(remote.url.as_str())
                    .or_insert_with(|| remote.headers.iter().collect());
            }
        }
    }
    let mut out = String::new();
    out.push_str(&format!(
        "# Streamable HTTP endpoints of the servers in {}, {}, for `probe --servers`.\n",
        sanitize(&from.source),
        from.date
    ));
    out.push_str(
        "# No header value is written. A server that declares headers has a comment naming\n\
         # them; to send one, add e.g. headers = { Authorization = { env = \"MY_TOKEN\" } }.\n\
         # URL templates with {variables} and SSE-only endpoints are left out.\n",
    );
    for (name, (entry, urls)) in endpoints {
        for (i, (url, headers)) in urls.into_iter().enumerate() {
            let label = if i == 0 {
                name.to_string()
            } else {
                format!("{name}#{}", i + 1)
            };
            out.push('\n');
            let is_http = url.starts_with("https://") || url.starts_with("http://");
            if !is_http
                || url.contains('{')
                || url.chars().any(|c| c.is_whitespace() || c.is_control())
            {
                out.push_str(&format!(
                    "# {}: '{}' is not a plain http(s) URL (a template?); left out\n",
                    sanitize(&label),
                    sanitize(url)
                ));
                continue;
            }
            for h in headers {
                let kind = match (h.is_required, h.is_secret) {
                    (true, true) => "required, secret",
                    (true, false) => "required",
                    (false, true) => "optional, secret",
                    (false, false) => "optional",
                };
                out.push_str(&format!(
                    "# needs header '{}' ({kind})\n",
                    sanitize(&h.name)
                ));
            }
            out.push_str("[[server]]\n");
            out.push_str(&format!("name = {}\n", toml_string(&label)));
            out.push_str(&format!("url = {}\n", toml_string(url)));
            out.push_str(&format!("registry_name = {}\n", toml_string(name)));
            if let Some(repository) = &entry.repository {
                let repository = super::repo_url::redact(repository);
                out.push_str(&format!("repository = {}\n", toml_string(&repository)));
            }
            if let Some(subfolder) = &entry.subfolder {
                out.push_str(&format!("subfolder = {}\n", toml_string(subfolder)));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn toml_strings_read_back_as_written(text in any::<String>()) {
            let doc = format!("k = {}\n", toml_string(&text));
            let value: toml::Value = toml::from_str(&doc).unwrap();
            prop_assert_eq!(value["k"].as_str(), Some(text.as_str()));
        }
    }

    fn entry(name: &str, remotes: Vec<registry::Remote>) -> Entry {
        Entry {
            name: name.into(),
            version: None,
            repository: None,
            subfolder: None,
            remotes,
            packages: Vec::new(),
            is_latest: None,
            published: None,
            status: None,
        }
    }

    fn remote(kind: &str, url: &str, headers: Vec<registry::Header>) -> registry::Remote {
        registry::Remote {
            kind: kind.into(),
            url: url.into(),
            headers,
        }
    }

    #[test]
    fn remotes_never_carry_header_values() {
        let secret = registry::Header {
            name: "Authorization".into(),
            is_required: true,
            is_secret: true,
        };
        let mut entries = vec![
            entry(
                "b/x",
                vec![remote(
                    "streamable-http",
                    "https://b.example/mcp",
                    vec![secret],
                )],
            ),
            entry(
                "a/y",
                vec![
                    remote("sse", "https://a.example/sse", vec![]),
                    remote("streamable-http", "https://a.example/mcp", vec![]),
                    remote("streamable-http", "https://a2.example/mcp", vec![]),
                    remote("streamable-http", "https://{tenant}.example/mcp", vec![]),
                ],
            ),
        ];
        let from = Provenance {
            command: "corpus registry".into(),
            source: "the registry".into(),
            date: "2026-11-30".into(),
            read: 2,
            skipped_file: String::new(),
        };
        entries[0].repository = Some("https://user:token@github.com/B/x".into());
        entries[0].subfolder = Some("servers/x".into());
        let text = remotes_text(&entries, &from);
        let value: toml::Value = toml::from_str(&text).unwrap();
        let servers = value["server"].as_array().unwrap();
        let got: Vec<(&str, &str)> = servers
            .iter()
            .map(|s| (s["name"].as_str().unwrap(), s["url"].as_str().unwrap()))
            .collect();
        assert_eq!(
            got,
            [
                ("a/y", "https://a.example/mcp"),
                ("a/y#2", "https://a2.example/mcp"),
                ("b/x", "https://b.example/mcp")
            ]
        );
        // Each endpoint joins to its entry by registry name, the second one too.
        let names: Vec<&str> = servers
            .iter()
            .map(|s| s["registry_name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["a/y", "a/y", "b/x"]);
        assert!(servers[..2]
            .iter()
            .all(|s| s.as_table().unwrap().len() == 3));
        // The repository joins it to its tree's census row; its credentials are not
        // written.
        assert_eq!(
            servers[2]["repository"].as_str(),
            Some("https://***@github.com/B/x")
        );
        assert_eq!(servers[2]["subfolder"].as_str(), Some("servers/x"));
        assert!(!text.contains("token"), "{text}");
        assert!(
            text.contains(
                "# needs header 'Authorization' (required, secret)\n[[server]]\nname = \"b/x\""
            ),
            "{text}"
        );
        assert!(
            text.contains("'https://{tenant}.example/mcp' is not a plain http(s) URL"),
            "{text}"
        );
        assert!(!text.contains("sse"), "{text}");
    }
}
