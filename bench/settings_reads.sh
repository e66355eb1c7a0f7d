#!/usr/bin/env bash
# How many times one command reads strata.toml (issue 60: a command finds
# and reads its settings once). Makes the `strata init` project in a temp
# directory, with `[openlineage]` so a run reads that table too, and counts
# the opens of strata.toml under strace for each warehouse command.
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

reads() {
    strace -f -e trace=openat -o trace.txt "$STRATA" "$@" >/dev/null 2>&1 || true
    printf '%-28s %s\n' "strata $*" "$(grep -c 'strata\.toml' trace.txt)"
}
echo "command                      reads of strata.toml"
reads run --gc
reads run --rebuild
reads test
reads plan
reads status
reads gc
reads replay
run="$("$STRATA" replay | awk 'NR == 1 { print $1 }')"
reads backfill "$run" --reason measured
reads rollback "$run"
