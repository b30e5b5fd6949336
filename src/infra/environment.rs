//! The environment every program the tool starts on the host begins with: an
//! allow-list of the user's own variables, nothing else.
//!
//! A survey reads text written by strangers (a registry listing, a servers file made
//! from one) and starts host programs around it: git, npm, uv, pip, Python, bwrap. The
//! dynamic loader and every interpreter read their environment before any option
//! (`LD_PRELOAD`, `GCONV_PATH`, `NODE_OPTIONS`, `PYTHONPATH`...), so a host program
//! starts from [`command`]: the variables [`is_carried`] names, copied from the tool's
//! own environment (the user's configuration: their paths, locale, proxies, indexes,
//! certificates, git and ssh settings), and none of a listing's. Values from a listing
//! reach a host program only as checked arguments. What a sandboxed server sees is
//! handed to it inside the walls (`probe::handoff`), never through this.
//!
//! This module builds the start of a command; it runs nothing (that is
//! [`crate::infra::process`]).

use std::ffi::OsStr;
use std::process::Command;

/// Variables carried by name: the user's paths and locale, certificates, ssh's agent.
const NAMES: [&str; 23] = [
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LANGUAGE",
    "TZ",
    "TMPDIR",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "XDG_RUNTIME_DIR",
    "XDG_CONFIG_DIRS",
    "XDG_DATA_DIRS",
    "SSH_AUTH_SOCK",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "NODE_EXTRA_CA_CERTS",
    "REQUESTS_CA_BUNDLE",
    "CURL_CA_BUNDLE",
    "PYENV_VERSION",
];

/// Variables of git's that are carried into every git: they name the user's own
/// configuration files and ssh program, never a repository.
pub const GIT_KEPT: [&str; 6] = [
    "GIT_CONFIG_GLOBAL",
    "GIT_CONFIG_SYSTEM",
    "GIT_CONFIG_NOSYSTEM",
    "GIT_SSH",
    "GIT_SSH_COMMAND",
    "GIT_ALLOW_PROTOCOL",
];

/// Variables carried by prefix: the locale's parts and the package clients' own
/// configuration (npm's `npm_config_*`, pip's `PIP_*`, uv's `UV_*`, pyenv's root).
const PREFIXES: [&str; 6] = [
    "LC_",
    "npm_config_",
    "NPM_CONFIG_",
    "PIP_",
    "UV_",
    "PYENV_ROOT",
];

/// Proxy variables, carried whatever their case (`https_proxy`, `HTTPS_PROXY`).
const PROXIES: [&str; 4] = ["http_proxy", "https_proxy", "no_proxy", "all_proxy"];

/// Returns `program` to be started with the allow-listed variables of the tool's own
/// environment and no other.
pub fn command(program: impl AsRef<OsStr>) -> Command {
    let mut command = Command::new(program);
    command.env_clear();
    command.envs(std::env::vars_os().filter(|(name, _)| is_carried(name)));
    command
}

/// Returns true for a variable of the tool's environment that a host program it
/// starts receives; a name that is not UTF-8 is none.
pub fn is_carried(name: &OsStr) -> bool {
    let Some(name) = name.to_str() else {
        return false;
    };
    NAMES.contains(&name)
        || GIT_KEPT.contains(&name)
        || PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || PROXIES.iter().any(|proxy| name.eq_ignore_ascii_case(proxy))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_users_configuration_is_carried_and_the_loaders_words_are_not() {
        for name in [
            "PATH",
            "HOME",
            "LC_ALL",
            "npm_config_registry",
            "PIP_INDEX_URL",
            "UV_CACHE_DIR",
            "PYENV_ROOT",
            "HTTPS_PROXY",
            "no_proxy",
            "GIT_CONFIG_GLOBAL",
            "SSL_CERT_FILE",
        ] {
            assert!(is_carried(OsStr::new(name)), "{name}");
        }
        for name in [
            "LD_PRELOAD",
            "LD_LIBRARY_PATH",
            "LD_AUDIT",
            "GCONV_PATH",
            "NODE_OPTIONS",
            "PYTHONPATH",
            "PYTHONSTARTUP",
            "BASH_ENV",
            "ENV",
            "GIT_DIR",
            "GIT_CONFIG_PARAMETERS",
            "MALLOC_CHECK_",
            "GLIBC_TUNABLES",
            "API_KEY",
        ] {
            assert!(!is_carried(OsStr::new(name)), "{name}");
        }
    }

    #[test]
    fn a_command_starts_from_the_carried_variables_only() {
        let command = command("true");
        let set: Vec<&OsStr> = command.get_envs().map(|(name, _)| name).collect();
        assert!(set.iter().all(|name| is_carried(name)), "{set:?}");
        assert!(set.contains(&OsStr::new("PATH")), "{set:?}");
    }
}
