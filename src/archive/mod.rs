//! Streams an archive into the matcher, entry by entry, without extracting
//! anything: a tar, plain or compressed with gzip, xz, bzip2 or zstd, or a zip (a
//! Python wheel is one).
//!
//! This module owns what `docs/method.md` says about archives: which entries are
//! files (type `0`, NUL and `7`), where each entry's data begins and ends (read as
//! GNU tar and Python's `tarfile` read it, or the archive is rejected), how a path is
//! made relative to the top folder and which subfolders a file belongs to, where the
//! commit id comes from (the pax global header's `comment`), and when an archive is
//! whole (every gzip member inflated with a good CRC and length, nothing after the
//! last one, the tar ended by its zero block). It takes any `impl Read`; where the
//! bytes come from (network, cache, stdin, `git archive`) is the caller's business,
//! and so is comparing the commit with a pin.
//!
//! The jobs live in modules of their own: [`format`] tells the formats apart by
//! their first bytes and opens the decompressing stream, [`zip`] reads a zip by
//! its central directory, [`header`] parses tar headers and pax records and holds
//! the tar's block size and the bounds on its metadata, [`entries`] is the entry
//! loop that hands each regular file to a [`Visitor`] as its path and a reader of
//! its bytes, [`tree`] holds the subfolder rule and the counts per subfolder, and
//! [`read_ahead`] the buffered and read-ahead sources. None of them imports this
//! file: it sits on top and dispatches to them.
//!
//! The tar reader is written here rather than taken from a crate because its job is
//! to refuse every archive on which GNU tar and Python disagree, and a general
//! reader is built to make the best of such archives instead. Checked against GNU
//! tar 1.34 and Python 3.11, the archive is refused for: a symbolic link, device or
//! fifo with a size, a hard link with a pax size, or an old-style directory (`x/`,
//! type NUL) with a size (GNU tar skips that much data, Python does not); a regular
//! entry whose final name ends with `/` unless it is such a directory; a ustar
//! prefix without ustar magic; a pax path and a GNU long name that differ; a pax
//! global `path`, `size` or `linkpath`; a GNU sparse map that the two would expand
//! differently; data in the padding of a pax header or long name; a header number
//! field either reader parses its own way; a malformed pax record; anything but
//! zeros after the first zero block. GNU sparse files are read expanded, GNU volume
//! labels skipped. An archive with no entry at all (only zero blocks), which both
//! read as empty, is refused too: git never writes one, so it is a damaged file.
//!
//! Memory is bounded whatever the archive holds: at most a dozen buffers of 256 KiB
//! (`READ_BUF`), one pax extended header or GNU long name of at most [`MAX_META_BYTES`]
//! (1 MiB; a larger one is an error), and the per-file hit lists. At most
//! [`MAX_TRAILING_ZEROS`] (1 MiB) of zero bytes are read after the end of the tar.
//!
//! A reader stage: it drives `count`'s sink and may import `count`, `tools` and
//! `infra`; `corpus`, `census` and `scan` import it.

mod entries;
mod format;
mod header;
mod read_ahead;
mod tree;
mod zip;

use std::io::{self, Read};

use anyhow::{Context, Result};

use crate::count::{Matcher, TreeCount};
use crate::tools::FoundTools;
use crate::tools::Roles;

pub use entries::{FileData, Piece, Visitor};
pub use format::{is_archive, sniff, Format, MAX_DECODER_MEMORY};
pub use header::{Comment, MAX_META_BYTES, MAX_TRAILING_ZEROS};
pub use tree::{check_subfolder, InvalidSubfolder};
pub use zip::MAX_DIRECTORY_BYTES;

/// Holds what reading one archive found.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ArchiveCount {
    /// The full commit id from the pax global header's `comment` (40 or 64 hex
    /// digits, as the archive spells it), when there is one and no other comment
    /// contradicts it.
    pub commit: Option<String>,
    /// Why the pax global header's `comment` is not a commit id, when it is not:
    /// GNU tar and Python ignore such a comment, so the archive reads, but it
    /// names no commit (`docs/method.md`, "Which commit").
    pub comment_problem: Option<String>,
    /// The counts of the archive's files, one per requested subfolder, in the order
    /// the subfolders were given.
    pub trees: Vec<TreeCount>,
    /// Per requested subfolder, in the same order: a folder of the archive that
    /// differs from it only in ASCII case, if there is one (for the error of a
    /// subfolder that matches no file).
    pub case_variants: Vec<Option<Vec<u8>>>,
    /// The tool definitions of each subfolder, in the same order, when they were
    /// looked for (see [`count_archive_and_tools`]).
    pub tools: Option<Vec<FoundTools>>,
}

/// Counts every regular file of the archive read from `reader`, gzip-compressed or
/// not, once for each of `subfolders` that holds it.
///
/// A subfolder is a path relative to the archive's top folder (see
/// [`check_subfolder`]); `b""` stands for the whole tree. A file belongs to every
/// subfolder `s` whose `s/` starts its path, so nested subfolders both count it. Each
/// file's bytes are read and matched once however many subfolders hold it. Hit paths
/// stay relative to the top folder.
///
/// `on_file` is called after each file of the archive with its size in bytes, for
/// progress. The archive must be whole and read the same by GNU tar and Python's
/// `tarfile`; otherwise an error is returned and nothing of the partial count.
pub fn count_archive<R: Read + Send>(
    reader: R,
    matcher: &Matcher,
    subfolders: &[Vec<u8>],
    on_file: &mut dyn FnMut(u64),
) -> Result<ArchiveCount> {
    count_archive_and_tools(reader, matcher, subfolders, None, on_file)
}

/// Counts the archive as [`count_archive`] does, and with `find_tools` also hands
/// each file to the tool finder from the same read, once per subfolder holding it
/// (see `tools::feed`); definition paths are relative to the top folder too.
pub fn count_archive_and_tools<R: Read + Send>(
    reader: R,
    matcher: &Matcher,
    subfolders: &[Vec<u8>],
    find_tools: Option<Roles>,
    on_file: &mut dyn FnMut(u64),
) -> Result<ArchiveCount> {
    for subfolder in subfolders.iter().filter(|s| !s.is_empty()) {
        check_subfolder(subfolder).map_err(|e| anyhow::anyhow!("subfolder {e}"))?;
    }
    let mut counting = tree::Counting::new(matcher, subfolders, find_tools, on_file);
    let comment = visit_archive(reader, &mut counting)?;
    let commit = match comment.problem {
        None => comment.commit,
        Some(_) => None,
    };
    let (trees, case_variants, tools) = counting.finish();
    Ok(ArchiveCount {
        commit,
        comment_problem: comment.problem,
        trees,
        case_variants,
        tools,
    })
}

/// Reads the archive from `reader`, gzip-compressed or not, and hands every entry
/// to `visitor` in the archive's order; returns what its pax global headers say
/// of the commit.
///
/// The archive is read to its end and checked whole; an error means the visitor
/// saw a part of it only, and what it gathered must be dropped.
pub fn visit_archive<R: Read + Send>(reader: R, visitor: &mut dyn Visitor) -> Result<Comment> {
    let (head, reader) = format::peek(reader)?;
    let input = io::Cursor::new(head.clone()).chain(reader);
    match format::sniff(&head) {
        Some(Format::Zip) => {
            zip::read_zip(input, visitor).context("reading the zip archive")?;
            Ok(Comment::default())
        }
        _ => format::with_tar_stream(input, |source| entries::read_tar(source, visitor)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_is_not_an_archive() {
        let m = Matcher::new(&["x"]).unwrap();
        let err = count_archive(
            &b"<!DOCTYPE html><html>sign in</html>"[..],
            &m,
            &[Vec::new()],
            &mut |_| {},
        )
        .unwrap_err();
        assert!(err.to_string().contains("<!DOCTYPE html>"), "{err}");
    }
}
