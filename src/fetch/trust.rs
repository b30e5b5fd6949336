//! Builds every HTTP client the tool makes (archives, registry pages, package
//! metadata, remote MCP servers), so that all of them trust what the machine trusts
//! and go through the proxy it names, as curl, git, pip, npm and cargo do.
//!
//! Trust: the platform's certificate store (on Linux the bundle OpenSSL would read,
//! found as `openssl-probe` finds it), or only `SSL_CERT_FILE` and `SSL_CERT_DIR`
//! when either is set (`rustls-native-certs`' reading of them, the one OpenSSL
//! gives them). A TLS-inspecting proxy's CA that the system store holds is then
//! trusted. The roots compiled into the binary (Mozilla's, `webpki-roots`) are used
//! only where the machine has no certificate at all (a container without
//! `ca-certificates`), with a note saying so. Proxies: `HTTPS_PROXY`, `HTTP_PROXY`,
//! `ALL_PROXY` and `NO_PROXY` (either case), read by reqwest itself unless a caller
//! sets a proxy. docs/census.md ("Network") says this to the user. It sends nothing:
//! requests and their retries are `http`'s, streaming sessions `probe`'s.

use std::sync::OnceLock;

use reqwest::blocking::ClientBuilder;
use reqwest::Certificate;

use crate::infra::messages;

/// What the machine trusts, read once per run.
struct Roots {
    certificates: Vec<Certificate>,
    /// Whether the compiled-in roots stand in for an empty store.
    is_fallback: bool,
}

/// Returns the machine's roots, read once; notes once when there are none.
fn roots() -> &'static Roots {
    static ROOTS: OnceLock<Roots> = OnceLock::new();
    ROOTS.get_or_init(|| {
        let loaded = rustls_native_certs::load_native_certs();
        let certificates: Vec<Certificate> = loaded
            .certs
            .iter()
            .filter_map(|der| Certificate::from_der(der.as_ref()).ok())
            .collect();
        let is_fallback = certificates.is_empty();
        if is_fallback {
            let why = match loaded.errors.first() {
                Some(err) => format!(": {err}"),
                None => String::new(),
            };
            messages::note(format!(
                "no certificate found in the system's store{why}; HTTPS trusts the roots built into \
                 mcp-hint-census instead (hint: install ca-certificates, or set SSL_CERT_FILE)"
            ));
        }
        Roots {
            certificates,
            is_fallback,
        }
    })
}

/// Returns a client builder trusting the machine's roots (see the module's text),
/// with the tool's user agent; proxies from the environment stay on.
pub fn builder() -> ClientBuilder {
    let roots = roots();
    let mut builder = reqwest::blocking::Client::builder()
        .user_agent(concat!("mcp-hint-census/", env!("CARGO_PKG_VERSION")))
        .tls_built_in_root_certs(false);
    for certificate in &roots.certificates {
        builder = builder.add_root_certificate(certificate.clone());
    }
    if roots.is_fallback {
        builder = builder.tls_built_in_webpki_certs(true);
    }
    builder
}

/// Returns a request error and its sources on one line, with a hint when the
/// server's certificate is not one the machine trusts.
pub fn describe(err: &reqwest::Error) -> String {
    let text = error_chain(err);
    if is_untrusted(&text) {
        format!(
            "{text} (hint: HTTPS trusts the system's certificate store, or SSL_CERT_FILE and \
             SSL_CERT_DIR when set: add the CA that signs this server's certificate there)"
        )
    } else {
        text
    }
}

/// Returns true when a request's error (as [`describe`] words it) is a certificate
/// the machine does not trust: no retry changes that.
pub fn is_untrusted(described: &str) -> bool {
    described.contains("invalid peer certificate")
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
