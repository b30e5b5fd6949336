//! The Streamable HTTP transport: JSON-RPC POSTed to one URL, answered as
//! `application/json` or as a `text/event-stream`.
//!
//! Owns the HTTP side of a session: the `Mcp-Session-Id` the server assigns, the
//! `MCP-Protocol-Version` header after initialization, and the closing DELETE. It knows
//! nothing of MCP beyond answering `ping`. The rules are the specification's
//! (<https://modelcontextprotocol.io/specification/2025-06-18/basic/transports#streamable-http>).

use std::io::{BufRead, BufReader};
use std::time::{Duration, Instant};

use anyhow::{anyhow, bail, Context, Result};
use reqwest::blocking::{Client, RequestBuilder, Response};
use reqwest::header::CONTENT_TYPE;
use reqwest::StatusCode;
use serde_json::Value;

use super::session::{self, Incoming, Transport};
use crate::sanitize::excerpt;
use crate::UsageError;

const SESSION_HEADER: &str = "Mcp-Session-Id";
const VERSION_HEADER: &str = "MCP-Protocol-Version";
/// How long the closing DELETE may take; it is a courtesy, not part of the answer.
const CLOSE_TIMEOUT: Duration = Duration::from_secs(5);

/// A session with one Streamable HTTP server.
pub struct Http {
    client: Client,
    url: reqwest::Url,
    session: Option<String>,
    protocol_version: Option<String>,
    deadline: Instant,
    timeout: Duration,
    next_id: u64,
}

impl Http {
    /// Prepares a session with the server at `url`; the whole exchange must end within `timeout`.
    pub fn new(url: &str, timeout: Duration) -> Result<Http> {
        let parsed = reqwest::Url::parse(url)
            .ok()
            .filter(|u| matches!(u.scheme(), "http" | "https"))
            .ok_or_else(|| UsageError(format!("--url '{url}' is not an http or https URL")))?;
        let client = Client::builder()
            .user_agent(concat!(
                env!("CARGO_PKG_NAME"),
                "/",
                env!("CARGO_PKG_VERSION")
            ))
            .build()
            .context("building the HTTP client")?;
        Ok(Http {
            client,
            url: parsed,
            session: None,
            protocol_version: None,
            deadline: Instant::now() + timeout,
            timeout,
            next_id: 1,
        })
    }

    /// Ends the session with a DELETE; returns a warning when the server refuses it
    /// (405, which the specification allows, is not refusal).
    pub fn finish(self) -> Option<String> {
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
        anyhow!(
            "no answer to '{waiting_for}' within {} s (--timeout)",
            self.timeout.as_secs()
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
                } else {
                    anyhow!(err).context(format!("POST {}", self.url))
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
        let body = response.text().unwrap_or_default();
        if status == StatusCode::NOT_FOUND && self.session.is_some() {
            bail!(
                "POST {}: HTTP 404: the server no longer knows this session",
                self.url
            );
        }
        bail!(
            "POST {}: HTTP {status}: '{}'",
            self.url,
            excerpt(body.trim())
        )
    }

    /// Handles one message from the server; returns the answer when it is the one awaited.
    fn handle(&mut self, message: &Value, id: u64, method: &str) -> Result<Option<Result<Value>>> {
        match session::classify(message, id) {
            Incoming::Answer(answer) => Ok(Some(answer.map_err(Into::into))),
            Incoming::Request {
                id: request_id,
                method: asked,
            } => {
                let answer = session::answer_server_request(request_id, asked);
                self.post(&answer, method)
                    .with_context(|| format!("answering the server's '{asked}'"))?;
                Ok(None)
            }
            Incoming::Other => Ok(None),
        }
    }

    /// Reads an event stream until the answer to `id` arrives.
    fn read_events(&mut self, response: Response, id: u64, method: &str) -> Result<Value> {
        let mut reader = BufReader::new(response);
        let mut data = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            let read = reader.read_line(&mut line).map_err(|err| {
                if Instant::now() >= self.deadline {
                    self.timed_out(method)
                } else {
                    anyhow!(err).context(format!("reading the event stream answering '{method}'"))
                }
            })?;
            let ended = read == 0;
            let line_text = line.trim_end_matches(['\r', '\n']);
            if !ended && !line_text.is_empty() {
                // Only `data:` carries JSON-RPC; `event:`, `id:`, `retry:` and comments do not.
                if let Some(value) = line_text.strip_prefix("data:") {
                    if !data.is_empty() {
                        data.push('\n');
                    }
                    data.push_str(value.strip_prefix(' ').unwrap_or(value));
                }
                continue;
            }
            if !data.is_empty() {
                let event = std::mem::take(&mut data);
                // An event that is not JSON (a priming event, a keep-alive) carries no message.
                if let Ok(message) = serde_json::from_str::<Value>(&event) {
                    let messages = match message {
                        Value::Array(batch) => batch,
                        single => vec![single],
                    };
                    for message in &messages {
                        if let Some(answer) = self.handle(message, id, method)? {
                            return answer;
                        }
                    }
                }
            }
            if ended {
                bail!("the event stream ended before the answer to '{method}'");
            }
        }
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
            bail!(
                "the answer to '{method}' is '{content_type}', neither application/json nor text/event-stream"
            );
        }
        let body = response.text().map_err(|err| {
            if err.is_timeout() {
                self.timed_out(method)
            } else {
                anyhow!(err).context(format!("reading the answer to '{method}'"))
            }
        })?;
        let parsed: Value = serde_json::from_str(&body).with_context(|| {
            format!(
                "the answer to '{method}' is not JSON: '{}'",
                excerpt(body.trim())
            )
        })?;
        let messages = match parsed {
            Value::Array(batch) => batch,
            single => vec![single],
        };
        for message in &messages {
            if let Some(answer) = self.handle(message, id, method)? {
                return answer;
            }
        }
        bail!("the answer to '{method}' does not carry its id {id}")
    }

    fn notify(&mut self, method: &str, params: Value) -> Result<()> {
        self.post(&session::notification_message(method, params), method)?;
        Ok(())
    }

    fn set_protocol_version(&mut self, version: &str) {
        self.protocol_version = Some(version.to_string());
    }
}
