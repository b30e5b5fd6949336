//! The Streamable HTTP transport: JSON-RPC POSTed to one URL, answered as
//! `application/json` or as a `text/event-stream`.
//!
//! Owns the HTTP side of a session: the `Mcp-Session-Id` the server assigns, the
//! `MCP-Protocol-Version` header after initialization, extra headers (such as a token)
//! on every request, and the closing DELETE. It knows nothing of MCP beyond answering the
//! server's requests as `session` says. Bodies and event lines are read in bounded chunks
//! up to `--max-message`. The rules are the specification's
//! (<https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http>).

use std::io::{BufReader, Read};
use std::thread;
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::CONTENT_TYPE;
use reqwest::StatusCode;
use serde_json::Value;

use super::lines::{self, Line};
use super::session::{self, Incoming, Parsed, Transport};
use super::target::Options;
use crate::fetch::trust;
use crate::infra::error::UsageError;
use crate::infra::sanitize::excerpt;

const SESSION_HEADER: &str = "Mcp-Session-Id";
const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// How long the closing DELETE may take; it is a courtesy, not part of the answer.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long a watch waits before it opens the server's event stream again once the
/// server ended it.
const REOPEN_PAUSE: Duration = Duration::from_millis(500);
/// How much of an error body is read to quote it.
const ERROR_BODY: u64 = 4096;

/// Says how an exchange with an HTTP server failed, in terms a survey counts: the
/// `outcome` of a remote endpoint in the servers table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpOutcome {
    /// 401 or 403 with a `WWW-Authenticate` challenge: the specification's
    /// authorization flow, with the protected resource metadata URL (RFC 9728's
    /// `resource_metadata` parameter) when the challenge gives one.
    NeedsAuthorization { resource_metadata: Option<String> },
    /// Any other answer whose status is not a success.
    Status,
    /// No connection: the name did not resolve, the connection or TLS failed.
    Unreachable,
    /// An answer that is neither JSON nor an event stream (an HTML page, say).
    NotMcp,
    /// No answer within `--timeout`.
    TimedOut,
}

/// Holds an HTTP failure: what it was, the status when there was one, and the
/// words a single probe prints.
#[derive(Debug)]
pub struct HttpError {
    pub outcome: HttpOutcome,
    pub status: Option<u16>,
    message: String,
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HttpError {}

fn http_error(outcome: HttpOutcome, status: Option<u16>, message: String) -> anyhow::Error {
    anyhow::Error::new(HttpError {
        outcome,
        status,
        message,
    })
}

/// Returns the `resource_metadata` parameter of a `WWW-Authenticate` challenge
/// (RFC 9728, section 5.1): a quoted string or a token.
pub fn resource_metadata(challenge: &str) -> Option<String> {
    let lower = challenge.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = lower[from..].find("resource_metadata") {
        let start = from + at;
        from = start + "resource_metadata".len();
        // A parameter name starts the challenge's parameters or follows a separator.
        let before = lower[..start].chars().next_back();
        if before.is_some_and(|c| !(c == ',' || c.is_whitespace())) {
            continue;
        }
        let rest = challenge[from..].trim_start();
        let Some(rest) = rest.strip_prefix('=') else {
            continue;
        };
        let rest = rest.trim_start();
        let value = match rest.strip_prefix('"') {
            Some(quoted) => {
                let mut value = String::new();
                let mut chars = quoted.chars();
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' => value.push(chars.next()?),
                        c => value.push(c),
                    }
                }
                value
            }
            None => rest
                .split(|c: char| c == ',' || c.is_whitespace())
                .next()
                .unwrap_or_default()
                .to_string(),
        };
        return (!value.is_empty()).then_some(value);
    }
    None
}

/// A session with one Streamable HTTP server.
pub struct Http {
    client: Client,
    url: reqwest::Url,
    session: Option<String>,
    protocol_version: Option<String>,
    deadline: Instant,
    timeout: Duration,
    next_id: u64,
    headers: Vec<(String, String)>,
    max_message: usize,
    capabilities: Value,
    warnings: Vec<String>,
    /// Set when the server announced that its tool list changed, until a watch sees it.
    list_changed: bool,
    /// The server's own event stream, once a watch has opened it.
    stream: Option<BufReader<Response>>,
}

impl Http {
    /// Prepares a session with the server at `url`, sending `headers` on every request;
    /// the whole exchange must end within `options.timeout`.
    pub fn new(url: &str, headers: &[(String, String)], options: &Options) -> Result<Http> {
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| UsageError(format!("--url '{url}' is not an http or https URL")))?;
        // The machine's trust store and proxies, as every request of the tool.
        let client = trust::builder()
            .build()
            .context("building the HTTP client")?;
        Ok(Http {
            client,
            url: parsed,
            session: None,
            protocol_version: None,
            deadline: Instant::now() + options.timeout,
            timeout: options.timeout,
            next_id: 1,
            headers: headers.to_vec(),
            max_message: options.max_message,
            capabilities: options.capabilities.clone(),
            warnings: Vec::new(),
            list_changed: false,
            stream: None,
        })
    }

    /// Ends the session with a DELETE; returns a warning when the server refuses it
    /// (405, which the specification allows, is not refusal).
    pub fn finish(mut self) -> Option<String> {
        drop(self.stream.take());
        let session = self.session.as_deref()?;
        let answer = self
            .with_headers(self.client.delete(self.url.clone()))
            .timeout(CLOSE_TIMEOUT)
            .send();
        match answer {
            Ok(r) if r.status().is_success() || r.status() == StatusCode::METHOD_NOT_ALLOWED => {
                None
            }
            Ok(r) => Some(format!(
                "ending session '{session}' with DELETE: HTTP {}",
                r.status()
            )),
            Err(err) => Some(format!("ending session '{session}' with DELETE: {err}")),
        }
    }

    fn with_headers(&self, builder: RequestBuilder) -> RequestBuilder {
        let mut builder = builder;
        for (name, value) in &self.headers {
            builder = builder.header(name, value);
        }
        if let Some(session) = &self.session {
            builder = builder.header(SESSION_HEADER, session);
        }
        if let Some(version) = &self.protocol_version {
            builder = builder.header(VERSION_HEADER, version);
        }
        builder
    }

    fn left(&self, waiting_for: &str) -> Result<Duration> {
        let left = self.deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(self.timed_out(waiting_for));
        }
        Ok(left)
    }

    fn timed_out(&self, waiting_for: &str) -> anyhow::Error {
        http_error(
            HttpOutcome::TimedOut,
            None,
            format!(
                "no answer to '{waiting_for}' within {} s (--timeout)",
                self.timeout.as_secs()
            ),
        )
    }

    /// POSTs one message and returns the response once its status says it was accepted.
    fn post(&mut self, message: &Value, waiting_for: &str) -> Result<Response> {
        let left = self.left(waiting_for)?;
        let response = self
            .with_headers(self.client.post(self.url.clone()))
            .header(CONTENT_TYPE, "application/json")
            .header("Accept", "application/json, text/event-stream")
            .timeout(left)
            .body(message.to_string())
            .send()
            .map_err(|err| {
                if err.is_timeout() {
                    self.timed_out(waiting_for)
                } else if err.is_connect() {
                    // A certificate the machine does not trust fails the connection
                    // too: describe says so, with the hint.
                    let why = trust::describe(&err.without_url());
                    http_error(
                        HttpOutcome::Unreachable,
                        None,
                        format!("POST {}: {why}", self.url),
                    )
                } else {
                    anyhow!(trust::describe(&err.without_url()))
                        .context(format!("POST {}", self.url))
                }
            })?;
        if let Some(id) = response.headers().get(SESSION_HEADER) {
            let id = id
                .to_str()
                .context("the server's 'Mcp-Session-Id' is not visible ASCII")?;
            self.session = Some(id.to_string());
        }
        let status = response.status();
        if status.is_success() {
            return Ok(response);
        }
        let challenge = response
            .headers()
            .get(reqwest::header::WWW_AUTHENTICATE)
            .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
        let mut body = Vec::new();
        let _ = response.take(ERROR_BODY).read_to_end(&mut body);
        let body = String::from_utf8_lossy(&body);
        let code = Some(status.as_u16());
        if status == StatusCode::NOT_FOUND && self.session.is_some() {
            return Err(http_error(
                HttpOutcome::Status,
                code,
                format!(
                    "POST {}: HTTP 404: the server no longer knows this session",
                    self.url
                ),
            ));
        }
        let is_refusal = matches!(status.as_u16(), 401 | 403);
        match challenge {
            Some(challenge) if is_refusal => {
                let metadata = resource_metadata(&challenge);
                Err(http_error(
                    HttpOutcome::NeedsAuthorization {
                        resource_metadata: metadata,
                    },
                    code,
                    format!(
                        "POST {}: HTTP {status}: it needs authorization (WWW-Authenticate: {})",
                        self.url,
                        excerpt(challenge.trim())
                    ),
                ))
            }
            _ => Err(http_error(
                HttpOutcome::Status,
                code,
                format!(
                    "POST {}: HTTP {status}: '{}'",
                    self.url,
                    excerpt(body.trim())
                ),
            )),
        }
    }

    /// Handles one message from the server; returns the answer when it is the one awaited.
    fn handle(&mut self, message: &Value, id: u64, method: &str) -> Result<Option<Result<Value>>> {
        if session::is_list_changed(message) {
            self.list_changed = true;
        }
        match session::classify(message, id, method) {
            Incoming::Answer(answer) => Ok(Some(answer.map_err(Into::into))),
            Incoming::Request {
                id: request_id,
                method: asked,
            } => {
                let answer = session::answer_server_request(request_id, asked, &self.capabilities);
                self.post(&answer, method)
                    .with_context(|| format!("answering the server's '{asked}'"))?;
                Ok(None)
            }
            Incoming::Echo => bail!(
                "the server sent our '{method}' request back unchanged: it echoes its input and is not an MCP server"
            ),
            Incoming::Other => Ok(None),
        }
    }

    /// Handles the text of one message or batch; returns the answer when it is the one
    /// awaited. Text that is not JSON is an error only in a JSON body (`strict`).
    fn handle_text(
        &mut self,
        text: &[u8],
        id: u64,
        method: &str,
        strict: bool,
    ) -> Result<Option<Result<Value>>> {
        let parsed = match session::parse(text) {
            Parsed::Message(value) => value,
            // An event that is not JSON (a priming event, a keep-alive) carries no message.
            Parsed::NotJson if !strict => return Ok(None),
            Parsed::NotJson => bail!(
                "the answer to '{method}' is not JSON: '{}'",
                excerpt(String::from_utf8_lossy(text).trim())
            ),
            Parsed::TooDeep {
                id: their_id,
                method: their_method,
            } => {
                let warning =
                    session::too_deep(id, method, their_id.as_ref(), their_method.as_deref())?;
                self.warnings.push(warning);
                return Ok(None);
            }
        };
        let messages = match parsed {
            Value::Array(batch) => batch,
            single => vec![single],
        };
        for message in &messages {
            if let Some(answer) = self.handle(message, id, method)? {
                return Ok(Some(answer));
            }
        }
        Ok(None)
    }

    fn too_long(&self, what: &str) -> anyhow::Error {
        anyhow!(
            "{what} is longer than {} bytes (--max-message), the most one message may take",
            self.max_message
        )
    }

    /// Reads an event stream until the answer to `id` arrives.
    fn read_events(&mut self, response: Response, id: u64, method: &str) -> Result<Value> {
        let mut reader = BufReader::new(response);
        let what = format!("the event stream answering '{method}'");
        loop {
            let event = self.next_event(&mut reader, &what).map_err(|err| {
                if err.is::<std::io::Error>() && Instant::now() >= self.deadline {
                    self.timed_out(method)
                } else {
                    err
                }
            })?;
            let Some(event) = event else {
                bail!("the event stream ended before the answer to '{method}'");
            };
            if let Some(answer) = self.handle_text(&event, id, method, false)? {
                return answer;
            }
        }
    }

    /// Reads the next event carrying data from `reader` (`what` names the stream in
    /// messages); returns `None` at the end of the stream. An event whose data is not
    /// UTF-8 is skipped with a warning. A read that fails is an `io::Error` in the chain.
    fn next_event(
        &mut self,
        reader: &mut BufReader<Response>,
        what: &str,
    ) -> Result<Option<Vec<u8>>> {
        let mut data: Vec<u8> = Vec::new();
        let mut line = Vec::new();
        loop {
            let read = lines::read_line(reader, &mut line, self.max_message)
                .map_err(|err| anyhow::Error::new(err).context(format!("reading {what}")))?;
            if read == Line::TooLong {
                return Err(self.too_long(&format!("a line of {what}")));
            }
            let ended = read == Line::End;
            let mut text: &[u8] = &line;
            while let [rest @ .., b'\r' | b'\n'] = text {
                text = rest;
            }
            if !ended && !text.is_empty() {
                // Only `data:` carries JSON-RPC; `event:`, `id:`, `retry:` and comments do not.
                if let Some(value) = text.strip_prefix(b"data:") {
                    let value = value.strip_prefix(b" ").unwrap_or(value);
                    if data.len() + value.len() + 1 > self.max_message {
                        return Err(self.too_long(&format!("an event of {what}")));
                    }
                    if !data.is_empty() {
                        data.push(b'\n');
                    }
                    data.extend_from_slice(value);
                }
                continue;
            }
            if !data.is_empty() {
                let event = std::mem::take(&mut data);
                if std::str::from_utf8(&event).is_ok() {
                    return Ok(Some(event));
                }
                self.warnings.push(format!(
                    "skipped an event that is not UTF-8 in {what}: '{}'",
                    excerpt(&String::from_utf8_lossy(&event))
                ));
            }
            if ended {
                return Ok(None);
            }
        }
    }

    /// Opens the event stream on which the server sends what it has to say unasked
    /// (a GET, as the transport's "Listening for Messages from the Server" says), open
    /// until `until` at most.
    fn open_stream(&mut self, until: Instant) -> Result<BufReader<Response>> {
        let left = until.saturating_duration_since(Instant::now());
        let response = self
            .with_headers(self.client.get(self.url.clone()))
            .header("Accept", "text/event-stream")
            .timeout(left.max(Duration::from_millis(1)))
            .send()
            .with_context(|| format!("GET {} for the server's event stream", self.url))?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            bail!(
                "GET {}: HTTP 405: the server offers no event stream of its own, so it cannot announce a change of its tools to a client that asks nothing",
                self.url
            );
        }
        if status == StatusCode::NOT_FOUND && self.session.is_some() {
            bail!(
                "GET {}: HTTP 404: the server no longer knows this session",
                self.url
            );
        }
        if !status.is_success() {
            bail!("GET {}: HTTP {status}", self.url);
        }
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if !content_type.starts_with("text/event-stream") {
            bail!(
                "GET {}: the answer is '{}', not text/event-stream",
                self.url,
                excerpt(&content_type)
            );
        }
        Ok(BufReader::new(response))
    }
}

impl Transport for Http {
    fn request(&mut self, method: &str, params: Value) -> Result<Value> {
        let id = self.next_id;
        self.next_id += 1;
        let response = self.post(&session::request_message(id, method, params), method)?;
        let content_type = response
            .headers()
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_ascii_lowercase();
        if content_type.starts_with("text/event-stream") {
            return self.read_events(response, id, method);
        }
        if !content_type.starts_with("application/json") {
            return Err(http_error(
                HttpOutcome::NotMcp,
                None,
                format!(
                    "the answer to '{method}' is '{}', neither application/json nor text/event-stream",
                    excerpt(&content_type)
                ),
            ));
        }
        if response
            .content_length()
            .is_some_and(|length| length > self.max_message as u64)
        {
            return Err(self.too_long(&format!("the answer to '{method}'")));
        }
        let mut body = Vec::new();
        response
            .take(self.max_message as u64 + 1)
            .read_to_end(&mut body)
            .map_err(|err| {
                if Instant::now() >= self.deadline {
                    self.timed_out(method)
                } else {
                    anyhow!(err).context(format!("reading the answer to '{method}'"))
                }
            })?;
        if body.len() > self.max_message {
            return Err(self.too_long(&format!("the answer to '{method}'")));
        }
        match self.handle_text(&body, id, method, true)? {
            Some(answer) => answer,
            None => bail!("the answer to '{method}' does not carry its id {id}"),
        }
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        self.post(&session::notification_message(method, params), method)?;
        Ok(())
    }

    fn set_protocol_version(&mut self, version: &str) {
        self.protocol_version = Some(version.to_string());
    }

    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    fn wait_for_list_change(&mut self, until: Instant) -> Result<bool> {
        let what = "the server's event stream";
        while !self.list_changed {
            if Instant::now() >= until {
                return Ok(false);
            }
            let mut stream = match self.stream.take() {
                Some(stream) => stream,
                None => self.open_stream(until)?,
            };
            match self.next_event(&mut stream, what) {
                Ok(Some(event)) => {
                    self.stream = Some(stream);
                    // Answers to the server's requests (a ping) get a --timeout of their own.
                    self.restart_timeout();
                    self.handle_text(&event, 0, session::LIST_CHANGED, false)
                        .with_context(|| format!("reading {what}"))?;
                }
                // The server may end its stream at any time; the client may open another.
                Ok(None) => {
                    thread::sleep(REOPEN_PAUSE.min(until.saturating_duration_since(Instant::now())))
                }
                Err(err) if err.is::<std::io::Error>() && Instant::now() >= until => {
                    return Ok(false)
                }
                Err(err) => return Err(err),
            }
        }
        self.list_changed = false;
        Ok(true)
    }

    fn restart_timeout(&mut self) {
        self.deadline = Instant::now() + self.timeout;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_metadata_of_a_challenge_is_read_quoted_or_not() {
        for (challenge, want) in [
            (
                r#"Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource", scope="x""#,
                Some("https://a.example/.well-known/oauth-protected-resource"),
            ),
            (
                r#"Bearer realm="r", Resource_Metadata = "https://b.example/m?a=\"1\"""#,
                Some(r#"https://b.example/m?a="1""#),
            ),
            (
                "Bearer resource_metadata=https://c.example/m, error=\"x\"",
                Some("https://c.example/m"),
            ),
            (
                r#"Bearer error="invalid_token", not_resource_metadata="x""#,
                None,
            ),
            ("Basic realm=\"x\"", None),
            (r#"Bearer resource_metadata="unterminated"#, None),
        ] {
            assert_eq!(resource_metadata(challenge).as_deref(), want, "{challenge}");
        }
    }
}
