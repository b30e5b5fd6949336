//! What a package index answers of one package version: pinned to one artifact by
//! the index's digest, or why not. Both indexes' readers fill it; the corpus writes
//! it and the census reads it back. It asks nothing itself.

use crate::fetch::digest::Digest;

/// The registries a package corpus names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Kind {
    Npm,
    Pypi,
}

impl Kind {
    /// Returns the registry's name as a corpus and a table write it: `npm`, `pypi`.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Npm => "npm",
            Kind::Pypi => "pypi",
        }
    }

    /// Returns the registry `name` names (`npm`, `pypi`, any case).
    pub fn parse(name: &str) -> Option<Kind> {
        match name.to_ascii_lowercase().as_str() {
            "npm" => Some(Kind::Npm),
            "pypi" => Some(Kind::Pypi),
            _ => None,
        }
    }
}

/// Holds a package version pinned to one artifact by the index's digest: all a
/// census needs to count it without asking the index again.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pinned {
    pub registry: Kind,
    /// The name as the registry spells it (npm: `@scope/name`).
    pub name: String,
    pub version: String,
    /// The artifact's file name.
    pub artifact: String,
    /// Where it is downloaded from, without credentials.
    pub url: String,
    pub digest: Digest,
    /// The source repository the package's metadata names, when it names one.
    pub repository: Option<String>,
    /// The commit the metadata says the package was built from (npm's `gitHead`).
    pub commit: Option<String>,
    /// Why the index marks the file yanked (PEP 592), when it does.
    pub yanked: Option<String>,
    /// The dependencies its metadata pins to one exact version, `(name, version)`:
    /// its family ([`super::family`]); or why its metadata could not be read.
    pub exact_dependencies: Result<Vec<(String, String)>, String>,
}

/// Holds why a package could not be pinned: the index's own answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Miss {
    /// True when the index answered that it has no such package or version; false
    /// for a failure to ask (the network, an answer not understood).
    pub is_absent: bool,
    pub why: String,
}

impl Miss {
    pub(crate) fn absent(why: String) -> Miss {
        Miss {
            is_absent: true,
            why,
        }
    }

    pub(crate) fn failed(why: String) -> Miss {
        Miss {
            is_absent: false,
            why,
        }
    }
}

/// Returns the folder under the cache's `packages/` of a package version:
/// `REGISTRY/NAME/VERSION` (an npm scope is a folder of its own).
pub fn cache_folder(registry: Kind, name: &str, version: &str) -> String {
    format!("{}/{name}/{version}", registry.as_str())
}
