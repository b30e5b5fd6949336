//! The integration tests: one binary, a module per area, over the helpers in
//! `common` (trees, archives, the built binary, naive counters) and `support` (the
//! pinned MCP peers). Each area's module says what it checks.

mod action;
mod archive_rules;
mod bench_corpus;
mod bench_scale;
mod bench_wan;
mod census;
mod common;
mod corpus_build;
mod docs;
mod family;
mod git_hardening;
mod history;
mod lint;
mod output_bounds;
mod output_safety;
mod over_time;
mod packages;
mod precommit;
mod probe_diff;
mod probe_faults;
mod probe_http;
mod probe_packages;
mod probe_peers;
mod probe_remotes;
mod probe_shards;
mod probe_watch;
mod registry_survey;
mod scan;
mod scan_git;
mod scan_tools;
mod sdk_profiles;
mod silence;
mod slurm;
mod support;
mod survey;
mod survey_scale;
mod tls;
mod tools_finder;
mod writers;
