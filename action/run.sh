#!/usr/bin/env bash
# Runs one mcp-hint-census check for the GitHub Action in ../action.yml: builds the
# command line from INPUT_* variables, runs the tool, writes a Markdown job summary
# and the step's outputs, and exits with the tool's exit code. It runs the same way
# outside GitHub, which is how tests/action.rs tests it.
#
# Reads INPUT_MODE (scan, probe or diff), INPUT_PATHS, INPUT_REQUIRE_HINTS,
# INPUT_PROFILE, INPUT_SARIF, INPUT_COMMAND, INPUT_URL, INPUT_REQUIRE, INPUT_SAVE, INPUT_TIMEOUT,
# INPUT_OLD, INPUT_NEW and INPUT_BINARY (action.yml says what each means), and
# GitHub's GITHUB_STEP_SUMMARY, GITHUB_OUTPUT and RUNNER_TEMP, each optional here.
#
# Inputs are data, never code: nothing is passed to eval or to a shell. INPUT_PATHS
# and INPUT_COMMAND hold one argument per line; leading and trailing blanks are
# removed and blank lines skipped, every other character is kept as it is.
#
# Exits with the tool's status (0 passed, 1 failed, 2 usage, 3 a gate failed), or 2
# when the inputs make no command line (an unknown mode, no server to probe, ...).

# Backticks inside single quotes below are Markdown for the summary, not commands.
# shellcheck disable=SC2016
set -eu

# What one output may add to the summary (GitHub takes at most 1 MiB a step); the
# whole output is still in the step log and in the files the outputs name.
max_bytes=196608
max_lines=2000

summary=${GITHUB_STEP_SUMMARY:-/dev/null}
headed=
work=$(mktemp -d "${RUNNER_TEMP:-${TMPDIR:-/tmp}}/mcp-hint-census.XXXXXX")

# Appends each argument to the summary as a line.
say() {
    printf '%s\n' "$@" >>"$summary"
}

# Sets step output $1 to $2. The delimited form keeps a value holding a newline
# from forging another output.
set_output() {
    [ -n "${GITHUB_OUTPUT:-}" ] || return 0
    local delim=MCP_HINT_CENSUS_EOF
    while [[ $2 == *"$delim"* ]]; do delim="${delim}_"; done
    printf '%s<<%s\n%s\n%s\n' "$1" "$delim" "$2" "$delim" >>"$GITHUB_OUTPUT"
}

# Sets the csv output to $1 once the tool has run, only when it wrote that file: an
# upload step given the output then never gets a path that does not exist.
csv_written() {
    if [ -f "$1" ]; then set_output csv "$1"; fi
}

# Ends the step with status 2 for inputs that make no command line. $1 is fixed
# text naming the input; the offending value, if any ($2), goes to the log only.
usage() {
    printf 'mcp-hint-census action: %s\n' "$1" >&2
    if [ $# -gt 1 ]; then printf '  got: %q\n' "$2" >&2; fi
    if [ -z "$headed" ]; then say "## mcp-hint-census"; fi
    say "" "**Usage error** (exit 2): $1."
    set_output status 2
    exit 2
}

# Copies file $1 into the summary inside a code fence longer than any run of
# backticks in it, so that nothing it holds can close the fence. Control characters
# other than tab and newline are dropped (a carriage return would end a Markdown
# line), and the copy is cut at max_bytes and max_lines.
fenced() {
    local clean=$work/fenced.txt fence
    head -c "$max_bytes" "$1" | head -n "$max_lines" |
        LC_ALL=C tr -d '\000-\010\013-\037\177' >"$clean"
    fence=$(LC_ALL=C awk '
        { s = $0; while (match(s, /`+/)) { if (RLENGTH > m) m = RLENGTH; s = substr(s, RSTART + RLENGTH) } }
        END { n = m < 3 ? 3 : m + 1; f = ""; for (i = 0; i < n; i++) f = f "`"; print f }' "$clean")
    say "$fence"
    cat "$clean" >>"$summary"
    if [ -n "$(tail -c 1 "$clean")" ]; then say ""; fi
    say "$fence"
    if [ "$(wc -c <"$1")" -gt "$max_bytes" ] || [ "$(wc -l <"$1")" -gt "$max_lines" ]; then
        say "" "(cut at $max_lines lines or $max_bytes bytes; the step log has all of it)"
    fi
}

# Splits $1 into the array `lines`: one element per non-blank line, trimmed.
split_lines() {
    local line
    lines=()
    while IFS= read -r line; do
        line=${line#"${line%%[![:space:]]*}"}
        line=${line%"${line##*[![:space:]]}"}
        if [ -n "$line" ]; then lines+=("$line"); fi
    done <<<"$1"
}

# Runs the tool with the arguments given, its first being the subcommand: shows the
# command and its output in the log and in the summary, keeps stdout in
# $work/SUBCOMMAND.txt (then named by `table`), and sets rc to its exit status.
run_tool() {
    local out=$work/$1.txt err=$work/$1.stderr.txt shown=$work/$1.command.txt
    { printf '$ mcp-hint-census'; printf ' %q' "$@"; printf '\n'; } >"$shown"
    cat "$shown"
    rc=0
    "$bin" "$@" </dev/null >"$out" 2>"$err" || rc=$?
    cat "$out"
    cat "$err" >&2
    say "" "Command:" ""
    fenced "$shown"
    if [ -s "$out" ]; then say ""; fenced "$out"; fi
    if [ -s "$err" ]; then say "" "Messages:" ""; fenced "$err"; fi
    table=$out
}

# Appends the one-line verdict on subcommand $1's exit status $2.
verdict() {
    local text
    case $1:$2 in
    scan:0)
        text="**Passed**: every tree was counted."
        if [ "$require_hints" = true ]; then
            text="**Passed**: every tree was counted and spells out at least one of the four hint names."
        elif [ "$require_hints" = tools ]; then
            text="**Passed**: every tree was counted and the lint found nothing in any tool definition."
        fi ;;
    probe:0)
        text="**Passed**: the server listed its tools."
        if [ -n "${INPUT_REQUIRE:-}" ]; then
            text="**Passed**: the server listed its tools and every tool follows the required rule."
        fi ;;
    diff:0) text="**Passed**: no hint became more permissive." ;;
    scan:1) text="**Failed** (exit 1): a path could not be counted; the messages say why." ;;
    probe:1) text="**Failed** (exit 1): the server could not be probed; the messages say why." ;;
    diff:1) text="**Failed** (exit 1): a hint became more permissive; see the changes marked more-permissive." ;;
    *:2) text="**Usage error** (exit 2): the command line or a snapshot is wrong; nothing was done." ;;
    scan:3)
        text="**Gate failed** (exit 3): a tree reads zero on all four hint names. A zero is about the literals in the tree, not what the server sends: see the limits in the README."
        if [ "$require_hints" = tools ]; then
            text="**Gate failed** (exit 3): the lint found a tool definition to fix (no hint, a meaningful hint left out, or a read-only declaration contradicted); the messages and the results at each line name them."
        fi ;;
    probe:3) text="**Gate failed** (exit 3): a tool breaks the required rule; the output names each one and what it lacks." ;;
    *) text="**Error**: mcp-hint-census exited with status $2." ;;
    esac
    say "" "$text"
}

# Sets `args` to a probe of the server in INPUT_COMMAND or INPUT_URL, saving its
# snapshot to $1 when that is not empty.
probe_args() {
    split_lines "${INPUT_COMMAND:-}"
    local server=(${lines[@]+"${lines[@]}"})
    if [ -n "${INPUT_URL:-}" ] && [ ${#server[@]} -gt 0 ]; then
        usage 'give the server as `command` or as `url`, not both'
    fi
    if [ -z "${INPUT_URL:-}" ] && [ ${#server[@]} -eq 0 ]; then
        usage 'give the server to probe as `command` (one argument per line) or `url`'
    fi
    if [ ${#server[@]} -eq 1 ] && [[ ${server[0]} == *" "* ]]; then
        echo "::warning::the action's command input takes one argument per line; it got a single line with spaces, run as one program name"
    fi
    args=(probe)
    if [ -n "${INPUT_URL:-}" ]; then args+=(--url "$INPUT_URL"); fi
    if [ -n "${INPUT_REQUIRE:-}" ]; then args+=(--require "$INPUT_REQUIRE"); fi
    if [ -n "${INPUT_TIMEOUT:-}" ]; then args+=(--timeout "$INPUT_TIMEOUT"); fi
    if [ -n "$1" ]; then args+=(--save "$1"); fi
    args+=(--csv "$work/probe.csv")
    if [ ${#server[@]} -gt 0 ]; then args+=(-- "${server[@]}"); fi
}

mode=${INPUT_MODE:-scan}
case $mode in
scan | probe | diff) ;;
*) usage '`mode` must be scan, probe or diff' "$mode" ;;
esac
require_hints=${INPUT_REQUIRE_HINTS:-true}
case $require_hints in
true | false | tools) ;;
*) usage '`require-hints` must be true, false or tools' "$require_hints" ;;
esac
sarif=${INPUT_SARIF:-false}
case $sarif in
true | false) ;;
*) usage '`sarif` must be true or false' "$sarif" ;;
esac
# An input meant for another mode is a mistake worth stopping on: with the default
# mode, a forgotten `mode: probe` would otherwise pass as a scan of the checkout.
if [ "$mode" = scan ]; then
    if [ -n "${INPUT_COMMAND:-}${INPUT_URL:-}${INPUT_REQUIRE:-}${INPUT_SAVE:-}${INPUT_OLD:-}${INPUT_NEW:-}" ]; then
        usage '`command`, `url`, `require`, `save`, `old` and `new` are for mode probe or diff'
    fi
elif [ -n "${INPUT_PROFILE:-}" ]; then
    usage '`profile` is for mode scan'
elif [ "$sarif" = true ]; then
    usage '`sarif` is for mode scan'
elif [ "$mode" = probe ] && [ -n "${INPUT_OLD:-}${INPUT_NEW:-}" ]; then
    usage '`old` and `new` are for mode diff'
fi

bin=${INPUT_BINARY:-${HOME:-}/.mcp-hint-census/bin/mcp-hint-census}
case $bin in
*/*)
    if ! [ -f "$bin" ] || ! [ -x "$bin" ]; then
        usage 'the mcp-hint-census binary (input `binary`, else the one the action builds) is not an executable file' "$bin"
    fi ;;
*)
    found=$(command -v -- "$bin") || found=
    case $found in
    */*) bin=$found ;;
    *) usage 'the `binary` input names no command on PATH' "$bin" ;;
    esac ;;
esac

say "## mcp-hint-census $mode"
headed=yes
case $mode in
scan)
    split_lines "${INPUT_PATHS:-.}"
    paths=(${lines[@]+"${lines[@]}"})
    if [ ${#paths[@]} -eq 0 ]; then paths=(.); fi
    args=(scan)
    if [ "$require_hints" = true ]; then args+=(--require-hints); fi
    if [ "$require_hints" = tools ]; then args+=(--require-hints=tools); fi
    if [ -n "${INPUT_PROFILE:-}" ]; then args+=(--profile "$INPUT_PROFILE"); fi
    args+=(--csv "$work/scan.csv" --tools-csv "$work/tools.csv")
    if [ "$sarif" = true ]; then
        args+=(--sarif "$work/lint.sarif")
    else
        args+=(--github-warnings "$work/warnings.txt")
    fi
    args+=(-- "${paths[@]}")
    run_tool "${args[@]}"
    csv_written "$work/scan.csv"
    if [ -f "$work/tools.csv" ]; then set_output tools-csv "$work/tools.csv"; fi
    if [ -f "$work/lint.sarif" ]; then set_output sarif "$work/lint.sarif"; fi
    status=$rc
    # One workflow command per finding of the lint, encoded by the tool as GitHub
    # reads them: on the step's stdout, a pull request shows each at its line.
    if [ -f "$work/warnings.txt" ]; then cat "$work/warnings.txt"; fi
    verdict scan "$rc"
    ;;
probe)
    probe_args "${INPUT_SAVE:-}"
    run_tool "${args[@]}"
    csv_written "$work/probe.csv"
    status=$rc
    if [ -n "${INPUT_SAVE:-}" ] && [ -f "$INPUT_SAVE" ]; then set_output snapshot "$INPUT_SAVE"; fi
    verdict probe "$rc"
    ;;
diff)
    if [ -z "${INPUT_OLD:-}" ]; then
        usage '`old` must name the committed snapshot to compare against'
    fi
    if [ -n "${INPUT_NEW:-}" ]; then
        if [ -n "${INPUT_COMMAND:-}${INPUT_URL:-}${INPUT_REQUIRE:-}${INPUT_SAVE:-}" ]; then
            usage 'give the newer snapshot as `new` or a server to probe (`command` or `url`), not both'
        fi
        run_tool diff -- "$INPUT_OLD" "$INPUT_NEW"
        status=$rc
        verdict diff "$rc"
    else
        snapshot=${INPUT_SAVE:-$work/new.json}
        probe_args "$snapshot"
        run_tool "${args[@]}"
        probe_rc=$rc
        csv_written "$work/probe.csv"
        if [ -f "$snapshot" ]; then set_output snapshot "$snapshot"; fi
        # A failed probe leaves nothing to compare. A failed --require gate (3)
        # still saved the snapshot: the diff runs, and a permissive change (1)
        # outranks the gate, as a failure outranks a gate everywhere in the tool.
        if [ "$probe_rc" -ne 0 ] && [ "$probe_rc" -ne 3 ]; then
            status=$probe_rc
            verdict probe "$probe_rc"
        else
            run_tool diff -- "$INPUT_OLD" "$snapshot"
            if [ "$rc" -ne 0 ] || [ "$probe_rc" -eq 0 ]; then
                status=$rc
                verdict diff "$rc"
            else
                status=$probe_rc
                verdict probe "$probe_rc"
            fi
        fi
    fi
    ;;
esac

set_output status "$status"
set_output table "$table"
exit "$status"
