//! The HTTP layer of `census` (archives) and `corpus registry` (answer pages): one
//! client, the kinds a failed request falls into, retries with backoff, the server's
//! own word on when to come back (`Retry-After` in seconds or as an HTTP date,
//! `x-ratelimit-reset`), a token sent only to the host it belongs to, and the stop
//! of a run whose network has died.
//!
//! A caller branches on a failure's [`Kind`], never on its message. This module
//! knows requests and answers only: what a body means (an archive, a page) is the
//! caller's, which hands each successful answer to a closure and says of the
//! closure's failure whether the network caused it.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::thread;
use std::time::{Duration, Instant, SystemTime};

use anyhow::{Context, Result};
use reqwest::blocking::Response;
use reqwest::header::{HeaderMap, AUTHORIZATION, LOCATION, RETRY_AFTER};
use reqwest::{StatusCode, Url};

use super::trust;
use crate::infra::messages;

/// The most redirects followed for one request.
const MAX_REDIRECTS: usize = 10;

/// Says why a request gave no usable answer, so that callers branch on it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// The server answered that there is nothing there (HTTP 404 or 410).
    NotFound,
    /// The server refused for a reason no retry changes (another 4xx).
    Refused,
    /// No answer came, or a broken one: a connection, DNS or TLS error, a stall, a
    /// body cut off, HTTP 5xx. May pass.
    Network,
    /// The server asked for a pause (HTTP 429, or 403 with rate-limit headers)
    /// longer than the run may wait, or kept asking through every retry.
    RateLimited,
    /// An answer came whole but is not what was asked for: not an archive, another
    /// commit, too large. Another try would get the same bytes.
    Mismatch,
    /// Not tried: the run stopped after too many network failures in a row.
    NotTried,
    /// Nothing to do with the server: a local file could not be written.
    Local,
}

impl Kind {
    /// Returns true for the kinds the network caused, for which a later run may
    /// fare better.
    pub fn is_network(self) -> bool {
        matches!(self, Kind::Network | Kind::RateLimited | Kind::NotTried)
    }

    /// Returns true for the kinds worth another try within a run.
    fn is_transient(self) -> bool {
        matches!(self, Kind::Network | Kind::RateLimited)
    }
}

/// Holds a failed request: its kind and its message (the error chain on one line).
#[derive(Debug)]
pub struct Error {
    pub kind: Kind,
    message: String,
    /// How long the server asked to wait, when it said.
    wait: Option<Duration>,
}

impl Error {
    /// Returns an error of `kind` saying `why`.
    pub fn new(kind: Kind, why: impl fmt::Display) -> Error {
        Error {
            kind,
            message: why.to_string(),
            wait: None,
        }
    }

    /// Returns an error of `kind` whose message is `err`'s chain of contexts.
    pub fn from_anyhow(kind: Kind, err: &anyhow::Error) -> Error {
        Error::new(kind, format!("{err:#}"))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

/// Returns the kind of the [`Error`] somewhere in `err`'s chain, if there is one.
pub fn kind_of(err: &anyhow::Error) -> Option<Kind> {
    err.chain()
        .find_map(|cause| cause.downcast_ref::<Error>())
        .map(|e| e.kind)
}

/// Holds how often and how long a request is tried again.
#[derive(Clone, Copy, Debug)]
pub struct Retry {
    /// How many times a transient failure is tried again.
    pub retries: u32,
    /// The first pause; each retry doubles it.
    pub backoff: Duration,
    /// The longest pause a server may ask for (`Retry-After`, `x-ratelimit-reset`)
    /// that is waited; a longer one fails the request as [`Kind::RateLimited`].
    pub max_wait: Duration,
}

/// The first pause before a network request is tried again, 500 ms, doubled after
/// each retry: the same for archives, registry pages and `git` runs (docs/census.md:
/// "backoff from 0.5 s").
pub const FIRST_BACKOFF: Duration = Duration::from_millis(500);

/// The longest pause a server may ask for that is waited: 60 s.
pub const MAX_WAIT: Duration = Duration::from_secs(60);

impl Retry {
    /// Returns the policy every command uses: `retries` retries, the first after
    /// [`FIRST_BACKOFF`], a server's own pause waited up to [`MAX_WAIT`].
    pub fn new(retries: u32) -> Retry {
        Retry {
            retries,
            backoff: FIRST_BACKOFF,
            max_wait: MAX_WAIT,
        }
    }

    /// Returns the pause before retry number `attempt + 1` when the server named none.
    pub fn backoff(&self, attempt: u32) -> Duration {
        doubled(self.backoff, attempt, self.max_wait)
    }
}

/// Returns the pause before try `attempt + 2` of anything retried: `first` doubled
/// `attempt` times, at most `cap`. HTTP requests and git commands back off alike.
pub fn doubled(first: Duration, attempt: u32, cap: Duration) -> Duration {
    first.saturating_mul(2u32.saturating_pow(attempt)).min(cap)
}

/// Stops a run after a run of network failures with no success between them: a
/// dead network, or a mirror that no longer answers, then costs a few failures
/// instead of every request's retries. Shared by every worker of a run.
#[derive(Debug)]
pub struct Breaker {
    /// How many failures in a row trip it; 0 never trips.
    limit: usize,
    in_a_row: AtomicUsize,
    /// Whether the network answered at least once.
    has_answered: AtomicBool,
    /// The failure that tripped it.
    cause: Mutex<Option<String>>,
}

impl Breaker {
    /// Returns a breaker that trips after `limit` network failures in a row.
    pub fn new(limit: usize) -> Breaker {
        Breaker {
            limit,
            in_a_row: AtomicUsize::new(0),
            has_answered: AtomicBool::new(false),
            cause: Mutex::new(None),
        }
    }

    /// Counts an answer from the network (any answer, even a refusal).
    pub fn success(&self) {
        self.has_answered.store(true, Ordering::Relaxed);
        if self.cause().is_none() {
            self.in_a_row.store(0, Ordering::Relaxed);
        }
    }

    /// Counts a network failure; `why` names it.
    pub fn failure(&self, why: &str) {
        let n = self.in_a_row.fetch_add(1, Ordering::Relaxed) + 1;
        if self.limit > 0 && n >= self.limit {
            let mut cause = self.cause.lock().unwrap_or_else(|p| p.into_inner());
            if cause.is_none() {
                *cause = Some(format!(
                    "{n} network failures in a row with no success between them, the last: {why}"
                ));
            }
        }
    }

    /// Returns true once the network has answered a request (any answer).
    pub fn has_answered(&self) -> bool {
        self.has_answered.load(Ordering::Relaxed)
    }

    /// Returns why the run stopped, once it has.
    pub fn cause(&self) -> Option<String> {
        self.cause.lock().unwrap_or_else(|p| p.into_inner()).clone()
    }

    /// Returns the error of a request not made because the run stopped.
    pub fn not_tried(&self) -> Option<Error> {
        self.cause().map(|cause| {
            Error::new(
                Kind::NotTried,
                format!("not tried: the run stopped after {cause}"),
            )
        })
    }
}

/// Holds the `Authorization` a package index's client would send, and the place
/// it belongs to: an origin and a path under it, as npm binds a token to
/// `//host/path/` and pip a password to an index URL. It is never printed.
#[derive(Clone)]
pub struct Credential {
    header: String,
    origin: (String, String, Option<u16>),
    path: String,
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credential")
            .field("origin", &self.origin)
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl Credential {
    /// Returns the credential whose header is `header` (`Bearer T`, `Basic B64`),
    /// sent to the URLs of `place`'s origin whose path starts with its path.
    pub fn new(header: String, place: &Url) -> Option<Credential> {
        Some(Credential {
            header,
            origin: (
                place.scheme().to_string(),
                place.host_str()?.to_ascii_lowercase(),
                place.port_or_known_default(),
            ),
            path: place.path().to_string(),
        })
    }

    /// Returns true when the credential belongs to `url`.
    pub fn belongs_to(&self, url: &Url) -> bool {
        let origin = (
            url.scheme().to_string(),
            url.host_str().unwrap_or_default().to_ascii_lowercase(),
            url.port_or_known_default(),
        );
        origin == self.origin && url.path().starts_with(&self.path)
    }
}

/// Holds a token and the origin it belongs to.
#[derive(Clone)]
pub struct Token {
    value: String,
    /// The origins (scheme, host, port) the token is sent to.
    origins: Vec<(String, String, Option<u16>)>,
}

impl fmt::Debug for Token {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Token")
            .field("origins", &self.origins)
            .finish_non_exhaustive()
    }
}

impl Token {
    /// Returns `GITHUB_TOKEN` from the environment, bound to GitHub: the host of
    /// `GITHUB_SERVER_URL` (`https://github.com` when unset, as GitHub Actions sets
    /// it) and its `api.` and `codeload.` hosts, nowhere else.
    pub fn from_env(var: impl Fn(&str) -> Option<String>) -> Option<Token> {
        let value = var("GITHUB_TOKEN").filter(|t| !t.trim().is_empty())?;
        let server = var("GITHUB_SERVER_URL").unwrap_or_else(|| "https://github.com".into());
        let url = Url::parse(&server).ok()?;
        let host = url.host_str()?.to_ascii_lowercase();
        let port = url.port();
        let scheme = url.scheme().to_string();
        let origins = [
            host.clone(),
            format!("api.{host}"),
            format!("codeload.{host}"),
        ]
        .into_iter()
        .map(|h| (scheme.clone(), h, port))
        .collect();
        Some(Token {
            value: value.trim().to_string(),
            origins,
        })
    }

    /// Returns true when the token belongs to `url`'s origin.
    fn belongs_to(&self, url: &Url) -> bool {
        let Some(host) = url.host_str() else {
            return false;
        };
        let origin = (
            url.scheme().to_string(),
            host.to_ascii_lowercase(),
            url.port(),
        );
        self.origins.contains(&origin)
    }
}

/// Holds what a client is built from.
#[derive(Clone, Debug)]
pub struct Options {
    /// The connect timeout, and the longest a read may stall.
    pub timeout: Duration,
    pub retry: Retry,
    pub token: Option<Token>,
}

/// Makes requests: retries, rate-limit pauses shared by every thread asking the
/// same host, redirects followed by hand so that a token never leaves its host.
pub struct Client {
    inner: reqwest::blocking::Client,
    options: Options,
    /// Host → the instant before which no request goes to it (a server asked).
    paused: Mutex<HashMap<String, Instant>>,
}

impl Client {
    /// Returns a client (the machine's trust store and proxies, see [`trust`];
    /// redirects are followed here, not by reqwest).
    pub fn new(options: Options) -> Result<Client> {
        let inner = trust::builder()
            .connect_timeout(options.timeout)
            // The blocking client applies this to each read, so it bounds a stall,
            // not the whole body.
            .timeout(options.timeout)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .context("building the HTTP client")?;
        Ok(Client {
            inner,
            options,
            paused: Mutex::new(HashMap::new()),
        })
    }

    /// GETs `url` and hands the answer to `read`, trying again while the failure is
    /// transient (a network failure, a rate limit the run may wait out) and retries
    /// are left. `read` says of its own failure which kind it is; a
    /// [`Kind::Network`] one (the body broke off) is tried again too.
    ///
    /// Every attempt's outcome is counted by `breaker`; once it has tripped no
    /// request is made and the error is [`Kind::NotTried`].
    pub fn get<T>(
        &self,
        url: &str,
        accept: Option<&str>,
        breaker: &Breaker,
        read: impl FnMut(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        self.get_as(url, accept, None, breaker, read)
    }

    /// Does what [`Client::get`] does, sending `credential` to the URLs it belongs
    /// to (the first request and any redirect that stays within its place).
    pub fn get_as<T>(
        &self,
        url: &str,
        accept: Option<&str>,
        credential: Option<&Credential>,
        breaker: &Breaker,
        mut read: impl FnMut(Response) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let retry = self.options.retry;
        let mut attempt = 0;
        loop {
            if let Some(stopped) = breaker.not_tried() {
                return Err(stopped);
            }
            let failure = match self.send(url, accept, credential) {
                Ok(response) => {
                    breaker.success();
                    match read(response) {
                        Ok(value) => return Ok(value),
                        Err(e) => e,
                    }
                }
                Err(e) => e,
            };
            if failure.kind == Kind::Network {
                breaker.failure(&format!("GET {url}: {failure}"));
            } else if failure.kind == Kind::RateLimited {
                breaker.success();
            }
            if !failure.kind.is_transient() {
                return Err(failure);
            }
            let wait = match failure.wait {
                Some(asked) if asked > retry.max_wait => {
                    return Err(Error {
                        kind: Kind::RateLimited,
                        message: format!(
                            "{failure}: the server asks for a pause of {} s, longer than the {} s \
                             a run waits",
                            asked.as_secs(),
                            retry.max_wait.as_secs()
                        ),
                        wait: failure.wait,
                    });
                }
                Some(asked) => asked,
                None => retry.backoff(attempt),
            };
            if attempt >= retry.retries {
                let tries = attempt + 1;
                return Err(Error {
                    message: format!(
                        "{failure} (gave up after {tries} {})",
                        messages::noun(tries, "try", "tries")
                    ),
                    ..failure
                });
            }
            if failure.kind == Kind::RateLimited {
                self.pause_host(url, wait);
                crate::infra::messages::note(crate::infra::sanitize::sanitize(format!(
                    "rate limited at '{}' ({failure}); waiting {} s before trying again",
                    host_of(url),
                    wait.as_secs_f64().ceil()
                )));
            }
            thread::sleep(wait);
            attempt += 1;
        }
    }

    /// Makes one GET, following redirects; an answer that is not a success becomes
    /// an [`Error`] of its kind.
    fn send(
        &self,
        url: &str,
        accept: Option<&str>,
        credential: Option<&Credential>,
    ) -> Result<Response, Error> {
        let mut url = Url::parse(url)
            .map_err(|e| Error::new(Kind::Refused, format!("'{url}' is not a URL: {e}")))?;
        for _ in 0..=MAX_REDIRECTS {
            self.wait_for_host(url.as_str());
            let mut request = self.inner.get(url.clone());
            if let Some(accept) = accept {
                request = request.header(reqwest::header::ACCEPT, accept);
            }
            if let Some(token) = &self.options.token {
                if token.belongs_to(&url) {
                    request = request.header(AUTHORIZATION, format!("Bearer {}", token.value));
                }
            }
            if let Some(credential) = credential.filter(|c| c.belongs_to(&url)) {
                request = request.header(AUTHORIZATION, &credential.header);
            }
            let response = request.send().map_err(|e| {
                let why = trust::describe(&e.without_url());
                // A certificate the machine does not trust stays untrusted on retry.
                let kind = match trust::is_untrusted(&why) {
                    true => Kind::Refused,
                    false => Kind::Network,
                };
                Error::new(kind, why)
            })?;
            let status = response.status();
            if status.is_redirection() {
                let next = response
                    .headers()
                    .get(LOCATION)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| url.join(v).ok())
                    .ok_or_else(|| {
                        Error::new(
                            Kind::Refused,
                            format!("HTTP {} without a usable Location", status.as_u16()),
                        )
                    })?;
                url = next;
                continue;
            }
            if status.is_success() {
                return Ok(response);
            }
            return Err(status_error(status, response.headers(), SystemTime::now()));
        }
        Err(Error::new(
            Kind::Refused,
            format!("more than {MAX_REDIRECTS} redirects"),
        ))
    }

    /// Holds every request to `url`'s host back for `wait`.
    fn pause_host(&self, url: &str, wait: Duration) {
        let until = Instant::now() + wait;
        let mut paused = self.paused.lock().unwrap_or_else(|p| p.into_inner());
        let entry = paused.entry(host_of(url)).or_insert(until);
        *entry = (*entry).max(until);
    }

    /// Sleeps while `url`'s host is paused.
    fn wait_for_host(&self, url: &str) {
        let until = {
            let paused = self.paused.lock().unwrap_or_else(|p| p.into_inner());
            paused.get(&host_of(url)).copied()
        };
        if let Some(until) = until {
            let now = Instant::now();
            if until > now {
                thread::sleep(until - now);
            }
        }
    }
}

/// Returns `url`'s host and port, how pauses are keyed.
fn host_of(url: &str) -> String {
    match Url::parse(url) {
        Ok(u) => match (u.host_str(), u.port()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => String::new(),
        },
        Err(_) => String::new(),
    }
}

/// Returns the error an answer with `status` (not a success) is.
fn status_error(status: StatusCode, headers: &HeaderMap, now: SystemTime) -> Error {
    let reason = status
        .canonical_reason()
        .map(|r| format!(" {r}"))
        .unwrap_or_default();
    let why = format!("HTTP {}{reason}", status.as_u16());
    let code = status.as_u16();
    let wait = server_wait(headers, now);
    // GitHub answers a spent rate limit with 403 and x-ratelimit-remaining: 0.
    let is_limit = code == 429
        || (code == 403
            && (headers.contains_key(RETRY_AFTER)
                || header(headers, "x-ratelimit-remaining").is_some_and(|v| v.trim() == "0")));
    let kind = if is_limit {
        Kind::RateLimited
    } else if status.is_server_error() {
        Kind::Network
    } else if matches!(code, 404 | 410) {
        Kind::NotFound
    } else {
        Kind::Refused
    };
    Error {
        kind,
        message: why,
        wait: if kind.is_transient() { wait } else { None },
    }
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Returns the pause a server asks for: `Retry-After` in seconds or as an HTTP
/// date, else `x-ratelimit-reset` (the Unix time the limit resets, GitHub's
/// header); a time already past asks for no pause.
pub fn server_wait(headers: &HeaderMap, now: SystemTime) -> Option<Duration> {
    if let Some(value) = header(headers, RETRY_AFTER.as_str()) {
        let value = value.trim();
        if let Ok(secs) = value.parse::<u64>() {
            return Some(Duration::from_secs(secs));
        }
        if let Ok(when) = httpdate::parse_http_date(value) {
            return Some(when.duration_since(now).unwrap_or_default());
        }
    }
    let reset = header(headers, "x-ratelimit-reset")?
        .trim()
        .parse::<u64>()
        .ok()?;
    let when = SystemTime::UNIX_EPOCH + Duration::from_secs(reset);
    Some(when.duration_since(now).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderValue;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn waits_come_in_seconds_dates_and_reset_times() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000);
        let wait = |pairs: &[(&'static str, &str)]| server_wait(&headers(pairs), now);
        assert_eq!(
            wait(&[("retry-after", " 7 ")]),
            Some(Duration::from_secs(7))
        );
        let later = httpdate::fmt_http_date(now + Duration::from_secs(90));
        assert_eq!(
            wait(&[("retry-after", &later)]),
            Some(Duration::from_secs(90))
        );
        let past = httpdate::fmt_http_date(now - Duration::from_secs(90));
        assert_eq!(wait(&[("retry-after", &past)]), Some(Duration::ZERO));
        assert_eq!(
            wait(&[("x-ratelimit-reset", "1700000042")]),
            Some(Duration::from_secs(42))
        );
        assert_eq!(
            wait(&[("retry-after", "3"), ("x-ratelimit-reset", "1700000042")]),
            Some(Duration::from_secs(3)),
            "Retry-After comes first"
        );
        assert_eq!(wait(&[("retry-after", "soon")]), None);
        assert_eq!(wait(&[]), None);
    }

    #[test]
    fn answers_fall_into_kinds() {
        let now = SystemTime::now();
        let kind = |code: u16, pairs: &[(&'static str, &str)]| {
            status_error(StatusCode::from_u16(code).unwrap(), &headers(pairs), now).kind
        };
        assert_eq!(kind(404, &[]), Kind::NotFound);
        assert_eq!(kind(410, &[]), Kind::NotFound);
        assert_eq!(kind(403, &[]), Kind::Refused);
        assert_eq!(
            kind(403, &[("x-ratelimit-remaining", "0")]),
            Kind::RateLimited
        );
        assert_eq!(kind(403, &[("retry-after", "5")]), Kind::RateLimited);
        assert_eq!(kind(429, &[]), Kind::RateLimited);
        assert_eq!(kind(503, &[]), Kind::Network);
        assert_eq!(kind(400, &[]), Kind::Refused);
        let e = status_error(
            StatusCode::SERVICE_UNAVAILABLE,
            &headers(&[("retry-after", "2")]),
            now,
        );
        assert_eq!(
            (e.to_string().as_str(), e.wait),
            ("HTTP 503 Service Unavailable", Some(Duration::from_secs(2)))
        );
    }

    #[test]
    fn a_token_goes_to_its_own_origins_only() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| v.to_string())
            }
        };
        let token = Token::from_env(env(&[("GITHUB_TOKEN", "t0k")])).unwrap();
        let to = |u: &str| token.belongs_to(&Url::parse(u).unwrap());
        assert!(to("https://codeload.github.com/a/b/tar.gz/c"));
        assert!(to("https://api.github.com/repos/a/b"));
        assert!(to("https://GitHub.com/a/b"));
        assert!(!to("http://codeload.github.com/a/b"), "not over plain http");
        assert!(!to("https://codeload.github.com.evil.example/a"));
        assert!(!to("https://mirror.example/github.com/a/b"));
        assert!(!to("https://github.com:8443/a/b"));
        let ghes = Token::from_env(env(&[
            ("GITHUB_TOKEN", "t"),
            ("GITHUB_SERVER_URL", "http://127.0.0.1:8080"),
        ]))
        .unwrap();
        assert!(ghes.belongs_to(&Url::parse("http://127.0.0.1:8080/x").unwrap()));
        assert!(!ghes.belongs_to(&Url::parse("http://127.0.0.1:8081/x").unwrap()));
        assert!(Token::from_env(env(&[("GITHUB_TOKEN", " ")])).is_none());
        assert!(
            !format!("{token:?}").contains("t0k"),
            "the token is never printed"
        );
    }

    #[test]
    fn a_breaker_trips_on_failures_in_a_row_only() {
        let b = Breaker::new(3);
        b.failure("a");
        b.failure("b");
        b.success();
        b.failure("c");
        b.failure("d");
        assert!(b.cause().is_none());
        b.failure("e");
        let cause = b.cause().unwrap();
        assert!(
            cause.starts_with("3 network failures in a row") && cause.ends_with("the last: e"),
            "{cause}"
        );
        b.success();
        assert!(
            b.not_tried().is_some_and(|e| e.kind == Kind::NotTried),
            "a trip is final"
        );
        let never = Breaker::new(0);
        for _ in 0..100 {
            never.failure("x");
        }
        assert!(never.cause().is_none());
    }
}
