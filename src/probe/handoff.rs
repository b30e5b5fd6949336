//! How a sandboxed server's environment crosses the wall: handed to bwrap as options on
//! a file descriptor, set by bwrap inside the sandbox, never on the host.
//!
//! The environment of a process is read by the host's dynamic loader when it starts
//! (`LD_PRELOAD`, `LD_LIBRARY_PATH`, `GCONV_PATH`...), and bwrap passes its own on to
//! the program it runs. So bwrap itself starts with [`LAUNCH_ENV`] alone, and the
//! server's variables (the sandbox's base ones and an entry's own) reach bwrap as the
//! words `--clearenv` then `--setenv NAME VALUE`, each ending in a NUL, read from
//! descriptor [`FD`] (`--args 3` on its command line, which bwrap reads before it
//! builds the sandbox and applies to the program it starts inside). They are on no
//! command line either: a secret read from the user's environment would show in every
//! user's `ps`.
//!
//! This module owns the words and the descriptor; the command line is the survey's
//! (`survey::sandbox`), the start of the process `stdio`'s.

use std::io::{self, Seek, Write};
#[cfg(target_os = "linux")]
use std::os::fd::FromRawFd;
use std::os::fd::{AsRawFd, OwnedFd};

/// The descriptor bwrap reads the server's environment from.
pub const FD: i32 = 3;

/// The environment bwrap itself starts with: a PATH to find nothing by, as no program
/// is looked up there (the command is a path).
pub const LAUNCH_ENV: [(&str, &str); 1] = [("PATH", "/usr/bin:/bin")];

/// Returns the words that set `env` inside the sandbox and nothing else, each ending
/// in a NUL; fails naming a variable that no environment can hold (an empty name, or
/// one with `=`, or a NUL in its name or value), which bwrap would read otherwise as
/// more of its options.
pub fn words(env: &[(String, String)]) -> Result<Vec<u8>, String> {
    let mut out = b"--clearenv\0".to_vec();
    for (name, value) in env {
        if name.is_empty() || name.contains(['=', '\0']) || value.contains('\0') {
            return Err(format!(
                "the environment variable '{}' cannot be set: its name is empty or holds '=' or NUL, or its value holds NUL",
                crate::infra::sanitize::sanitize(name)
            ));
        }
        for word in ["--setenv", name, value] {
            out.extend_from_slice(word.as_bytes());
            out.push(0);
        }
    }
    Ok(out)
}

/// Returns an anonymous in-memory file holding `bytes`, read from its start, closed
/// on exec (the child gets it only as [`FD`], through [`install`]).
pub fn memory_file(bytes: &[u8]) -> io::Result<OwnedFd> {
    let mut file = anonymous_file()?;
    file.write_all(bytes)?;
    file.rewind()?;
    Ok(OwnedFd::from(file))
}

/// Returns a file with no name: in memory on Linux (`memfd_create`), where the
/// sandbox runs.
#[cfg(target_os = "linux")]
fn anonymous_file() -> io::Result<std::fs::File> {
    // SAFETY: the name is a NUL-terminated literal; the flags are valid.
    let raw = unsafe { libc::memfd_create(c"mcp-hint-census-env".as_ptr(), libc::MFD_CLOEXEC) };
    if raw < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `raw` is a descriptor just opened and owned by nobody else.
    Ok(std::fs::File::from(unsafe { OwnedFd::from_raw_fd(raw) }))
}

/// Returns a file with no name: an unlinked temporary file where there is no
/// `memfd_create` (and no sandbox to hand it to).
#[cfg(not(target_os = "linux"))]
fn anonymous_file() -> io::Result<std::fs::File> {
    tempfile::tempfile()
}

/// Makes `fd` the child's [`FD`], open across exec. Runs between fork and exec: only
/// async-signal-safe calls.
pub fn install(fd: &OwnedFd) -> io::Result<()> {
    let raw = fd.as_raw_fd();
    // SAFETY: dup2 and fcntl on descriptors of this process are async-signal-safe.
    let done = unsafe {
        if raw == FD {
            libc::fcntl(FD, libc::F_SETFD, 0)
        } else {
            libc::dup2(raw, FD)
        }
    };
    match done {
        -1 => Err(io::Error::last_os_error()),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn the_words_clear_then_set_each_variable_in_order() {
        let env = [
            ("PATH".to_string(), "/usr/bin".to_string()),
            ("LD_PRELOAD".to_string(), "/x y.so".to_string()),
        ];
        assert_eq!(
            words(&env).unwrap(),
            b"--clearenv\0--setenv\0PATH\0/usr/bin\0--setenv\0LD_PRELOAD\0/x y.so\0"
        );
    }

    #[test]
    fn a_nul_in_a_value_cannot_smuggle_an_option_to_bwrap() {
        for (name, value) in [
            ("K", "x\0--bind\0/\0/"),
            ("A=B", "x"),
            ("", "x"),
            ("K\0", ""),
        ] {
            let err = words(&[(name.to_string(), value.to_string())]).unwrap_err();
            assert!(err.contains("cannot be set"), "{err}");
        }
    }

    #[test]
    fn the_memory_file_is_read_from_its_start() {
        let fd = memory_file(b"--clearenv\0").unwrap();
        let mut text = Vec::new();
        std::fs::File::from(fd).read_to_end(&mut text).unwrap();
        assert_eq!(text, b"--clearenv\0");
    }
}
