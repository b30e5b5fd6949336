//! Subfolders: the rule a subfolder's name must follow (`docs/method.md`,
//! "Subfolders"), the archive's top folder, and the counts of every requested
//! subfolder as the entry loop hands over the files ([`Counting`]).
//!
//! It does not read the archive; it is told each entry's path and each file's
//! bytes.

use std::fmt;

use anyhow::Result;

use super::entries::{FileData, Piece, Visitor};
use crate::count::sink::TreeSink;
use crate::count::{Matcher, TreeCount};
use crate::infra::sanitize::sanitize;
use crate::tools::feed::ToolFeed;
use crate::tools::FoundTools;
use crate::tools::Roles;

/// Says why a subfolder's name is not a plain relative path.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InvalidSubfolder {
    /// The subfolder as given, escaped for a terminal.
    pub shown: String,
    /// What is wrong with it.
    pub why: &'static str,
}

/// Shows `'NAME' is not valid: WHY`; a caller says what the name was of.
impl fmt::Display for InvalidSubfolder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "'{}' is not valid: {}", self.shown, self.why)
    }
}

impl std::error::Error for InvalidSubfolder {}

/// Checks that `subfolder` names a subfolder as `docs/method.md` allows: a relative
/// path with `/` separators, no empty, `.` or `..` segment, no leading or trailing
/// `/`, no `\` and no control character. The corpus applies it before anything is
/// downloaded, the archive reader before it reads.
pub fn check_subfolder(subfolder: impl AsRef<[u8]>) -> Result<(), InvalidSubfolder> {
    let subfolder = subfolder.as_ref();
    let why = if subfolder.is_empty() {
        "it is empty"
    } else if subfolder.starts_with(b"/") {
        "it starts with '/' (it must be relative to the top folder)"
    } else if subfolder.ends_with(b"/") {
        "it ends with '/'"
    } else if subfolder.contains(&b'\\') {
        "it holds '\\' (separators are '/')"
    } else if subfolder.iter().any(u8::is_ascii_control) {
        "it holds a control character"
    } else if subfolder.split(|&b| b == b'/').any(|s| s.is_empty()) {
        "it has an empty segment ('//')"
    } else if subfolder
        .split(|&b| b == b'/')
        .any(|s| s == b"." || s == b"..")
    {
        "it has a '.' or '..' segment"
    } else {
        return Ok(());
    };
    Err(InvalidSubfolder {
        shown: sanitize(subfolder),
        why,
    })
}

/// What counting an archive found: each subfolder's count, a folder differing
/// from each only in case, and each one's tool definitions when looked for.
pub type Finished = (
    Vec<TreeCount>,
    Vec<Option<Vec<u8>>>,
    Option<Vec<FoundTools>>,
);

/// Counts the files the entry loop hands over, once for each requested subfolder
/// that holds them; each file's bytes are read and matched once.
pub struct Counting<'m, 'p> {
    trees: Trees,
    /// Reads every file of the archive into the slots of `trees` that hold it.
    sink: TreeSink<'m>,
    on_file: &'p mut dyn FnMut(u64),
    /// Whether the files are handed to the tool finder too.
    is_finding_tools: bool,
}

impl<'m, 'p> Counting<'m, 'p> {
    /// Returns a visitor that counts `matcher`'s terms for each of `subfolders`
    /// (`b""` is the whole tree) and calls `on_file` with each file's size. With
    /// `find_tools`, it also hands each file to the tool finder, once per subfolder
    /// that holds it, from the bytes it reads for the count.
    pub fn new(
        matcher: &'m Matcher,
        subfolders: &[Vec<u8>],
        find_tools: Option<Roles>,
        on_file: &'p mut dyn FnMut(u64),
    ) -> Counting<'m, 'p> {
        let trees = Trees::new(subfolders);
        Counting {
            sink: TreeSink::with_trees(matcher, trees.slots(), find_tools),
            trees,
            on_file,
            is_finding_tools: find_tools.is_some(),
        }
    }

    /// Returns each subfolder's count, with paths relative to the top folder, a
    /// folder differing from each only in case (if any), and when tools were looked
    /// for, each subfolder's tool definitions (paths relative to the top folder too).
    pub fn finish(mut self) -> Finished {
        let slots = self.sink.take_trees();
        self.trees.finish(slots, self.is_finding_tools)
    }
}

impl Visitor for Counting<'_, '_> {
    fn entry(&mut self, path: &[u8], is_dir: bool) {
        self.trees.see(path, is_dir);
    }

    fn file(&mut self, path: &[u8], data: &mut FileData<'_>) -> Result<()> {
        // Paths stay whole here; `finish` makes them relative to the top folder.
        let sink = &mut self.sink;
        sink.begin_file_in(path, data.size(), self.trees.holders(path));
        data.pieces(|piece| match piece {
            Piece::Bytes(bytes) => sink.chunk(bytes),
            Piece::Zeros(n) => sink.zeros(n),
        })?;
        // The entry loop hands over exactly the size it announced or fails (a
        // truncated archive), so the sink's size check can only pass.
        let ended = sink.end_file();
        debug_assert_eq!(ended, Ok(()), "'{}'", sanitize(path));
        (self.on_file)(data.size());
        Ok(())
    }
}

/// Lays out the trees of every requested subfolder while the archive is read.
///
/// Whether the archive has a top folder is known only at its end (every entry must
/// lie under it), so each non-empty subfolder is counted twice: as if there were a
/// top folder (paths relative to it) and as if there were none (whole paths); the
/// end picks one. The whole tree is counted once: only its paths differ. So the sink
/// holds two slots per subfolder: slot `i` is subfolder `i` under the top folder,
/// slot `n + i` the same among whole paths (`n` subfolders).
struct Trees {
    /// Each subfolder with a trailing `/`; empty for the whole tree.
    subfolders: Vec<Vec<u8>>,
    top: TopFolder,
    /// Per subfolder: a folder under the top folder, and one among whole paths,
    /// that differs from it only in ASCII case (the first one seen).
    variant_under_top: Vec<Option<Vec<u8>>>,
    variant_whole: Vec<Option<Vec<u8>>>,
}

impl Trees {
    fn new(subfolders: &[Vec<u8>]) -> Trees {
        Trees {
            subfolders: subfolders
                .iter()
                .map(|s| match s.is_empty() {
                    true => Vec::new(),
                    false => [&s[..], b"/"].concat(),
                })
                .collect(),
            top: TopFolder::default(),
            variant_under_top: vec![None; subfolders.len()],
            variant_whole: vec![None; subfolders.len()],
        }
    }

    fn see(&mut self, path: &[u8], is_dir: bool) {
        self.top.see(path, is_dir);
        let relative = match &self.top.prefix {
            Some(prefix) if !prefix.is_empty() => path.strip_prefix(prefix.as_slice()),
            _ => None,
        };
        for (i, subfolder) in self.subfolders.iter().enumerate() {
            if subfolder.is_empty() {
                continue;
            }
            if self.variant_under_top[i].is_none() {
                self.variant_under_top[i] =
                    relative.and_then(|r| case_variant(r, is_dir, subfolder));
            }
            if self.variant_whole[i].is_none() {
                self.variant_whole[i] = case_variant(path, is_dir, subfolder);
            }
        }
    }

    /// Returns how many slots the sink holds: two per subfolder.
    fn slots(&self) -> usize {
        2 * self.subfolders.len()
    }

    /// Returns the slots that hold the file whose whole path is `path`, given the
    /// entries seen so far: per subfolder holding it, its slot under the top folder,
    /// its slot among whole paths, or both.
    fn holders<'s>(&'s self, path: &'s [u8]) -> impl Iterator<Item = usize> + 's {
        let n = self.subfolders.len();
        let relative = match &self.top.prefix {
            Some(prefix) if !prefix.is_empty() => path.strip_prefix(prefix.as_slice()),
            _ => None,
        };
        self.subfolders
            .iter()
            .enumerate()
            .flat_map(move |(i, subfolder)| {
                let is_whole_tree = subfolder.is_empty();
                let under_top = is_whole_tree || relative.is_some_and(|r| r.starts_with(subfolder));
                let whole = !is_whole_tree && path.starts_with(subfolder);
                [(i, under_top), (n + i, whole)]
            })
            .filter(|&(_, holds)| holds)
            .map(|(slot, _)| slot)
    }

    /// Returns each subfolder's count from the sink's `slots`, with paths relative
    /// to the top folder, for each a folder that differs from it only in case (if
    /// the archive has one), and with `has_tools` each one's tool definitions.
    fn finish(self, slots: Vec<(TreeCount, Option<ToolFeed>)>, has_tools: bool) -> Finished {
        let prefix = self.top.prefix();
        let variants = match prefix {
            Some(_) => self.variant_under_top,
            None => self.variant_whole,
        };
        let n = self.subfolders.len();
        let mut slots: Vec<_> = slots.into_iter().map(Some).collect();
        let mut counts = Vec::with_capacity(n);
        let mut tools = Vec::with_capacity(n);
        for (i, subfolder) in self.subfolders.iter().enumerate() {
            let slot = match prefix {
                None if !subfolder.is_empty() => n + i,
                _ => i,
            };
            let (mut count, feed) = slots[slot].take().expect("one slot per subfolder is kept");
            let mut found = feed.map(ToolFeed::finish);
            if let Some(prefix) = prefix {
                // Every file counted under the top folder starts with it.
                count.files.strip_prefix(prefix.len());
                for tool in found.iter_mut().flat_map(|found| &mut found.tools) {
                    tool.path.drain(..prefix.len().min(tool.path.len()));
                }
            }
            counts.push(count);
            tools.extend(found);
        }
        (counts, variants, has_tools.then_some(tools))
    }
}

/// Returns the folder at the start of `path` (a directory entry when `is_dir`)
/// that equals `subfolder` (with its trailing `/`) under ASCII case folding but
/// not byte for byte.
fn case_variant(path: &[u8], is_dir: bool, subfolder: &[u8]) -> Option<Vec<u8>> {
    let n = subfolder.len();
    let head = match path.get(..n) {
        Some(head) => head,
        // A directory entry written without its trailing '/'.
        None if is_dir && path.len() + 1 == n => path,
        None => return None,
    };
    let folder = &head[..n - 1];
    let is_variant = folder.eq_ignore_ascii_case(&subfolder[..n - 1])
        && folder != &subfolder[..n - 1]
        && (head.len() < n || head[n - 1] == b'/');
    is_variant.then(|| folder.to_vec())
}

/// Finds the archive's top folder (`owner-name-abc1234/`): the first component of
/// the first entry, when every entry of the archive lies under it. An archive made
/// without a prefix (`git archive` without `--prefix`, `tar -C dir .`) has none,
/// and its paths are kept whole.
#[derive(Default)]
struct TopFolder {
    /// The candidate, with its trailing `/`; empty when the first entry was a file
    /// at the top level.
    prefix: Option<Vec<u8>>,
    /// True when some entry lies outside the candidate.
    is_broken: bool,
}

impl TopFolder {
    /// Notes one entry's path (already without a leading `./`).
    fn see(&mut self, path: &[u8], is_dir: bool) {
        if path.is_empty() {
            return; // `./` itself
        }
        match &self.prefix {
            None => {
                let prefix = match memchr::memchr(b'/', path) {
                    Some(slash) => path[..=slash].to_vec(),
                    None if is_dir => [path, b"/"].concat(),
                    None => Vec::new(),
                };
                self.prefix = Some(prefix);
            }
            Some(prefix) => {
                let is_inside = path.starts_with(prefix)
                    || (is_dir && path == &prefix[..prefix.len().saturating_sub(1)]);
                if !is_inside {
                    self.is_broken = true;
                }
            }
        }
    }

    /// Returns the top folder with its `/`, when the archive has one.
    fn prefix(&self) -> Option<&[u8]> {
        match &self.prefix {
            Some(prefix) if !prefix.is_empty() && !self.is_broken => Some(prefix),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::archive::entries::strip_dot;

    fn stripped(paths: &[(&str, bool)]) -> Vec<String> {
        let mut trees = Trees::new(&[Vec::new()]);
        let matcher = Matcher::new(&["x"]).unwrap();
        let mut sink = TreeSink::with_trees(&matcher, trees.slots(), None);
        for &(path, is_dir) in paths {
            let path = strip_dot(path.as_bytes());
            trees.see(path, is_dir);
            if !is_dir {
                sink.begin_file_in(path, 1, trees.holders(path));
                sink.chunk(&mut b"x".to_vec());
                sink.end_file().unwrap();
            }
        }
        trees.finish(sink.take_trees(), false).0[0]
            .files
            .sorted()
            .unwrap()
            .into_iter()
            .map(|f| String::from_utf8(f.path).unwrap())
            .collect()
    }

    #[test]
    fn paths_are_made_relative_to_the_top_folder() {
        let github = [
            ("o-n-abc1234/", true),
            ("o-n-abc1234/src/a.rs", false),
            ("o-n-abc1234/README", false),
        ];
        // Hits read back in the order of their paths' bytes.
        assert_eq!(stripped(&github), ["README", "src/a.rs"]);
        let dotted = [("./", true), ("./pkg/", true), ("./pkg/a", false)];
        assert_eq!(stripped(&dotted), ["a"]);
        let here = [("./", true), ("./a", false), ("./pkg/b", false)];
        assert_eq!(stripped(&here), ["a", "pkg/b"]);
        // No common top folder: a directory first, then a file beside it.
        let flat = [
            (".github/", true),
            (".github/ci.yml", false),
            ("Cargo.toml", false),
        ];
        assert_eq!(stripped(&flat), [".github/ci.yml", "Cargo.toml"]);
        let top_file = [("README", false), ("src/a.rs", false)];
        assert_eq!(stripped(&top_file), ["README", "src/a.rs"]);
        // A file named as the top folder lies outside it.
        let clash = [("top/", true), ("top/a", false), ("top", false)];
        assert_eq!(stripped(&clash), ["top", "top/a"]);
    }
}
