//! Writes the census and files tables as CSV, cell for cell as `table` lays them out.

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
/// path's bytes and the line, as the files table orders its files.
pub fn write_tools_csv<W: Write>(out: W, table: &Table) -> Result<()> {
    let mut w = writer(out);
    w.write_record(table::tools_header(table.is_dated()))?;
    for row in &table.rows {
        for record in table::tools_records(row, table.is_dated()) {
            w.write_record(&record)?;
        }
    }
    w.flush()?;
    Ok(())
}
