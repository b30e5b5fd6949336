//! At most a few requests at once per host: a survey of thousands of remote
//! endpoints, many on one platform's host, must not open `--jobs` sessions with one
//! server at once. A probe of a URL holds one of its host's slots while it runs.

use std::collections::HashMap;
use std::sync::{Condvar, Mutex};

/// How many probes of one host run at once.
pub const PER_HOST: usize = 2;

/// Holds the slots taken per host.
#[derive(Debug, Default)]
pub struct Hosts {
    taken: Mutex<HashMap<String, usize>>,
    freed: Condvar,
}

/// Holds one slot of a host until dropped.
pub struct Slot<'a> {
    hosts: &'a Hosts,
    host: String,
}

impl Hosts {
    /// Waits until `host` has a free slot, and takes it.
    pub fn take(&self, host: &str) -> Slot<'_> {
        let mut taken = self.taken.lock().unwrap_or_else(|e| e.into_inner());
        while taken.get(host).is_some_and(|&n| n >= PER_HOST) {
            taken = self.freed.wait(taken).unwrap_or_else(|e| e.into_inner());
        }
        *taken.entry(host.to_string()).or_default() += 1;
        Slot {
            hosts: self,
            host: host.to_string(),
        }
    }
}

impl Drop for Slot<'_> {
    fn drop(&mut self) {
        let mut taken = self.hosts.taken.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(n) = taken.get_mut(&self.host) {
            *n -= 1;
            if *n == 0 {
                taken.remove(&self.host);
            }
        }
        self.hosts.freed.notify_all();
    }
}

/// Returns the host (and port, when given) of `url`, ASCII-lowercased: what the
/// slots are counted by. A URL that does not parse is its own host.
pub fn host_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(parsed) => match (parsed.host_str(), parsed.port()) {
            (Some(host), Some(port)) => format!("{}:{port}", host.to_ascii_lowercase()),
            (Some(host), None) => host.to_ascii_lowercase(),
            _ => url.to_string(),
        },
        Err(_) => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn no_more_than_the_slots_of_a_host_run_at_once() {
        let hosts = Hosts::default();
        let (now, most, other) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        std::thread::scope(|scope| {
            for i in 0..8 {
                let (hosts, now, most, other) = (&hosts, &now, &most, &other);
                scope.spawn(move || {
                    if i == 7 {
                        // Another host is not held up by a busy one.
                        let _slot = hosts.take("b.example");
                        other.fetch_add(1, Ordering::SeqCst);
                        return;
                    }
                    let _slot = hosts.take(&host_of("https://A.example/mcp"));
                    let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                    most.fetch_max(n, Ordering::SeqCst);
                    std::thread::sleep(std::time::Duration::from_millis(20));
                    now.fetch_sub(1, Ordering::SeqCst);
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), PER_HOST);
        assert_eq!(other.load(Ordering::SeqCst), 1);
        assert_eq!(host_of("http://127.0.0.1:8080/x"), "127.0.0.1:8080");
    }
}
