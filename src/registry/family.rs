//! A package's family: the dependencies its metadata pins to one exact version.
//!
//! A dependency pinned to one exact version is published with the package, by the
//! same hands (`mongodb-mcp-server` 3.0.4 runs the tools of
//! `@mongodb-js/mcp-tools-mongodb` 3.0.4), so it is part of what ships
//! (docs/method.md, "A package's family"). This module owns only the reading of a
//! dependency as exact: npm's `dependencies` value that is one semver version, and a
//! PEP 508 `Requires-Dist` of one `==` version with no wildcard, outside any extra.
//! A range, a tag, a URL, an alias or a wildcard is not exact. It asks no index.

/// How many members one package's family may have; the rest are named, not pinned.
pub const MAX_MEMBERS: usize = 16;

/// Returns true when an npm `dependencies` value is one exact version: a semver
/// `MAJOR.MINOR.PATCH`, with an optional `-PRERELEASE` and `+BUILD` (`3.0.4`,
/// `1.64.0-alpha-1790635538000`), as `npm install --save-exact` writes it. A range
/// (`^3.0.4`, `~1`, `>=1 <2`, `1.x`, `*`), a tag (`latest`), a URL, a path or an alias
/// (`npm:other@1.0.0`) is not.
pub fn is_exact_npm(spec: &str) -> bool {
    let (rest, build) = match spec.split_once('+') {
        Some((rest, build)) => (rest, Some(build)),
        None => (spec, None),
    };
    let (core, pre) = match rest.split_once('-') {
        Some((core, pre)) => (core, Some(pre)),
        None => (rest, None),
    };
    let numbers: Vec<&str> = core.split('.').collect();
    let is_number = |n: &&str| {
        !n.is_empty()
            && n.bytes().all(|b| b.is_ascii_digit())
            && (n.len() == 1 || !n.starts_with('0'))
    };
    let is_identifiers = |text: &str| {
        text.split('.').all(|part| {
            !part.is_empty() && part.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
        })
    };
    numbers.len() == 3
        && numbers.iter().all(is_number)
        && pre.is_none_or(is_identifiers)
        && build.is_none_or(is_identifiers)
}

/// Returns the name and version of a PEP 508 requirement (a `Requires-Dist` value)
/// that pins one exact version: `name==1.2.3`, `name[extra] (==1.2.3)`, `name===1.2.3`,
/// with any marker but an `extra` one (a dependency only an extra installs is not
/// what ships by default). A wildcard (`==1.*`), a second clause (`==1,!=2`), any
/// other operator or a URL (`name @ https://...`) is not exact.
pub fn exact_pep508(requirement: &str) -> Option<(String, String)> {
    let (spec, marker) = match requirement.split_once(';') {
        Some((spec, marker)) => (spec, Some(marker)),
        None => (requirement, None),
    };
    if marker.is_some_and(|m| m.contains("extra")) {
        return None;
    }
    let spec = spec.trim();
    let end = spec
        .find(|c: char| !(c.is_ascii_alphanumeric() || "-_.".contains(c)))
        .unwrap_or(spec.len());
    let (name, mut rest) = spec.split_at(end);
    if !is_valid_pypi_name(name) {
        return None;
    }
    rest = rest.trim_start();
    if let Some(extras) = rest.strip_prefix('[') {
        rest = extras.split_once(']')?.1.trim_start();
    }
    if let Some(inner) = rest.strip_prefix('(') {
        rest = inner.strip_suffix(')')?.trim();
    }
    let version = rest
        .strip_prefix("===")
        .or_else(|| rest.strip_prefix("=="))?
        .trim();
    let is_version = !version.is_empty()
        && version
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"._+!-".contains(&b));
    is_version.then(|| (name.to_string(), version.to_string()))
}

/// Returns the exact-pinned requirements of a core metadata file (PKG-INFO,
/// METADATA, PEP 658's `.metadata`): its `Requires-Dist` headers, in order, up to
/// the blank line that ends the headers.
pub fn exact_requires_dist(metadata: &str) -> Vec<(String, String)> {
    metadata
        .lines()
        .take_while(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let (key, value) = line.split_once(':')?;
            match key.trim().eq_ignore_ascii_case("requires-dist") {
                true => exact_pep508(value),
                false => None,
            }
        })
        .collect()
}

/// Returns true when `name` is a valid distribution name (PEP 508: ASCII letters
/// and digits, with `-`, `_` and `.` inside).
pub fn is_valid_pypi_name(name: &str) -> bool {
    let bytes = name.as_bytes();
    !bytes.is_empty()
        && bytes.len() <= 200
        && bytes[0].is_ascii_alphanumeric()
        && bytes[bytes.len() - 1].is_ascii_alphanumeric()
        && bytes
            .iter()
            .all(|b| b.is_ascii_alphanumeric() || b"-_.".contains(b))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_npm_dependency_is_exact_only_as_one_semver_version() {
        for exact in [
            "3.0.4",
            "1.64.0-alpha-1790635538000",
            "0.0.83",
            "1.2.3-rc.1+build.5",
        ] {
            assert!(is_exact_npm(exact), "{exact}");
        }
        for not in [
            "^3.0.4",
            "~3.0.4",
            ">=1.0.0",
            "1.x",
            "1.2",
            "*",
            "",
            "latest",
            "=1.2.3",
            "v1.2.3",
            "1.2.3 - 2.0.0",
            "1.2.3 || 2.0.0",
            "npm:other@1.0.0",
            "file:../x",
            "https://r.example/x-1.0.0.tgz",
            "github:o/r",
            "01.2.3",
            "1.2.3-",
            "1.2.3-a..b",
            "workspace:*",
        ] {
            assert!(!is_exact_npm(not), "{not}");
        }
    }

    #[test]
    fn a_pep508_requirement_is_exact_only_as_one_equal_version() {
        let pair = |n: &str, v: &str| Some((n.to_string(), v.to_string()));
        assert_eq!(exact_pep508("mcp-tools==1.2.3"), pair("mcp-tools", "1.2.3"));
        assert_eq!(exact_pep508("Tools_X (==0.4.0)"), pair("Tools_X", "0.4.0"));
        assert_eq!(exact_pep508("a[cli] == 2.0rc1"), pair("a", "2.0rc1"));
        assert_eq!(exact_pep508("a===1.0+local"), pair("a", "1.0+local"));
        assert_eq!(
            exact_pep508("a==1.0; python_version >= \"3.10\""),
            pair("a", "1.0")
        );
        for not in [
            "a",
            "a>=1.0",
            "a~=1.0",
            "a==1.*",
            "a==1.0,!=1.0.1",
            "a!=1.0",
            "a<=1.0",
            "a==1.0; extra == \"dev\"",
            "a @ https://f.example/a-1.0.whl",
            "==1.0",
            "a==",
        ] {
            assert_eq!(exact_pep508(not), None, "{not}");
        }
        let metadata = "Metadata-Version: 2.1\nName: srv\nRequires-Dist: tools==1.0\n\
                        Requires-Dist: httpx>=0.27\nrequires-dist: b (==2)\n\nRequires-Dist: c==3\n";
        assert_eq!(
            exact_requires_dist(metadata),
            [
                ("tools".to_string(), "1.0".to_string()),
                ("b".to_string(), "2".to_string())
            ]
        );
    }
}
