//! A wire survey split across machines: the note a `probe --servers --shard K/N`
//! run leaves beside its tables, and `merge --servers`, which joins the shards'
//! tables into the bytes one run over the whole servers file writes.
//!
//! The merge probes nothing and computes no cell: it reads each shard's
//! `wire-DATE.csv`, `wire-DATE-servers.csv`, `wire-DATE.md` and the locks they name,
//! checks that every server of the file is in exactly one shard, the shard its
//! position gives, of the same servers file (by its sha256) and date, and writes the
//! rows back in the file's order through the writer a run writes them with. Any
//! mistake is refused before anything is written. docs/surveys.md, "A wire survey
//! past one machine", says how to run it.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use sha2::{Digest, Sha256};

use super::file::{self, Server};
use super::join;
use super::note::{read_note, remove_note};
use super::outcome;
use super::tables::{self, SERVERS_HEADER};
use crate::infra::atomic::write_bytes;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;
use crate::infra::shard::Shard;
use crate::probe::lint;
use crate::report::silence::Tally;
use crate::tools::hints::Hint;
use crate::tools::NameClass;

/// The servers table's `lock`, `outcome` and `tools` columns.
const LOCK: usize = column("lock");
const OUTCOME: usize = column("outcome");
const TOOLS: usize = column("tools");

/// Returns the position of `name` in the servers table's header.
const fn column(name: &str) -> usize {
    let mut i = 0;
    while i < SERVERS_HEADER.len() {
        if const_eq(SERVERS_HEADER[i].as_bytes(), name.as_bytes()) {
            return i;
        }
        i += 1;
    }
    panic!("not a column of the servers table")
}

const fn const_eq(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// One server's rows, as a shard wrote them.
struct Found {
    /// Its position in the servers file.
    index: usize,
    /// The shard's wire table it came from.
    from: PathBuf,
    servers_row: csv::ByteRecord,
    wire_rows: Vec<csv::ByteRecord>,
    /// Its line of the summary, line break included.
    summary_line: String,
}

/// The whole survey, gathered from its shards.
struct Gathered {
    date: String,
    summary_head: String,
    servers: Vec<Found>,
    locks: BTreeMap<String, Vec<u8>>,
}

/// Runs `merge --servers FILE`: joins the shards' tables into the whole survey's.
pub fn run(
    file: &Path,
    out_dir: &Path,
    tables: &[PathBuf],
    source_table: Option<&Path>,
) -> Result<ExitStatus> {
    let list = file::load(file)?;
    let bytes =
        fs::read(file).map_err(|err| UsageError(format!("reading '{}': {err}", file.display())))?;
    let census = source_table.map(join::Census::read).transpose()?;
    // A missing, doubled or foreign shard is the input being wrong: nothing is written.
    let gathered = gather(file, &list, &bytes, tables).map_err(|e| UsageError(format!("{e:#}")))?;
    let silenced = silence(&gathered.servers).map_err(|e| UsageError(format!("{e:#}")))?;
    let date = &gathered.date;
    fs::create_dir_all(out_dir).with_context(|| format!("creating '{}'", out_dir.display()))?;
    let csv_path = out_dir.join(format!("wire-{date}.csv"));
    let servers_path = out_dir.join(format!("wire-{date}-servers.csv"));
    let md_path = out_dir.join(format!("wire-{date}.md"));
    // A merge writes what one run writes, and so no shard note.
    remove_note(out_dir, date)?;
    tables::write_csv(
        &csv_path,
        &tables::table_header(),
        gathered.servers.iter().flat_map(|f| f.wire_rows.iter()),
    )?;
    tables::write_csv(
        &servers_path,
        &SERVERS_HEADER,
        gathered.servers.iter().map(|f| &f.servers_row),
    )?;
    if !gathered.locks.is_empty() {
        let dir = out_dir.join(format!("wire-{date}-locks"));
        fs::create_dir_all(&dir).with_context(|| format!("creating '{}'", dir.display()))?;
        for (name, bytes) in &gathered.locks {
            let path = dir.join(name);
            if !path.is_file() {
                write_bytes(&path, bytes)?;
            }
        }
    }
    // The tally is of every server, so it is counted again over the merged rows.
    let rows: Vec<super::tally::Row> = gathered
        .servers
        .iter()
        .map(|f| {
            let outcome = std::str::from_utf8(f.servers_row.get(OUTCOME).unwrap_or_default())
                .unwrap_or_default();
            tables::tally_row(&list[f.index], outcome)
        })
        .collect();
    let mut report = format!(
        "{}{}{}",
        gathered.summary_head,
        tables::tally_section(&rows),
        tables::SUMMARY_TABLE
    );
    for found in &gathered.servers {
        report.push_str(&found.summary_line);
    }
    report.push_str(&silenced);
    let mut written = vec![csv_path.clone(), servers_path.clone()];
    if let Some(census) = &census {
        let join_path = out_dir.join(format!("join-{date}.csv"));
        report.push_str(&tables::join_tables(
            census,
            &csv_path,
            &servers_path,
            &join_path,
            date,
        )?);
        written.push(join_path);
    }
    write_bytes(&md_path, report.as_bytes())?;

    let failed: Vec<&Found> = gathered
        .servers
        .iter()
        .filter(|f| !is_listed_row(&f.servers_row))
        .collect();
    let mut out = Out::new();
    let shards = {
        let mut seen: Vec<&PathBuf> = gathered.servers.iter().map(|f| &f.from).collect();
        seen.sort();
        seen.dedup();
        seen.len()
    };
    out.line(&format!(
        "merged {} servers from {shards} shards; {} listed, {} did not",
        gathered.servers.len(),
        gathered.servers.len() - failed.len(),
        failed.len()
    ))?;
    for found in &failed {
        let cell = |i| found.servers_row.get(i).unwrap_or_default();
        out.line(&format!(
            "server '{}': {} (from '{}')",
            sanitize(cell(0)),
            sanitize(cell(OUTCOME)),
            sanitize(found.from.display().to_string())
        ))?;
    }
    let written: Vec<&Path> = written.iter().map(PathBuf::as_path).collect();
    tables::print_written(&mut out, &written, &md_path)?;
    Ok(match failed.is_empty() {
        true => ExitStatus::Ok,
        false => ExitStatus::Failed,
    })
}

/// Returns "What silence costs" over the servers that listed, read back from their
/// rows of the wire table: the same figures a run counts from the listings.
fn silence(servers: &[Found]) -> Result<String> {
    let header = tables::table_header();
    let at = |name: &str| {
        header
            .iter()
            .position(|h| h == name)
            .with_context(|| format!("the wire table has no column '{name}'"))
    };
    let class = at("name_class")?;
    let read_only = at(Hint::ReadOnly.name())?;
    let mut hints = Vec::new();
    for hint in Hint::ALL {
        hints.push(at(hint.name())?);
    }
    let mut tallies = Vec::new();
    for found in servers {
        if !is_listed_row(&found.servers_row) || found.wire_rows.is_empty() {
            continue;
        }
        let mut tally = Tally::default();
        for row in &found.wire_rows {
            let cell = |i: usize| row.get(i).unwrap_or_default();
            let declared = |i: usize| match cell(i) {
                b"true" => Some(true),
                b"false" => Some(false),
                _ => None,
            };
            let named = NameClass::parse(cell(class))
                .with_context(|| format!("'{}' is not a name class", sanitize(cell(class))))?;
            let is_silent = hints.iter().all(|&i| declared(i).is_none());
            tally.add(named, is_silent, declared(read_only));
        }
        let name = String::from_utf8_lossy(found.servers_row.get(0).unwrap_or_default());
        tallies.push((name.into_owned(), tally));
    }
    Ok(lint::silence_of(tallies))
}

/// Reads every shard and returns the whole survey; fails unless each server of
/// `list` is found exactly once, in the shard its position gives, and every shard
/// is of the servers file whose bytes are `file_bytes` and of one date.
fn gather(file: &Path, list: &[Server], file_bytes: &[u8], tables: &[PathBuf]) -> Result<Gathered> {
    let sha = format!("{:x}", Sha256::digest(file_bytes));
    let mut survey = Survey {
        file,
        list,
        index: list
            .iter()
            .enumerate()
            .map(|(i, s)| (s.name.as_str(), i))
            .collect(),
        found: list.iter().map(|_| None).collect(),
        locks: BTreeMap::new(),
    };
    let mut shards: BTreeMap<usize, PathBuf> = BTreeMap::new();
    let mut n_of_all: Option<(usize, PathBuf)> = None;
    let mut date_of_all: Option<String> = None;
    let mut head_of_all: Option<(String, PathBuf)> = None;
    let mut capabilities_of_all: Option<(Vec<u8>, PathBuf)> = None;
    for wire in tables {
        let shown = wire.display().to_string();
        let date = date_of(wire)?;
        match &date_of_all {
            Some(d) if *d != date => bail!("'{shown}' is dated {date}, other shards {d}"),
            _ => date_of_all = Some(date.clone()),
        }
        let beside = |name: String| wire.with_file_name(name);
        let note = read_note(&beside(format!("wire-{date}-shard.json")), &date)?;
        if note.servers_sha256 != sha {
            bail!(
                "'{shown}' is a shard of another servers file (sha256 {}), not of '{}' (sha256 {sha})",
                note.servers_sha256,
                file.display()
            );
        }
        let shard: Shard = match note.shard.parse() {
            Ok(crate::infra::shard::ShardSpec::Given(shard)) => shard,
            _ => bail!("'{shown}': its shard note says shard '{}'", note.shard),
        };
        match &n_of_all {
            Some((n, other)) if *n != shard.n => bail!(
                "'{shown}' is shard {shard}, but '{}' is a shard of {n}",
                other.display()
            ),
            _ => n_of_all = Some((shard.n, wire.clone())),
        }
        if let Some(other) = shards.insert(shard.k, wire.clone()) {
            bail!(
                "shard {shard} is given twice: '{}' and '{shown}'",
                other.display()
            );
        }
        let (here, order) = survey.servers_rows(wire, &date, shard)?;
        for (line, row) in read_table(wire, &tables::table_header())? {
            let at = format!("'{shown}' line {line}");
            let Some(&i) = here.get(&row[0]) else {
                bail!(
                    "{at}: server '{}' has no row in its servers table",
                    sanitize(&row[0]),
                );
            };
            let caps = row[3].to_vec();
            match &capabilities_of_all {
                Some((c, other)) if *c != caps => bail!(
                    "{at}: other client capabilities were offered than in '{}'",
                    other.display()
                ),
                _ => capabilities_of_all = Some((caps, wire.clone())),
            }
            if let Some(f) = survey.found[i].as_mut() {
                f.wire_rows.push(row);
            }
        }
        for &i in &order {
            check_rows(survey.found[i].as_ref().expect("read above"), &shown)?;
        }
        let md_path = beside(format!("wire-{date}.md"));
        let head = survey.summary_lines(&md_path, &order)?;
        match &head_of_all {
            Some((h, other)) if *h != head => bail!(
                "'{}' opens otherwise than '{}' (another date or other capabilities offered)",
                md_path.display(),
                other.display()
            ),
            _ => head_of_all = Some((head, md_path.clone())),
        }
    }
    let n = n_of_all.map(|(n, _)| n).unwrap_or(1);
    let absent: Vec<String> = (1..=n)
        .filter(|k| !shards.contains_key(k))
        .map(|k| format!("{k}/{n}"))
        .collect();
    let missing: Vec<String> = list
        .iter()
        .zip(&survey.found)
        .enumerate()
        .filter(|(_, (_, f))| f.is_none())
        .map(|(i, (s, _))| format!("'{}' (shard {})", sanitize(&s.name), Shard::of(i, n)))
        .collect();
    if !absent.is_empty() || !missing.is_empty() {
        let shards_said = match absent.is_empty() {
            true => String::new(),
            false => format!("shard {} not given; ", absent.join(", ")),
        };
        bail!(
            "{shards_said}{} of {} servers of '{}' are in no shard: {}",
            missing.len(),
            list.len(),
            file.display(),
            missing.join(", ")
        );
    }
    Ok(Gathered {
        date: date_of_all.unwrap_or_default(),
        summary_head: head_of_all.map(|(h, _)| h).unwrap_or_default(),
        servers: survey.found.into_iter().flatten().collect(),
        locks: survey.locks,
    })
}

/// A shard's servers: each one's position in the file, by its name's bytes.
type ByName = HashMap<Vec<u8>, usize>;

/// The servers of the file and what the shards read so far gave of each.
struct Survey<'a> {
    file: &'a Path,
    list: &'a [Server],
    index: HashMap<&'a str, usize>,
    found: Vec<Option<Found>>,
    /// Lock files by name, their bytes checked against the name.
    locks: BTreeMap<String, Vec<u8>>,
}

impl Survey<'_> {
    /// Reads the servers table beside the shard `wire` (dated `date`, shard `shard`)
    /// and its locks; returns its servers by name, and their positions in its order.
    fn servers_rows(
        &mut self,
        wire: &Path,
        date: &str,
        shard: Shard,
    ) -> Result<(ByName, Vec<usize>)> {
        let file = self.file.display();
        let servers_path = wire.with_file_name(format!("wire-{date}-servers.csv"));
        let locks_dir = wire.with_file_name(format!("wire-{date}-locks"));
        let mut here = ByName::new();
        let mut order = Vec::new();
        for (line, row) in read_table(&servers_path, &SERVERS_HEADER)? {
            let at = format!("'{}' line {line}", servers_path.display());
            let name = String::from_utf8_lossy(&row[0]).into_owned();
            let Some(&i) = self.index.get(name.as_str()) else {
                bail!("{at}: server '{}' is not in '{file}'", sanitize(&name));
            };
            if !shard.holds(i) {
                bail!(
                    "{at}: server '{}' is number {} of '{file}', which shard {} holds, not shard {shard}",
                    sanitize(&name),
                    i + 1,
                    Shard::of(i, shard.n)
                );
            }
            let cells = self.list[i].file_cells();
            if row.iter().zip(&cells).any(|(a, b)| a != b.as_bytes()) {
                bail!(
                    "{at}: server '{}' reads otherwise in '{file}' (its join or package differs)",
                    sanitize(&name)
                );
            }
            if here.insert(row[0].to_vec(), i).is_some() {
                bail!("{at}: server '{}' has two rows", sanitize(&name));
            }
            if let Some((name, bytes)) = lock_of(&row, &at, &locks_dir)? {
                self.locks.insert(name, bytes);
            }
            order.push(i);
            self.found[i] = Some(Found {
                index: i,
                from: wire.to_path_buf(),
                servers_row: row,
                wire_rows: Vec::new(),
                summary_line: String::new(),
            });
        }
        Ok((here, order))
    }

    /// Reads the summary at `md_path` for the servers at `order`, keeping each one's
    /// line; returns its opening.
    fn summary_lines(&mut self, md_path: &Path, order: &[usize]) -> Result<String> {
        let (head, lines) = read_summary(md_path, order.len())?;
        for (&i, line) in order.iter().zip(lines) {
            let name = &self.list[i].name;
            if !line.starts_with(&format!("| {} |", tables::cell(name))) {
                bail!(
                    "'{}': the line of server '{}' is not where its servers table puts it",
                    md_path.display(),
                    sanitize(name)
                );
            }
            if let Some(f) = self.found[i].as_mut() {
                f.summary_line = line;
            }
        }
        Ok(head)
    }
}

/// Returns DATE of a table named `wire-DATE.csv`.
fn date_of(wire: &Path) -> Result<String> {
    let date = wire
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_prefix("wire-"))
        .and_then(|n| n.strip_suffix(".csv"))
        .filter(|d| crate::infra::date::parse_arg(d).is_ok());
    match date {
        Some(date) => Ok(date.to_string()),
        None => bail!(
            "'{}' is not named wire-DATE.csv, so the tables beside it cannot be found",
            wire.display()
        ),
    }
}

/// Reads a table and returns its rows with their line numbers; fails unless its
/// header is `header`.
fn read_table(path: &Path, header: &[impl AsRef<str>]) -> Result<Vec<(u64, csv::ByteRecord)>> {
    let file = fs::File::open(path).with_context(|| format!("reading '{}'", path.display()))?;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(file);
    let mut rows = Vec::new();
    for (i, row) in reader.byte_records().enumerate() {
        let row = row.with_context(|| format!("reading '{}'", path.display()))?;
        if i == 0 {
            if !row.iter().eq(header.iter().map(|h| h.as_ref().as_bytes())) {
                bail!(
                    "'{}' is not a table `probe --servers` writes: its header differs",
                    path.display()
                );
            }
            continue;
        }
        let line = row.position().map_or(0, |p| p.line());
        rows.push((line, row));
    }
    if rows.is_empty() && fs::metadata(path).map(|m| m.len()).unwrap_or(0) == 0 {
        bail!("'{}' is empty", path.display());
    }
    Ok(rows)
}

/// Returns the lock file a servers row names, read from `dir` and checked against
/// the sha256 its name gives.
fn lock_of(row: &csv::ByteRecord, at: &str, dir: &Path) -> Result<Option<(String, Vec<u8>)>> {
    let cell = row.get(LOCK).unwrap_or_default();
    if cell.is_empty() {
        return Ok(None);
    }
    let hex = std::str::from_utf8(cell)
        .ok()
        .and_then(|c| c.strip_prefix("sha256:"))
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .with_context(|| format!("{at}: the lock '{}' is not sha256:HEX", sanitize(cell)))?;
    for extension in ["json", "txt"] {
        let name = format!("{hex}.{extension}");
        let path = dir.join(&name);
        match fs::read(&path) {
            Ok(bytes) => {
                if format!("{:x}", Sha256::digest(&bytes)) != hex {
                    bail!("'{}' does not hash to its name", path.display());
                }
                return Ok(Some((name, bytes)));
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("reading '{}'", path.display())),
        }
    }
    bail!("{at}: its lock sha256:{hex} is not in '{}'", dir.display())
}

/// Returns true when a servers row's outcome says it listed, with placeholders or
/// without.
fn is_listed_row(row: &csv::ByteRecord) -> bool {
    row.get(OUTCOME)
        .and_then(|cell| std::str::from_utf8(cell).ok())
        .is_some_and(outcome::is_listed)
}

/// Fails unless a server's wire rows are as many as its servers row says: its tools,
/// or one row for a server that did not list.
fn check_rows(found: &Found, shown: &str) -> Result<()> {
    let row = &found.servers_row;
    let name = sanitize(&row[0]);
    let want = match is_listed_row(row) {
        true => std::str::from_utf8(row.get(TOOLS).unwrap_or_default())
            .ok()
            .and_then(|t| t.parse::<usize>().ok())
            .with_context(|| format!("server '{name}' listed but gives no number of tools"))?,
        false => 1,
    };
    if found.wire_rows.len() != want {
        bail!(
            "'{shown}' holds {} rows of server '{name}', whose servers row says {want}",
            found.wire_rows.len()
        );
    }
    Ok(())
}

/// Reads a summary: its opening, before the tally of outcomes, and the `servers`
/// lines of its table of servers, each with its line break.
fn read_summary(path: &Path, servers: usize) -> Result<(String, Vec<String>)> {
    let text = fs::read_to_string(path).with_context(|| format!("reading '{}'", path.display()))?;
    let not_one = || {
        format!(
            "'{}' is not a summary `probe --servers` writes",
            path.display()
        )
    };
    let opening = text.find("## Outcomes\n").with_context(not_one)?;
    let at = text.find(tables::SUMMARY_TABLE).with_context(not_one)?;
    let head_end = at + tables::SUMMARY_TABLE.len();
    let lines: Vec<String> = text[head_end..]
        .split_inclusive('\n')
        .take(servers)
        .map(str::to_string)
        .collect();
    if lines.len() < servers
        || lines
            .iter()
            .any(|l| !l.starts_with("| ") || !l.ends_with('\n'))
    {
        bail!(
            "'{}' holds fewer lines of servers than its servers table",
            path.display()
        );
    }
    Ok((text[..opening].to_string(), lines))
}
