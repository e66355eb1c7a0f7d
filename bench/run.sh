#!/usr/bin/env bash
# Benchmark of `strata run` (issue 5, "Performance"): the seed example's `enriched` model
# on N fact rows / M dimension rows, side by side with the reference (strata-lang 0.1.6)
# and with DuckDB's bare statements (python duckdb). Prints markdown tables.
#
# env: STRATA (our binary), REF (reference CLI), PY (python with duckdb),
#      SIZES ("N:M ..."), RUNS (ours, hyperfine runs), REF_RUNS, BARE_RUNS, CHECK_REPS
set -euo pipefail
cd "$(dirname "$0")/.."
STRATA=${STRATA:-/root/.cache/strata-target/release/strata}
REF=${REF:-/opt/strata-ref/bin/strata}
PY=${PY:-/opt/strata-ref/bin/python}
SIZES=${SIZES:-"1000000:100000 10000000:1000000"}
RUNS=${RUNS:-5}
REF_RUNS=${REF_RUNS:-1}
BARE_RUNS=${BARE_RUNS:-5}
CHECK_REPS=${CHECK_REPS:-9}
OUT=bench/out/run
mkdir -p "$OUT"
MODULE=examples/seed/orders.strata
# The reference cannot select a model and would also build `profiles` (one_to_one), which
# fails on this data by design (customer_id repeats in orders). It gets the same module
# without `profiles`, so both build exactly `enriched`.
REF_MODULE=$OUT/enriched_only.strata
sed '/^model profiles/,$d' "$MODULE" > "$REF_MODULE"

# Bare DuckDB timings (python duckdb, connection open excluded).
cat > "$OUT/bare.py" <<'PYEOF'
import json, shutil, statistics, sys, time, duckdb
mode, src, work, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
BARE_CHECK = ("SELECT COUNT(*) FROM (SELECT 1 FROM customers WHERE customer_id IS NOT NULL "
              "GROUP BY customer_id HAVING COUNT(*) > 1) t")
OUR_CHECK = ("SELECT COUNT(*), to_json(arg_max({'k': [CAST(\"customer_id\" AS VARCHAR)], 'n': n}, n, 5)) FROM "
             '(SELECT "customer_id", COUNT(*) AS n FROM "customers" WHERE "customer_id" IS NOT NULL '
             'GROUP BY "customer_id" HAVING COUNT(*) > 1) AS d')
if mode == "statements":
    # (c) materialize the join into a table + the bare check query, fresh copy each time
    ts = []
    for _ in range(reps):
        shutil.copyfile(src, work)
        con = duckdb.connect(work)
        t0 = time.perf_counter()
        con.execute("CREATE TABLE t AS SELECT o.order_id, c.country FROM orders o "
                    "LEFT JOIN customers c ON o.customer_id = c.customer_id")
        con.execute(BARE_CHECK).fetchall()
        ts.append(time.perf_counter() - t0)
        con.close()
    print(json.dumps({"median": statistics.median(ts), "all": ts}))
else:
    # (d) our check query vs the bare duplicate-group query, same file, interleaved
    shutil.copyfile(src, work)
    con = duckdb.connect(work, read_only=True)
    for q in (OUR_CHECK, BARE_CHECK):  # warm-up
        con.execute(q).fetchall()
    ours, bare = [], []
    for _ in range(reps):
        for q, acc in ((OUR_CHECK, ours), (BARE_CHECK, bare)):
            t0 = time.perf_counter()
            con.execute(q).fetchall()
            acc.append(time.perf_counter() - t0)
    print(json.dumps({"ours": statistics.median(ours), "bare": statistics.median(bare)}))
PYEOF

median() { "$PY" -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["median"])' "$1"; }
rss_mb() { # peak RSS (MB) of one run of "$@" on a fresh copy prepared by the caller
  /usr/bin/time -f %M -o "$OUT/rss.txt" "$@" > /dev/null 2>&1 || echo "  (exit $? : $*)" >&2
  awk '{printf "%.0f", $1/1024}' "$OUT/rss.txt"
}

echo "machine: $(nproc) CPUs, $(free -g | awk '/Mem:/{print $2}') GB RAM; $("$STRATA" --version); strata-lang $("$PY" -c 'import importlib.metadata as m; print(m.version("strata-lang"))'); duckdb (python) $("$PY" -c 'import duckdb; print(duckdb.__version__)')"
ROWS=()
for size in $SIZES; do
  N=${size%%:*}; M=${size##*:}
  DB=$OUT/data_${N}.duckdb
  [ -f "$DB" ] || "$PY" bench/gen_run_data.py "$DB" "$N" "$M" >&2
  echo "== N=$N M=$M ($(du -h "$DB" | cut -f1))" >&2

  # (a) ours: fresh copy before each run
  hyperfine -N --warmup 1 --runs "$RUNS" --prepare "cp $DB $OUT/ours.duckdb" \
    --export-json "$OUT/ours_$N.json" \
    "$STRATA run $MODULE enriched -o $OUT/ours.duckdb" >&2
  ours=$(median "$OUT/ours_$N.json")
  cp "$DB" "$OUT/ours.duckdb"; ours_rss=$(rss_mb "$STRATA" run "$MODULE" enriched -o "$OUT/ours.duckdb")
  "$STRATA" run "$MODULE" enriched -o "$OUT/ours.duckdb" --format json > "$OUT/ours_$N.out" || true
  cp "$DB" "$OUT/ours.duckdb"; "$STRATA" run "$MODULE" enriched -o "$OUT/ours.duckdb" > "$OUT/ours_$N.txt"

  # (b) reference
  hyperfine -N --runs "$REF_RUNS" --prepare "cp $DB $OUT/ref.duckdb" \
    --export-json "$OUT/ref_$N.json" \
    "$REF run $REF_MODULE -o $OUT/ref.duckdb" >&2
  ref=$(median "$OUT/ref_$N.json")
  cp "$DB" "$OUT/ref.duckdb"; ref_rss=$(rss_mb "$REF" run "$REF_MODULE" -o "$OUT/ref.duckdb")

  # (c) bare statements, (d) check queries
  bare=$("$PY" "$OUT/bare.py" statements "$DB" "$OUT/bare.duckdb" "$BARE_RUNS" | "$PY" -c 'import json,sys; print(json.load(sys.stdin)["median"])')
  read -r chk_ours chk_bare < <("$PY" "$OUT/bare.py" checks "$DB" "$OUT/chk.duckdb" "$CHECK_REPS" | "$PY" -c 'import json,sys; d=json.load(sys.stdin); print(d["ours"], d["bare"])')
  ROWS+=("$N $M $ours $ours_rss $ref $ref_rss $bare $chk_ours $chk_bare")
done

echo
echo "| fact rows / dim rows | ours \`strata run\` | peak RSS ours | strata-lang \`run -o\` | peak RSS ref | speed-up vs ref | bare statements (c) | ours / bare | our check query | bare dup-group query | check ratio |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for r in "${ROWS[@]}"; do
  set -- $r
  awk -v N="$1" -v M="$2" -v o="$3" -v orss="$4" -v f="$5" -v frss="$6" -v b="$7" -v co="$8" -v cb="$9" 'BEGIN{
    printf "| %d / %d | %.2f s | %d MB | %.2f s | %d MB | %.1fx | %.2f s | %.2fx | %.1f ms | %.1f ms | %.2fx |\n",
      N, M, o, orss, f, frss, f/o, b, o/b, co*1000, cb*1000, co/cb }'
done
