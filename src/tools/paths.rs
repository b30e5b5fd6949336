//! Paths inside a tree, as raw bytes: a file's extension, its folder, and a
//! relative path joined onto a folder without ever climbing out of the tree.

/// Returns the bytes after the last `.` of the last path component, lowercased.
pub(crate) fn extension(path: &[u8]) -> Vec<u8> {
    extension_as_written(path).to_ascii_lowercase()
}

/// [`extension`] as the path spells it, without allocating.
pub(crate) fn extension_as_written(path: &[u8]) -> &[u8] {
    let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
    match name.iter().rposition(|&b| b == b'.') {
        Some(i) if i > 0 => &name[i + 1..],
        _ => b"",
    }
}

pub(crate) fn parent(path: &[u8]) -> &[u8] {
    match path.iter().rposition(|&b| b == b'/') {
        Some(i) => &path[..i],
        None => b"",
    }
}

/// Joins a folder and a relative `/`-separated path, folding `.` and `..`; `None`
/// when `..` climbs above the tree's top folder.
pub(crate) fn join(dir: &[u8], rel: &str) -> Option<Vec<u8>> {
    let mut parts: Vec<&[u8]> = dir
        .split(|&b| b == b'/')
        .filter(|p| !p.is_empty())
        .collect();
    for seg in rel.split('/') {
        match seg {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s.as_bytes()),
        }
    }
    Some(parts.join(&b'/'))
}
