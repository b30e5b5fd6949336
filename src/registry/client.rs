//! The one way an index is asked: a GET through `fetch::http`'s client (the
//! machine's trust store and proxies, retries), bounded in size, that names the URL
//! it asked without its credentials; and the Basic credentials a URL's user info or
//! `~/.netrc` gives, as pip's and npm's HTTP libraries read them.

use std::io::Read;
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::Duration;

use base64::Engine;
use reqwest::Url;

use crate::fetch::http::{self, Credential};
use crate::infra::sanitize::sanitize;

/// The most bytes of one index answer read: a packument of every version of a
/// large npm package is tens of MiB.
const MAX_ANSWER: u64 = 96 << 20;

/// Returns the HTTP client index requests go through (the machine's trust store and
/// proxies, retries, see `fetch::http`), made once per run.
fn client() -> Result<&'static (http::Client, http::Breaker), String> {
    static CLIENT: OnceLock<Result<(http::Client, http::Breaker), String>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            let client = http::Client::new(http::Options {
                timeout: Duration::from_secs(30),
                retry: http::Retry::new(3),
                token: None,
            })
            .map_err(|e| format!("{e:#}"))?;
            // One package's lookups failing never stops another's.
            Ok((client, http::Breaker::new(0)))
        })
        .as_ref()
        .map_err(Clone::clone)
}

/// Holds a failed GET: its HTTP kind (a caller tells an absent package from a
/// failure by it) and the message, which names the URL without credentials.
#[derive(Debug)]
pub struct Failed {
    pub kind: http::Kind,
    pub why: String,
}

/// GETs `url` through the one client, sending `credential` where it belongs, and
/// returns the answer's content type and at most [`MAX_ANSWER`] bytes of it.
pub fn get(
    url: &str,
    accept: &str,
    credential: Option<&Credential>,
) -> Result<(String, Vec<u8>), Failed> {
    let failed = |kind, why: String| Failed {
        kind,
        why: format!("GET {}: {why}", shown(url)),
    };
    let (client, breaker) = client().map_err(|why| failed(http::Kind::Local, why))?;
    client
        .get_as(url, Some(accept), credential, breaker, |response| {
            let kind = response
                .headers()
                .get(reqwest::header::CONTENT_TYPE)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_ascii_lowercase();
            let mut body = Vec::new();
            response
                .take(MAX_ANSWER + 1)
                .read_to_end(&mut body)
                .map_err(|e| http::Error::new(http::Kind::Network, e))?;
            if body.len() as u64 > MAX_ANSWER {
                return Err(http::Error::new(
                    http::Kind::Mismatch,
                    format!("the answer is larger than {MAX_ANSWER} bytes"),
                ));
            }
            Ok((kind, body))
        })
        .map_err(|e| failed(e.kind, e.to_string()))
}

/// Returns `url` as messages and tables show it: without user info, escaped.
pub fn shown(url: &str) -> String {
    sanitize(without_credentials(url))
}

/// Returns `url` without its user info (`https://u:p@host/` → `https://host/`).
pub fn without_credentials(url: &str) -> String {
    match Url::parse(url) {
        Ok(mut parsed) if !parsed.username().is_empty() || parsed.password().is_some() => {
            let _ = parsed.set_username("");
            let _ = parsed.set_password(None);
            parsed.to_string()
        }
        _ => url.to_string(),
    }
}

/// Returns the Basic credential of `url`'s user info, bound to `url` itself, else
/// the one `~/.netrc` (or `$NETRC`) gives for its host, as pip's and npm's HTTP
/// libraries read them.
pub fn basic_credential(url: &Url) -> Option<Credential> {
    let (user, password) = match url.username() {
        "" => netrc_login(url.host_str()?)?,
        user => (
            percent_decoded(user),
            percent_decoded(url.password().unwrap_or_default()),
        ),
    };
    let mut place = url.clone();
    let _ = place.set_username("");
    let _ = place.set_password(None);
    let pair = base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
    Credential::new(format!("Basic {pair}"), &place)
}

pub fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Returns the login and password `~/.netrc` (or the file `$NETRC` names) gives for
/// `host`, else its `default` entry's.
fn netrc_login(host: &str) -> Option<(String, String)> {
    let path = std::env::var_os("NETRC")
        .map(PathBuf::from)
        .or_else(|| dirs::home_dir().map(|h| h.join(".netrc")))?;
    let text = std::fs::read_to_string(path).ok()?;
    netrc_entry(&text, host)
}

/// Returns the login and password of `host`'s entry in netrc `text`, else of the
/// `default` entry.
fn netrc_entry(text: &str, host: &str) -> Option<(String, String)> {
    let mut words = text.split_ascii_whitespace();
    let (mut found, mut default) = (None, None);
    let mut current: Option<(bool, String, String)> = None;
    let mut close = |entry: Option<(bool, String, String)>| {
        if let Some((is_default, login, password)) = entry {
            match is_default {
                true => default = default.take().or(Some((login, password))),
                false => found = found.take().or(Some((login, password))),
            }
        }
    };
    while let Some(word) = words.next() {
        match word {
            "machine" => {
                close(current.take());
                let name = words.next().unwrap_or_default();
                current = name
                    .eq_ignore_ascii_case(host)
                    .then(|| (false, String::new(), String::new()));
            }
            "default" => {
                close(current.take());
                current = Some((true, String::new(), String::new()));
            }
            "login" | "password" | "account" => {
                let value = words.next().unwrap_or_default().to_string();
                if let Some((_, login, password)) = &mut current {
                    match word {
                        "login" => *login = value,
                        "password" => *password = value,
                        _ => {}
                    }
                }
            }
            // A macro runs to the next blank line; nothing of it is a login.
            "macdef" => close(current.take()),
            _ => {}
        }
    }
    close(current.take());
    found.or(default)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_never_show() {
        assert_eq!(
            without_credentials("https://u:p%40ss@idx.example/simple/"),
            "https://idx.example/simple/"
        );
        assert_eq!(without_credentials("not a url"), "not a url");
        let url = Url::parse("https://u:p%40ss@idx.example/simple/").unwrap();
        let credential = basic_credential(&url).unwrap();
        // base64("u:p@ss")
        assert!(format!("{credential:?}").contains("idx.example"));
        assert!(!format!("{credential:?}").contains("dTpwQHNz"));
        assert!(credential.belongs_to(&Url::parse("https://idx.example/simple/x/").unwrap()));
        assert!(!credential.belongs_to(&Url::parse("https://idx.example/other/").unwrap()));
        assert!(!credential.belongs_to(&Url::parse("http://idx.example/simple/").unwrap()));
    }

    #[test]
    fn netrc_gives_the_hosts_entry_else_the_default() {
        let text = "machine a.example login la password pa\n\
                    default login ld password pd\n\
                    machine b.example\n  login lb\n  password pb\n";
        let pair = |l: &str, p: &str| Some((l.to_string(), p.to_string()));
        assert_eq!(netrc_entry(text, "b.example"), pair("lb", "pb"));
        assert_eq!(netrc_entry(text, "A.EXAMPLE"), pair("la", "pa"));
        assert_eq!(netrc_entry(text, "c.example"), pair("ld", "pd"));
        assert_eq!(netrc_entry("machine x login y", "z"), None);
    }
}
