//! The walls a registry package's server runs in: bubblewrap (`bwrap`) on Linux.
//!
//! Owns the `bwrap` command line: every namespace unshared (`--unshare-all`: no
//! network but a loopback of its own, its own PID, IPC and UTS namespaces), the
//! system folders, the package's prefix and its interpreter's folder bound
//! read-only, an `/etc/hosts` naming the loopback only (a server binding `localhost`
//! resolves it without the host's names), an empty private HOME, /tmp and /dev/shm of bounded size (the root and
//! /dev read-only once made), `--die-with-parent` and
//! `--new-session` (no access to the terminal). The server's environment is set
//! inside, from the options bwrap reads on a descriptor (`probe::handoff`): bwrap
//! itself, a host process, starts with none of it. It also checks, once a run, that the
//! sandbox can be made here. The bounds on memory, files, processes and output are
//! `bounds`'s, and the probe's own limits (time, message size) still hold inside. docs/method.md, "The wire survey", says what these walls
//! keep out and what they cannot.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

use crate::infra::process::{self, Limits};
use crate::probe::handoff;

/// The HOME a sandboxed server sees, and the folder it starts in: an empty tmpfs.
pub(super) const HOME: &str = "/home/probe";
/// The PATH a sandboxed server sees.
const PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// The XDG variables a sandboxed server starts with, and their folders, made empty
/// and writable in its HOME and /tmp (the runtime folder).
const XDG_DIRS: [(&str, &str); 5] = [
    ("XDG_CONFIG_HOME", "/home/probe/.config"),
    ("XDG_CACHE_HOME", "/home/probe/.cache"),
    ("XDG_DATA_HOME", "/home/probe/.local/share"),
    ("XDG_STATE_HOME", "/home/probe/.local/state"),
    ("XDG_RUNTIME_DIR", "/tmp/runtime"),
];

/// System folders bound read-only when they exist.
const SYSTEM: [&str; 14] = [
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/etc/alternatives",
    "/etc/ssl",
    "/etc/ca-certificates",
    "/etc/ld.so.cache",
    "/etc/localtime",
    "/etc/passwd",
    "/etc/group",
    "/etc/nsswitch.conf",
];

/// The `/etc/hosts` a sandboxed server reads: the loopback's names, nothing of the
/// host's.
const HOSTS: &str = "127.0.0.1 localhost\n::1 localhost\n";

/// Holds what a run's sandboxes are made with: bwrap, and the `/etc/hosts` file
/// bound into each, removed when the run ends.
#[derive(Debug)]
pub struct Walls {
    bwrap: PathBuf,
    hosts: tempfile::TempPath,
}

impl Walls {
    /// Writes the hosts file the sandboxes of a run read; the error says where.
    pub fn new(bwrap: PathBuf) -> Result<Walls, String> {
        let mut file = tempfile::Builder::new()
            .prefix("mcp-hint-census-hosts-")
            .tempfile()
            .map_err(|e| format!("creating the sandbox's hosts file: {e}"))?;
        std::io::Write::write_all(&mut file, HOSTS.as_bytes())
            .map_err(|e| format!("writing '{}': {e}", file.path().display()))?;
        Ok(Walls {
            bwrap,
            hosts: file.into_temp_path(),
        })
    }

    /// Returns the hosts file each sandbox of the run binds as `/etc/hosts`, and its
    /// bytes.
    pub fn hosts(&self) -> (&Path, &'static str) {
        (&self.hosts, HOSTS)
    }

    /// Returns `command` run inside the sandbox, reading `dirs`, each folder of
    /// `writable` seen through its throwaway copy ([`Scratch`]), its environment read
    /// from descriptor [`handoff::FD`] (`--args`), as `probe::handoff` hands it over.
    pub fn wrap(&self, dirs: &[PathBuf], writable: &Scratch, command: &[String]) -> Vec<String> {
        let mut line = vec![self.bwrap.display().to_string()];
        line.extend(arguments(dirs, Some(&self.hosts)));
        // Over the read-only prefix, before the root is made read-only.
        let at = line
            .iter()
            .position(|word| word == "--remount-ro")
            .unwrap_or(line.len());
        let binds = writable.copies.iter().flat_map(|(copy, original)| {
            [
                "--bind".to_string(),
                copy.display().to_string(),
                original.display().to_string(),
            ]
        });
        line.splice(at..at, binds);
        // Before the `--` that ends bwrap's options.
        line.pop();
        line.extend([
            "--args".to_string(),
            handoff::FD.to_string(),
            "--".to_string(),
        ]);
        line.extend(command.iter().cloned());
        line
    }
}

/// The most bytes of a package's own folders copied for it to write into; a larger
/// folder stays read-only.
pub const MAX_WRITABLE: u64 = 64 << 20;

/// Holds the throwaway copies of a package's own folders that a sandbox binds
/// writable in their place, so that a server that writes beside its code runs and
/// the install is unchanged afterwards (bubblewrap 0.8 has no overlay); removed when
/// dropped.
#[derive(Debug, Default)]
pub struct Scratch {
    _dir: Option<tempfile::TempDir>,
    /// Each copy and the folder it stands in for.
    copies: Vec<(PathBuf, PathBuf)>,
}

impl Scratch {
    /// Copies each of `folders` (at most [`MAX_WRITABLE`] bytes in all, links kept as
    /// links) into a folder made in `parent`; a folder past the bound, or one that
    /// cannot be copied, is left out and stays read-only.
    pub fn of(folders: &[PathBuf], parent: &Path) -> Scratch {
        let Ok(dir) = tempfile::Builder::new()
            .prefix(".writable-")
            .tempdir_in(parent)
        else {
            return Scratch::default();
        };
        let mut left = MAX_WRITABLE;
        let mut copies = Vec::new();
        for (i, folder) in folders.iter().enumerate() {
            let copy = dir.path().join(i.to_string());
            match copy_tree(folder, &copy, &mut left) {
                Ok(()) => copies.push((copy, folder.clone())),
                Err(_) => {
                    let _ = std::fs::remove_dir_all(&copy);
                }
            }
        }
        Scratch {
            _dir: Some(dir),
            copies,
        }
    }
}

impl Scratch {
    /// Returns each copy and the folder it is bound in place of.
    pub fn copies(&self) -> &[(PathBuf, PathBuf)] {
        &self.copies
    }
}

/// Copies the tree `from` to `to`: folders, files and links as links, taking their
/// bytes from `left`; fails past it.
fn copy_tree(from: &Path, to: &Path, left: &mut u64) -> std::io::Result<()> {
    std::fs::create_dir(to)?;
    for entry in std::fs::read_dir(from)? {
        let entry = entry?;
        let (source, target) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type()?;
        if kind.is_dir() {
            copy_tree(&source, &target, left)?;
        } else if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&source)?, &target)?;
        } else if kind.is_file() {
            let size = entry.metadata()?.len();
            *left = left.checked_sub(size).ok_or_else(|| {
                std::io::Error::other("the package's own folders are past the bound")
            })?;
            std::fs::copy(&source, &target)?;
        }
    }
    Ok(())
}

/// Returns `bwrap` on PATH, or an error naming the Debian package that has it.
pub fn find() -> Result<PathBuf, String> {
    if !cfg!(target_os = "linux") {
        return Err("registry packages run in a bubblewrap sandbox, which needs Linux".to_string());
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .map(|dir| dir.join("bwrap"))
        .find(|file| file.is_file())
        .ok_or_else(|| {
            "registry packages run in a bubblewrap sandbox and 'bwrap' is not on PATH \
             (Debian and Ubuntu: apt-get install bubblewrap)"
                .to_string()
        })
}

/// Checks that `bwrap` can make the sandbox here (user namespaces may be off); the
/// error is what bwrap said.
pub fn check(bwrap: &Path) -> Result<(), String> {
    let mut command = Command::new(bwrap);
    command.args(arguments(&[], None));
    // Found on the sandbox's PATH, not the caller's, which may not hold it; nothing
    // else of the caller's environment.
    command.arg("true").env_clear().env("PATH", PATH);
    let limits = Limits {
        time: Some(Duration::from_secs(20)),
        idle: None,
        max_stderr: 4096,
    };
    let out = process::output(command, &limits, 4096)
        .map_err(|e| format!("running '{}': {e}", bwrap.display()))?;
    match out.status {
        Some(status) if status.success() => Ok(()),
        _ => Err(format!(
            "bubblewrap could not make the sandbox here: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

/// Returns bwrap's options for a server reading `dirs` (read-only) and `hosts` as
/// its `/etc/hosts`, before the command.
fn arguments(dirs: &[PathBuf], hosts: Option<&Path>) -> Vec<String> {
    let mut args: Vec<String> = [
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
    ]
    .map(String::from)
    .to_vec();
    for dir in SYSTEM {
        args.extend([
            "--ro-bind-try".to_string(),
            dir.to_string(),
            dir.to_string(),
        ]);
    }
    if let Some(hosts) = hosts {
        args.extend([
            "--ro-bind".to_string(),
            hosts.display().to_string(),
            "/etc/hosts".to_string(),
        ]);
    }
    args.extend(["--proc", "/proc", "--dev", "/dev"].map(String::from));
    // Each tmpfs is memory: its size is bounded, so that writing without end fills
    // it (ENOSPC) rather than the host's memory.
    for dir in ["/dev/shm", "/tmp", HOME] {
        args.extend([
            "--size".to_string(),
            crate::probe::bounds::MAX_TMPFS.to_string(),
            "--tmpfs".to_string(),
            dir.to_string(),
        ]);
    }
    // The folders a program writes its state in, empty and writable.
    for dir in XDG_DIRS.iter().map(|(_, dir)| *dir) {
        args.extend(["--dir".to_string(), dir.to_string()]);
    }
    // The home `/etc/passwd` names for the user, for a child started without HOME
    // (which then asks the password database): the same private HOME, or, where a
    // folder bound below lies in it (an interpreter under /root/.pyenv), a private
    // tmpfs of its own under those binds. ipybox's kernel gateway made its runtime
    // folder under /root, read-only here, and died.
    if let Some(home) = passwd_home() {
        let inside = format!("{home}/");
        match dirs
            .iter()
            .any(|d| d.to_string_lossy().starts_with(&inside))
        {
            true => args.extend([
                "--size".to_string(),
                crate::probe::bounds::MAX_TMPFS.to_string(),
                "--tmpfs".to_string(),
                home,
            ]),
            false => args.extend(["--symlink".to_string(), HOME.to_string(), home]),
        }
    }
    // After the tmpfs: a prefix under /tmp is bound over it.
    for dir in dirs {
        let dir = dir.display().to_string();
        args.extend(["--ro-bind".to_string(), dir.clone(), dir]);
    }
    // The root and /dev are tmpfs of bwrap's own, unbounded: read-only once made, so
    // that only the bounded ones take writes.
    args.extend(["--remount-ro", "/dev", "--remount-ro", "/"].map(String::from));
    args.extend(["--chdir".to_string(), HOME.to_string()]);
    args.push("--".to_string());
    args
}

/// Returns the home folder `/etc/passwd` gives the user running the survey, when it
/// is a folder of its own the sandbox would otherwise lack (`/root`, `/home/alice`):
/// not the sandbox's HOME, nor a system folder, `/tmp` or the root.
fn passwd_home() -> Option<String> {
    // SAFETY: getuid has no preconditions and cannot fail.
    let uid = unsafe { libc::getuid() }.to_string();
    let text = std::fs::read_to_string("/etc/passwd").ok()?;
    home_of(&text, &uid)
}

/// Returns the home field of `uid`'s line of a password database, when the sandbox
/// may link it to its HOME (see [`passwd_home`]).
fn home_of(passwd: &str, uid: &str) -> Option<String> {
    let home = passwd.lines().find_map(|line| {
        let fields: Vec<&str> = line.split(':').collect();
        (fields.len() >= 7 && fields[2] == uid).then(|| fields[5].to_string())
    })?;
    let home = home.trim_end_matches('/');
    let is_taken = |dir: &str| home == dir || home.starts_with(&format!("{dir}/"));
    let allowed = home.starts_with('/')
        && !home.contains("/../")
        && !home.ends_with("/..")
        && home != HOME
        && !SYSTEM
            .iter()
            .chain(["/tmp", "/dev", "/proc", "/etc"].iter())
            .any(|d| is_taken(d))
        && !HOME.starts_with(&format!("{home}/"));
    allowed.then(|| home.to_string())
}

/// Returns the environment a sandboxed server starts with inside the walls, before its
/// own variables: nothing of the prober's.
pub fn environment() -> Vec<(String, String)> {
    [
        ("PATH", PATH),
        ("HOME", HOME),
        ("TMPDIR", "/tmp"),
        ("LANG", "C.UTF-8"),
    ]
    .into_iter()
    .chain(XDG_DIRS)
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_prefix_is_bound_read_only_after_the_private_tmp() {
        let walls = Walls::new(PathBuf::from("/usr/bin/bwrap")).unwrap();
        let hosts = walls.hosts.to_path_buf();
        assert_eq!(std::fs::read_to_string(&hosts).unwrap(), HOSTS);
        let line = walls.wrap(
            &[PathBuf::from("/tmp/cache/npm/x@1")],
            &Scratch::default(),
            &["node".to_string(), "x.js".to_string()],
        );
        let text = line.join(" ");
        assert!(
            text.contains(&format!("--ro-bind {} /etc/hosts --proc", hosts.display())),
            "{text}"
        );
        drop(walls);
        assert!(!hosts.exists(), "the hosts file outlived its run");
        assert!(text.starts_with("/usr/bin/bwrap --unshare-all --die-with-parent --new-session"));
        let tmpfs = text.find("--size 134217728 --tmpfs /tmp").unwrap();
        assert!(
            text.contains("--size 134217728 --tmpfs /home/probe"),
            "{text}"
        );
        let read_only = text
            .find("--remount-ro /dev --remount-ro / --chdir")
            .unwrap();
        let prefix = text
            .find("--ro-bind /tmp/cache/npm/x@1 /tmp/cache/npm/x@1")
            .unwrap();
        assert!(tmpfs < prefix && prefix < read_only, "{text}");
        assert!(
            text.ends_with("--chdir /home/probe --args 3 -- node x.js"),
            "{text}"
        );
        assert!(
            !text.contains("--bind "),
            "nothing is bound writable: {text}"
        );
    }

    #[test]
    fn the_users_home_in_the_password_database_is_the_private_home() {
        let passwd = "root:x:0:0:root:/root:/bin/bash
                      alice:x:1000:1000::/home/alice/:/bin/sh
                      svc:x:998:998::/usr/lib/svc:/sbin/nologin
                      odd:x:997:997::/home:/bin/sh
                      short:x:996
";
        assert_eq!(home_of(passwd, "0").as_deref(), Some("/root"));
        assert_eq!(home_of(passwd, "1000").as_deref(), Some("/home/alice"));
        // A system folder, a parent of the sandbox's HOME, a user not listed: none.
        assert_eq!(home_of(passwd, "998"), None);
        assert_eq!(home_of(passwd, "997"), None);
        assert_eq!(home_of(passwd, "996"), None);
        assert_eq!(home_of(passwd, "5"), None);
    }
}
