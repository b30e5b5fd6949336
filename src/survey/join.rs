//! `probe --servers FILE --source-table TABLE` and `join WIRE --source-table TABLE`:
//! the wire survey joined to the census of the same servers' source, tool by tool.
//!
//! Owns reading the census table and its tools table back, reading the two wire
//! tables `--servers` wrote, joining each server to its census row (by registry name,
//! else by repository and subfolder), and the two outputs: `join-DATE.csv`, one row
//! per (server, tool), and the "Source and wire" section of `wire-DATE.md`. Tools are
//! matched and hints compared by the rules of `probe --source`
//! ([`source::match_by_name`], [`source::agreement`]); this module adds no rule of its
//! own. It probes nothing and counts no source: it reads tables, so the same tables
//! give the same bytes (docs/method.md, "The wire survey").

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::File;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::outcome;
use crate::cli::JoinArgs;
use crate::corpus::repo_url;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;
use crate::probe::hints::{Declared, ToolHints};
use crate::probe::source::{self, Agreement};
use crate::table::tools::ToolsByTree;
use crate::table::{self, TreeKey};
use crate::tools::hints::Hint;
use crate::tools::{DefKind, Role, ToolDef};

/// Holds one row of the census table: the tree, the server it was counted for, and
/// whether it was counted with the tool finder.
#[derive(Clone, Debug)]
struct CensusRow {
    key: TreeKey,
    server: String,
    commit: String,
    /// A package row's registry digest (the `digest` column); empty for a tree.
    digest: String,
    is_ok: bool,
    has_tools: bool,
}

/// Holds a census table and its tools table, read back.
#[derive(Debug)]
pub struct Census {
    /// The census table's file name, as the report names it (never its folder).
    name: String,
    rows: Vec<CensusRow>,
    tools: ToolsByTree,
}

/// Returns the census table and the tools table a `--source-table` path names: either
/// one, the other beside it.
fn table_pair(path: &Path) -> Result<(PathBuf, PathBuf), UsageError> {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    let rest = name
        .strip_prefix("census-")
        .or_else(|| name.strip_prefix("tools-"))
        .filter(|rest| rest.ends_with(".csv"))
        .ok_or_else(|| {
            UsageError(format!(
                "--source-table '{}' is not named census-DATE.csv or tools-DATE.csv, so the other table cannot be found",
                sanitize(path.display().to_string())
            ))
        })?;
    Ok((
        path.with_file_name(format!("census-{rest}")),
        path.with_file_name(format!("tools-{rest}")),
    ))
}

impl Census {
    /// Reads the census table and the tools table beside it; a table that is missing
    /// or not what the census writes is a [`UsageError`] naming the file and line.
    pub fn read(path: &Path) -> Result<Census> {
        let (census, tools) = table_pair(path)?;
        Census::read_pair(&census, &tools).map_err(|err| UsageError(format!("{err:#}")).into())
    }

    fn read_pair(census: &Path, tools: &Path) -> Result<Census> {
        let name = census.display().to_string();
        let columns = [
            "repo",
            "pinned",
            "subfolder",
            "server",
            "commit",
            "tools",
            "status",
        ];
        let (mut reader, at) = open_table(census, &columns)?;
        let header = reader
            .headers()
            .with_context(|| format!("reading '{name}'"))?
            .clone();
        let [repo, pinned, subfolder, server, commit, tools_at, status]: [usize; 7] =
            at[..].try_into().expect("one position per column");
        let as_of = header.iter().position(|h| h == "as_of");
        let digest = header.iter().position(|h| h == "digest");
        let family = header.iter().position(|h| h == "family");
        let mut rows = Vec::new();
        let mut members = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let record = record.with_context(|| format!("'{name}' line {}", i + 2))?;
            let cell = |at: usize| record.get(at).unwrap_or("").to_string();
            let is_ok = match record.get(status) {
                Some("ok") => true,
                Some("error") => false,
                other => bail!(
                    "'{name}' line {}: status '{}' is neither ok nor error",
                    i + 2,
                    sanitize(other.unwrap_or(""))
                ),
            };
            rows.push(CensusRow {
                key: TreeKey {
                    repo: cell(repo),
                    pinned: table::non_empty(cell(pinned)),
                    subfolder: table::non_empty(cell(subfolder)),
                    as_of: as_of.map(cell).and_then(table::non_empty),
                },
                server: cell(server),
                commit: cell(commit),
                digest: digest.map(cell).unwrap_or_default(),
                is_ok,
                has_tools: !cell(tools_at).is_empty(),
            });
            if let Some(of) = family.map(cell).filter(|f| !f.is_empty()) {
                members.push((rows[rows.len() - 1].key.clone(), of));
            }
        }
        let tools_name = tools.display().to_string();
        let file = File::open(tools).with_context(|| format!("reading '{tools_name}'"))?;
        let mut tools = table::tools::read_tools(file, &tools_name, as_of.is_some())?;
        super::family::attribute(&mut tools, &members);
        Ok(Census {
            name: census
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
            rows,
            tools,
        })
    }

    /// Returns the census rows of `server`: those counted for its registry name, else
    /// those of its repository (owner/name, ASCII case-insensitively) and subfolder.
    fn rows_of(&self, server: &WireServer) -> Vec<&CensusRow> {
        // A package the wire installed is the census's package row of the same
        // registry, name and version, when the census has one: the same release.
        if let Some(kind) = crate::registry::Kind::parse(&server.package_registry) {
            let folded = |name: &str| match kind {
                crate::registry::Kind::Npm => name.to_string(),
                crate::registry::Kind::Pypi => crate::registry::pypi::normalize(name),
            };
            let repo = format!("{}:{}", kind.as_str(), folded(&server.package));
            let same: Vec<&CensusRow> = self
                .rows
                .iter()
                .filter(|r| {
                    r.key.repo.split_once(':').is_some_and(|(registry, name)| {
                        format!("{registry}:{}", folded(name)) == repo
                    }) && r.key.pinned.as_deref() == Some(server.package_version.as_str())
                })
                .collect();
            if !same.is_empty() {
                return same;
            }
        }
        if !server.registry_name.is_empty() {
            let named: Vec<&CensusRow> = self
                .rows
                .iter()
                .filter(|r| r.server == server.registry_name)
                .collect();
            if !named.is_empty() {
                return named;
            }
        }
        let Ok(url) = repo_url::parse(&server.repository) else {
            return Vec::new();
        };
        let subfolder = server.subfolder.trim_matches('/');
        self.rows
            .iter()
            .filter(|r| {
                r.key.repo.eq_ignore_ascii_case(&url.repo)
                    && r.key.subfolder.as_deref().unwrap_or("").trim_matches('/') == subfolder
            })
            .collect()
    }
}

/// Holds one server of the wire tables: the servers table's cells and, when it
/// listed, its tools in the server's order.
#[derive(Clone, Debug, Default)]
pub struct WireServer {
    name: String,
    registry_name: String,
    repository: String,
    subfolder: String,
    package_registry: String,
    package: String,
    package_version: String,
    artifact: String,
    outcome: String,
    tools: Vec<ToolHints>,
}

impl WireServer {
    /// Returns the registry name the servers file gave the server.
    pub fn registry_name(&self) -> &str {
        &self.registry_name
    }

    /// Returns the registry of the package it ran (`npm`, `pypi`).
    pub fn package_registry(&self) -> &str {
        &self.package_registry
    }

    /// Returns how its probe ended (`listed`, `install failed`, ...).
    pub fn outcome(&self) -> &str {
        &self.outcome
    }

    /// Returns the tools it listed, in its order; none when it did not list.
    pub fn tools(&self) -> &[ToolHints] {
        &self.tools
    }
}

/// Returns a reader of `path` and a look-up of its columns, each required.
fn open_table(path: &Path, columns: &[&str]) -> Result<(csv::Reader<File>, Vec<usize>)> {
    let name = path.display();
    let mut reader = csv::Reader::from_path(path).with_context(|| format!("reading '{name}'"))?;
    let header = reader
        .headers()
        .with_context(|| format!("reading '{name}'"))?
        .clone();
    let at = columns
        .iter()
        .map(|wanted| {
            header
                .iter()
                .position(|h| h == *wanted)
                .with_context(|| format!("'{name}' has no '{wanted}' column"))
        })
        .collect::<Result<_>>()?;
    Ok((reader, at))
}

/// Reads the servers table and the per-tool table `probe --servers` wrote; a table
/// that is not one names its file and line.
pub fn read_wire(wire: &Path, servers: &Path) -> Result<Vec<WireServer>> {
    let columns = [
        "server",
        "registry_name",
        "repository",
        "subfolder",
        "package_registry",
        "package",
        "package_version",
        "artifact",
        "outcome",
    ];
    let (mut reader, at) = open_table(servers, &columns)?;
    let mut out: Vec<WireServer> = Vec::new();
    let mut index = HashMap::new();
    for (i, record) in reader.records().enumerate() {
        let record = record.with_context(|| format!("'{}' line {}", servers.display(), i + 2))?;
        let cell = |j: usize| record.get(at[j]).unwrap_or("").to_string();
        let server = WireServer {
            name: cell(0),
            registry_name: cell(1),
            repository: cell(2),
            subfolder: cell(3),
            package_registry: cell(4),
            package: cell(5),
            package_version: cell(6),
            artifact: cell(7),
            outcome: cell(8),
            tools: Vec::new(),
        };
        if index.insert(server.name.clone(), out.len()).is_some() {
            bail!(
                "'{}' line {}: the server '{}' is there twice",
                servers.display(),
                i + 2,
                sanitize(&server.name)
            );
        }
        out.push(server);
    }
    let mut columns = vec!["server", "tool"];
    columns.extend(Hint::ALL.map(Hint::name));
    let (mut reader, at) = open_table(wire, &columns)?;
    for (i, record) in reader.records().enumerate() {
        let line = || format!("'{}' line {}", wire.display(), i + 2);
        let record = record.with_context(line)?;
        let cell = |j: usize| record.get(at[j]).unwrap_or("");
        let Some(&server) = index.get(cell(0)) else {
            bail!(
                "{}: the server '{}' is not in '{}'",
                line(),
                sanitize(cell(0)),
                servers.display()
            );
        };
        // A server that did not list has one row, its error; it names no tool.
        if !outcome::is_listed(&out[server].outcome) {
            continue;
        }
        let mut declared = Vec::with_capacity(4);
        for j in 2..6 {
            declared.push(Declared::parse_cell(cell(j)).with_context(|| {
                format!(
                    "{}: '{}' is not a declaration (true, false, absent or invalid)",
                    line(),
                    sanitize(cell(j))
                )
            })?);
        }
        let declared: [Declared; 4] = declared.try_into().expect("four hint columns");
        out[server]
            .tools
            .push(ToolHints::from_cells(cell(1).to_string(), declared));
    }
    Ok(out)
}

/// Says how a server of the wire tables stands to the census: the `join` column.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Link {
    Joined,
    /// Joined to a package row of the same version whose artifact is another file
    /// than the one the wire installed (a platform wheel, say), or one the wire
    /// does not name: the same release, not the same bytes.
    JoinedByVersion,
    /// The server gave no listing; its `outcome` says why.
    NotListed,
    /// No census row has its registry name, or its repository and subfolder.
    NoCensusRow,
    /// More than one census row does (several pins of one tree, or of one date).
    SeveralRows,
    /// Census rows do, but all of a dated census's rows are dated after the wire.
    OnlyLaterRows,
    /// Its census row is an error row.
    CensusFailed,
    /// Its tree was counted with the tool finder off.
    FinderOff,
}

impl Link {
    const ALL: [Link; 8] = [
        Link::Joined,
        Link::JoinedByVersion,
        Link::NotListed,
        Link::NoCensusRow,
        Link::SeveralRows,
        Link::OnlyLaterRows,
        Link::CensusFailed,
        Link::FinderOff,
    ];

    /// Returns true when the server's tools were joined to a census row's.
    fn is_joined(self) -> bool {
        matches!(self, Link::Joined | Link::JoinedByVersion)
    }

    fn name(self) -> &'static str {
        match self {
            Link::Joined => "joined",
            Link::JoinedByVersion => "joined by version, not by bytes",
            Link::NotListed => "not listed",
            Link::NoCensusRow => "no census row",
            Link::SeveralRows => "several census rows",
            Link::OnlyLaterRows => "census rows only after the wire date",
            Link::CensusFailed => "census failed",
            Link::FinderOff => "finder off",
        }
    }
}

/// Holds one tool of a joined server: its definition in the source, its hints on the
/// wire, or both.
#[derive(Clone, Debug)]
struct Pair {
    name: String,
    source: Option<ToolDef>,
    wire: Option<[Declared; 4]>,
}

impl Pair {
    fn presence(&self) -> &'static str {
        match (&self.source, &self.wire) {
            (Some(_), Some(_)) => "both",
            (Some(_), None) => "source only",
            _ => "wire only",
        }
    }

    /// Returns each hint's agreement, for a tool in both.
    fn agreements(&self) -> Option<[Agreement; 4]> {
        match (&self.source, &self.wire) {
            (Some(def), Some(wire)) => Some(std::array::from_fn(|i| {
                source::agreement(def.hints[i], &wire[i])
            })),
            _ => None,
        }
    }
}

/// Holds one server of the join: how it stands to the census, its census row when
/// there is one, and its tools sorted by name.
#[derive(Debug)]
pub struct Joined {
    server: WireServer,
    link: Link,
    row: Option<CensusRow>,
    pairs: Vec<Pair>,
}

/// Holds one server's totals: tools in both, in the source only, on the wire only,
/// and the hints of the tools in both by agreement.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Totals {
    both: u64,
    source_only: u64,
    wire_only: u64,
    agrees: u64,
    filled: u64,
    unresolved: u64,
    differs: u64,
}

impl Totals {
    fn add(&mut self, other: Totals) {
        self.both += other.both;
        self.source_only += other.source_only;
        self.wire_only += other.wire_only;
        self.agrees += other.agrees;
        self.filled += other.filled;
        self.unresolved += other.unresolved;
        self.differs += other.differs;
    }
}

impl Joined {
    fn totals(&self) -> Totals {
        let mut totals = Totals::default();
        for pair in &self.pairs {
            match pair.presence() {
                "both" => totals.both += 1,
                "source only" => totals.source_only += 1,
                _ => totals.wire_only += 1,
            }
            for agreement in pair.agreements().into_iter().flatten() {
                match agreement {
                    Agreement::Agrees => totals.agrees += 1,
                    Agreement::FilledOnTheWire => totals.filled += 1,
                    Agreement::Unresolved => totals.unresolved += 1,
                    Agreement::Differs => totals.differs += 1,
                }
            }
        }
        totals
    }
}

/// Why the finder did not see a tool the wire lists, by what it saw in the joined
/// tree, in [`Figures::wire_only`] order.
pub const CAUSES: [&str; 3] = [
    "no tool found in the source",
    "tools registered dynamically in the source",
    "other tools found: named otherwise, or defined by a dependency",
];

/// Holds the figures of a join that a survey's report quotes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    /// Servers joined to a census row.
    pub servers: u64,
    /// Tools the joined servers list.
    pub wire: u64,
    /// Of those, tools the census found by the same name.
    pub both: u64,
    /// The hints of the tools in both, by agreement.
    pub agrees: u64,
    pub filled: u64,
    pub unresolved: u64,
    pub differs: u64,
    /// Tools only on the wire, by [`CAUSES`].
    pub wire_only: [u64; 3],
}

impl Figures {
    /// Adds `other`'s figures, those of another wire run joined to the same census.
    pub fn add(&mut self, other: &Figures) {
        self.servers += other.servers;
        self.wire += other.wire;
        self.both += other.both;
        self.agrees += other.agrees;
        self.filled += other.filled;
        self.unresolved += other.unresolved;
        self.differs += other.differs;
        for (mine, theirs) in self.wire_only.iter_mut().zip(other.wire_only) {
            *mine += theirs;
        }
    }
}

/// Returns the figures of `joined`, a join to `census`.
pub fn figures(census: &Census, joined: &[Joined]) -> Figures {
    let mut f = Figures::default();
    for server in joined.iter().filter(|s| s.link.is_joined()) {
        let t = server.totals();
        f.servers += 1;
        f.wire += t.both + t.wire_only;
        f.both += t.both;
        f.agrees += t.agrees;
        f.filled += t.filled;
        f.unresolved += t.unresolved;
        f.differs += t.differs;
        let defs = server
            .row
            .as_ref()
            .and_then(|r| census.tools.get(&r.key))
            .map_or(&[][..], Vec::as_slice);
        let own = |kind: DefKind| {
            defs.iter()
                .any(|d| d.kind == kind && d.role == Role::Source)
        };
        let cause = match (own(DefKind::Tool), own(DefKind::Dynamic)) {
            (_, true) => 1,
            (false, false) => 0,
            (true, false) => 2,
        };
        f.wire_only[cause] += t.wire_only;
    }
    f
}

/// Joins each server of the wire tables of `wire_date` to its census row and its tools
/// to the tree's own tools (kind `tool`, role `source`), in the servers table's order.
/// Of a dated census, a server's rows are those of the latest date not after the
/// wire's: the source as it stood when the wire was read.
pub fn join(census: &Census, servers: Vec<WireServer>, wire_date: &str) -> Vec<Joined> {
    servers
        .into_iter()
        .map(|server| {
            let all = census.rows_of(&server);
            let rows = as_of(&all, wire_date);
            let (link, row) = match rows.as_slice() {
                _ if !outcome::is_listed(&server.outcome) => {
                    (Link::NotListed, rows.first().copied())
                }
                [] if !all.is_empty() => (Link::OnlyLaterRows, None),
                [] => (Link::NoCensusRow, None),
                [_, _, ..] => (Link::SeveralRows, None),
                [row] if !row.is_ok => (Link::CensusFailed, Some(*row)),
                [row] if !row.has_tools => (Link::FinderOff, Some(*row)),
                [row] if !row.digest.is_empty() && row.digest != server.artifact => {
                    (Link::JoinedByVersion, Some(*row))
                }
                [row] => (Link::Joined, Some(*row)),
            };
            let row = row.cloned();
            let pairs = match (&row, link.is_joined()) {
                (Some(row), true) => pairs(census.tools.get(&row.key), &server.tools),
                _ => Vec::new(),
            };
            Joined {
                server,
                link,
                row,
                pairs,
            }
        })
        .collect()
}

/// Returns the rows of `rows` dated the latest date not after `wire_date` (dates are
/// `YYYY-MM-DD`, so their text sorts as they do); undated rows all.
fn as_of<'a>(rows: &[&'a CensusRow], wire_date: &str) -> Vec<&'a CensusRow> {
    fn date_of(r: &CensusRow) -> &str {
        r.key.as_of.as_deref().unwrap_or("")
    }
    if rows.iter().all(|r| r.key.as_of.is_none()) {
        return rows.to_vec();
    }
    let latest = rows
        .iter()
        .map(|r| date_of(r))
        .filter(|d| *d <= wire_date)
        .max();
    match latest {
        None => Vec::new(),
        Some(date) => rows
            .iter()
            .filter(|r| date_of(r) == date)
            .copied()
            .collect(),
    }
}

/// Returns the tools of one joined server: matched as `probe --source` matches them,
/// sorted by name, then the definition's path and line (a tie keeps the wire's order).
fn pairs(defs: Option<&Vec<ToolDef>>, tools: &[ToolHints]) -> Vec<Pair> {
    let own: Vec<ToolDef> = defs
        .into_iter()
        .flatten()
        .filter(|d| d.kind == DefKind::Tool && d.role == Role::Source)
        .cloned()
        .collect();
    let (matched, source_only, wire_only) = source::match_by_name(own, tools);
    let mut pairs: Vec<Pair> = matched
        .into_iter()
        .map(|m| Pair {
            name: m.name,
            wire: Some(m.hints.map(|(_, declared)| declared)),
            source: Some(m.source),
        })
        .chain(source_only.into_iter().map(|def| Pair {
            name: def.name.clone().unwrap_or_default(),
            source: Some(def),
            wire: None,
        }))
        .chain(wire_only.into_iter().map(|i| Pair {
            name: tools[i].name.clone(),
            source: None,
            wire: Some(Hint::ALL.map(|h| tools[i].declared(h).clone())),
        }))
        .collect();
    pairs.sort_by(|a, b| {
        let at = |p: &Pair| p.source.as_ref().map(|d| (d.path.clone(), d.line));
        (a.name.as_bytes(), at(a)).cmp(&(b.name.as_bytes(), at(b)))
    });
    pairs
}

/// The join table's columns before the per-hint ones: the server and its package,
/// the census tree and commit it joins to, how, and the tool.
const LEADING: [&str; 15] = [
    "server",
    "registry_name",
    "package_registry",
    "package",
    "package_version",
    "artifact",
    "repo",
    "pinned",
    "subfolder",
    "commit",
    "join",
    "tool",
    "presence",
    "source_path",
    "source_line",
];

/// Returns the join table's header: [`LEADING`], then per hint the source's cell, the
/// wire's and their agreement.
fn header() -> Vec<String> {
    let mut header: Vec<String> = LEADING.map(str::to_string).to_vec();
    for hint in Hint::ALL {
        header.push(format!("source_{}", hint.name()));
        header.push(format!("wire_{}", hint.name()));
        header.push(format!("agreement_{}", hint.name()));
    }
    header
}

/// Writes `join-DATE.csv`: one row per (server, tool), a server with no tool to
/// compare as one row without a tool. Paths stay the tools table's raw bytes.
pub fn write_csv(path: &Path, joined: &[Joined]) -> Result<()> {
    crate::infra::atomic::write_atomic(path, |w| write_rows(w, joined))
}

fn write_rows(w: &mut dyn std::io::Write, joined: &[Joined]) -> Result<()> {
    let mut out = csv::Writer::from_writer(w);
    out.write_record(header())?;
    for server in joined {
        let s = &server.server;
        let row = server.row.as_ref();
        let tree = |f: fn(&CensusRow) -> &String| row.map(f).cloned().unwrap_or_default();
        let optional = |f: fn(&CensusRow) -> &Option<String>| {
            row.and_then(|r| f(r).clone()).unwrap_or_default()
        };
        let lead: Vec<Vec<u8>> = [
            s.name.clone(),
            s.registry_name.clone(),
            s.package_registry.clone(),
            s.package.clone(),
            s.package_version.clone(),
            s.artifact.clone(),
            tree(|r| &r.key.repo),
            optional(|r| &r.key.pinned),
            optional(|r| &r.key.subfolder),
            tree(|r| &r.commit),
            server.link.name().to_string(),
        ]
        .map(String::into_bytes)
        .to_vec();
        if server.pairs.is_empty() {
            let mut record = lead.clone();
            record.resize(header().len(), Vec::new());
            out.write_record(&record)?;
        }
        for pair in &server.pairs {
            let mut record = lead.clone();
            record.push(pair.name.clone().into_bytes());
            record.push(pair.presence().as_bytes().to_vec());
            match &pair.source {
                Some(def) => {
                    record.push(def.path.clone());
                    record.push(def.line.to_string().into_bytes());
                }
                None => record.extend([Vec::new(), Vec::new()]),
            }
            let agreements = pair.agreements();
            for (i, _) in Hint::ALL.iter().enumerate() {
                let source = pair
                    .source
                    .as_ref()
                    .map(|d| d.hints[i].map_or("absent", |state| state.as_str()));
                let wire = pair.wire.as_ref().map(|w| w[i].cell());
                let agreement = agreements.map(|a| a[i].name());
                for cell in [source, wire, agreement] {
                    record.push(cell.unwrap_or("").as_bytes().to_vec());
                }
            }
            out.write_record(&record)?;
        }
    }
    out.flush()?;
    Ok(())
}

/// Returns `n` of `of` as `n (x.x%)`, or `n` alone when `of` is 0.
fn share(n: u64, of: u64) -> String {
    match of {
        0 => n.to_string(),
        _ => format!("{n} ({:.1}%)", n as f64 * 100.0 / of as f64),
    }
}

/// Escapes text for one Markdown table cell.
fn cell(text: &str) -> String {
    sanitize(text).replace('|', "\\|")
}

/// Renders the "Source and wire" section of `wire-DATE.md`: the shares only the wire
/// can give, then one line per server.
pub fn section(census: &Census, joined: &[Joined]) -> String {
    let mut total = Totals::default();
    for server in joined.iter().filter(|s| s.link.is_joined()) {
        total.add(server.totals());
    }
    let links: Vec<String> = Link::ALL
        .iter()
        .map(|&link| (link, joined.iter().filter(|s| s.link == link).count()))
        .filter(|&(_, n)| n > 0)
        .map(|(link, n)| format!("{n} {}", link.name()))
        .collect();
    let wire = total.both + total.wire_only;
    let source = total.both + total.source_only;
    let hints = total.agrees + total.filled + total.unresolved + total.differs;
    let mut text = format!(
        "\n## Source and wire\n\n\
         The census `{}` and its tools table, joined server by server (a package to the \
         census's row of the same package and version, else by registry name, else \
         repository and subfolder) and tool by tool (by name), hints compared as \
         `probe --source` compares them.\n\n\
         - Servers: {}: {}.\n\
         - Tools the joined servers list on the wire: {wire}; in the census under the same \
         name: {}; only on the wire, which the source census could not see: {}.\n\
         - Tools the census found in their source: {source}; not listed on the wire: {}.\n\
         - Hints of the {} tools in both: {hints}; agreeing: {}; absent in the source and \
         declared on the wire: {}; unresolved in the source (`?`, `unknown`): {}; \
         differing: {}.\n\n\
         | server | package | commit | join | both | source only | wire only | hints agreeing | filled on the wire | unresolved | differing |\n\
         |---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n",
        cell(&census.name),
        joined.len(),
        if links.is_empty() { "none".to_string() } else { links.join(", ") },
        share(total.both, wire),
        share(total.wire_only, wire),
        share(total.source_only, source),
        total.both,
        share(total.agrees, hints),
        share(total.filled, hints),
        share(total.unresolved, hints),
        share(total.differs, hints),
    );
    for server in joined {
        let s = &server.server;
        let package = match s.package.is_empty() {
            true => String::new(),
            false => format!("{}@{}", s.package, s.package_version),
        };
        let commit: String = server
            .row
            .as_ref()
            .map(|r| r.commit.chars().take(12).collect())
            .unwrap_or_default();
        let _ = match server.link {
            link if link.is_joined() => {
                let t = server.totals();
                writeln!(
                    text,
                    "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
                    cell(&s.name),
                    cell(&package),
                    cell(&commit),
                    link.name(),
                    t.both,
                    t.source_only,
                    t.wire_only,
                    t.agrees,
                    t.filled,
                    t.unresolved,
                    t.differs
                )
            }
            link => writeln!(
                text,
                "| {} | {} | {} | {} | | | | | | | |",
                cell(&s.name),
                cell(&package),
                cell(&commit),
                match link {
                    Link::NotListed => format!("not listed: {}", cell(&s.outcome)),
                    other => other.name().to_string(),
                }
            ),
        };
    }
    text
}

/// Runs `join WIRE --source-table TABLE`: joins the wire tables a `probe --servers`
/// run wrote, read back as that run reads them, so that the join has the bytes the
/// run's would have.
pub fn run(args: &JoinArgs) -> Result<ExitStatus> {
    let shown = || sanitize(args.wire.display().to_string());
    let wire_date = args
        .wire
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("wire-")?.strip_suffix(".csv"))
        .filter(|d| date::parts(d).is_some())
        .map(str::to_string)
        .ok_or_else(|| {
            UsageError(format!(
                "'{}' is not named wire-DATE.csv, so its servers table cannot be found",
                shown()
            ))
        })?;
    let census = Census::read(&args.source_table)?;
    let servers_path = args
        .wire
        .with_file_name(format!("wire-{wire_date}-servers.csv"));
    let servers =
        read_wire(&args.wire, &servers_path).map_err(|err| UsageError(format!("{err:#}")))?;
    let out_dir = match &args.out {
        Some(dir) => dir.clone(),
        None => args
            .wire
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default(),
    };
    let out_dir = if out_dir.as_os_str().is_empty() {
        PathBuf::from(".")
    } else {
        out_dir
    };
    std::fs::create_dir_all(&out_dir)
        .with_context(|| format!("creating '{}'", out_dir.display()))?;
    let joined = join(&census, servers, &wire_date);
    let csv_path = out_dir.join(format!("join-{wire_date}.csv"));
    write_csv(&csv_path, &joined).with_context(|| format!("writing '{}'", csv_path.display()))?;
    let md_path = out_dir.join(format!("join-{wire_date}.md"));
    let report = format!(
        "# The wire survey of {wire_date} and its census\n{}",
        section(&census, &joined)
    );
    crate::infra::atomic::write_bytes(&md_path, report.as_bytes())?;
    Out::new().line(&format!(
        "wrote '{}' and '{}'",
        csv_path.display(),
        md_path.display()
    ))?;
    Ok(ExitStatus::Ok)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CENSUS: &str = "\
repo,pinned,subfolder,server,commit,commit_source,files_walked,bytes_read,readOnlyHint,tools,status,error
acme/weather,v1.2.0,servers/weather,io.github.acme/weather,1111111111111111111111111111111111111111,pinned,3,100,2,3,ok,
acme/other,v1,,,2222222222222222222222222222222222222222,pinned,1,10,0,0,ok,
acme/broken,v1,,io.github.acme/broken,,,,,,,error,archive not found
acme/literal,v1,,io.github.acme/literal,3333333333333333333333333333333333333333,pinned,1,10,0,,ok,
";

    const TOOLS: &str = "\
repo,pinned,subfolder,path,line,kind,role,sdk,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint
acme/weather,v1.2.0,servers/weather,servers/weather/src/a.ts,10,tool,source,typescript,forecast,true,,,false
acme/weather,v1.2.0,servers/weather,servers/weather/src/a.ts,20,tool,source,typescript,alert,,,,?
acme/weather,v1.2.0,servers/weather,servers/weather/src/a.ts,30,tool,source,typescript,history,false,true,,
acme/weather,v1.2.0,servers/weather,servers/weather/src/a.ts,40,dynamic,source,typescript,,,,,
acme/weather,v1.2.0,servers/weather,servers/weather/test/a.ts,5,tool,test,typescript,mock,,,,
";

    const SERVERS: &str = "\
server,registry_name,repository,subfolder,package_registry,package,package_version,artifact,outcome,server_version,protocol,tools,tools_every_meaningful_hint,tools_some_hints,tools_no_hint,error
io.github.acme/weather,io.github.acme/weather,https://github.com/acme/weather,servers/weather,npm,@acme/weather,1.2.0,sha512-x,listed,1.2.0,2025-06-18,3,1,1,1,
other,,https://github.com/ACME/other.git,,npm,other,1.0.0,sha512-y,listed,1,2025-06-18,1,0,0,1,
io.github.acme/broken,io.github.acme/broken,,,npm,broken,1.0.0,,listed,1,2025-06-18,0,0,0,0,
io.github.acme/gone,io.github.acme/gone,,,npm,gone,1.0.0,,install failed,,,,,,,E404
stray,,,,,,,,listed,1,2025-06-18,1,0,0,1,
";

    /// The wire columns the join reads, among the others `--servers` writes.
    const WIRE: &str = "\
server,server_version,protocol,capabilities,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint,omits,error
io.github.acme/weather,1.2.0,2025-06-18,roots,forecast,true,absent,absent,false,,
io.github.acme/weather,1.2.0,2025-06-18,roots,alert,false,true,false,true,,
io.github.acme/weather,1.2.0,2025-06-18,roots,dynamic_tool,absent,absent,absent,absent,readOnlyHint,
other,1,2025-06-18,roots,ping,absent,absent,absent,absent,readOnlyHint,
io.github.acme/gone,,,roots,,,,,,,E404
stray,1,2025-06-18,roots,t,absent,absent,absent,absent,readOnlyHint,
";

    fn tables(
        census: &str,
        tools: &str,
        servers: &str,
        wire: &str,
    ) -> (tempfile::TempDir, Result<String>) {
        let dir = tempfile::tempdir().unwrap();
        let at = |name: &str, text: &str| {
            let path = dir.path().join(name);
            std::fs::write(&path, text).unwrap();
            path
        };
        let census_path = at("census-2026-11-30.csv", census);
        at("tools-2026-11-30.csv", tools);
        let servers = at("wire-2026-11-30-servers.csv", servers);
        let wire = at("wire-2026-11-30.csv", wire);
        let out = dir.path().join("join-2026-11-30.csv");
        let run = || -> Result<String> {
            let census = Census::read(&census_path)?;
            let joined = join(&census, read_wire(&wire, &servers)?, "2026-11-30");
            write_csv(&out, &joined)?;
            Ok(std::fs::read_to_string(&out)? + &section(&census, &joined))
        };
        let got = run();
        (dir, got)
    }

    /// The join of hand-written tables, against a join written by hand: which tool is
    /// where, each hint's cells and agreement, and the share only the wire gives.
    #[test]
    fn a_census_and_a_wire_table_join_server_by_server_and_tool_by_tool() {
        let (_dir, got) = tables(CENSUS, TOOLS, SERVERS, WIRE);
        let got = got.unwrap();
        let lead = "server,registry_name,package_registry,package,package_version,artifact,repo,pinned,subfolder,commit,join,tool,presence,source_path,source_line,\
source_readOnlyHint,wire_readOnlyHint,agreement_readOnlyHint,\
source_destructiveHint,wire_destructiveHint,agreement_destructiveHint,\
source_idempotentHint,wire_idempotentHint,agreement_idempotentHint,\
source_openWorldHint,wire_openWorldHint,agreement_openWorldHint\n";
        let weather = "io.github.acme/weather,io.github.acme/weather,npm,@acme/weather,1.2.0,sha512-x,acme/weather,v1.2.0,servers/weather,1111111111111111111111111111111111111111,joined";
        let expected = format!(
            "{lead}\
{weather},alert,both,servers/weather/src/a.ts,20,absent,false,filled on the wire,absent,true,filled on the wire,absent,false,filled on the wire,?,true,unresolved\n\
{weather},dynamic_tool,wire only,,,,absent,,,absent,,,absent,,,absent,\n\
{weather},forecast,both,servers/weather/src/a.ts,10,true,true,agrees,absent,absent,agrees,absent,absent,agrees,false,false,agrees\n\
{weather},history,source only,servers/weather/src/a.ts,30,false,,,true,,,absent,,,absent,,\n\
other,,npm,other,1.0.0,sha512-y,acme/other,v1,,2222222222222222222222222222222222222222,joined,ping,wire only,,,,absent,,,absent,,,absent,,,absent,\n\
io.github.acme/broken,io.github.acme/broken,npm,broken,1.0.0,,acme/broken,v1,,,census failed,,,,,,,,,,,,,,,,\n\
io.github.acme/gone,io.github.acme/gone,npm,gone,1.0.0,,,,,,not listed,,,,,,,,,,,,,,,,\n\
stray,,,,,,,,,,no census row,,,,,,,,,,,,,,,,\n"
        );
        let (csv, md) = got.split_at(expected.len().min(got.len()));
        assert_eq!(csv, expected);
        for line in [
            "- Servers: 5: 2 joined, 1 not listed, 1 no census row, 1 census failed.",
            "- Tools the joined servers list on the wire: 4; in the census under the same name: 2 (50.0%); only on the wire, which the source census could not see: 2 (50.0%).",
            "- Tools the census found in their source: 3; not listed on the wire: 1 (33.3%).",
            "- Hints of the 2 tools in both: 8; agreeing: 4 (50.0%); absent in the source and declared on the wire: 3 (37.5%); unresolved in the source (`?`, `unknown`): 1 (12.5%); differing: 0 (0.0%).",
            "| io.github.acme/weather | @acme/weather@1.2.0 | 111111111111 | joined | 2 | 1 | 1 | 4 | 3 | 1 | 0 |",
            "| io.github.acme/gone | gone@1.0.0 |  | not listed: install failed | | | | | | | |",
        ] {
            assert!(md.contains(line), "no '{line}' in\n{md}");
        }
        // The same tables give the same bytes.
        let (_dir, again) = tables(CENSUS, TOOLS, SERVERS, WIRE);
        assert_eq!(again.unwrap(), got);
    }

    /// A dated census joins each server with its tree as of the latest date not after
    /// the wire's (2026-11-30): not the earlier date, not the later one.
    #[test]
    fn a_dated_census_joins_the_row_of_the_latest_date_not_after_the_wire() {
        let census = "\
repo,pinned,subfolder,as_of,server,commit,tools,status,error
acme/weather,v1.1.0,servers/weather,2026-06-01,io.github.acme/weather,1111111111111111111111111111111111111111,1,ok,
acme/weather,v1.2.0,servers/weather,2026-11-01,io.github.acme/weather,4444444444444444444444444444444444444444,1,ok,
acme/weather,v1.3.0,servers/weather,2026-12-01,io.github.acme/weather,5555555555555555555555555555555555555555,1,ok,
acme/other,v2,,2026-12-01,,6666666666666666666666666666666666666666,1,ok,
";
        let tools = "\
repo,pinned,subfolder,as_of,path,line,kind,role,sdk,tool,readOnlyHint,destructiveHint,idempotentHint,openWorldHint
acme/weather,v1.1.0,servers/weather,2026-06-01,a.ts,1,tool,source,typescript,forecast,false,,,
acme/weather,v1.2.0,servers/weather,2026-11-01,a.ts,2,tool,source,typescript,forecast,true,,,
acme/weather,v1.3.0,servers/weather,2026-12-01,a.ts,3,tool,source,typescript,forecast,,,,
acme/other,v2,,2026-12-01,a.ts,1,tool,source,typescript,ping,,,,
";
        let (_dir, got) = tables(census, tools, SERVERS, WIRE);
        let got = got.unwrap();
        let rows: Vec<&str> = got.lines().collect();
        let forecast = rows
            .iter()
            .find(|r| r.contains(",forecast,"))
            .unwrap_or_else(|| panic!("{got}"));
        assert!(
            forecast.contains(",acme/weather,v1.2.0,servers/weather,4444444444444444444444444444444444444444,joined,forecast,both,a.ts,2,true,true,agrees,"),
            "{forecast}"
        );
        let other = rows.iter().find(|r| r.starts_with("other,")).unwrap();
        assert!(
            other.ends_with(",census rows only after the wire date,,,,,,,,,,,,,,,,"),
            "{other}"
        );
    }

    #[test]
    fn a_table_that_is_not_one_is_named_with_its_line() {
        let bad_wire = WIRE.replace("forecast,true", "forecast,yes");
        let (_dir, got) = tables(CENSUS, TOOLS, SERVERS, &bad_wire);
        let err = format!("{:#}", got.unwrap_err());
        assert!(
            err.contains("wire-2026-11-30.csv' line 2: 'yes' is not a declaration"),
            "{err}"
        );
        let bad_census = CENSUS.replace(",ok,\nacme/other", ",fine,\nacme/other");
        let (_dir, got) = tables(&bad_census, TOOLS, SERVERS, WIRE);
        let err = got.unwrap_err();
        assert!(err.downcast_ref::<UsageError>().is_some(), "{err:#}");
        assert!(
            format!("{err:#}").contains("census-2026-11-30.csv' line 2: status 'fine'"),
            "{err:#}"
        );
        let unknown = format!("{WIRE}nobody,1,p,roots,t,absent,absent,absent,absent,,\n");
        let (_dir, got) = tables(CENSUS, TOOLS, SERVERS, &unknown);
        let err = format!("{:#}", got.unwrap_err());
        assert!(
            err.contains("line 8: the server 'nobody' is not in"),
            "{err}"
        );
        let err = table_pair(Path::new("results/census.csv")).unwrap_err();
        assert!(
            err.0
                .contains("not named census-DATE.csv or tools-DATE.csv"),
            "{}",
            err.0
        );
    }
}
