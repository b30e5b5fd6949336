//! The process groups of the stdio servers a run has started, and the signal handlers
//! that kill them when the run itself is interrupted.
//!
//! Each server runs in a process group of its own, so the terminal's Ctrl-C reaches the
//! probe and not the servers; without these handlers an interrupted `probe --servers`
//! would leave them running. On SIGINT, SIGTERM or SIGHUP every registered group is sent
//! SIGKILL, then the signal's default action ends the probe as it would have. Only
//! async-signal-safe calls (`kill`, `signal`, `raise`) and atomics are used in the
//! handler. This module does not start or wait for processes; `stdio` does.

#[cfg(unix)]
mod imp {
    use std::sync::atomic::{AtomicI32, Ordering};
    use std::sync::Once;

    /// More than the most servers a run has at once (`--jobs` is at most 256).
    const SLOTS: usize = 512;
    const SIGHUP: i32 = 1;
    const SIGINT: i32 = 2;
    const SIGKILL: i32 = 9;
    const SIGTERM: i32 = 15;
    const SIG_DFL: usize = 0;
    const SIG_IGN: usize = 1;

    static GROUPS: [AtomicI32; SLOTS] = [const { AtomicI32::new(0) }; SLOTS];
    static INSTALL: Once = Once::new();

    extern "C" {
        fn kill(pid: i32, sig: i32) -> i32;
        fn signal(signum: i32, handler: usize) -> usize;
        fn raise(sig: i32) -> i32;
    }

    extern "C" fn on_signal(sig: i32) {
        for slot in &GROUPS {
            let group = slot.load(Ordering::SeqCst);
            if group > 0 {
                // SAFETY: kill(2) is async-signal-safe and touches no memory of ours.
                unsafe {
                    kill(-group, SIGKILL);
                }
            }
        }
        // SAFETY: signal(2) and raise(3) are async-signal-safe; the default action of
        // these signals ends the process, as it would have without this handler.
        unsafe {
            signal(sig, SIG_DFL);
            raise(sig);
        }
    }

    fn install() {
        INSTALL.call_once(|| {
            for sig in [SIGINT, SIGTERM, SIGHUP] {
                // SAFETY: the handler is an `extern "C" fn(i32)` that only reads atomics
                // and makes async-signal-safe calls. A signal the caller ignores (nohup)
                // stays ignored.
                unsafe {
                    let handler: extern "C" fn(i32) = on_signal;
                    if signal(sig, handler as usize) == SIG_IGN {
                        signal(sig, SIG_IGN);
                    }
                }
            }
        });
    }

    /// A process group registered to be killed on interruption, until dropped.
    pub struct Registered(Option<usize>);

    /// Registers the group `group` (a positive id) and installs the handlers once.
    pub fn register(group: i32) -> Registered {
        install();
        for (index, slot) in GROUPS.iter().enumerate() {
            if slot
                .compare_exchange(0, group, Ordering::SeqCst, Ordering::SeqCst)
                .is_ok()
            {
                return Registered(Some(index));
            }
        }
        Registered(None)
    }

    impl Drop for Registered {
        fn drop(&mut self) {
            if let Some(index) = self.0 {
                GROUPS[index].store(0, Ordering::SeqCst);
            }
        }
    }
}

#[cfg(not(unix))]
mod imp {
    /// Nothing is registered where process groups do not exist.
    pub struct Registered;

    pub fn register(_group: i32) -> Registered {
        Registered
    }
}

pub use imp::{register, Registered};
