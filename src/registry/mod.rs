//! The package indexes a survey reads: npm registries ([`npm`]) and PyPI indexes
//! ([`pypi`]), each the one its own client on this machine is set up with, asked
//! through `fetch::http`'s one client with the credentials that client would send.
//!
//! What both share sits below them: [`pinned`] (a package pinned to an artifact by
//! digest, or why it could not be) and [`client`] (a bounded GET that names the URL
//! it asked, without its credentials, in every error; the credentials a URL's user
//! info or `~/.netrc` gives), and [`family`] (which dependencies are pinned to one
//! exact version). This file only picks the credential an artifact's
//! download sends. Nothing here downloads an artifact (that is `fetch`'s), installs
//! anything or runs a package.

pub mod client;
pub mod family;
pub mod npm;
pub mod pinned;
pub mod pypi;

use std::sync::OnceLock;

use reqwest::Url;

pub use client::{shown, without_credentials};
pub use pinned::{Kind, Miss, Pinned};

use crate::fetch::http::Credential;

/// Returns the credential the client of `registry` on this machine would send with
/// a GET of the artifact at `url`: npm's for the place `url` is under, pip's for an
/// artifact on its index's host (the index URL's user info, else netrc), else
/// netrc's for the artifact's host.
pub fn credential_for(registry: Kind, url: &str) -> Option<Credential> {
    static NPM: OnceLock<npm::Config> = OnceLock::new();
    match registry {
        Kind::Npm => NPM
            .get_or_init(npm::Config::from_machine)
            .credential_for(url),
        Kind::Pypi => {
            let url = Url::parse(url).ok()?;
            let index = Url::parse(&pypi::index().url).ok()?;
            let same_host = index.host_str() == url.host_str()
                && index.port_or_known_default() == url.port_or_known_default()
                && index.scheme() == url.scheme();
            let mut place = match same_host {
                true => index,
                false => url,
            };
            place.set_path("/");
            client::basic_credential(&place)
        }
    }
}
