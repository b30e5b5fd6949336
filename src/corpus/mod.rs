//! `corpus`: the corpus file every command reads, and the command that writes one.
//!
//! `file` reads and validates `corpus.toml` (the trees, their archives, the columns,
//! a shard's selection); `census` and `merge` load it through here. The command
//! (`build`) pins a list of repositories, a registry's servers or a dated series to
//! commits and writes such a file, with `registry`, `packages`, `repo_url`,
//! `repo_list` and `pin` naming and resolving the repositories and `history` walking
//! a repository's first-parent line for dated pins; `shipped` pins packages to
//! their artifacts (`corpus packages`, `corpus registry --shipped`). This module owns the cache
//! default that `census`, `corpus --at` and `probe --servers` share.
//!
//! A command: it may import the stages, `cli` and `infra`, and `scan` (whose git
//! reader `history` uses); no stage imports it.

pub mod build;
pub mod command;
pub mod file;
pub mod history;
pub mod packages;
pub mod pin;
pub mod registry;
pub mod repo_list;
pub mod repo_url;
pub mod shipped;
pub mod tables;
pub mod text;

use std::path::PathBuf;

/// Returns the cache folder used when no `--cache` is given: `mcp-hint-census` in the
/// platform's user cache folder (`~/.cache/mcp-hint-census` on Linux), or `None` where
/// the platform names none. The census keeps archives there, `corpus --at` its
/// history clones (`clones/`) and `probe --servers` its installed packages
/// (`packages/`), so the three commands share one default.
pub fn default_cache() -> Option<PathBuf> {
    dirs::cache_dir().map(|dir| dir.join("mcp-hint-census"))
}
