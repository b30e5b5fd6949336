//! The recognisers: one file per SDK family, each turning a file's syntax tree into
//! a [`FileSummary`](super::value::FileSummary) of registrations, literal bindings
//! and imports (docs/method.md, "Tools"), and [`syntax`], the tree-sitter helpers
//! they share.
//!
//! They fill the model and the values below them, named here for their files, and
//! read the one table of tool-shaped keys; none imports the orchestration that
//! dispatches to them (`tools/mod.rs`), nor the filter.

pub(super) mod csharp;
pub(super) mod derived;
pub(super) mod golang;
pub(super) mod java;
pub(super) mod kotlin;
pub(super) mod php;
pub(super) mod python;
pub(super) mod ruby;
pub(super) mod rust;
pub(super) mod swift;
pub(super) mod syntax;
pub(super) mod typescript;

use super::{model, value, wrappers};
