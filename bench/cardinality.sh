#!/usr/bin/env bash
# Benchmark of the runtime join cardinality checks (issue 8): each check vs
# DuckDB's bare duplicate-group query on the same table, proof reuse (three
# joins on one dimension and key in one run) vs a single check, and sampled
# vs exact on a 10 M-row dimension. Prints markdown tables. See
# bench/README.md.
#
# Two measurements of each figure:
# * engine level: the `cardinality_bench` example (libs/lifecycle/examples)
#   runs the checks through the code path `strata run` uses and the bare
#   query in the same process and DuckDB, interleaved; medians of CARD_REPS;
# * end to end: `strata run --format json` on a fresh copy of the data; the
#   run report gives each check's query time and the number of queries
#   executed; medians of RUNS runs, plus one run under /usr/bin/time for the
#   peak RSS.
#
# env: STRATA (our binary), CARD_BENCH (the example binary), PY (python with
#      duckdb, for the data generator), SIZES ("N:M ..." fact/dimension rows,
#      as bench/run.sh), DIM (rows of the big dimension, default 10000000),
#      SAMPLE (the row bound, default 1000000), RUNS (default 5), CARD_REPS
#      (default 9)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CARGO_TARGET_DIR:=/root/.cache/strata-target}"
STRATA=${STRATA:-$CARGO_TARGET_DIR/release/strata}
CARD_BENCH=${CARD_BENCH:-$CARGO_TARGET_DIR/release/examples/cardinality_bench}
PY=${PY:-/opt/strata-ref/bin/python}
SIZES=${SIZES:-"1000000:100000 10000000:1000000"}
DIM=${DIM:-10000000}
SAMPLE=${SAMPLE:-1000000}
RUNS=${RUNS:-5}
CARD_REPS=${CARD_REPS:-9}
OUT=bench/out/card
RUN_OUT=bench/out/run
mkdir -p "$OUT" "$RUN_OUT"
for b in "$STRATA" "$CARD_BENCH"; do
  [ -x "$b" ] || { echo "error: $b not found (build with: cargo build --release --workspace --bins --examples)" >&2; exit 2; }
done

# data: the run benchmark's files (fact N, dimension M), and one file whose
# dimension has DIM rows (1,000 facts).
data() { # N M -> path
  local f=$RUN_OUT/data_$1.duckdb
  [ "$1" = 1000 ] && f=$OUT/dim_$2.duckdb
  [ -f "$f" ] || "$PY" bench/gen_run_data.py "$f" "$1" "$2" >&2
  echo "$f"
}

# strata_run DB ARGS...: RUNS runs of `strata run ARGS -o COPY --format json`
# on fresh copies; prints "WALL_S CHECK_MS QUERIES CHECKS SAMPLED_ROWS RSS_MB"
# (medians of wall time and of the summed check query time).
strata_run() {
  local db=$1; shift
  local copy=$OUT/copy.duckdb walls=() checks=() line
  for _ in $(seq "$RUNS"); do
    cp "$db" "$copy"; rm -f "$copy.wal"
    local t0 t1
    t0=$(date +%s.%N)
    "$STRATA" run "$@" -o "$copy" --format json > "$OUT/run.json"
    t1=$(date +%s.%N)
    walls+=("$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b - a}')")
    checks+=("$("$PY" -c 'import json,sys; c=json.load(open(sys.argv[1]))["cardinality"]; print(sum(r["ms"] for r in c["results"]))' "$OUT/run.json")")
  done
  line=$("$PY" -c '
import json, statistics, sys
c = json.load(open(sys.argv[1]))["cardinality"]
walls = [float(x) for x in sys.argv[2].split()]
checks = [float(x) for x in sys.argv[3].split()]
sampled = [r.get("sample_rows") for r in c["results"] if r["outcome"] == "sampled"]
print(statistics.median(walls), statistics.median(checks), c["queries_executed"], c["checks"], sampled[0] if sampled else "-")
' "$OUT/run.json" "${walls[*]}" "${checks[*]}")
  cp "$db" "$copy"; rm -f "$copy.wal"
  /usr/bin/time -f %M -o "$OUT/rss.txt" "$STRATA" run "$@" -o "$copy" > /dev/null 2>&1
  echo "$line $(awk '{printf "%.0f", $1/1024}' "$OUT/rss.txt")"
  rm -f "$copy" "$copy.wal"
}

engine() { # DB [--sample N] -> JSON
  local db=$1; shift
  cp "$db" "$OUT/engine.duckdb"; rm -f "$OUT/engine.duckdb.wal"
  "$CARD_BENCH" "$OUT/engine.duckdb" customers customer_id --reps "$CARD_REPS" "$@"
  rm -f "$OUT/engine.duckdb" "$OUT/engine.duckdb.wal"
}
field() { "$PY" -c 'import json,sys; print(json.loads(sys.argv[1])[sys.argv[2]])' "$1" "$2"; }
fmt() { awk -v x="$1" 'BEGIN{printf "%.1f", x}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2fx", a/b}'; }
n() { "$PY" -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$1"; }

MODULE=examples/seed/orders.strata
echo "machine: $(nproc) CPUs; $("$STRATA" --version); load before: $(cut -d' ' -f1-3 /proc/loadavg)" >&2

# ---------------------------------------------------------------- 1 and 2
ROWS_CHECK=(); ROWS_REUSE=()
for size in $SIZES "1000:$DIM"; do
  N=${size%%:*}; M=${size##*:}
  DB=$(data "$N" "$M")
  echo "== engine: dimension of $M rows ($DB)" >&2
  args=()
  [ "$M" = "$DIM" ] && args=(--sample "$SAMPLE")
  E=$(engine "$DB" "${args[@]}")
  echo "$E" >&2
  echo "$E" > "$OUT/engine_$M.json"
  bare=$(field "$E" bare_ms); single=$(field "$E" single_ms); joins=$(field "$E" joins_ms)
  ROWS_CHECK+=("| $(n "$M") | $(fmt "$bare") ms | $(fmt "$single") ms | $(ratio "$single" "$bare") |")
  # end to end: the seed's `enriched` (one join) vs bench/three_joins.strata
  echo "== strata run: one join vs three joins, fact $N / dimension $M" >&2
  read -r w1 c1 q1 k1 _ r1 < <(strata_run "$DB" "$MODULE" enriched)
  read -r w3 c3 q3 k3 _ r3 < <(strata_run "$DB" bench/three_joins.strata)
  ROWS_REUSE+=("| $(n "$M") | $(fmt "$single") ms | $(fmt "$joins") ms | $(field "$E" joins_queries) | $(ratio "$joins" "$single") | $(fmt "$c1") ms ($q1 of $k1) | $(fmt "$c3") ms ($q3 of $k3) | $(ratio "$c3" "$c1") | $(fmt "$w1") s / $(fmt "$w3") s | $r1 / $r3 MB |")
  if [ "$M" = "$DIM" ]; then
    echo "== strata run: exact vs sampled at $M / $SAMPLE" >&2
    read -r we ce qe ke _ re < <(strata_run "$DB" "$MODULE" enriched)
    read -r ws cs qs ks sr rs < <(strata_run "$DB" "$MODULE" enriched --cardinality-sample-rows "$SAMPLE")
    SAMPLED_ENGINE="| $(n "$M") | $(n "$SAMPLE") | $(fmt "$single") ms | $(fmt "$(field "$E" sampled_ms)") ms | $(n "$(field "$E" sampled_rows)") | $(ratio "$(field "$E" sampled_ms)" "$single") |"
    SAMPLED_CLI="| $(n "$M") | $(n "$SAMPLE") | $(fmt "$ce") ms | $(fmt "$cs") ms | $(n "$sr") | $(ratio "$cs" "$ce") | $(fmt "$we") s / $(fmt "$ws") s | $re / $rs MB |"
  fi
done

echo
echo "Each check vs DuckDB's bare duplicate-group query, same table, same process and engine (engine level, median of $CARD_REPS):"
echo
echo "| dimension rows | bare dup-group query | our check (count + 5 samples) | ratio |"
echo "|---:|---:|---:|---:|"
printf '%s\n' "${ROWS_CHECK[@]}"
echo
echo "Proof reuse: three annotated joins on the same dimension and key in one run vs a single check (target <= 1.1x):"
echo
echo "| dimension rows | engine: 1 join | engine: 3 joins | queries (3 joins) | engine ratio | \`strata run\`: check time, 1 join (queries of checks) | \`strata run\`: 3 joins | run ratio | run wall, 1 / 3 models | peak RSS, 1 / 3 models |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
printf '%s\n' "${ROWS_REUSE[@]}"
echo
echo "Sampling: the check on a $(n "$DIM")-row dimension, exact vs --cardinality-sample-rows $(n "$SAMPLE") (target <= 0.5x):"
echo
echo "| dimension rows | bound | engine: exact | engine: sampled | rows sampled | ratio |"
echo "|---:|---:|---:|---:|---:|---:|"
echo "$SAMPLED_ENGINE"
echo
echo "| dimension rows | bound | \`strata run\`: exact check | sampled check | rows sampled | ratio | run wall exact / sampled | peak RSS exact / sampled |"
echo "|---:|---:|---:|---:|---:|---:|---:|---:|"
echo "$SAMPLED_CLI"
