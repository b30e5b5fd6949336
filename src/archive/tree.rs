//! Subfolders: the rule a subfolder's name must follow (`docs/method.md`,
//! "Subfolders"), the archive's top folder, and the counts of every requested
//! subfolder as the entry loop hands over the files ([`Counting`]).
//!
//! It does not read the archive; it is told each entry's path and each file's
//! bytes.

use std::fmt;

use anyhow::Result;

use super::entries::{FileData, Piece, Visitor};
use crate::count::{FileCounter, Matcher, TreeCount};
use crate::sanitize::sanitize;
use crate::tool_feed::ToolFeed;
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
    /// One counter serves every file of the archive.
    counter: FileCounter<'m>,
    on_file: &'p mut dyn FnMut(u64),
    /// The tool finder's feeds, laid out as `trees` lays out its counts, when tools
    /// are looked for.
    tools: Option<ToolTrees>,
}

/// Holds one tool feed per tree `Trees` counts, in the same slots.
struct ToolTrees {
    under_top: Vec<ToolFeed>,
    whole: Vec<ToolFeed>,
    /// The slots the current file is copied into (almost always one or none).
    active: Vec<(usize, bool)>,
}

impl<'m, 'p> Counting<'m, 'p> {
    /// Returns a visitor that counts `matcher`'s terms for each of `subfolders`
    /// (`b""` is the whole tree) and calls `on_file` with each file's size.
    pub fn new(
        matcher: &'m Matcher,
        subfolders: &[Vec<u8>],
        on_file: &'p mut dyn FnMut(u64),
    ) -> Counting<'m, 'p> {
        Counting {
            trees: Trees::new(matcher.len(), subfolders),
            counter: matcher.file_counter(),
            on_file,
            tools: None,
        }
    }

    /// Makes the visitor also hand each file to the tool finder, once per subfolder
    /// that holds it, from the bytes it reads for the count.
    pub fn with_tools(mut self, roles: Roles) -> Counting<'m, 'p> {
        let n = self.trees.subfolders.len();
        self.tools = Some(ToolTrees {
            under_top: (0..n).map(|_| ToolFeed::new(roles)).collect(),
            whole: (0..n).map(|_| ToolFeed::new(roles)).collect(),
            active: Vec::new(),
        });
        self
    }

    /// Returns each subfolder's count, with paths relative to the top folder, a
    /// folder differing from each only in case (if any), and when tools were looked for, each subfolder's tool definitions (paths relative
    /// to the top folder too).
    pub fn finish(self) -> Finished {
        let prefix = self.trees.top.prefix().map(<[u8]>::to_vec);
        let tools = self.tools.map(|tools| {
            tools
                .under_top
                .into_iter()
                .zip(tools.whole)
                .zip(&self.trees.subfolders)
                .map(|((under_top, whole), subfolder)| match &prefix {
                    Some(prefix) => {
                        let mut found = under_top.finish();
                        for tool in &mut found.tools {
                            // Every file fed under the top folder starts with it.
                            tool.path.drain(..prefix.len().min(tool.path.len()));
                        }
                        found
                    }
                    None if subfolder.is_empty() => under_top.finish(),
                    None => whole.finish(),
                })
                .collect()
        });
        let (counts, variants) = self.trees.finish();
        (counts, variants, tools)
    }
}

impl Visitor for Counting<'_, '_> {
    fn entry(&mut self, path: &[u8], is_dir: bool) {
        self.trees.see(path, is_dir);
    }

    fn file(&mut self, path: &[u8], data: &mut FileData<'_>) -> Result<()> {
        let counter = &mut self.counter;
        counter.reset();
        match &mut self.tools {
            None => data.pieces(|piece| match piece {
                Piece::Bytes(bytes) => counter.feed_mut(bytes),
                Piece::Zeros(n) => counter.feed_zeros(n),
            })?,
            Some(tools) => {
                // Paths stay whole here; `finish` makes them relative to the top folder.
                tools.active.clear();
                for slot in self.trees.holders(path) {
                    let (i, is_under_top) = slot;
                    let feed = match is_under_top {
                        true => &mut tools.under_top[i],
                        false => &mut tools.whole[i],
                    };
                    if feed.begin(path, data.size()) {
                        tools.active.push(slot);
                    }
                }
                data.chunks(|chunk| {
                    for &(i, is_under_top) in &tools.active {
                        match is_under_top {
                            true => tools.under_top[i].take(chunk),
                            false => tools.whole[i].take(chunk),
                        }
                    }
                    counter.feed_mut(chunk)
                })?;
                for &(i, is_under_top) in &tools.active {
                    match is_under_top {
                        true => tools.under_top[i].end(path),
                        false => tools.whole[i].end(path),
                    }
                }
            }
        }
        self.trees.add_file(path, counter);
        (self.on_file)(data.size());
        Ok(())
    }
}

/// Holds the counts of every requested subfolder while the archive is read.
///
/// Whether the archive has a top folder is known only at its end (every entry must
/// lie under it), so each non-empty subfolder is counted twice: as if there were a
/// top folder (paths relative to it) and as if there were none (whole paths); the
/// end picks one. The whole tree is counted once: only its paths differ.
struct Trees {
    /// Each subfolder with a trailing `/`; empty for the whole tree.
    subfolders: Vec<Vec<u8>>,
    top: TopFolder,
    /// Per subfolder: the count if the archive has a top folder.
    under_top: Vec<TreeCount>,
    /// Per non-empty subfolder: the count if it has none.
    whole: Vec<TreeCount>,
    /// Per subfolder: a folder under the top folder, and one among whole paths,
    /// that differs from it only in ASCII case (the first one seen).
    variant_under_top: Vec<Option<Vec<u8>>>,
    variant_whole: Vec<Option<Vec<u8>>>,
}

impl Trees {
    fn new(terms: usize, subfolders: &[Vec<u8>]) -> Trees {
        Trees {
            subfolders: subfolders
                .iter()
                .map(|s| match s.is_empty() {
                    true => Vec::new(),
                    false => [&s[..], b"/"].concat(),
                })
                .collect(),
            top: TopFolder::default(),
            under_top: vec![TreeCount::new(terms); subfolders.len()],
            whole: vec![TreeCount::new(terms); subfolders.len()],
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

    /// Returns the slots that hold the file whose whole path is `path`: each
    /// subfolder's index, with true for its count under the top folder and false for
    /// its count of whole paths.
    fn holders<'s>(&'s self, path: &'s [u8]) -> impl Iterator<Item = (usize, bool)> + 's {
        holders(&self.subfolders, &self.top, path)
    }

    /// Adds one file, whose whole path is `path`, to every subfolder that holds it.
    fn add_file(&mut self, path: &[u8], counter: &FileCounter<'_>) {
        let (bytes, counts) = (counter.bytes(), counter.counts());
        for (i, is_under_top) in holders(&self.subfolders, &self.top, path) {
            match is_under_top {
                true => self.under_top[i].add_file(|| path.to_vec(), bytes, counts),
                false => self.whole[i].add_file(|| path.to_vec(), bytes, counts),
            }
        }
    }

    /// Returns each subfolder's count, with paths relative to the top folder, and
    /// for each a folder that differs from it only in case, if the archive has one.
    fn finish(self) -> (Vec<TreeCount>, Vec<Option<Vec<u8>>>) {
        let prefix = self.top.prefix();
        let variants = match prefix {
            Some(_) => self.variant_under_top,
            None => self.variant_whole,
        };
        let counts = self
            .under_top
            .into_iter()
            .zip(self.whole)
            .zip(&self.subfolders)
            .map(|((mut under_top, whole), subfolder)| match prefix {
                Some(prefix) => {
                    // Every file counted under the top folder starts with it.
                    under_top.files.strip_prefix(prefix.len());
                    under_top
                }
                None if subfolder.is_empty() => under_top,
                None => whole,
            })
            .collect();
        (counts, variants)
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

/// Returns the slots of `Trees` that hold the file whose whole path is `path` (see
/// [`Trees::holders`]), given the subfolders and the top folder seen so far.
fn holders<'s>(
    subfolders: &'s [Vec<u8>],
    top: &'s TopFolder,
    path: &'s [u8],
) -> impl Iterator<Item = (usize, bool)> + 's {
    let relative = match &top.prefix {
        Some(prefix) if !prefix.is_empty() => path.strip_prefix(prefix.as_slice()),
        _ => None,
    };
    subfolders
        .iter()
        .enumerate()
        .flat_map(move |(i, subfolder)| {
            let is_whole_tree = subfolder.is_empty();
            let under_top = is_whole_tree || relative.is_some_and(|r| r.starts_with(subfolder));
            let whole = !is_whole_tree && path.starts_with(subfolder);
            [(i, true, under_top), (i, false, whole)]
        })
        .filter(|&(_, _, holds)| holds)
        .map(|(i, is_under_top, _)| (i, is_under_top))
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
        let mut trees = Trees::new(0, &[Vec::new()]);
        let matcher = Matcher::new(&["x"]).unwrap();
        let mut counter = matcher.file_counter();
        counter.feed(b"x");
        for &(path, is_dir) in paths {
            let path = strip_dot(path.as_bytes());
            trees.see(path, is_dir);
            if !is_dir {
                trees.add_file(path, &counter);
            }
        }
        trees.finish().0[0]
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
