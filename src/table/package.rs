//! The census table's package columns: what the corpus says of a package's
//! artifact (and, for a family member, whose family it is), written after the
//! trailing columns of a corpus with packages. Only cells; the rows are `table`'s.

use std::collections::BTreeMap;

/// Holds what a package's row says of its artifact, from the corpus: the
/// [`PACKAGE_COLUMNS`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Shipped {
    /// The artifact's file name.
    pub artifact: String,
    /// The registry's digest of it, as the registry writes it.
    pub digest: String,
    /// The source repository its metadata names; empty when none.
    pub repository: String,
    /// For a family member, the packages whose family it is (`REGISTRY:NAME@VERSION`,
    /// space-separated); empty for a package of its own.
    pub family: String,
}

/// The census table's columns of a package's artifact, after the trailing ones;
/// only a corpus with packages has them (see [`Shipped`]), and `family` only one
/// with a family member ([`Table::package_columns`]).
pub const PACKAGE_COLUMNS: [&str; 4] = ["artifact", "digest", "repository", "family"];

/// Returns the cells of the first `width` [`PACKAGE_COLUMNS`] of the row of `key` in
/// a table of `packages`: empty for a repository's row.
pub fn package_cells<K: Ord>(
    packages: &BTreeMap<K, Shipped>,
    key: &K,
    width: usize,
) -> Vec<String> {
    let cells = match packages.get(key) {
        Some(p) => [
            p.artifact.clone(),
            p.digest.clone(),
            p.repository.clone(),
            p.family.clone(),
        ],
        None => Default::default(),
    };
    cells.into_iter().take(width).collect()
}
