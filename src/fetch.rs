//! Gets a tree's archive, from the cache or over HTTP, and hands its bytes to a
//! consumer while they arrive.
//!
//! This module owns the network and the cache: retries with backoff for transient
//! failures (connection errors, 5xx, 429 with `Retry-After`), final failures for
//! other 4xx, connect and stall timeouts, a size and a time limit per archive, and a
//! cache keyed by repository and pin whose archives are written to a temporary file
//! and renamed into place only once the consumer accepted them, beside their sha256.
//! It knows bytes and caching only: what the bytes mean (an archive, a commit, a
//! count) is the consumer's business.

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::thread;
use std::time::Duration;

use anyhow::{anyhow, Context, Result};

use crate::corpus::Tree;
use crate::intake::{Limits, Tee};
use crate::progress::Progress;
use crate::table::{FailureKind, Tagged};

/// Holds how archives are fetched.
#[derive(Clone, Debug)]
pub struct FetchOptions {
    /// The cache folder; `None` disables the cache.
    pub cache: Option<PathBuf>,
    /// Uses only the cache.
    pub is_offline: bool,
    /// How many times a transient failure is retried.
    pub retries: u32,
    /// Connect and stall timeout.
    pub timeout: Duration,
    /// The first backoff delay; each retry doubles it.
    pub backoff: Duration,
    /// The size and time one archive may take, downloaded or cached.
    pub limits: Limits,
}

/// Holds what a consumer made of an archive, and what identifies the bytes.
#[derive(Clone, Debug)]
pub struct Fetched<T> {
    pub value: T,
    /// The sha256 of exactly the bytes handed to the consumer, lower-case hex.
    pub sha256: String,
    /// True when the archive came from the cache.
    pub is_cached: bool,
}

/// Reads one archive's bytes. It is called once per attempt, so it may run again
/// after a download broke off; an error it returns is final unless the bytes stopped
/// coming (the network's fault), and then the download is retried.
pub type Consumer<'c, T> = dyn Fn(&mut (dyn Read + Send)) -> Result<T> + Sync + 'c;

/// Fetches archives.
pub struct Fetcher {
    client: reqwest::blocking::Client,
    options: FetchOptions,
}

/// Why one download attempt failed.
enum Failure {
    /// Worth another try, after the server's `Retry-After` if it gave one.
    Transient(anyhow::Error, Option<Duration>),
    /// Another try would fail the same way.
    Final(anyhow::Error),
}

/// The longest wait a `Retry-After` may impose before it is capped.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);

impl Fetcher {
    /// Returns a fetcher; builds the HTTP client (rustls, no system proxy lookups
    /// beyond reqwest's own).
    pub fn new(options: FetchOptions) -> Result<Fetcher> {
        let client = reqwest::blocking::Client::builder()
            .user_agent(concat!("mcp-hint-census/", env!("CARGO_PKG_VERSION")))
            .connect_timeout(options.timeout)
            // The blocking client applies this to each read, so it bounds a stall,
            // not the whole download.
            .timeout(options.timeout)
            .build()
            .context("building the HTTP client")?;
        Ok(Fetcher { client, options })
    }

    /// Returns where `tree`'s archive is cached, if the cache is on.
    pub fn cache_path(&self, tree: &Tree) -> Option<PathBuf> {
        let root = self.options.cache.as_ref()?;
        Some(
            root.join(tree.owner())
                .join(tree.name())
                .join(format!("{}.tar.gz", tree.commit.to_ascii_lowercase())),
        )
    }

    /// Hands `tree`'s archive to `consume`: from the cache when a complete copy is
    /// there, else downloaded, and cached once `consume` accepted it.
    pub fn fetch<T>(
        &self,
        tree: &Tree,
        progress: &dyn Progress,
        consume: &Consumer<'_, T>,
    ) -> Result<Fetched<T>> {
        let cached = self.cache_path(tree);
        if let Some(path) = &cached {
            let sidecar = sha_path(path);
            if path.is_file() && sidecar.is_file() {
                match self.read_cached(path, progress, consume) {
                    Ok(fetched) => return Ok(fetched),
                    Err(err) if self.options.is_offline => {
                        return Err(err.context(format!(
                            "cached archive '{}' is damaged (delete it and run without --offline)",
                            path.display()
                        )))
                    }
                    // A damaged copy is replaced by a fresh download.
                    Err(_) => {
                        let _ = fs::remove_file(path);
                        let _ = fs::remove_file(&sidecar);
                    }
                }
            }
        }
        if self.options.is_offline {
            let message = match &cached {
                Some(path) => format!(
                    "not in the cache ('{}') and --offline was given",
                    path.display()
                ),
                None => "--offline was given but there is no cache folder".to_string(),
            };
            return Err(tagged(FailureKind::NotCached, message));
        }
        self.download(&tree.archive_url, progress, cached.as_deref(), consume)
    }

    /// Downloads `url` into `consume`, retrying transient failures.
    fn download<T>(
        &self,
        url: &str,
        progress: &dyn Progress,
        cache: Option<&Path>,
        consume: &Consumer<'_, T>,
    ) -> Result<Fetched<T>> {
        let mut attempt = 0;
        loop {
            let failure = match self.attempt(url, progress, cache, consume) {
                Ok(fetched) => return Ok(fetched),
                Err(failure) => failure,
            };
            match failure {
                Failure::Final(err) => return Err(err.context(format!("GET {url}"))),
                Failure::Transient(err, retry_after) => {
                    if attempt >= self.options.retries {
                        let tries = attempt + 1;
                        return Err(err.context(Tagged {
                            kind: FailureKind::Network,
                            message: format!(
                                "GET {url} (gave up after {tries} {})",
                                if tries == 1 { "try" } else { "tries" }
                            ),
                        }));
                    }
                    let backoff = self.options.backoff * 2u32.saturating_pow(attempt);
                    thread::sleep(retry_after.unwrap_or(backoff).min(MAX_RETRY_AFTER));
                    attempt += 1;
                }
            }
        }
    }

    /// Makes one GET and streams its body into `consume`.
    fn attempt<T>(
        &self,
        url: &str,
        progress: &dyn Progress,
        cache: Option<&Path>,
        consume: &Consumer<'_, T>,
    ) -> std::result::Result<Fetched<T>, Failure> {
        let response = self
            .client
            .get(url)
            .send()
            .map_err(|e| Failure::Transient(anyhow!(error_chain(&e.without_url())), None))?;
        let status = response.status();
        if !status.is_success() {
            let why = tagged(
                FailureKind::Refused,
                format!(
                    "HTTP {}{}",
                    status.as_u16(),
                    status
                        .canonical_reason()
                        .map(|r| format!(" {r}"))
                        .unwrap_or_default()
                ),
            );
            return Err(if status.as_u16() == 429 || status.is_server_error() {
                Failure::Transient(why, retry_after(&response))
            } else {
                Failure::Final(why)
            });
        }
        let temp = match cache.and_then(Path::parent) {
            Some(dir) => {
                let made = fs::create_dir_all(dir)
                    .and_then(|()| tempfile::NamedTempFile::new_in(dir))
                    .with_context(|| {
                        format!("creating a file in the cache folder '{}'", dir.display())
                    })
                    .map_err(Failure::Final)?;
                Some(made)
            }
            None => None,
        };
        progress.start(response.content_length());
        let sink = temp.as_ref().map(|t| t.as_file());
        let mut tee = Tee::new(response, sink, progress).bounded(self.options.limits);
        let consumed = consume(&mut tee).and_then(|value| {
            // Read whatever the consumer left (bounded by the limits) so that the
            // hash and the cached copy cover every byte of the download.
            tee.drain().context("reading the end of the download")?;
            Ok(value)
        });
        let value = match consumed {
            Ok(value) => value,
            // A body cut off by the network is worth another try; bytes that
            // arrived whole but are not a good archive are not.
            Err(err) if tee.is_transport_error => {
                return Err(Failure::Transient(
                    err.context("the download broke off"),
                    None,
                ))
            }
            Err(err) => return Err(Failure::Final(err)),
        };
        let sha256 = tee.finish().map_err(Failure::Final)?;
        if let (Some(temp), Some(path)) = (temp, cache) {
            // The consumer read the archive to its end and accepted it: only now
            // does it enter the cache, with the sidecar that marks it complete.
            store(temp, path, &sha256).map_err(Failure::Final)?;
        }
        Ok(Fetched {
            value,
            sha256,
            is_cached: false,
        })
    }

    /// Hands a cached archive to `consume`, hashing what it reads: the stamp is of
    /// the bytes counted in this run, whatever the sidecar recorded at download.
    fn read_cached<T>(
        &self,
        path: &Path,
        progress: &dyn Progress,
        consume: &Consumer<'_, T>,
    ) -> Result<Fetched<T>> {
        let file = File::open(path).with_context(|| format!("opening '{}'", path.display()))?;
        progress.start(file.metadata().ok().map(|m| m.len()));
        let mut tee = Tee::new(file, None, progress).bounded(self.options.limits);
        let value = consume(&mut tee)?;
        tee.drain()
            .with_context(|| format!("reading '{}'", path.display()))?;
        Ok(Fetched {
            value,
            sha256: tee.finish()?,
            is_cached: true,
        })
    }
}

/// Returns an error saying `message`, tagged with `kind` for the row it ends in.
fn tagged(kind: FailureKind, message: String) -> anyhow::Error {
    anyhow::Error::new(Tagged { kind, message })
}

/// Moves a complete download into the cache at `path`, with `path.sha256` beside it.
fn store(temp: tempfile::NamedTempFile, path: &Path, sha256: &str) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let mut sha_temp = tempfile::NamedTempFile::new_in(dir)
        .with_context(|| format!("writing to the cache folder '{}'", dir.display()))?;
    writeln!(sha_temp, "{sha256}")?;
    temp.as_file().sync_all().ok();
    temp.persist(path)
        .with_context(|| format!("moving the download to '{}'", path.display()))?;
    sha_temp
        .persist(sha_path(path))
        .with_context(|| format!("writing '{}'", sha_path(path).display()))?;
    Ok(())
}

fn sha_path(archive: &Path) -> PathBuf {
    let mut name = archive.as_os_str().to_owned();
    name.push(".sha256");
    PathBuf::from(name)
}

/// Returns the delay a 429 or 503 asks for, in seconds or as an HTTP date.
fn retry_after(response: &reqwest::blocking::Response) -> Option<Duration> {
    let value = response
        .headers()
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?;
    if let Ok(secs) = value.trim().parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let when = httpdate::parse_http_date(value.trim()).ok()?;
    Some(
        when.duration_since(std::time::SystemTime::now())
            .unwrap_or_default(),
    )
}

/// Returns an error and its sources on one line: reqwest hides the useful part
/// ("connection refused") in the source chain.
pub fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
