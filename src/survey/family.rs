//! A package's family in the tables a survey reads: a family member's census row
//! keeps its own counts, and its tools are the tools of the package that runs them.
//!
//! Owns reading a census row's `family` cell (`REGISTRY:NAME@VERSION` of each package
//! that pins the member to one exact version, space-separated) into the packages'
//! keys, and adding a member's definitions to theirs. Which dependencies are a
//! family is `registry::family`'s; pinning them is `corpus packages`'s
//! (docs/method.md, "A package's family").

use std::collections::BTreeMap;

use crate::table::tools::ToolsByTree;
use crate::table::{Table, TreeKey};
use crate::tools::ToolDef;

/// Returns true when the row of `key` in `table` is a family member.
pub fn is_member(table: &Table, key: &TreeKey) -> bool {
    table
        .packages
        .get(key)
        .is_some_and(|p| !p.family.is_empty())
}

/// Gives each family member's row of `table` that names no server the servers of the
/// packages whose family it is, so that a survey counts its tools for the entries
/// those packages stand for; its counts stay its own.
pub fn lend_servers(table: &mut Table) {
    let servers: BTreeMap<TreeKey, String> = table
        .rows
        .iter()
        .filter_map(|r| Some((r.key.clone(), r.server.clone()?)))
        .collect();
    for row in table.rows.iter_mut().filter(|r| r.server.is_none()) {
        let Some(family) = table.packages.get(&row.key).map(|p| p.family.as_str()) else {
            continue;
        };
        let mut names: Vec<&str> = Vec::new();
        for of in family.split(' ').filter(|of| !of.is_empty()) {
            let parent = parent_key(of, row.key.as_of.clone());
            for name in parent
                .and_then(|k| servers.get(&k))
                .into_iter()
                .flat_map(|s| s.split(' '))
            {
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
        if !names.is_empty() {
            row.server = Some(names.join(" "));
        }
    }
}

/// Returns the census key of the package `of` names (`REGISTRY:NAME@VERSION`, an npm
/// scope's `@` leading the name), at `as_of`; `None` for a cell that is not one.
pub fn parent_key(of: &str, as_of: Option<String>) -> Option<TreeKey> {
    let (_, name) = of.split_once(':')?;
    let (_, version) = name[1.min(name.len())..].rsplit_once('@')?;
    Some(TreeKey {
        repo: of[..of.len() - version.len() - 1].to_string(),
        pinned: Some(version.to_string()),
        subfolder: None,
        as_of,
    })
}

/// Adds each family member's definitions to those of the packages whose family it is
/// (`members`: the member's key and its `family` cell, `REGISTRY:NAME@VERSION`
/// space-separated), after the package's own and in the table's order, each path led
/// by the member (`npm:NAME@VERSION/package/...`): a member's tools are run by the
/// package that pins it (docs/method.md, "A package's family").
pub fn attribute(tools: &mut ToolsByTree, members: &[(TreeKey, String)]) {
    for (member, family) in members {
        let Some(defs) = tools.get(member).cloned() else {
            continue;
        };
        let lead = format!("{}@{}/", member.repo, member.pinned_cell());
        for of in family.split(' ') {
            let Some(parent) = parent_key(of, member.as_of.clone()) else {
                continue;
            };
            let own = tools.entry(parent).or_default();
            own.extend(defs.iter().map(|d| ToolDef {
                path: [lead.as_bytes(), &d.path].concat(),
                ..d.clone()
            }));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tools::{DefKind, Family, NameClass, Role};

    #[test]
    fn a_members_tools_are_added_to_its_packages_after_their_own() {
        let key = |repo: &str, version: &str| TreeKey {
            repo: repo.to_string(),
            pinned: Some(version.to_string()),
            subfolder: None,
            as_of: None,
        };
        assert_eq!(
            parent_key("npm:@s/srv@1.0.0-alpha-1", None),
            Some(key("npm:@s/srv", "1.0.0-alpha-1"))
        );
        assert_eq!(
            parent_key("pypi:srv@2.0", None),
            Some(key("pypi:srv", "2.0"))
        );
        assert_eq!(parent_key("srv", None), None);
        let def = |path: &str, name: &str| ToolDef {
            path: path.as_bytes().to_vec(),
            line: 1,
            kind: DefKind::Tool,
            role: Role::Source,
            family: Family::TypeScript,
            name: Some(name.to_string()),
            name_class: NameClass::Unknown,
            hints: [None; 4],
        };
        let mut tools = ToolsByTree::new();
        tools.insert(key("npm:srv", "1.0.0"), vec![def("package/own.js", "own")]);
        tools.insert(key("npm:@s/tools", "1.0.0"), vec![def("package/t.js", "t")]);
        let members = [(
            key("npm:@s/tools", "1.0.0"),
            "npm:srv@1.0.0 npm:other@2.0.0".to_string(),
        )];
        attribute(&mut tools, &members);
        let paths = |k: &TreeKey| -> Vec<String> {
            tools[k]
                .iter()
                .map(|d| String::from_utf8_lossy(&d.path).into_owned())
                .collect()
        };
        assert_eq!(
            paths(&key("npm:srv", "1.0.0")),
            ["package/own.js", "npm:@s/tools@1.0.0/package/t.js"]
        );
        assert_eq!(
            paths(&key("npm:other", "2.0.0")),
            ["npm:@s/tools@1.0.0/package/t.js"]
        );
        assert_eq!(
            paths(&key("npm:@s/tools", "1.0.0")),
            ["package/t.js"],
            "the member keeps its own"
        );
    }
}
