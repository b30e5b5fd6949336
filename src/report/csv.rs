//! Writes the census and files tables as CSV, cell for cell as `table` lays them out.

use std::collections::HashMap;
use std::io::Write;

use anyhow::Result;

use crate::table::{self, Table};

/// Returns a CSV writer with `\n` line ends, the same on every platform.
fn writer<W: Write>(out: W) -> csv::Writer<W> {
    csv::WriterBuilder::new()
        .terminator(csv::Terminator::Any(b'\n'))
        .from_writer(out)
}

/// Writes the census table as CSV: one row per tree, in the table's order.
pub fn write_census_csv<W: Write>(out: W, table: &Table) -> Result<()> {
    let mut w = writer(out);
    let is_dated = table.is_dated();
    let packages = table.package_columns();
    w.write_record(table::census_header(&table.columns, is_dated, packages))?;
    for row in &table.rows {
        let mut record = table::census_record(row, table.columns.len(), &table.date, is_dated);
        record.extend(table::package_cells(
            &table.packages,
            &row.key,
            packages.len(),
        ));
        w.write_record(record)?;
    }
    w.flush()?;
    Ok(())
}

/// Writes every file with a nonzero count as CSV, rows in table order, then by the
/// path's bytes.
pub fn write_files_csv<W: Write>(out: W, table: &Table) -> Result<()> {
    let mut w = writer(out);
    let is_dated = table.is_dated();
    w.write_record(table::files_header(&table.columns, is_dated))?;
    for row in &table.rows {
        for record in table::files_records(row, is_dated) {
            w.write_record(&record?)?;
        }
    }
    w.flush()?;
    Ok(())
}

/// Writes every tool definition found as CSV: rows in table order, then by the
/// path's bytes and the line, as the files table orders its files. In a dated table
/// a commit that stands at several dates with the same definitions lists them once,
/// at its first date's place, its `as_of` naming every date, space-separated
/// (`table::tools::read_tools` reads them back date by date).
pub fn write_tools_csv<W: Write>(out: W, table: &Table) -> Result<()> {
    let mut w = writer(out);
    let is_dated = table.is_dated();
    w.write_record(table::tools::tools_header(is_dated))?;
    let records: Vec<Vec<Vec<Vec<u8>>>> = table
        .rows
        .iter()
        .map(|row| table::tools::tools_records(row, is_dated))
        .collect();
    let as_of = table::tools::tools_header(true)
        .iter()
        .position(|c| c == table::AS_OF)
        .filter(|_| is_dated);
    let Some(as_of) = as_of else {
        for record in records.iter().flatten() {
            w.write_record(record)?;
        }
        w.flush()?;
        return Ok(());
    };
    // The same definitions, `as_of` aside.
    let same = |a: &[Vec<Vec<u8>>], b: &[Vec<Vec<u8>>]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.len() == y.len()
                    && x.iter()
                        .zip(y)
                        .enumerate()
                        .all(|(i, (c, d))| i == as_of || c == d)
            })
    };
    fn commit_of(row: &table::Row) -> (&str, Option<&str>, Option<&str>) {
        let key = &row.key;
        (
            key.repo.as_str(),
            key.pinned.as_deref(),
            key.subfolder.as_deref(),
        )
    }
    // The rows of each pinned commit, in table order.
    let mut at_commit: HashMap<_, Vec<usize>> = HashMap::new();
    for (i, row) in table.rows.iter().enumerate() {
        if row.key.pinned.is_some() {
            at_commit.entry(commit_of(row)).or_default().push(i);
        }
    }
    let mut listed = vec![false; records.len()];
    for (i, row) in table.rows.iter().enumerate() {
        if listed[i] || records[i].is_empty() {
            continue;
        }
        let mut dates = vec![row.key.as_of.clone().unwrap_or_default()];
        let later = at_commit.get(&commit_of(row)).into_iter().flatten();
        for &j in later.filter(|&&j| j > i) {
            if !listed[j] && same(&records[i], &records[j]) {
                listed[j] = true;
                dates.push(table.rows[j].key.as_of.clone().unwrap_or_default());
            }
        }
        let dates = dates.join(" ").into_bytes();
        for record in &records[i] {
            let mut record = record.clone();
            record[as_of] = dates.clone();
            w.write_record(&record)?;
        }
    }
    w.flush()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::fixtures::counted;
    use crate::table::{Row, TreeKey};
    use crate::tools::hints::tests::tool;

    /// A counted row of `o/a` at `pinned` as of `as_of`, its tools named `names`.
    fn row(pinned: &str, as_of: &str, names: &[&str]) -> Row {
        let tools = names
            .iter()
            .map(|name| {
                let mut def = tool([None; 4]);
                def.name = Some(name.to_string());
                def
            })
            .collect();
        let key = TreeKey {
            repo: "o/a".into(),
            pinned: Some(pinned.into()),
            subfolder: None,
            as_of: Some(as_of.into()),
        };
        counted(key, tools)
    }

    #[test]
    fn a_commit_at_several_dates_lists_its_tools_once_and_reads_back_date_by_date() {
        let table = Table {
            columns: crate::count::terms::Columns::default_columns(),
            date: "2026-01-01".into(),
            rows: vec![
                row("abcd", "2025-06-01", &["get_a", "list_b"]),
                row("abcd", "2025-07-01", &["get_a", "list_b"]),
                row("ef01", "2025-08-01", &["get_a"]),
                // The same commit again, its definitions read otherwise: listed apart.
                row("abcd", "2025-09-01", &["get_a"]),
                row("abcd", "2025-10-01", &["get_a", "list_b"]),
            ],
            dating: Default::default(),
            packages: Default::default(),
        };
        let mut out = Vec::new();
        write_tools_csv(&mut out, &table).unwrap();
        let text = String::from_utf8(out.clone()).unwrap();
        let dates: Vec<&str> = text
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(3).unwrap())
            .collect();
        assert_eq!(
            dates,
            [
                "2025-06-01 2025-07-01 2025-10-01",
                "2025-06-01 2025-07-01 2025-10-01",
                "2025-08-01",
                "2025-09-01",
            ],
            "{text}"
        );
        let read = table::tools::read_tools(&out[..], "tools.csv", true).unwrap();
        for row in &table.rows {
            let written = row.outcome.as_ref().unwrap().tools.as_ref().unwrap();
            let names = |defs: &[crate::tools::ToolDef]| -> Vec<Option<String>> {
                defs.iter().map(|d| d.name.clone()).collect()
            };
            assert_eq!(
                names(&read[&row.key]),
                names(&written.tools),
                "{}",
                row.key.label()
            );
        }
        assert_eq!(read.len(), 5);
    }
}
