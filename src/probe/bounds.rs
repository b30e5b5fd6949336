//! The bounds a sandboxed server runs within, beside the sandbox's walls: memory and
//! file size per process (resource limits set before `bwrap` starts, inherited by
//! everything it starts), the number of processes of its tree (counted while the probe
//! waits, since `RLIMIT_NPROC` counts every process of the user, not of the sandbox,
//! and does not bind root at all), and the output the probe reads (`stdio` and
//! `stderr` hold those). It starts and kills nothing; `stdio` does, on what this
//! module counts. docs/method.md, "The wire survey", says what each bound keeps out.

use std::io;

/// The most bytes of heap (private writable memory, `RLIMIT_DATA`) one process of the
/// sandbox may map. Address space (`RLIMIT_AS`) is not bounded: Node reserves far more
/// than it uses.
pub const MAX_DATA: u64 = 2 << 30;
/// The largest file one process of the sandbox may write (`RLIMIT_FSIZE`); a write past
/// it fails (`EFBIG`), or the signal `SIGXFSZ` ends the process.
pub const MAX_FILE: u64 = 64 << 20;
/// The size of each of the sandbox's private tmpfs (HOME, /tmp, /dev/shm), in bytes:
/// each is memory.
pub const MAX_TMPFS: u64 = 128 << 20;
/// The most processes a sandboxed server's tree may hold, bwrap's own two included.
pub const MAX_PROCESSES: usize = 64;
/// The most bytes of stdout that are not JSON, or of stderr, a server may write before
/// the probe stops it.
pub const MAX_OUTPUT: usize = 16 << 20;

/// Sets the resource limits of a sandboxed server on the calling process: no core
/// files, [`MAX_DATA`] of heap, [`MAX_FILE`] per file.
///
/// Runs between `fork` and `exec`, so it only calls `setrlimit(2)`, which is
/// async-signal-safe, on values it owns.
pub fn limit_resources() -> io::Result<()> {
    for (resource, bytes) in [
        (libc::RLIMIT_CORE, 0),
        (libc::RLIMIT_DATA, MAX_DATA),
        (libc::RLIMIT_FSIZE, MAX_FILE),
    ] {
        let limit = libc::rlimit {
            rlim_cur: bytes as libc::rlim_t,
            rlim_max: bytes as libc::rlim_t,
        };
        // SAFETY: setrlimit(2) reads one struct this frame owns.
        if unsafe { libc::setrlimit(resource, &limit) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Returns how many processes the tree of `root` holds, `root` included, counting no
/// further than `past` (a tree bigger than `past` returns `past + 1`): each process's
/// children are read from `/proc/PID/task/TID/children`. Returns 0 where that is not
/// there (not Linux, or a kernel without it): the bound then does not hold, and the
/// probe's timeout does.
pub fn processes(root: u32, past: usize) -> usize {
    let mut seen = 0;
    let mut next = vec![root];
    while let Some(pid) = next.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            if pid == root {
                return 0;
            }
            continue;
        };
        seen += 1;
        if seen > past {
            return seen;
        }
        for task in tasks.flatten() {
            let Ok(text) = std::fs::read_to_string(task.path().join("children")) else {
                continue;
            };
            next.extend(
                text.split_whitespace()
                    .filter_map(|p| p.parse::<u32>().ok()),
            );
        }
    }
    seen
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_process_tree_is_counted_to_its_bound() {
        if !std::path::Path::new("/proc/self/task").exists() {
            return;
        }
        let mut command = std::process::Command::new("sh");
        command.args(["-c", "sleep 30 & sleep 30 & sleep 30 & wait"]);
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command.spawn().expect("sh starts");
        let root = child.id();
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
        let mut counted = processes(root, 10);
        while counted < 4 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
            counted = processes(root, 10);
        }
        let bounded = processes(root, 2);
        // SAFETY: kill(2) with plain integers: the group the test started.
        unsafe { libc::kill(-(root as i32), libc::SIGKILL) };
        let _ = child.wait();
        assert_eq!(counted, 4);
        assert_eq!(bounded, 3);
        assert_eq!(processes(u32::MAX, 10), 0);
    }
}
