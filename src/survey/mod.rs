//! The wire survey: many servers probed into one set of tables (`probe --servers`),
//! joined to a census of their source (`join`), split across machines and merged
//! again (`merge --servers`).
//!
//! It runs the single-server client (`probe`) server after server: the servers
//! file (`file`), installing registry packages (`install`, `pypi`, `python`,
//! `program`) within a disk budget (`budget`), running them in a sandbox
//! (`sandbox`), remote endpoints a few at a time per host (`hosts`), how each ended
//! (`outcome`), the tables and summary (`tables`, `tally`), the command lines it
//! started (`commands`), the resume journal (`journal`), the shards (`note`,
//! `shards`) and the join (`join`), which reads a package's family (`family`) as the
//! package's own tools. `entries` is the `survey` command: every entry
//! of a registry listing with its outcomes, from the tables the census and the wire
//! survey wrote.
//!
//! A command: it may import `probe`, the stages, `cli`, `infra` and `corpus` (the
//! cache default it shares); nothing but the binary and `merge` imports it.

pub mod budget;
mod census_rows;
mod commands;
pub mod entries;
mod family;
mod figures;
mod file;
pub mod hosts;
pub mod install;
pub mod join;
pub mod journal;
pub mod note;
mod outcome;
mod over_time;
pub mod program;
pub mod python;
pub mod sandbox;
pub mod servers;
pub mod shards;
mod start;
mod tables;
pub mod tally;
mod usage;
pub mod whole;

use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::cli::{JoinArgs, ProbeArgs};
use crate::corpus;
use crate::infra::date;
use crate::infra::error::{ExitStatus, UsageError};
use crate::infra::sanitize::sanitize;

/// Runs `probe --servers FILE`: every server of the file, into one table.
pub fn run(args: &ProbeArgs) -> Result<ExitStatus> {
    let options = crate::probe::options(args)?;
    let config = configure(args)?;
    servers::run(&config, &options)
}

/// Runs `join`: the tables of a survey joined to a census, without probing.
pub fn join(args: &JoinArgs) -> Result<ExitStatus> {
    join::run(args)
}

/// Returns the validated `probe --servers` configuration of `args`; a bad cache
/// folder, shard or date is a [`UsageError`]. No server is started.
fn configure(args: &ProbeArgs) -> Result<servers::Config> {
    let file = args
        .servers
        .clone()
        .ok_or_else(|| UsageError("the survey needs --servers FILE".to_string()))?;
    // Resolved before any server starts, so a bad --date costs no server run.
    let date = date::resolve(args.date.as_deref())?;
    let cache = match &args.cache {
        // Absolute: the sandboxed server starts in a HOME of its own.
        Some(dir) => std::path::absolute(dir).map_err(|e| {
            UsageError(format!(
                "--cache '{}': {e}",
                sanitize(dir.display().to_string())
            ))
        })?,
        None => corpus::default_cache()
            .map(|dir| dir.join("packages"))
            .ok_or_else(|| {
                UsageError("no user cache folder is known here; give --cache DIR".to_string())
            })?,
    };
    // Asked before any server starts, so that a path that is no Python costs none.
    let pythons = args
        .pythons
        .iter()
        .map(|path| python::offered(path).map_err(|why| UsageError(format!("--python {why}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(servers::Config {
        packages: servers::Packages {
            installer: install::Installer {
                cache,
                before: args.before.clone(),
                uv: install::find_uv(),
                timeout: Duration::from_secs(args.install_timeout),
                max_size: args.max_install_size.0,
                downloads: None,
                pythons,
            },
            keep_installs: args.keep_installs,
            is_sandboxed: !args.no_sandbox_i_trust_these_packages,
            has_placeholders: !args.no_placeholders,
        },
        file,
        out_dir: args.out.clone().unwrap_or_else(|| PathBuf::from("results")),
        jobs: usize::from(args.jobs.unwrap_or(servers::DEFAULT_JOBS)),
        date,
        source_table: args.source_table.clone(),
        resume: args.resume,
        write_commands: args.write_commands,
        shard: args
            .shard
            .map(|spec| spec.resolve(|name| std::env::var(name).ok()))
            .transpose()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_servers_command_line_becomes_one_config() {
        use clap::Parser;
        let line = [
            "mcp-hint-census",
            "probe",
            "--servers",
            "s.toml",
            "--date",
            "2026-01-02",
            "-j",
            "2",
        ];
        let crate::cli::Command::Probe(args) =
            crate::cli::Cli::try_parse_from(line).unwrap().command
        else {
            panic!("not a probe")
        };
        let config = configure(&args).unwrap();
        assert_eq!(config.file, PathBuf::from("s.toml"));
        assert_eq!(config.out_dir, PathBuf::from("results"));
        assert_eq!(config.jobs, 2);
        assert_eq!(config.date, "2026-01-02");
        assert!(!config.packages.keep_installs);
        assert!(config.packages.installer.pythons.is_empty());
        let line = ["mcp-hint-census", "probe", "--servers", "s.toml"];
        let crate::cli::Command::Probe(mut args) = crate::cli::Cli::try_parse_from(
            line.iter().chain(&["--python", "/nowhere/python3.12"]),
        )
        .unwrap()
        .command
        else {
            panic!("not a probe")
        };
        let err = configure(&args).unwrap_err().to_string();
        assert_eq!(
            err,
            "--python '/nowhere/python3.12' is not a CPython 3 interpreter that answers when asked its version"
        );
        args.pythons.clear();
        assert!(configure(&args).is_ok());
    }
}
