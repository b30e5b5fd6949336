//! Where in a tree a definition stands: its `role` (docs/method.md, "Roles").
//!
//! A definition in a test, an example, or a copy of the server (a build output, an
//! installed dependency) is listed in the tools table but is not one of the tree's
//! tools: the row columns and the summaries count `source` definitions only. The
//! rules are the tables below, read against the definition's path relative to the
//! tree's top folder, folder names and file names compared in ASCII lower case.
//! The first table that matches decides, in the order of [`Role::of_path`].

/// Where a definition stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Role {
    /// The tree's own server code.
    Source,
    /// A test: a test folder or a test file of its ecosystem.
    Test,
    /// An example, a sample or documentation.
    Example,
    /// A copy: an installed dependency, or a build output whose tool a source file
    /// (or an earlier copy) defines too.
    Build,
}

/// Folders whose files are another project's, installed or vendored: always `build`.
const DEPENDENCY_FOLDERS: &[&str] = &[
    "node_modules",
    "vendor",
    "site-packages",
    "dist-packages",
    "bower_components",
    ".venv",
    "venv",
];

/// Test folders of the ecosystems the finder reads (`src/test/java` through `test`).
const TEST_FOLDERS: &[&str] = &[
    "test",
    "tests",
    "__tests__",
    "__mocks__",
    "spec",
    "specs",
    "testdata",
    "e2e",
    "integration_tests",
    "unit_tests",
    "fixtures",
    "__fixtures__",
];

/// Test file names, as (prefix, suffix) pairs of the file name as written, each
/// ecosystem's convention: `*.test.ts`, `*_test.go`, `test_*.py`, `*Test.java`,
/// `*Tests.cs`, `*_spec.rb`, ... The name must be longer than the pair.
const TEST_FILES: &[(&str, &str)] = &[
    ("", ".test.ts"),
    ("", ".test.tsx"),
    ("", ".test.mts"),
    ("", ".test.js"),
    ("", ".test.mjs"),
    ("", ".test.cjs"),
    ("", ".test.jsx"),
    ("", ".spec.ts"),
    ("", ".spec.tsx"),
    ("", ".spec.js"),
    ("", ".spec.mjs"),
    ("", ".spec.jsx"),
    // Test data beside the code it serves (`ToolsScreen.fixtures.ts`).
    ("", ".fixtures.ts"),
    ("", ".fixtures.tsx"),
    ("", ".fixtures.js"),
    ("", ".fixture.ts"),
    ("", ".fixture.js"),
    ("", "_test.go"),
    ("test_", ".py"),
    ("", "_test.py"),
    ("", "Test.java"),
    ("", "Tests.java"),
    ("", "Test.kt"),
    ("", "Tests.kt"),
    ("", "Test.cs"),
    ("", "Tests.cs"),
    ("", "_test.rs"),
    ("", "_spec.rb"),
    ("", "_test.rb"),
    ("", "Test.php"),
    ("", "Tests.swift"),
];

/// Test files by their whole name.
const TEST_FILE_NAMES: &[&str] = &["conftest.py", "tests.py", "test.py"];

/// A folder whose name ends so is a test project (`Server.Tests`, `ServerTests`).
const TEST_FOLDER_SUFFIXES: &[&str] = &[".tests", ".test", "tests"];

/// Example and documentation folders.
const EXAMPLE_FOLDERS: &[&str] = &[
    "examples", "example", "samples", "sample", "docs", "doc", "cookbook",
];

/// Build output folders: a definition here is `build` when a source file (or an
/// earlier copy) defines a tool of the same family and name; else it is the tree's
/// only copy (a published package) and stays `source`.
const OUTPUT_FOLDERS: &[&str] = &["dist", "build", "out", "lib", "target", "bin", "obj"];

impl Role {
    /// Returns the role's name as the tools table spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Source => "source",
            Role::Test => "test",
            Role::Example => "example",
            Role::Build => "build",
        }
    }

    /// Reads a tools table cell back.
    pub fn parse(cell: &[u8]) -> Option<Role> {
        [Role::Source, Role::Test, Role::Example, Role::Build]
            .into_iter()
            .find(|r| r.as_str().as_bytes() == cell)
    }

    /// Returns the role a path gives, before copies are told apart: a dependency
    /// folder, then a test folder or file, then an example folder; else `source`.
    /// The second value is true when the path is under a build output folder.
    pub fn of_path(path: &[u8]) -> (Role, bool) {
        // Folders compare in ASCII lower case, the file's name as it is. Called for
        // every file a tree holds, so nothing here allocates but the folder list.
        let file = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        let mut parts: Vec<&[u8]> = path
            .split(|&b| b == b'/')
            .filter(|p| !p.is_empty())
            .collect();
        parts.pop();
        // Past Maven's `src/main` the folders are a package name (`com/example`).
        if let Some(at) = parts
            .windows(2)
            .position(|w| w[0].eq_ignore_ascii_case(b"src") && w[1].eq_ignore_ascii_case(b"main"))
        {
            parts.truncate(at + 2);
        }
        let named =
            |p: &[u8], table: &[&str]| table.iter().any(|t| p.eq_ignore_ascii_case(t.as_bytes()));
        let is = |table: &[&str]| parts.iter().any(|p| named(p, table));
        if is(DEPENDENCY_FOLDERS) {
            return (Role::Build, false);
        }
        let test_folder = parts.iter().any(|p| {
            named(p, TEST_FOLDERS)
                || TEST_FOLDER_SUFFIXES.iter().any(|s| {
                    p.len() > s.len() && p[p.len() - s.len()..].eq_ignore_ascii_case(s.as_bytes())
                })
        });
        let test_file = TEST_FILE_NAMES.iter().any(|n| file == n.as_bytes())
            || TEST_FILES.iter().any(|(prefix, suffix)| {
                file.len() > prefix.len() + suffix.len()
                    && file.ends_with(suffix.as_bytes())
                    && file.starts_with(prefix.as_bytes())
            });
        if test_folder || test_file {
            return (Role::Test, false);
        }
        if is(EXAMPLE_FOLDERS) {
            return (Role::Example, false);
        }
        (Role::Source, is(OUTPUT_FOLDERS))
    }
}

/// The roles whose files the finder reads (`--tool-roles`): `source` always, the
/// others when asked for. A file is read when the role its path gives
/// ([`Role::of_path`]) is in the set; build output folders give `source`, so their
/// files are always read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Roles(u8);

impl Roles {
    /// The default: the tree's own source.
    pub const SOURCE: Roles = Roles(1 << Role::Source as u8);
    /// Every role.
    pub const ALL: Roles = Roles(0b1111);

    /// Returns true when files of `role` are read.
    pub fn contains(self, role: Role) -> bool {
        self.0 & (1 << role as u8) != 0
    }

    /// Reads `--tool-roles`: roles separated by commas (`source` is implied), or
    /// `all`.
    pub fn parse(list: &str) -> Result<Roles, String> {
        let mut roles = Roles::SOURCE;
        for word in list.split(',').map(str::trim) {
            if word == "all" {
                roles = Roles::ALL;
                continue;
            }
            let role = Role::parse(word.as_bytes()).ok_or_else(|| {
                format!("'{word}' is not a role (source, test, example, build or all)")
            })?;
            roles.0 |= 1 << role as u8;
        }
        Ok(roles)
    }

    /// Returns the set as `--tool-roles` spells it, in `Role` order.
    pub fn as_list(self) -> String {
        [Role::Source, Role::Test, Role::Example, Role::Build]
            .into_iter()
            .filter(|r| self.contains(*r))
            .map(Role::as_str)
            .collect::<Vec<_>>()
            .join(",")
    }
}

impl Default for Roles {
    fn default() -> Roles {
        Roles::SOURCE
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_read_back_from_their_list() {
        assert_eq!(Roles::parse("source"), Ok(Roles::SOURCE));
        assert_eq!(Roles::parse("test").unwrap().as_list(), "source,test");
        assert_eq!(
            Roles::parse("build, example").unwrap().as_list(),
            "source,example,build"
        );
        assert_eq!(Roles::parse("all"), Ok(Roles::ALL));
        assert_eq!(Roles::ALL.as_list(), "source,test,example,build");
        assert!(Roles::parse("tests").is_err());
    }

    /// [`Role::of_path`] as first written, over strings: the lower-cased path split
    /// into folders, the file's name lossily decoded.
    fn of_path_by_strings(path: &[u8]) -> (Role, bool) {
        let file = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        let file = String::from_utf8_lossy(file);
        let lower = path.to_ascii_lowercase();
        let lower = String::from_utf8_lossy(&lower);
        let mut parts: Vec<&str> = lower.split('/').filter(|p| !p.is_empty()).collect();
        parts.pop();
        if let Some(at) = parts.windows(2).position(|w| w == ["src", "main"]) {
            parts.truncate(at + 2);
        }
        let is = |table: &[&str]| parts.iter().any(|p| table.contains(p));
        if is(DEPENDENCY_FOLDERS) {
            return (Role::Build, false);
        }
        let test_folder = parts.iter().any(|p| {
            TEST_FOLDERS.contains(p)
                || TEST_FOLDER_SUFFIXES
                    .iter()
                    .any(|s| p.len() > s.len() && p.ends_with(s))
        });
        let test_file = TEST_FILE_NAMES.contains(&file.as_ref())
            || TEST_FILES.iter().any(|(prefix, suffix)| {
                file.len() > prefix.len() + suffix.len()
                    && file.starts_with(prefix)
                    && file.ends_with(suffix)
            });
        if test_folder || test_file {
            return (Role::Test, false);
        }
        if is(EXAMPLE_FOLDERS) {
            return (Role::Example, false);
        }
        (Role::Source, is(OUTPUT_FOLDERS))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
        #[test]
        fn of_path_agrees_with_the_string_reading(parts in proptest::collection::vec(
            proptest::sample::select(vec![
                &b"src"[..], b"Src", b"main", b"MAIN", b"tests", b"Tests", b"x.Tests", b"a.test",
                b"node_modules", b"Node_Modules", b"examples", b"dist", b"DIST", b"lib", b"",
                b"\xff", b"\xfftests", b"test_a.py", b"test_.py", b"conftest.py", b"ServerTest.java",
                b"a.spec.ts", b"\xff.test.ts", b".test.ts", b"index.ts", b"__tests__",
            ]),
            0..6,
        )) {
            let path = parts.join(&b'/');
            proptest::prop_assert_eq!(Role::of_path(&path), of_path_by_strings(&path));
        }
    }

    #[test]
    fn paths_take_the_role_of_their_first_matching_table() {
        let cases: &[(&str, Role, bool)] = &[
            ("src/index.ts", Role::Source, false),
            ("clients/web/src/ToolsScreen.fixtures.ts", Role::Test, false),
            ("src/__fixtures__/tools.ts", Role::Test, false),
            ("apps/mcp/src/tools/search.ts", Role::Source, false),
            ("src/tools/search.test.ts", Role::Test, false),
            ("src/__tests__/search.ts", Role::Test, false),
            ("server/main_test.go", Role::Test, false),
            ("tests/test_server.py", Role::Test, false),
            ("pkg/test_server.py", Role::Test, false),
            ("pkg/conftest.py", Role::Test, false),
            ("src/test/java/io/x/ServerTest.java", Role::Test, false),
            ("McpServer.Tests/ToolsTests.cs", Role::Test, false),
            ("spec/tool_spec.rb", Role::Test, false),
            ("examples/servers/simple.py", Role::Example, false),
            ("docs/snippets/tool.ts", Role::Example, false),
            ("samples/Weather/Program.cs", Role::Example, false),
            ("dist/index.js", Role::Source, true),
            ("packages/a/lib/tools.js", Role::Source, true),
            ("node_modules/@x/server/dist/index.js", Role::Build, false),
            ("examples/node_modules/a/index.js", Role::Build, false),
            (
                ".venv/lib/python3.12/site-packages/a/server.py",
                Role::Build,
                false,
            ),
            ("src/testing_utils.py", Role::Source, false),
            ("src/latest.py", Role::Source, false),
            ("src/contest.ts", Role::Source, false),
            ("app/tests.py", Role::Test, false),
            ("src/Latest.java", Role::Source, false),
            ("src/main/java/com/example/Server.java", Role::Source, false),
            (
                "examples/weather/src/main/java/com/x/Server.java",
                Role::Example,
                false,
            ),
            ("src/test_.py", Role::Source, false),
        ];
        for (path, role, output) in cases {
            assert_eq!(Role::of_path(path.as_bytes()), (*role, *output), "{path}");
        }
    }

    #[test]
    fn a_role_reads_back_from_its_cell() {
        for role in [Role::Source, Role::Test, Role::Example, Role::Build] {
            assert_eq!(Role::parse(role.as_str().as_bytes()), Some(role));
        }
        assert_eq!(Role::parse(b"Source"), None);
    }
}
