//! `survey`: every latest entry of one registry listing accounted for, with what
//! ships, its repository and the wire each as an outcome of its own, and the figures
//! a surveyor quotes, from the tables the other commands wrote.
//!
//! It reads the listing (`corpus registry --pages` reads it the same way), the
//! corpus of what ships and its census table (`corpus registry --shipped`, then
//! `census`), the skipped list beside that corpus, and, when given, the servers table
//! of a wire survey (`probe --servers`). It writes `entries-DATE.csv`, one row per
//! entry, and `survey-DATE.md`, the counts per outcome by registry, then the headline
//! figures and the method's limits. It downloads, counts and probes nothing, so the
//! same tables give the same bytes (docs/method.md, "The registry survey").

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sha2::Digest as _;

use crate::cli::SurveyArgs;
use crate::corpus::registry::{self, Entry};
use crate::infra::atomic::write_bytes;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::messages;
use crate::infra::sanitize::sanitize;
use crate::table::{self, Table};
use crate::tools::hints::Hint;

use super::census_rows::{cell, read_census, read_history, read_versions, Counted};
use super::figures;
use super::join::{read_wire, WireServer};
use super::outcome::{self, Kind};
use super::over_time;

/// The columns of `entries-DATE.csv`.
const HEADER: [&str; 18] = [
    "server",
    "version",
    "group",
    "packages",
    "repository_url",
    "remotes",
    "package",
    "repository",
    "wire",
    "shipped_hints",
    "shipped_tools",
    "shipped_tools_annotated",
    "repository_hints",
    "repository_tools",
    "repository_tools_annotated",
    "wire_tools",
    "wire_tools_annotated",
    "detail",
];

/// The groups an entry is counted in: its first npm or PyPI package's registry,
/// else `remote` for an entry with endpoints, else `other` (OCI, NuGet, MCPB or
/// nothing to install).
const GROUPS: [&str; 4] = ["npm", "PyPI", "remote", "other"];

/// Holds one entry's row.
#[derive(Clone, Debug, Default)]
struct Row {
    server: String,
    version: String,
    group: &'static str,
    packages: String,
    repository_url: String,
    remotes: String,
    package: String,
    repository: String,
    wire: String,
    /// How many of the four hint names the shipped code spells (0 to 4); `None`
    /// when it was not counted.
    shipped_hints: Option<usize>,
    shipped_tools: Option<(u64, u64)>,
    /// As `shipped_hints` and `shipped_tools`, for the repository's trees.
    repo_hints: Option<usize>,
    repo_tools: Option<(u64, u64)>,
    wire_tools: Option<(u64, u64)>,
    detail: String,
}

/// Holds one package tree (`REGISTRY:NAME`) and its census outcome: counted, or why
/// not, and whether it is a family member of the entry's package (whose tools count
/// for the entry, and whose row alone does not make it counted).
type PackageOutcome = (String, bool, Result<Counted, String>);

/// Holds what the census of what ships says of each package, by `REGISTRY:NAME` and
/// version as the listing names them.
#[derive(Default)]
struct Shipped {
    /// The package trees each server was pinned for, with their outcomes.
    by_server: BTreeMap<String, Vec<PackageOutcome>>,
    /// The skipped list: `REGISTRY:NAME`, version → the index's answer.
    skipped: BTreeMap<(String, String), String>,
    /// The census table, with its tools.
    table: Option<Table>,
}

/// Runs `survey`.
pub fn run(args: &SurveyArgs) -> Result<ExitStatus> {
    let date = date::resolve(args.date.as_deref())?;
    let listing = registry::read_saved(&args.pages, false)?;
    let mut digest = sha2::Sha256::new();
    for page in &args.pages {
        if page.is_file() {
            let bytes = std::fs::read(page)
                .map_err(|e| UsageError(format!("reading '{}': {e}", page.display())))?;
            digest.update(&bytes);
        }
    }
    let listing_sha = format!("{:x}", digest.finalize());
    let entries = registry::current(&listing.entries, false);
    let shipped = read_shipped(&args.shipped, &args.shipped_table)?;
    let repos = match (&args.repos, &args.repos_table) {
        (Some(corpus), Some(table)) => Some(read_repos(corpus, table)?),
        _ => None,
    };
    let wires = args
        .wire
        .iter()
        .map(|w| read_wire_pair(w))
        .collect::<Result<Vec<_>>>()?;
    // Every run's servers, in the order the tables were given.
    let wire_servers: Vec<WireServer> = wires.iter().flat_map(|(_, s)| s.iter().cloned()).collect();
    let wire = (!wires.is_empty()).then_some(&wire_servers[..]);
    let rows: Vec<Row> = entries
        .iter()
        .map(|e| row_of(e, &shipped, repos.as_ref(), wire))
        .collect();
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating '{}'", args.out.display()))?;
    let csv_path = args.out.join(format!("entries-{date}.csv"));
    write_bytes(&csv_path, &entries_csv(&rows)?)?;
    let source = Source {
        from: args.listing_from.clone(),
        listing: args
            .pages
            .iter()
            .map(|p| {
                p.file_name()
                    .map_or(String::new(), |n| n.to_string_lossy().into_owned())
            })
            .collect::<Vec<_>>()
            .join(", "),
        sha256: listing_sha,
        records: listing.entries.len() + listing.bad.len(),
        shipped: beside(&args.shipped_table, &args.out),
        repos: args.repos_table.as_deref().map(|p| beside(p, &args.out)),
        repos_from: args.repos_from.clone(),
        wire: args.wire.iter().map(|p| beside(p, &args.out)).collect(),
    };
    let mut text = markdown(&rows, &source, &date);
    let shipped_table = shipped.table.as_ref().expect("read with its table");
    let repos_table = repos.as_ref().and_then(|r| r.table.as_ref());
    figures::each_hint(&mut text, shipped_table, repos_table, &wire_servers);
    let mut halves = vec![(
        "what ships",
        rows.iter()
            .filter(|r| r.package == "counted")
            .map(|r| r.shipped_tools)
            .collect(),
    )];
    if repos.is_some() {
        halves.push((
            "repository",
            rows.iter()
                .filter(|r| r.repository == "counted")
                .map(|r| r.repo_tools)
                .collect(),
        ));
    }
    if wire.is_some() {
        halves.push((
            "wire",
            rows.iter()
                .filter(|r| outcome::is_listed(&r.wire))
                .map(|r| r.wire_tools)
                .collect(),
        ));
        // Whether the servers that need a key declare more or less often.
        let placeholders = Kind::ListedWithPlaceholders.name();
        if rows.iter().any(|r| r.wire == placeholders) {
            for (half, kind) in [
                ("wire, as given", Kind::Listed),
                ("wire, with placeholders", Kind::ListedWithPlaceholders),
            ] {
                halves.push((
                    half,
                    rows.iter()
                        .filter(|r| r.wire == kind.name())
                        .map(|r| r.wire_tools)
                        .collect(),
                ));
            }
        }
    }
    let svg = figures::per_entry(&mut text, &halves, &date)?;
    figures::silence_section(&mut text, shipped_table, repos_table, &wire_servers);
    if !wires.is_empty() {
        let mut sources = vec![("what ships", args.shipped_table.as_path())];
        if let Some(table) = args.repos_table.as_deref().filter(|_| repos.is_some()) {
            sources.push(("repository", table));
        }
        figures::joins(&mut text, &sources, &wires)?;
    }
    if let Some(repos_table) = repos_table {
        figures::repository_beside_shipped(&mut text, shipped_table, repos_table);
    }
    let trend_name = format!("survey-{date}-over-time.svg");
    let counted = match (&args.versions, &args.versions_table) {
        (Some(corpus), Some(table)) => Some(read_versions(corpus, table)?),
        _ => None,
    };
    let dated = match (&args.history, &args.history_table) {
        (Some(corpus), Some(table)) => Some(read_history(corpus, table, &date)?),
        _ => None,
    };
    let records: Vec<&Entry> = listing.entries.iter().collect();
    let trend = over_time::section(
        &mut text,
        &records,
        counted.as_ref(),
        dated
            .as_ref()
            .map(|(trees, not_yet)| (trees.as_slice(), not_yet)),
        &trend_name,
    )?;
    text.push_str(LIMITS);
    if let Some(log) = &args.run_log {
        text.push('\n');
        figures::run_section(&mut text, log, args.run_on.as_deref())?;
    }
    let svg_path = args.out.join(format!("survey-{date}.svg"));
    write_bytes(&svg_path, svg.as_bytes())?;
    if let Some(trend) = trend {
        let path = args.out.join(&trend_name);
        write_bytes(&path, trend.as_bytes())?;
        messages::note(format!("wrote {}", sanitize(path.display().to_string())));
    }
    let md_path = args.out.join(format!("survey-{date}.md"));
    write_bytes(&md_path, format!("{}\n", text.trim_end()).as_bytes())?;
    for path in [&csv_path, &svg_path, &md_path] {
        messages::note(format!("wrote {}", sanitize(path.display().to_string())));
    }
    Ok(ExitStatus::Ok)
}

/// Returns how the report names a table: its path from the report's folder when it
/// is inside it, else its file name (the report never names a folder of the
/// machine that wrote it).
fn beside(path: &Path, out: &Path) -> String {
    match path.strip_prefix(out) {
        Ok(inside) => inside.display().to_string(),
        Err(_) => file_name(path),
    }
}

fn file_name(path: &Path) -> String {
    path.file_name()
        .map_or(String::new(), |n| n.to_string_lossy().into_owned())
}

/// Reads the corpus of what ships, its census table and its skipped list.
fn read_shipped(corpus_path: &Path, table_path: &Path) -> Result<Shipped> {
    let (trees, skipped, table) = read_census(corpus_path, table_path)?;
    let mut shipped = Shipped {
        table: Some(table),
        ..Shipped::default()
    };
    for tree in trees {
        for server in &tree.servers {
            shipped.by_server.entry(server.clone()).or_default().push((
                tree.repo.clone(),
                tree.is_member,
                tree.outcome.clone(),
            ));
        }
    }
    for record in skipped {
        let key = (cell(&record, 0), cell(&record, 1));
        shipped.skipped.insert(key, cell(&record, 4));
    }
    Ok(shipped)
}

/// Holds what the census of the repositories says of each entry: its trees'
/// outcomes by server name, and the skipped list beside the corpus by name.
#[derive(Default)]
struct Repos {
    by_server: BTreeMap<String, Vec<Result<Counted, String>>>,
    skipped: BTreeMap<String, String>,
    /// The census table, with its tools.
    table: Option<Table>,
}

/// Reads the corpus of the repositories, its census table and its skipped list.
fn read_repos(corpus_path: &Path, table_path: &Path) -> Result<Repos> {
    let (trees, skipped, table) = read_census(corpus_path, table_path)?;
    let mut repos = Repos {
        table: Some(table),
        ..Repos::default()
    };
    for tree in trees {
        for server in tree.servers {
            repos
                .by_server
                .entry(server)
                .or_default()
                .push(tree.outcome.clone());
        }
    }
    for record in skipped {
        repos.skipped.insert(cell(&record, 0), cell(&record, 4));
    }
    Ok(repos)
}

/// Reads the wire tables: `wire-DATE.csv` and the servers table beside it; returns
/// the wire's date and its servers.
fn read_wire_pair(wire: &Path) -> Result<(String, Vec<WireServer>)> {
    let name = file_name(wire);
    let servers: PathBuf = match name
        .strip_prefix("wire-")
        .and_then(|n| n.strip_suffix(".csv"))
    {
        Some(date) => wire.with_file_name(format!("wire-{date}-servers.csv")),
        None => {
            return Err(UsageError(format!(
                "'{}' is not named wire-DATE.csv, so its servers table cannot be found",
                sanitize(wire.display().to_string())
            ))
            .into())
        }
    };
    let date = name["wire-".len()..name.len() - ".csv".len()].to_string();
    let servers = read_wire(wire, &servers).map_err(|e| UsageError(format!("{e:#}")))?;
    Ok((date, servers))
}

/// Returns the row of `entry`.
fn row_of(
    entry: &Entry,
    shipped: &Shipped,
    repos: Option<&Repos>,
    wire: Option<&[WireServer]>,
) -> Row {
    let installable: Vec<&registry::Package> = entry
        .packages
        .iter()
        .filter(|p| matches!(p.registry_type.as_str(), "npm" | "pypi"))
        .collect();
    let group = match installable.first().map(|p| p.registry_type.as_str()) {
        Some("npm") => "npm",
        Some(_) => "PyPI",
        None if !entry.remotes.is_empty() => "remote",
        None => "other",
    };
    let mut row = Row {
        server: entry.name.clone(),
        version: entry.version.clone().unwrap_or_default(),
        group,
        packages: entry
            .packages
            .iter()
            .map(|p| {
                format!(
                    "{}:{}@{}",
                    p.registry_type,
                    p.identifier,
                    p.version.as_deref().unwrap_or("")
                )
            })
            .collect::<Vec<_>>()
            .join(" "),
        repository_url: entry
            .repository
            .as_deref()
            .map(crate::registry::without_credentials)
            .unwrap_or_default(),
        remotes: entry
            .remotes
            .iter()
            .map(|r| format!("{} {}", r.kind, host_of(&r.url)))
            .collect::<Vec<_>>()
            .join(" "),
        ..Row::default()
    };
    let mut details = Vec::new();
    // What ships: the first of the entry's packages counted, else why not.
    row.package = match (installable.is_empty(), shipped.by_server.get(&entry.name)) {
        (true, _) if entry.packages.is_empty() => "none".to_string(),
        (true, _) => {
            let kinds: BTreeSet<&str> = entry
                .packages
                .iter()
                .map(|p| p.registry_type.as_str())
                .collect();
            format!(
                "another registry ({})",
                kinds.into_iter().collect::<Vec<_>>().join(", ")
            )
        }
        // A family member's tools count for the entry once one of its own packages
        // was counted (docs/method.md, "A package's family").
        (false, Some(trees)) if trees.iter().any(|(_, m, o)| !m && o.is_ok()) => {
            (row.shipped_hints, row.shipped_tools) =
                totals(trees.iter().filter_map(|(_, _, o)| o.as_ref().ok()));
            "counted".to_string()
        }
        (false, Some(trees)) => {
            let own = trees.iter().filter(|(_, m, _)| !m);
            details.extend(own.filter_map(|(_, _, o)| o.as_ref().err().cloned()));
            "not counted".to_string()
        }
        (false, None) => unpinned(&installable, shipped, &mut details),
    };
    // The repository: counted when one of the entry's trees was.
    let trees = repos.and_then(|r| r.by_server.get(&entry.name));
    row.repository = match (row.repository_url.is_empty(), repos, trees) {
        (true, _, _) => "none".to_string(),
        (false, None, _) => "not read".to_string(),
        (false, Some(_), Some(trees)) if trees.iter().any(Result::is_ok) => {
            (row.repo_hints, row.repo_tools) = totals(trees.iter().filter_map(|o| o.as_ref().ok()));
            "counted".to_string()
        }
        (false, Some(_), Some(trees)) => {
            details.extend(trees.iter().filter_map(|o| o.as_ref().err().cloned()));
            "not counted".to_string()
        }
        (false, Some(repos), None) => {
            if let Some(why) = repos.skipped.get(&entry.name) {
                details.push(why.clone());
            }
            "not pinned".to_string()
        }
    };
    let stdio = installable
        .iter()
        .any(|p| p.transport.as_ref().is_none_or(|t| t.kind == "stdio"));
    let wire_row = wire.and_then(|servers| {
        servers
            .iter()
            .find(|s| s.registry_name() == entry.name && !s.outcome().is_empty())
    });
    row.wire = match wire_row {
        Some(server) => {
            if outcome::is_listed(server.outcome()) {
                let tools = server.tools();
                let annotated = tools
                    .iter()
                    .filter(|t| Hint::ALL.iter().any(|&h| t.is_declared(h)))
                    .count();
                row.wire_tools = Some((tools.len() as u64, annotated as u64));
            }
            server.outcome().to_string()
        }
        None if stdio => "not run".to_string(),
        None if !entry.remotes.is_empty() => "remote only".to_string(),
        None if entry.packages.is_empty() => "none".to_string(),
        // An npm or PyPI package of another transport is started with an endpoint
        // of its own; anything else is installed by another client.
        None if !installable.is_empty() => "not run".to_string(),
        None => "another registry".to_string(),
    };
    row.detail = details.join("; ");
    row
}

/// Returns the `package` outcome of an entry none of whose npm or PyPI packages
/// was pinned: what the index answered for them (from the skipped list beside the
/// corpus), added to `details`.
fn unpinned(
    installable: &[&registry::Package],
    shipped: &Shipped,
    details: &mut Vec<String>,
) -> String {
    let answers: Vec<&String> = installable
        .iter()
        .filter_map(|p| {
            // As `corpus registry --shipped` writes it: `latest` is no pin.
            let version = p.version.as_deref().unwrap_or_default().trim();
            let version = if version == "latest" { "" } else { version };
            let key = (
                format!("{}:{}", p.registry_type, p.identifier.trim()),
                version.to_string(),
            );
            shipped.skipped.get(&key)
        })
        .collect();
    let is_absent = |why: &&String| why.contains("HTTP 404") || why.contains(": no ");
    match answers.as_slice() {
        [] => "not pinned".to_string(),
        some if some.iter().all(is_absent) => {
            details.extend(some.iter().map(|w| w.to_string()));
            "not served by the index".to_string()
        }
        some => {
            details.extend(some.iter().map(|w| w.to_string()));
            "index failed".to_string()
        }
    }
}

/// Returns the most hint names any of `counted` spells, and their tools and those
/// annotated, summed; `None` where none was counted (or none with the finder on).
fn totals<'c>(counted: impl Iterator<Item = &'c Counted>) -> (Option<usize>, Option<(u64, u64)>) {
    let mut hints = None;
    let mut tools: Option<(u64, u64)> = None;
    for c in counted {
        hints = hints.max(Some(c.hints));
        if let Some((t, n)) = c.tools {
            let (a, b) = tools.unwrap_or_default();
            tools = Some((a + t, b + n));
        }
    }
    (hints, tools)
}

/// Returns a URL's host, for the `remotes` column (a remote's path and query may
/// carry a key).
fn host_of(url: &str) -> String {
    reqwest::Url::parse(url)
        .ok()
        .and_then(|u| u.host_str().map(str::to_string))
        .unwrap_or_default()
}

fn entries_csv(rows: &[Row]) -> Result<Vec<u8>> {
    let mut w = csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(Vec::new());
    w.write_record(HEADER)?;
    let pair =
        |p: Option<(u64, u64)>, i: usize| p.map_or(String::new(), |p| [p.0, p.1][i].to_string());
    for r in rows {
        w.write_record([
            r.server.as_str(),
            &r.version,
            r.group,
            &r.packages,
            &r.repository_url,
            &r.remotes,
            &r.package,
            &r.repository,
            &r.wire,
            &r.shipped_hints.map_or(String::new(), |n| n.to_string()),
            &pair(r.shipped_tools, 0),
            &pair(r.shipped_tools, 1),
            &r.repo_hints.map_or(String::new(), |n| n.to_string()),
            &pair(r.repo_tools, 0),
            &pair(r.repo_tools, 1),
            &pair(r.wire_tools, 0),
            &pair(r.wire_tools, 1),
            &table::one_line(&r.detail),
        ])?;
    }
    let mut bytes = w.into_inner().context("writing the entries table")?;
    bytes.flush()?;
    Ok(bytes)
}

/// The report's closing section: what the survey is made of, and what its figures
/// cannot say.
const LIMITS: &str = "## Method and limits\n\n\
         - **What ships** is each npm or PyPI package an entry names, at the entry's \
         version, pinned to one artifact by the digest its index gave (npm's tarball; \
         PyPI's pure-Python wheel, else its sdist), counted only when the bytes have that \
         digest (docs/method.md, \"A package\"). An npm registry or a PyPI index that \
         does not serve a package or version makes its row `not served by the index`: \
         the figures of what ships rest only on the packages counted, and the `npm` \
         column says how many those are.\n\
         - **A zero does not say a server declares nothing**: hints may be set by a \
         dependency (an SDK preset, a framework's defaults), computed at run time, or \
         written in a spelling the count does not read; the tool finder's `unknown` and \
         `?` say where it could not see. A count above zero does not say every tool \
         declares them either: one file may define many tools.\n\
         - **Presets hide hints**: a server whose tools take their hints from a helper \
         in a dependency shows none in its own code, and may show them all on the wire.\n\
         - **The repository** of each entry is pinned to its release tag, else its \
         default branch, where its forge (or a mirror of it) is reached; where it is not, \
         the row says `not read` or `not pinned`, with why.\n\
         - **The wire** is read by installing each stdio package without its scripts and \
         running it in a sandbox with no network; a server that needs configuration, \
         an account or the network does not list. Remote endpoints are for a machine \
         that reaches them: `remote only` rows were not asked. There, \
         `registry-survey --remotes` probes `wire/remotes.toml` into `remote/` and \
         gives its table to `survey` as a second `--wire`.\n";

/// Says what the survey read, for the report's opening.
struct Source {
    /// Where the listing came from, as the command line says.
    from: Option<String>,
    listing: String,
    sha256: String,
    records: usize,
    shipped: String,
    repos: Option<String>,
    repos_from: Option<String>,
    /// The wire tables, each as the report names it.
    wire: Vec<String>,
}

fn percent(n: usize, of: usize) -> String {
    match of {
        0 => "0".to_string(),
        _ => format!("{n} ({:.1}%)", n as f64 * 100.0 / of as f64),
    }
}

/// Returns the table of outcomes of one half: one line per outcome, a column per
/// group and one for all.
fn outcome_table(text: &mut String, rows: &[Row], half: &str, of: fn(&Row) -> &str) {
    let mut counts: BTreeMap<&str, [usize; 5]> = BTreeMap::new();
    for r in rows {
        let at = GROUPS.iter().position(|g| *g == r.group).unwrap_or(3);
        let line = counts.entry(of(r)).or_default();
        line[at] += 1;
        line[4] += 1;
    }
    let _ = writeln!(text, "| {half} | npm | PyPI | remote | other | all |");
    let _ = writeln!(text, "|---|---:|---:|---:|---:|---:|");
    let mut lines: Vec<(&str, [usize; 5])> = counts.into_iter().collect();
    lines.sort_by(|a, b| b.1[4].cmp(&a.1[4]).then(a.0.cmp(b.0)));
    for (outcome, n) in lines {
        let _ = writeln!(
            text,
            "| {} | {} | {} | {} | {} | {} |",
            crate::report::markdown_cell(outcome),
            n[0],
            n[1],
            n[2],
            n[3],
            n[4]
        );
    }
    text.push('\n');
}

/// Returns, per group with an entry in `rows`, how many of them `holds` holds for:
/// `npm: 13 (29.5%) of 44; PyPI: ...`.
fn by_group(rows: &[&Row], holds: impl Fn(&Row) -> bool) -> String {
    GROUPS
        .iter()
        .filter_map(|&group| {
            let of: Vec<&&Row> = rows.iter().filter(|r| r.group == group).collect();
            let n = of.iter().filter(|r| holds(r)).count();
            (!of.is_empty()).then(|| format!("{group}: {} of {}", percent(n, of.len()), of.len()))
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Returns the opening of `survey-DATE.md`, the outcomes and the headline figures.
fn markdown(rows: &[Row], source: &Source, date: &str) -> String {
    let mut text = String::new();
    let mut groups = [0usize; 4];
    for r in rows {
        groups[GROUPS.iter().position(|g| *g == r.group).unwrap_or(3)] += 1;
    }
    let _ = write!(
        text,
        "# The MCP Registry surveyed: what ships and what it says on the wire\n\n\
         Written by `mcp-hint-census survey` from the listing `{}`{} (sha256 `{}`, \
         {} records), of which {} are the latest entry of their server: {} name an npm \
         package first, {} a PyPI package, {} only remote endpoints, {} neither (an OCI \
         image, a NuGet or MCPB package, or nothing to install). One row per entry is in \
         `entries-{date}.csv`; the counts of what ships are in `{}` and the tables beside it{}.\n\n",
        crate::report::markdown_cell(&source.listing),
        source.from.as_deref().map_or(String::new(), |f| format!(
            ", {}",
            crate::report::markdown_cell(f)
        )),
        source.sha256,
        source.records,
        rows.len(),
        groups[0],
        groups[1],
        groups[2],
        groups[3],
        crate::report::markdown_cell(&source.shipped),
        [
            source.repos.as_ref().map(|r| format!(
                ", the repositories' in `{}`{}",
                crate::report::markdown_cell(r),
                source
                    .repos_from
                    .as_deref()
                    .map_or(String::new(), |f| format!(
                        " ({})",
                        crate::report::markdown_cell(f)
                    ))
            )),
            (!source.wire.is_empty()).then(|| {
                let tables: Vec<String> = source
                    .wire
                    .iter()
                    .map(|w| format!("`{}`", crate::report::markdown_cell(w)))
                    .collect();
                format!(", the wire's in {}", tables.join(" and "))
            }),
        ]
        .into_iter()
        .flatten()
        .collect::<String>()
    );
    text.push_str("## Every entry accounted for\n\n");
    text.push_str(
        "Each entry has three outcomes, one per half, since the halves are independent: \
         its package as published (`package`), its repository (`repository`), and what \
         its server lists when run (`wire`).\n\n",
    );
    outcome_table(&mut text, rows, "package", |r| &r.package);
    outcome_table(&mut text, rows, "repository", |r| &r.repository);
    outcome_table(&mut text, rows, "wire", |r| &r.wire);

    text.push_str("## Headline figures\n\n");
    let counted: Vec<&Row> = rows.iter().filter(|r| r.package == "counted").collect();
    let spelling = counted
        .iter()
        .filter(|r| r.shipped_hints.unwrap_or(0) > 0)
        .count();
    let all_four = counted
        .iter()
        .filter(|r| r.shipped_hints == Some(4))
        .count();
    let (tools, annotated) = counted
        .iter()
        .filter_map(|r| r.shipped_tools)
        .fold((0, 0), |(a, b), (t, n)| (a + t, b + n));
    let by = |of: &[&Row]| by_group(of, |r| r.shipped_hints.unwrap_or(0) > 0);
    let _ = write!(
        text,
        "- **In the code that ships**, of the {} entries whose package was counted, {} \
         spell at least one of the four hint names anywhere in the package, and {} all \
         four ({}).\n\
         - The tool finder read {tools} tool definitions in those packages; {} declare \
         at least one hint `true` or `false`.\n",
        counted.len(),
        percent(spelling, counted.len()),
        percent(all_four, counted.len()),
        by(&counted),
        percent(annotated as usize, tools as usize),
    );
    let in_repos: Vec<&Row> = rows.iter().filter(|r| r.repository == "counted").collect();
    if !in_repos.is_empty() {
        let spelling = in_repos
            .iter()
            .filter(|r| r.repo_hints.unwrap_or(0) > 0)
            .count();
        let all_four = in_repos.iter().filter(|r| r.repo_hints == Some(4)).count();
        let (tools, annotated) = in_repos
            .iter()
            .filter_map(|r| r.repo_tools)
            .fold((0, 0), |(a, b), (t, n)| (a + t, b + n));
        let both: Vec<&&Row> = in_repos.iter().filter(|r| r.package == "counted").collect();
        let differ = both
            .iter()
            .filter(|r| (r.repo_hints.unwrap_or(0) > 0) != (r.shipped_hints.unwrap_or(0) > 0))
            .count();
        let _ = writeln!(
            text,
            "- **In the repository** at the entry's release tag (else its default branch), \
             of the {} entries whose tree was counted, {} spell at least one hint name and \
             {} all four; the finder read {tools} tool definitions, {} declaring at least \
             one hint ({}), counted per entry (a tree several entries share counts for \
             each; \"Each hint\" counts each tree once). Of the {} entries counted in both \
             halves, {} spell a hint name in one half and none in the other.",
            in_repos.len(),
            percent(spelling, in_repos.len()),
            percent(all_four, in_repos.len()),
            percent(annotated as usize, tools as usize),
            by_group(&in_repos, |r| r.repo_hints.unwrap_or(0) > 0),
            both.len(),
            differ
        );
    }
    let listed: Vec<&Row> = rows
        .iter()
        .filter(|r| outcome::is_listed(&r.wire))
        .collect();
    if !listed.is_empty() {
        let (wire_tools, wire_annotated) = listed
            .iter()
            .filter_map(|r| r.wire_tools)
            .fold((0, 0), |(a, b), (t, n)| (a + t, b + n));
        let declaring = listed
            .iter()
            .filter(|r| r.wire_tools.is_some_and(|(_, n)| n > 0))
            .count();
        let _ = writeln!(
            text,
            "- **On the wire**, {} entries listed their tools when run; {} declare at \
             least one hint on at least one tool ({}). They list {wire_tools} tools, of \
             which {} declare at least one hint.",
            listed.len(),
            percent(declaring, listed.len()),
            by_group(&listed, |r| r.wire_tools.is_some_and(|(_, n)| n > 0)),
            percent(wire_annotated as usize, wire_tools as usize)
        );
    }
    text.push('\n');
    text
}
