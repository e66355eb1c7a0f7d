#!/usr/bin/env bash
# The whole benchmark suite, one command, every figure measured side by side
# in one run on this machine (see bench/README.md):
#   1. `strata check` and `strata compile` vs strata-lang 0.1.6 on 200 / 2,000 /
#      20,000 generated models (bench/check.sh);
#   2. `strata run` vs strata-lang's `run` and DuckDB's bare statements on
#      1 M / 10 M fact rows (bench/run.sh);
#   3. the join cardinality checks: each check vs DuckDB's bare duplicate-group
#      query, proof reuse (3 joins, 1 query) vs a single check, sampled vs exact
#      on a 10 M-row dimension (bench/cardinality.sh);
#   with peak RSS (/usr/bin/time) throughout.
# The results go to stdout and bench/out/RESULTS.md; progress and raw figures
# to bench/out/suite.log. Data (about 1.5 GB) stays in bench/out/, gitignored.
#
# usage: bench/suite.sh
# env:   CARGO_TARGET_DIR (where the release build is, default
#        /root/.cache/strata-target), STRATA, CARD_BENCH, STRATA_REF, PY, and
#        each script's own knobs (SIZES, RUNS, REF_RUNS, ...; QUICK=1 for a
#        smoke run on small sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CARGO_TARGET_DIR:=/root/.cache/strata-target}"
STRATA=${STRATA:-$CARGO_TARGET_DIR/release/strata}
CARD_BENCH=${CARD_BENCH:-$CARGO_TARGET_DIR/release/examples/cardinality_bench}
STRATA_REF=${STRATA_REF:-/opt/strata-ref/bin/strata}
PY=${PY:-/opt/strata-ref/bin/python}
OUT=bench/out
mkdir -p "$OUT/bin"
for b in "$STRATA" "$CARD_BENCH"; do
  [ -x "$b" ] || { echo "error: $b not found; build first: cargo build --release --workspace --bins --examples" >&2; exit 2; }
done
for t in hyperfine /usr/bin/time "$STRATA_REF" "$PY"; do
  command -v "$t" > /dev/null || { echo "error: $t is needed (see bench/README.md)" >&2; exit 2; }
done
# Copies, so that a rebuild during the run cannot swap the binaries.
cp "$STRATA" "$OUT/bin/strata"; cp "$CARD_BENCH" "$OUT/bin/cardinality_bench"
export STRATA="$PWD/$OUT/bin/strata" CARD_BENCH="$PWD/$OUT/bin/cardinality_bench" STRATA_REF REF="$STRATA_REF" PY
if [ -n "${QUICK:-}" ]; then
  export SIZES_CHECK="200 2000" RUNS=3 REF_RUNS=1 CARD_REPS=3 DIM=2000000 SAMPLE=200000 RUN_SIZES="1000000:100000"
fi
LOG=$OUT/suite.log
: > "$LOG"
{
  echo "# Benchmark suite results"
  echo
  echo "Run of $(date -u '+%Y-%m-%d %H:%M UTC'), commit \`$(git rev-parse --short HEAD)\`$(git diff --quiet HEAD -- . ':!bench' || echo ' (with uncommitted changes)'); $(nproc) cores ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')), $(free -g | awk '/Mem:/{print $2}') GB RAM; load average before: $(cut -d' ' -f1-3 /proc/loadavg)."
  echo "$("$STRATA" --version); strata-lang $("$PY" -c 'import importlib.metadata as m; print(m.version("strata-lang"))'); DuckDB in strata $("$CARD_BENCH" --duckdb-version); python duckdb (bare statements of run.sh) $("$PY" -c 'import duckdb; print(duckdb.__version__)'); $(hyperfine --version)."
  echo
  echo "## 1. \`strata check\` and \`strata compile\` vs strata-lang"
  SIZES="${SIZES_CHECK:-200 2000 20000}" bash bench/check.sh 2>> "$LOG"
  echo
  echo "## 2. \`strata run\` vs strata-lang \`run\`"
  echo
  SIZES="${RUN_SIZES:-1000000:100000 10000000:1000000}" bash bench/run.sh 2>> "$LOG"
  echo
  echo "## 3. Join cardinality checks"
  echo
  SIZES="${RUN_SIZES:-1000000:100000 10000000:1000000}" bash bench/cardinality.sh 2>> "$LOG"
  echo
  echo "Load average after: $(cut -d' ' -f1-3 /proc/loadavg)."
} | tee "$OUT/RESULTS.md"
