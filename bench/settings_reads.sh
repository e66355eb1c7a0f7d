#!/usr/bin/env bash
# How many times one command looks for and reads strata.toml (issue 60: a
# command finds and reads its settings once). Makes the `strata init`
# project in a temp directory, with `[openlineage]` so a run reads that
# table too, and counts under strace, for each warehouse command, the
# searches (the project's strata.toml probed: each search upward from the
# project's directory probes it first) and the reads (opens) of it.
#
# Environment:
#   STRATA   the binary (default $CARGO_TARGET_DIR/release/strata,
#            CARGO_TARGET_DIR defaults to /root/.cache/strata-target)
set -euo pipefail

: "${CARGO_TARGET_DIR:=/root/.cache/strata-target}"
STRATA="$(realpath "${STRATA:-$CARGO_TARGET_DIR/release/strata}")"
command -v strace >/dev/null || { echo "strace is needed" >&2; exit 1; }
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
cd "$dir"
"$STRATA" init >/dev/null
printf '\n[openlineage]\nfile = "events.jsonl"\n' >>strata.toml

toml="$dir/strata.toml"
reads() {
    strace -f -e trace=%file -o trace.txt "$STRATA" "$@" >/dev/null 2>&1 || true
    local looked read
    looked="$(grep -F "\"$toml\"" trace.txt | grep -c -E 'stat|access' || true)"
    read="$(grep -F "\"$toml\"" trace.txt | grep -c 'open' || true)"
    printf '%-36s %-9s %s\n' "strata $*" "$looked" "$read"
}
echo "command                              searches  reads of strata.toml"
reads run --gc
reads run orders.strata
reads run orders_by_customer
reads run --rebuild
reads test
reads plan
reads status
reads gc
reads replay
run="$("$STRATA" replay | awk 'NR == 1 { print $1 }')"
reads backfill "$run" --reason measured
reads rollback "$run"
