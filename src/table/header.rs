//! Finds a table's columns by their names in the header read back, once per table,
//! so that a reader names the cell it takes instead of counting its position.
//!
//! A reader checks the header against its schema first ([`Header::checked`]), so a
//! name the schema gives is always there.

use std::io::Read;

use anyhow::{bail, Context, Result};

/// Holds the column names of a header read back, in order.
pub struct Header {
    names: Vec<Vec<u8>>,
}

impl Header {
    /// Returns the header of these column names.
    pub fn new<N: AsRef<[u8]>>(names: impl IntoIterator<Item = N>) -> Header {
        Header {
            names: names.into_iter().map(|n| n.as_ref().to_vec()).collect(),
        }
    }

    /// Reads the header of the table `name` and checks that it is `expected`, else
    /// fails naming the columns it has and what it should have (`"the corpus
    /// gives"`, `"a tools table has"`).
    pub fn checked<R: Read>(
        reader: &mut csv::Reader<R>,
        name: &str,
        expected: &[String],
        should: &str,
    ) -> Result<Header> {
        let names: Vec<Vec<u8>> = reader
            .byte_headers()
            .with_context(|| format!("reading '{name}'"))?
            .iter()
            .map(<[u8]>::to_vec)
            .collect();
        if !names
            .iter()
            .map(Vec::as_slice)
            .eq(expected.iter().map(|e| e.as_bytes()))
        {
            bail!(
                "'{name}' has the columns '{}', but {should} '{}'",
                String::from_utf8_lossy(&names.join(&b","[..])),
                expected.join(",")
            );
        }
        Ok(Header { names })
    }

    /// Returns where the column `name` is, when the header has it.
    pub fn get(&self, name: &str) -> Option<usize> {
        self.names.iter().position(|n| n == name.as_bytes())
    }

    /// Returns where the first column `name` is: a column of the schema before the
    /// count columns, which a term may share its name with but only after it.
    pub fn first(&self, name: &str) -> usize {
        self.get(name)
            .unwrap_or_else(|| panic!("the header was checked to have '{name}'"))
    }

    /// Returns where the last column `name` is: a column of the schema after the
    /// count columns, which a term may share its name with but only before it.
    pub fn last(&self, name: &str) -> usize {
        self.names
            .iter()
            .rposition(|n| n == name.as_bytes())
            .unwrap_or_else(|| panic!("the header was checked to have '{name}'"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_named_as_a_fixed_column_is_not_taken_for_it() {
        let header = Header::new(["repo", "status", "repo", "status", "error"]);
        assert_eq!(header.first("repo"), 0);
        assert_eq!(header.last("status"), 3);
        assert_eq!(header.get("as_of"), None);
        assert_eq!(header.get("error"), Some(4));
    }
}
