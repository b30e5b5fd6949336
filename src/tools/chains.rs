//! The chains of imports: which files' definitions count (those that use an MCP
//! SDK, and those such a file reaches), and which unread files may stand on a chain
//! from a file using an SDK to a registration, so that the collector parses them
//! before it answers (docs/method.md, "Tools": "What is parsed"). It draws the
//! graph over parsed files by their imports and unread ones by what their text may
//! name; it parses nothing.

use std::cell::OnceCell;
use std::collections::{BTreeSet, HashMap};

use super::filter::prefilter;
use super::lang::Lang;
use super::packages::{module_paths, Modules};
use super::resolver::{self, Resolver, Unread};
use super::roles::Role;
use super::value::{self, FileSummary, Spec};

/// Rounds of [`TreeTools::resolve`] in which only the first unread file of each
/// chain is parsed (see [`unread_on_chains`]); past them, every unread file on a
/// chain is, so that a long chain costs a bounded number of rounds.
pub(super) const FRONTIER_ROUNDS: usize = 4;

/// Returns the unread files that may stand on a chain of imports from a file using
/// an MCP SDK to a parsed registration in a file that uses none: until they are
/// parsed, whether that registration counts is not known (see [`mcp_files`]). The
/// chains are drawn over every file of the tree, parsed files by their imports and
/// unread ones by what their text may name ([`prefilter::references`]), so every
/// chain parsing every file would find is among them.
///
/// A registration already `counted` (sorted; reached along imports that no unread
/// file can change) needs no chain. In the first [`FRONTIER_ROUNDS`] of `round`, only
/// the first unread file of each chain is returned (one using the SDK itself, or one
/// imported by a parsed file that a file using the SDK reaches through parsed files):
/// once it is parsed, its imports may count the registration, and the files further
/// along need not be read.
pub(super) fn unread_on_chains(
    files: &[FileSummary],
    unread: &Unread,
    modules: &Modules,
    texts: &mut UnreadTexts,
    counted: &[usize],
    round: usize,
) -> BTreeSet<Vec<u8>> {
    let targets: Vec<usize> = (0..files.len())
        .filter(|&i| !files[i].sites.is_empty() && !files[i].sdk)
        .filter(|i| counted.binary_search(i).is_err())
        .collect();
    if targets.is_empty() || unread.is_empty() {
        return BTreeSet::new();
    }
    // Nodes: the parsed files, then the unread ones, each group in path order.
    let paths: Vec<&[u8]> = files
        .iter()
        .map(|f| f.path.as_slice())
        .chain(unread.keys().copied())
        .collect();
    let parsed = files.len();
    // A file's id (see `Modules`), and the node of each id: the last of a path.
    let ids: Vec<Option<usize>> = paths.iter().map(|p| modules.id(p)).collect();
    let mut node = vec![None; modules.len()];
    for (i, id) in ids.iter().enumerate() {
        if let Some(id) = *id {
            node[id] = Some(i);
        }
    }
    let mut folders: HashMap<&[u8], Vec<usize>> = HashMap::new();
    for (i, p) in paths.iter().enumerate() {
        if is_go(p) {
            folders.entry(value::parent(p)).or_default().push(i);
        }
    }
    for (&from, id) in paths[parsed..].iter().zip(&ids[parsed..]) {
        let Some(id) = *id else { continue };
        if texts.contains_key(&id) {
            continue;
        }
        if let (Some(Some(bytes)), Some(lang)) = (unread.get(from), Lang::of(from)) {
            let text = UnreadText {
                reaches: None,
                uses_sdk: lang.uses_sdk(bytes),
            };
            texts.insert(id, text);
        }
    }
    let uses_sdk: Vec<bool> = (0..paths.len())
        .map(|i| match i < parsed {
            true => files[i].sdk,
            false => ids[i]
                .and_then(|id| texts.get(&id))
                .is_some_and(|t| t.uses_sdk),
        })
        .collect();
    // Forward from the files using an SDK, each node's edges drawn as the walk
    // meets it: an unread file no such file reaches stands on no chain, and its
    // text is not searched for the modules it names.
    let graph = Graph {
        files,
        paths: &paths,
        ids: &ids,
        node: &node,
        folders: &folders,
        unread,
        modules,
    };
    let mut edges: Vec<Vec<usize>> = vec![Vec::new(); paths.len()];
    let mut forward = vec![false; paths.len()];
    let mut next: Vec<usize> = (0..paths.len()).filter(|&i| uses_sdk[i]).collect();
    while let Some(i) = next.pop() {
        if !std::mem::replace(&mut forward[i], true) {
            edges[i] = graph.edges(i, texts);
            next.extend(edges[i].iter().copied().filter(|&j| !forward[j]));
        }
    }
    let mut back: Vec<Vec<usize>> = vec![Vec::new(); paths.len()];
    for (i, out) in edges.iter().enumerate() {
        if forward[i] {
            for &j in out {
                back[j].push(i);
            }
        }
    }
    let targets: Vec<usize> = targets.into_iter().filter(|&t| forward[t]).collect();
    let backward = walk(targets.iter().copied(), &back, |_| true);
    let on_chain = |i: usize| forward[i] && backward[i];
    let mut first = vec![round > FRONTIER_ROUNDS; paths.len()];
    if round <= FRONTIER_ROUNDS {
        // The first unread node of a chain starts it, or follows a parsed file that
        // a file using the SDK reaches through parsed files only.
        let reached = walk((0..parsed).filter(|&i| uses_sdk[i]), &edges, |j| j < parsed);
        for i in (0..parsed).filter(|&i| reached[i]) {
            for &j in &edges[i] {
                first[j] = true;
            }
        }
        // A chain from a parsed file first: once its next file is parsed, the
        // registrations it reaches may count, and the unread files using the SDK
        // that reach them too need not be read.
        if !(parsed..paths.len()).any(|i| on_chain(i) && first[i]) {
            for i in parsed..paths.len() {
                first[i] |= uses_sdk[i];
            }
        }
        // Of those, each registration's cheapest chain's only: the one through the
        // fewest unread files is the likeliest to be real, and once it is, the others
        // need not be read. When no chain has one, the rule above stands, so that the
        // rounds end on the same condition.
        let cheapest = cheapest_firsts(&edges, &uses_sdk, parsed, &targets);
        if (parsed..paths.len()).any(|i| cheapest[i] && first[i]) {
            for (f, c) in first.iter_mut().zip(cheapest) {
                *f &= c;
            }
        }
    }
    (parsed..paths.len())
        .filter(|&i| on_chain(i) && first[i])
        .map(|i| paths[i].to_vec())
        .collect()
}

/// What [`unread_on_chains`] reads of the text of an unread file, by its id in
/// [`Modules`]: read once however many rounds ask.
pub(super) type UnreadTexts = HashMap<usize, UnreadText>;

pub(super) struct UnreadText {
    /// The ids of the files the modules it may name may be
    /// ([`prefilter::references`]), once a walk needs them.
    reaches: Option<Vec<usize>>,
    /// Whether it uses an MCP SDK ([`Lang::uses_sdk`]).
    uses_sdk: bool,
}

impl UnreadText {
    /// Returns the files the text of the file at `from` may reach: a module it
    /// names, and the modules named in it (a named import may be one, as the
    /// resolver reads it: see `FileSummary::modules`).
    fn reaches(from: &[u8], references: &[Spec], modules: &Modules) -> Vec<usize> {
        let mut out = Vec::new();
        for rel in references {
            match rel {
                // Asked once a file: not kept.
                Spec::Relative(_) => {
                    out.extend(modules.held(module_paths(from, rel, modules.layout())))
                }
                // The same for every file of a scope (see `Modules::of`).
                Spec::Package(_) => out.extend(modules.of(from, rel).iter()),
            }
            // A module by package names the modules its names may be itself
            // (see `prefilter::references`).
            let folder = match rel {
                Spec::Relative(rel) => value::join(value::parent(from), rel),
                Spec::Package(_) => None,
            };
            if let Some(mut folder) = folder {
                if !folder.is_empty() {
                    folder.push(b'/');
                }
                out.extend(modules.named_in(&folder));
            }
        }
        out
    }
}

/// The nodes of [`unread_on_chains`]: the parsed files, then the unread ones,
/// each group in path order.
struct Graph<'g> {
    files: &'g [FileSummary],
    paths: &'g [&'g [u8]],
    /// Each node's id in `modules`.
    ids: &'g [Option<usize>],
    /// The node of each id.
    node: &'g [Option<usize>],
    /// Go folder → its nodes.
    folders: &'g HashMap<&'g [u8], Vec<usize>>,
    unread: &'g Unread<'g>,
    modules: &'g Modules,
}

impl Graph<'_> {
    /// Returns the nodes node `i` may import: a parsed file's as the resolver reads
    /// them (and every unread file it could meet first), an unread file's as its
    /// text may name them (read once a tree, into `texts`), and in Go the other
    /// files of its folder.
    fn edges(&self, i: usize, texts: &mut UnreadTexts) -> Vec<usize> {
        let (from, parsed) = (self.paths[i], self.files.len());
        let mut out = Vec::new();
        if i < parsed {
            for rel in self.files[i].modules() {
                for &candidate in self.modules.of(from, &rel).iter() {
                    match self.node[candidate] {
                        Some(j) if j == i => {}
                        Some(j) if j < parsed => {
                            out.push(j);
                            break;
                        }
                        Some(j) => out.push(j),
                        None => {}
                    }
                }
            }
        } else if let Some(text) = self.ids[i].and_then(|id| texts.get_mut(&id)) {
            let reaches =
                text.reaches
                    .get_or_insert_with(|| match (self.unread.get(from), Lang::of(from)) {
                        (Some(Some(bytes)), Some(lang)) => {
                            let references = prefilter::references(lang, bytes);
                            UnreadText::reaches(from, &references, self.modules)
                        }
                        _ => Vec::new(),
                    });
            out.extend(reaches.iter().filter_map(|&id| self.node[id]));
        }
        if let Some(same) = self.folders.get(value::parent(from)) {
            if is_go(from) {
                out.extend(same.iter().copied());
            }
        }
        out.retain(|&j| j != i);
        out
    }
}

/// Returns true for a Go file (by its extension, in any case).
fn is_go(path: &[u8]) -> bool {
    value::extension_as_written(path).eq_ignore_ascii_case(b"go")
}

/// Marks, for each of `targets`, the first unread node (at `parsed` or past it) of
/// the chain to it from a node using an SDK that holds the fewest unread nodes: a
/// breadth-first walk in which a parsed node costs nothing (a 0-1 search).
fn cheapest_firsts(
    edges: &[Vec<usize>],
    uses_sdk: &[bool],
    parsed: usize,
    targets: &[usize],
) -> Vec<bool> {
    let cost = |i: usize| usize::from(i >= parsed);
    let mut unread_on_way = vec![usize::MAX; edges.len()];
    let mut came_from = vec![usize::MAX; edges.len()];
    let mut next = std::collections::VecDeque::new();
    for i in (0..edges.len()).filter(|&i| uses_sdk[i]) {
        unread_on_way[i] = cost(i);
        came_from[i] = i;
        match cost(i) {
            0 => next.push_front(i),
            _ => next.push_back(i),
        }
    }
    let mut done = vec![false; edges.len()];
    while let Some(i) = next.pop_front() {
        if std::mem::replace(&mut done[i], true) {
            continue;
        }
        for &j in &edges[i] {
            let through = unread_on_way[i] + cost(j);
            if through < unread_on_way[j] {
                unread_on_way[j] = through;
                came_from[j] = i;
                match cost(j) {
                    0 => next.push_front(j),
                    _ => next.push_back(j),
                }
            }
        }
    }
    let mut marked = vec![false; edges.len()];
    for &target in targets {
        if came_from[target] == usize::MAX {
            continue;
        }
        let (mut at, mut first) = (target, None);
        loop {
            if at >= parsed {
                first = Some(at);
            }
            if came_from[at] == at {
                break;
            }
            at = came_from[at];
        }
        if let Some(first) = first {
            marked[first] = true;
        }
    }
    marked
}

/// Marks every node reached from `starts` along `edges`, through nodes `within`
/// holds only.
fn walk(
    starts: impl Iterator<Item = usize>,
    edges: &[Vec<usize>],
    within: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let mut seen = vec![false; edges.len()];
    let mut next: Vec<usize> = starts.collect();
    while let Some(i) = next.pop() {
        if !std::mem::replace(&mut seen[i], true) {
            next.extend(edges[i].iter().copied().filter(|&j| !seen[j] && within(j)));
        }
    }
    seen
}

/// Returns the files whose definitions count, in path order: those that use an MCP
/// SDK of their family, and those such a file reaches through relative imports (or,
/// in Go, by sharing its folder), transitively. A definition anywhere else belongs to
/// another framework (LangChain's `@tool`, an agent's own registry). A file whose
/// path gives it the role `source` counts only when reached from source files, so
/// that the tree's own tools do not depend on whether tests are read
/// (`--tool-roles`). Also returns the unread files the answer waits on: those
/// before a parsed module an import may reach (see [`resolver::Reach`]), when reaching
/// it or not changes which registrations count.
pub(super) fn mcp_files(
    files: &[FileSummary],
    resolver: &Resolver,
) -> (Vec<usize>, BTreeSet<Vec<u8>>) {
    let is_source: Vec<bool> = files
        .iter()
        .map(|f| Role::of_path(&f.path).0 == Role::Source)
        .collect();
    // Drawn as a walk meets a file: files no file using an SDK reaches are not asked.
    let reach: Vec<OnceCell<resolver::Reach>> = (0..files.len()).map(|_| OnceCell::new()).collect();
    let reach_of = |i: usize| reach[i].get_or_init(|| resolver.reaches(i));
    let closure = |within: &dyn Fn(usize) -> bool, unsure: bool| {
        let mut reached: BTreeSet<usize> = BTreeSet::new();
        // Go packages already walked into, by their first file: packages are
        // disjoint, and each file of one reaches the same others.
        let mut packages: BTreeSet<usize> = BTreeSet::new();
        let mut next: Vec<usize> = (0..files.len())
            .filter(|&i| files[i].sdk && within(i))
            .collect();
        while let Some(file) = next.pop() {
            if reached.insert(file) {
                let r = reach_of(file);
                let more = r.unsure.iter().map(|(i, _)| *i).filter(|_| unsure);
                let package = match r.package.first() {
                    Some(&first) if packages.insert(first) => r.package,
                    _ => &[],
                };
                let out = r.sure.iter().chain(package).copied().chain(more);
                next.extend(out.filter(|&i| within(i)));
            }
        }
        reached
    };
    let counted = |unsure: bool| -> Vec<usize> {
        let from_source = closure(&|i| is_source[i], unsure);
        let from_any = closure(&|_| true, unsure);
        (0..files.len())
            .filter(|&i| match is_source[i] {
                true => from_source.contains(&i),
                false => from_any.contains(&i),
            })
            .collect()
    };
    let sure = counted(false);
    let registering = |set: &[usize]| -> Vec<usize> {
        set.iter()
            .copied()
            .filter(|&i| !files[i].sites.is_empty())
            .collect()
    };
    // The two differ only when a file the walks reached has an unsure import: each
    // such file's reach is drawn by now.
    let waits = reach
        .iter()
        .filter_map(OnceCell::get)
        .any(|r| !r.unsure.is_empty())
        && registering(&sure) != registering(&counted(true));
    let waiting = match waits {
        true => (0..files.len())
            .flat_map(|i| reach_of(i).unsure.iter().map(|(_, p)| p.clone()))
            .collect(),
        false => BTreeSet::new(),
    };
    (sure, waiting)
}
