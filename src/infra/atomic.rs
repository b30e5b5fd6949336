//! Writes a file whole or not at all: through a temporary sibling renamed into
//! place, so a reader (or a run that stops midway) never sees half a table or half a
//! corpus, and a file that was there stays until its replacement is complete.
//!
//! Every result file is written here (census tables, the corpus and its skipped
//! list), so each gets the same mode: readable by everyone (0644 before the umask's
//! say, as `fs::write` would give), not the 0600 of a temporary file.

use std::fs;
use std::io::{self, Write};
use std::path::Path;

use anyhow::{Context, Result};

/// Writes `path` with what `write` writes, through a temporary sibling renamed into
/// place; errors name `path`.
///
/// A path that names something other than a regular file (`/dev/null`, a fifo, a
/// terminal) is written to as it is: renaming over it would replace the device with
/// a plain file, and a special file holds no half-written table anyway.
pub fn write_atomic(path: &Path, write: impl FnOnce(&mut dyn Write) -> Result<()>) -> Result<()> {
    if fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let file = fs::OpenOptions::new()
            .write(true)
            .open(path)
            .with_context(|| format!("writing '{}'", path.display()))?;
        let mut w = io::BufWriter::new(file);
        write(&mut w).with_context(|| format!("writing '{}'", path.display()))?;
        return w
            .flush()
            .with_context(|| format!("writing '{}'", path.display()));
    }
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let mut temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("writing to '{}'", dir.display()))?;
    {
        let mut w = io::BufWriter::new(temp.as_file_mut());
        write(&mut w).with_context(|| format!("writing '{}'", path.display()))?;
        w.flush()
            .with_context(|| format!("writing '{}'", path.display()))?;
    }
    // A temporary file is private (0600); a result is for everyone to read.
    set_readable(temp.as_file()).with_context(|| format!("writing '{}'", path.display()))?;
    temp.persist(path)
        .with_context(|| format!("writing '{}'", path.display()))?;
    Ok(())
}

/// Writes `bytes` to `path` whole or not at all (see [`write_atomic`]).
pub fn write_bytes(path: &Path, bytes: &[u8]) -> Result<()> {
    write_atomic(path, |w| Ok(w.write_all(bytes)?))
}

#[cfg(unix)]
fn set_readable(file: &fs::File) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    file.set_permissions(fs::Permissions::from_mode(0o644))
}

#[cfg(not(unix))]
fn set_readable(_: &fs::File) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_written_is_whole_and_readable_by_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        write_bytes(&path, b"a,b\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"a,b\n");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode, 0o644);
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_special_file_is_written_to_not_replaced() {
        use std::os::unix::fs::FileTypeExt;
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || fs::read(fifo).unwrap())
        };
        write_bytes(&fifo, b"a,b\n").unwrap();
        assert_eq!(reader.join().unwrap(), b"a,b\n");
        let kind = fs::symlink_metadata(&fifo).unwrap().file_type();
        assert!(kind.is_fifo(), "the fifo was replaced: {kind:?}");
    }

    #[test]
    fn a_failed_write_leaves_the_old_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.csv");
        write_bytes(&path, b"old").unwrap();
        let err = write_atomic(&path, |w| {
            w.write_all(b"half")?;
            anyhow::bail!("stopped")
        })
        .unwrap_err();
        assert!(format!("{err:#}").contains("t.csv"), "{err:#}");
        assert_eq!(fs::read(&path).unwrap(), b"old");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "no temporary left"
        );
    }
}
