//! The tools table: its columns, its records for a counted row, reading it
//! back (a dated table's commit at several dates given back date by date), and
//! joining a row with its tools.

use super::*;

/// The tools table's columns before the four hints: the tree's key, then where the
/// definition is, what it is (`tool` or `dynamic`), its role, its SDK family, its
/// name (empty when not a literal) and what the name says it does (`name_class`).
pub(super) const TOOLS_LEADING: [&str; 10] = [
    "repo",
    "pinned",
    "subfolder",
    "path",
    "line",
    "kind",
    "role",
    "sdk",
    "tool",
    "name_class",
];

/// Returns the tools table's header: [`TOOLS_LEADING`] (with `as_of` after
/// `subfolder` when `is_dated`), then the four hints in the schema's order.
pub fn tools_header(is_dated: bool) -> Vec<String> {
    with_date(&TOOLS_LEADING, is_dated)
        .into_iter()
        .chain(Hint::ALL.map(Hint::name))
        .map(str::to_string)
        .collect()
}

/// Returns the cell of one hint in the tools table: `true`, `false`, `?`, `unknown`,
/// or empty when the definition leaves it out.
pub fn hint_cell(state: Option<HintState>) -> &'static str {
    state.map_or("", HintState::as_str)
}

/// Returns the tools table's records for a counted row: every definition found, in
/// the order of the path's bytes, then the line. Paths stay raw bytes.
pub fn tools_records(row: &Row, is_dated: bool) -> Vec<Vec<Vec<u8>>> {
    let found = row.outcome.as_ref().ok().and_then(|c| c.tools.as_ref());
    found
        .map(|found| found.tools.as_slice())
        .unwrap_or_default()
        .iter()
        .map(|tool| {
            let mut record: Vec<Vec<u8>> = key_cells(&row.key, is_dated)
                .into_iter()
                .map(String::into_bytes)
                .collect();
            record.extend([
                tool.path.clone(),
                tool.line.to_string().into_bytes(),
                tool.kind.as_str().as_bytes().to_vec(),
                tool.role.as_str().as_bytes().to_vec(),
                tool.family.as_str().as_bytes().to_vec(),
                tool.name.clone().unwrap_or_default().into_bytes(),
                tool.name_class.as_str().as_bytes().to_vec(),
            ]);
            record.extend(tool.hints.map(|h| hint_cell(h).as_bytes().to_vec()));
            record
        })
        .collect()
}

/// Why a counted row and the tables read beside it do not fit together.
#[derive(Debug, PartialEq, Eq)]
pub enum JoinError {
    /// The row's `tools` and `tools_annotated` cells against what the tools table lists.
    ToolCountsDisagree { said: [u64; 4], listed: [u64; 4] },
    /// The tools table lists definitions of a row that has no tool count.
    ToolsWithoutCount,
}

/// Moves a counted row's file hits and tool definitions out of the files and tools
/// tables read beside it, and checks the definitions against the row's tool counts
/// (`tool_counts`, as `read_census` gives them). A failed row takes nothing.
pub fn join_row(
    row: &mut Row,
    tool_counts: Option<[u64; 4]>,
    files: &mut FilesByTree,
    tools: &mut ToolsByTree,
) -> std::result::Result<(), JoinError> {
    let Ok(counted) = &mut row.outcome else {
        return Ok(());
    };
    counted.count.files = files
        .remove(&row.key)
        .unwrap_or_default()
        .into_iter()
        .collect();
    let defs = tools.remove(&row.key).unwrap_or_default();
    match (&mut counted.tools, tool_counts) {
        (Some(found), Some(said)) => {
            found.tools = defs;
            let got = counted.tool_counts().unwrap_or_default();
            let listed = [got[0], got[1], got[2], got[3]];
            if listed != said {
                return Err(JoinError::ToolCountsDisagree { said, listed });
            }
        }
        _ if !defs.is_empty() => return Err(JoinError::ToolsWithoutCount),
        _ => {}
    }
    Ok(())
}

/// Holds the tool definitions of a tools table, grouped by the tree they belong to.
pub type ToolsByTree = BTreeMap<TreeKey, Vec<ToolDef>>;

/// Reads a tools table, with `as_of` when `is_dated`; paths are kept as raw bytes,
/// definitions in file order.
pub fn read_tools<R: Read>(input: R, name: &str, is_dated: bool) -> Result<ToolsByTree> {
    let mut reader = csv::Reader::from_reader(input);
    let expected = tools_header(is_dated);
    // A table written before the `name_class` column (a published census) is read
    // too, its classes taken from the names (docs/method.md, "Name classes").
    let before_class: Vec<String> = expected
        .iter()
        .filter(|c| *c != "name_class")
        .cloned()
        .collect();
    let has_class = reader.byte_headers().map_or(true, |h| {
        !h.iter().eq(before_class.iter().map(|c| c.as_bytes()))
    });
    let at = match has_class {
        true => Header::checked(&mut reader, name, &expected, "a tools table has")?,
        false => Header::checked(&mut reader, name, &before_class, "a tools table has")?,
    };
    let key_at = KeyColumns::of(&at);
    let class_at = at.get("name_class");
    let [path_at, line_at, kind_at, role_at, sdk_at, tool_at] =
        ["path", "line", "kind", "role", "sdk", "tool"].map(|name| at.first(name));
    let hints_at = Hint::ALL.map(|hint| at.first(hint.name()));
    let mut tools = ToolsByTree::new();
    for (i, record) in reader.byte_records().enumerate() {
        let within = || format!("'{name}' line {}", i + 2);
        let record = record.with_context(within)?;
        let record: Vec<&[u8]> = record.iter().collect();
        let text = |cell: &[u8]| String::from_utf8_lossy(cell).into_owned();
        let line = std::str::from_utf8(record[line_at])
            .ok()
            .and_then(|s| s.parse().ok())
            .with_context(|| {
                format!(
                    "{}: '{}' is not a line number",
                    within(),
                    text(record[line_at])
                )
            })?;
        let kind = [DefKind::Tool, DefKind::Dynamic]
            .into_iter()
            .find(|k| k.as_str().as_bytes() == record[kind_at])
            .with_context(|| {
                format!(
                    "{}: '{}' is not a kind (tool or dynamic)",
                    within(),
                    text(record[kind_at])
                )
            })?;
        let role = Role::parse(record[role_at])
            .with_context(|| format!("{}: '{}' is not a role", within(), text(record[role_at])))?;
        let family = Family::ALL
            .into_iter()
            .find(|f| f.as_str().as_bytes() == record[sdk_at])
            .with_context(|| {
                format!(
                    "{}: '{}' is not an SDK family",
                    within(),
                    text(record[sdk_at])
                )
            })?;
        let tool_name = Some(text(record[tool_at])).filter(|n| !n.is_empty());
        let name_class = match class_at {
            None => NameClass::of(tool_name.as_deref(), None),
            Some(i) => NameClass::parse(record[i]).with_context(|| {
                format!(
                    "{}: '{}' is not a name class (read, write, destructive or unknown)",
                    within(),
                    text(record[i])
                )
            })?,
        };
        let mut hints = [None; 4];
        for (hint, &j) in hints.iter_mut().zip(&hints_at) {
            let cell = record[j];
            *hint = HintState::parse(cell).with_context(|| {
                format!(
                    "{}: '{}' is not a hint cell (true, false, ?, unknown or empty)",
                    within(),
                    text(cell)
                )
            })?;
        }
        let def = ToolDef {
            path: record[path_at].to_vec(),
            line,
            kind,
            role,
            family,
            name: tool_name,
            name_class,
            hints,
        };
        // A commit standing at several dates lists its definitions once, its
        // `as_of` naming every date (see `report::csv::write_tools_csv`).
        let key = key_at.key(&record, text);
        let dates: Vec<Option<String>> = match key.as_of.as_deref() {
            Some(dates) if dates.contains(' ') => dates
                .split(' ')
                .filter(|d| !d.is_empty())
                .map(|d| Some(d.to_string()))
                .collect(),
            date => vec![date.map(str::to_string)],
        };
        for date in dates {
            let key = TreeKey {
                as_of: date,
                ..key.clone()
            };
            tools.entry(key).or_default().push(def.clone());
        }
    }
    Ok(tools)
}
