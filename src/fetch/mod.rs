//! Gets a tree's archive, from the cache or over HTTP, and hands its bytes to a
//! consumer while they arrive.
//!
//! This module owns the cache and what a download is: the HTTP layer (`http`:
//! retries, rate limits, failure kinds, the stop of a dead network) fetches, and
//! this module says of a failed read whether the network cut it off. It bounds each
//! archive in size and time, and keeps a cache keyed by repository and pin whose archives are written to a temporary file
//! and renamed into place only once the consumer accepted them, beside their sha256.
//! It knows bytes and caching only: what the bytes mean (an archive, a commit, a
//! count) is the consumer's business.
//!
//! [`http`] is the one HTTP client (also used by `corpus` for registry pages and
//! forge listings), built by [`trust`] as every HTTP client is, and [`intake`] hashes and bounds the bytes on their way (also used
//! by `scan` for an archive it reads). It imports only `infra`; the commands import it.

pub mod digest;
pub mod http;
pub mod intake;
pub mod trust;

use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};

use crate::fetch::digest::Digest;
use crate::fetch::http::{Breaker, Client, Credential, Kind, Retry, Token};
use crate::fetch::intake::{Limits, Tee};
use crate::infra::error::{FailureKind, Tagged};
use crate::infra::mirrors::Mirrors;
use crate::infra::progress::Progress;

/// Holds how archives are fetched.
#[derive(Clone, Debug)]
pub struct FetchOptions {
    /// The cache folder; `None` disables the cache.
    pub cache: Option<PathBuf>,
    /// Uses only the cache.
    pub is_offline: bool,
    /// How transient failures are tried again.
    pub retry: Retry,
    /// Connect and stall timeout.
    pub timeout: Duration,
    /// How many network failures in a row stop the run's downloads; 0 never.
    pub give_up_after: usize,
    /// A token for the forge it belongs to.
    pub token: Option<Token>,
    /// The size and time one archive may take, downloaded or cached.
    pub limits: Limits,
    /// Local mirrors a repository's archive is packed from, in place of its forge.
    pub mirrors: Option<Arc<Mirrors>>,
}

/// Names one archive: the repository and pin that key the cache, and where it is
/// downloaded from.
#[derive(Clone, Copy, Debug)]
pub struct Request<'a> {
    /// `owner/name`.
    pub repo: &'a str,
    /// The pin, as written.
    pub commit: &'a str,
    /// The archive's URL.
    pub url: &'a str,
    /// What a registry says of the archive, for a package's artifact.
    pub artifact: Option<Artifact<'a>>,
}

/// Names a package registry's artifact: where it is cached, the digest its bytes
/// must have, and the credential its index's client would send.
#[derive(Clone, Copy)]
pub struct Artifact<'a> {
    /// The cache folders under `packages/`, `/`-separated: registry, name, version.
    pub folder: &'a str,
    /// The artifact's file name.
    pub file: &'a str,
    pub digest: &'a Digest,
    /// Returns the credential to send; asked only when the artifact is downloaded
    /// (finding it may mean reading a client's configuration).
    pub credential: &'a (dyn Fn() -> Option<Credential> + Sync),
}

impl std::fmt::Debug for Artifact<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Artifact")
            .field("folder", &self.folder)
            .field("file", &self.file)
            .field("digest", &self.digest)
            .finish_non_exhaustive()
    }
}

impl Request<'_> {
    /// Returns the repository's owner.
    fn owner(&self) -> &str {
        self.repo.split_once('/').map_or("", |(owner, _)| owner)
    }

    /// Returns the repository's name.
    fn name(&self) -> &str {
        self.repo.split_once('/').map_or("", |(_, name)| name)
    }
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
    client: Client,
    options: FetchOptions,
    /// Stops the run's downloads once the network looks dead.
    pub breaker: Breaker,
}

impl Fetcher {
    /// Returns a fetcher; builds the HTTP client.
    pub fn new(options: FetchOptions) -> Result<Fetcher> {
        let client = Client::new(http::Options {
            timeout: options.timeout,
            retry: options.retry,
            token: options.token.clone(),
        })?;
        Ok(Fetcher {
            client,
            breaker: Breaker::new(options.give_up_after),
            options,
        })
    }

    /// Returns where `archive` is cached, if the cache is on.
    pub fn cache_path(&self, archive: Request<'_>) -> Option<PathBuf> {
        let root = self.options.cache.as_ref()?;
        if let Some(artifact) = archive.artifact {
            // Each part comes from a corpus: one that could climb out of the cache
            // is not cached at all.
            let mut path = root.join("packages");
            for part in artifact.folder.split('/').chain([artifact.file]) {
                if !is_file_name(part) {
                    return None;
                }
                path.push(part);
            }
            return Some(path);
        }
        Some(
            root.join(archive.owner())
                .join(archive.name())
                .join(format!("{}.tar.gz", archive.commit.to_ascii_lowercase())),
        )
    }

    /// Returns the size of `archive`'s complete copy in the cache, if there is one.
    pub fn cached_size(&self, archive: Request<'_>) -> Option<u64> {
        let path = self.cache_path(archive)?;
        if !sha_path(&path).is_file() {
            return None;
        }
        fs::metadata(&path)
            .ok()
            .filter(|m| m.is_file())
            .map(|m| m.len())
    }

    /// Hands `archive` to `consume`: from the cache when a complete copy is
    /// there, else downloaded, and cached once `consume` accepted it. A failed
    /// download's error carries its [`http::Kind`] ([`http::kind_of`]).
    pub fn fetch<T>(
        &self,
        archive: Request<'_>,
        progress: &dyn Progress,
        consume: &Consumer<'_, T>,
    ) -> Result<Fetched<T>> {
        let cached = self.cache_path(archive);
        if let Some(path) = &cached {
            let sidecar = sha_path(path);
            if path.is_file() && sidecar.is_file() {
                match self.read_cached(path, progress, archive.artifact.map(|a| a.digest), consume)
                {
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
        if let (None, Some(mirrors)) = (archive.artifact, &self.options.mirrors) {
            return self.packed(mirrors, archive, cached.as_deref(), progress, consume);
        }
        if self.options.is_offline {
            let message = match &cached {
                // Named inside the cache folder, so that a table quoting the
                // error reads the same on every machine.
                Some(path) => format!(
                    "not in the cache (as '{}' in the cache folder{}) and --offline was given",
                    self.options
                        .cache
                        .as_deref()
                        .and_then(|root| path.strip_prefix(root).ok())
                        .unwrap_or(path)
                        .display(),
                    why_absent(path).map_or(String::new(), |why| format!(": {why}"))
                ),
                None => "--offline was given but there is no cache folder".to_string(),
            };
            return Err(anyhow::Error::new(Tagged {
                kind: FailureKind::NotCached,
                message,
            }));
        }
        let url = archive.url;
        let credential = archive.artifact.and_then(|a| (a.credential)());
        let digest = archive.artifact.map(|a| a.digest);
        self.client
            .get_as(url, None, credential.as_ref(), &self.breaker, |response| {
                self.take(response, progress, cached.as_deref(), digest, consume)
            })
            .map_err(|e| anyhow::Error::new(e).context(format!("GET {url}")))
    }

    /// Streams one answer's body into `consume`, caching it once accepted.
    fn take<T>(
        &self,
        response: reqwest::blocking::Response,
        progress: &dyn Progress,
        cache: Option<&Path>,
        digest: Option<&Digest>,
        consume: &Consumer<'_, T>,
    ) -> std::result::Result<Fetched<T>, http::Error> {
        let local = |err: anyhow::Error| http::Error::from_anyhow(Kind::Local, &err);
        let temp = match cache.and_then(Path::parent) {
            Some(dir) => {
                let made = fs::create_dir_all(dir)
                    .and_then(|()| tempfile::NamedTempFile::new_in(dir))
                    .with_context(|| {
                        format!("creating a file in the cache folder '{}'", dir.display())
                    })
                    .map_err(local)?;
                Some(made)
            }
            None => None,
        };
        progress.start(response.content_length());
        let sink = temp.as_ref().map(|t| t.as_file());
        let mut tee = Tee::new(response, sink, progress)
            .bounded(self.options.limits)
            .expecting(digest);
        let consumed = consume(&mut tee).and_then(|value| {
            // Read whatever the consumer left (bounded by the limits) so that the
            // hash and the cached copy cover every byte of the download.
            tee.drain().context("reading the end of the download")?;
            // A count of bytes that are not the registry's artifact is no count.
            tee.check_digest().map_err(anyhow::Error::msg)?;
            Ok(value)
        });
        let value = match consumed {
            Ok(value) => value,
            // A body cut off by the network is worth another try; bytes that
            // arrived whole but are not a good archive are not.
            Err(err) if tee.is_transport_error => {
                return Err(http::Error::from_anyhow(
                    Kind::Network,
                    &err.context("the download broke off"),
                ))
            }
            Err(err) => return Err(http::Error::from_anyhow(Kind::Mismatch, &err)),
        };
        let sha256 = tee.finish().map_err(local)?;
        if let (Some(temp), Some(path)) = (temp, cache) {
            // The consumer read the archive to its end and accepted it: only now
            // does it enter the cache, with the sidecar that marks it complete.
            store(temp, path, &sha256).map_err(local)?;
        }
        Ok(Fetched {
            value,
            sha256,
            is_cached: false,
        })
    }

    /// Packs `archive`'s commit from its mirror and hands it to `consume`; cached,
    /// as a download is, once `consume` accepted it. A repository without a mirror
    /// fails: the forge is not asked.
    fn packed<T>(
        &self,
        mirrors: &Mirrors,
        archive: Request<'_>,
        cache: Option<&Path>,
        progress: &dyn Progress,
        consume: &Consumer<'_, T>,
    ) -> Result<Fetched<T>> {
        let dir = cache
            .and_then(Path::parent)
            .map_or_else(std::env::temp_dir, Path::to_path_buf);
        fs::create_dir_all(&dir)
            .with_context(|| format!("creating the cache folder '{}'", dir.display()))?;
        let temp = tempfile::NamedTempFile::new_in(&dir)
            .with_context(|| format!("creating a file in '{}'", dir.display()))?;
        mirrors
            .pack(
                archive.repo,
                &archive.commit.to_ascii_lowercase(),
                temp.as_file(),
                self.options.limits.max_bytes,
                self.options.limits.max_time,
            )
            .map_err(|message| {
                anyhow::Error::new(Tagged {
                    kind: FailureKind::NotCached,
                    message,
                })
            })?;
        let mut fetched = self.read_cached(temp.path(), progress, None, consume)?;
        fetched.is_cached = false;
        if let Some(path) = cache {
            store(temp, path, &fetched.sha256)?;
        }
        Ok(fetched)
    }

    /// Hands a cached archive to `consume`, hashing what it reads: the stamp is of
    /// the bytes counted in this run, whatever the sidecar recorded at download.
    fn read_cached<T>(
        &self,
        path: &Path,
        progress: &dyn Progress,
        digest: Option<&Digest>,
        consume: &Consumer<'_, T>,
    ) -> Result<Fetched<T>> {
        let file = File::open(path).with_context(|| format!("opening '{}'", path.display()))?;
        progress.start(file.metadata().ok().map(|m| m.len()));
        let mut tee = Tee::new(file, None, progress)
            .bounded(self.options.limits)
            .expecting(digest);
        let value = consume(&mut tee)?;
        tee.drain()
            .with_context(|| format!("reading '{}'", path.display()))?;
        tee.check_digest().map_err(anyhow::Error::msg)?;
        Ok(Fetched {
            value,
            sha256: tee.finish()?,
            is_cached: true,
        })
    }
}

/// Returns true when `name` can stand as one part of a path without climbing out of
/// its folder or hiding: not empty, no `/` or `\\`, no leading `.` (so neither `.` nor
/// `..`), no control character. A registry's artifact name, a package's name part
/// or version is one.
pub fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with('.')
        && !name.contains(['/', '\\'])
        && !name.chars().any(char::is_control)
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

/// Returns why an archive is absent from the cache, when whoever fills the cache left
/// a note beside it (`ARCHIVE.why`, one line: a mirror that lacks some of the
/// commit's files, say): its first line, at most 300 bytes, made safe to print.
fn why_absent(archive: &Path) -> Option<String> {
    let mut note = archive.as_os_str().to_owned();
    note.push(".why");
    let mut bytes = Vec::new();
    File::open(note)
        .ok()?
        .take(300)
        .read_to_end(&mut bytes)
        .ok()?;
    let text = String::from_utf8_lossy(&bytes);
    let line = text.lines().next()?.trim();
    (!line.is_empty()).then(|| crate::infra::sanitize::sanitize(line))
}
