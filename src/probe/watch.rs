//! `probe --watch`: stays connected to one server after the first listing and prints
//! every change of its tools as `diff` does.
//!
//! A review of a server's hints is a snapshot: a server that declares
//! `tools.listChanged` may change its tools, and their annotations, afterwards. The
//! watch answers the server's requests (pings included) as a probe does, lists the tools
//! again on each `notifications/tools/list_changed`, and compares the new list with the
//! one before through `diff`'s own comparison. It ends after `--watch-for` seconds or
//! `--watch-changes` changed listings, whichever comes first, and exits with `diff`'s
//! status. It does not judge hints beyond `diff`, nor keep what it saw: `probe --save`
//! and `diff` are for that.

use std::time::{Duration, Instant};

use anyhow::{Context, Result};

use super::diff;
use super::session::{self, Listing, Transport};
use super::snapshot;
use super::target::{describe_target, Options, Target};
use super::terminal::show;
use super::{http, stdio};
use crate::infra::error::ExitStatus;
use crate::infra::messages::{self, count};
use crate::infra::out::Out;
use crate::infra::sanitize::sanitize;

/// How long a watch stays connected unless `--watch-for` says otherwise, in seconds.
pub const DEFAULT_SECONDS: u64 = 600;
/// How many changed listings a watch prints unless `--watch-changes` says otherwise.
pub const DEFAULT_CHANGES: u64 = 10;

/// The bounds of a watch.
#[derive(Clone, Copy, Debug)]
pub struct Watch {
    /// How long to stay connected after the first listing.
    pub duration: Duration,
    /// How many changed listings end the watch.
    pub changes: u64,
}

/// Runs `probe --watch`: the first listing as a probe shows it, then each change.
pub fn run(target: &Target, options: &Options, watch: Watch) -> Result<ExitStatus> {
    let context = || format!("watching '{}'", sanitize(describe_target(target)));
    let mut out = Out::new();
    match target {
        Target::Stdio {
            command,
            env,
            is_sandboxed,
        } => {
            let mut server =
                stdio::Stdio::spawn(command, env, *is_sandboxed, options).with_context(context)?;
            // On an error the server is dropped, which kills its group.
            let status = watch_on(&mut server, options, watch, &mut out).with_context(context)?;
            if let Some(warning) = server.finish() {
                messages::warning(warning);
            }
            Ok(status)
        }
        Target::Http { url, headers } => {
            let mut server = http::Http::new(url, headers, options).with_context(context)?;
            let status = watch_on(&mut server, options, watch, &mut out);
            // The session is ended whether or not the watch went well.
            if let Some(warning) = server.finish() {
                messages::warning(warning);
            }
            status.with_context(context)
        }
    }
}

/// Holds the watch over an open transport.
fn watch_on(
    server: &mut dyn Transport,
    options: &Options,
    watch: Watch,
    out: &mut Out,
) -> Result<ExitStatus> {
    let first = session::list_tools(server, &options.offer())?;
    show(&first, out)?;
    if !first.announces_changes {
        messages::warning(
            "the server does not declare tools.listChanged: it may never announce a change",
        );
    }
    let started = Instant::now();
    let until = started + watch.duration;
    out.line(&format!(
        "watching for changes to the tools: up to {} s (--watch-for) and {} (--watch-changes)",
        watch.duration.as_secs(),
        count(watch.changes, "change", "changes")
    ))?;
    let mut before: Listing = first;
    let mut changes: u64 = 0;
    let mut permissive = 0;
    let ended = loop {
        if changes >= watch.changes {
            break format!(
                "after {} (--watch-changes)",
                count(changes, "change", "changes")
            );
        }
        if !server.wait_for_list_change(until)? {
            break format!(
                "after {} s (--watch-for), {}",
                watch.duration.as_secs(),
                count(changes, "change", "changes")
            );
        }
        let after = session::relist(server, &before).context("listing the tools again")?;
        for warning in &after.warnings {
            messages::warning(warning);
        }
        let comparison = diff::compare(
            &snapshot::of_listing(&before),
            &snapshot::of_listing(&after),
        );
        let at = started.elapsed().as_secs_f64();
        if comparison.is_empty() {
            out.line(&format!(
                "at {at:.1} s: the server announced a change, and its tools read the same"
            ))?;
            continue;
        }
        changes += 1;
        out.line(&format!(
            "change {changes} at {at:.1} s: {}",
            count(after.tools.len(), "tool", "tools")
        ))?;
        permissive += diff::print(&comparison, out)?;
        before = after;
    };
    out.line(&format!(
        "watch ended {ended}; {} in all",
        count(
            permissive,
            "more-permissive hint change",
            "more-permissive hint changes"
        )
    ))?;
    Ok(if permissive > 0 {
        ExitStatus::Failed
    } else {
        ExitStatus::Ok
    })
}
