#!/usr/bin/env bash
# The warehouse over time (issue 27): `run --only-stale` with one of 20
# models stale vs a run of that one model alone, and `plan` vs one full
# scan of its inputs, on N orders / M customers (gen_run_data.py). Each
# figure is the median of REPS, measured in alternation.
# Knobs: N (default 10000000), M (default 1000000), REPS (default 5),
# PY (a python with duckdb), STRATA (the binary).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
N=${N:-10000000}
M=${M:-1000000}
REPS=${REPS:-5}
PY=${PY:-$HOME/.cache/strata-ref/bin/python}
STRATA=${STRATA:-${CARGO_TARGET_DIR:-$HOME/.cache/strata-target}/release/strata}
out=$here/out/timeline
mkdir -p "$out"
"$PY" "$here/gen_run_data.py" "$out/w.duckdb" "$N" "$M" >/dev/null
# 20 models over orders and customers; model m7's threshold is $1, so a
# new value makes exactly m7 stale.
module() {
  local i k
  for i in $(seq 20); do
    k=$i
    [ "$i" = 7 ] && k=$1
    cat <<M
model m$i {
  from orders
  join_left customers on orders.customer_id == customers.customer_id expect many_to_one
  filter amount > $k
  select { country = customers.country, amount = amount }
  group { country } (
    aggregate { n = count(), total = sum(amount) }
  )
}
M
  done
}
header='source orders(ns: "b") { columns: { order_id: int64, customer_id: int64, amount: float64 } }
source customers(ns: "b") { columns: { customer_id: int64, country: string } }'
write() { { echo "$header"; module "$1"; } > "$out/m.strata"; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null; t1=$(date +%s.%N); printf '%.3f' "$(echo "$t1 - $t0" | bc)"; }
write 700
(cd "$out" && "$STRATA" run m.strata -o w.duckdb >/dev/null)
declare -A t
for i in $(seq "$REPS"); do
  write $((1000 + 2 * i))
  t[stale,$i]=$(cd "$out" && secs "$STRATA" run m.strata -o w.duckdb --only-stale)
  write $((1001 + 2 * i))
  t[alone,$i]=$(cd "$out" && secs "$STRATA" run m.strata m7 -o w.duckdb)
  t[plan,$i]=$(cd "$out" && secs "$STRATA" plan m.strata -o w.duckdb)
  t[scan,$i]=$("$PY" - "$out/w.duckdb" <<'PY'
import sys, time, duckdb
c = duckdb.connect(sys.argv[1], read_only=True)
t = time.time()
# Every value of every column is read (MIN/MAX would come from the
# column statistics).
c.execute("SELECT SUM(order_id), SUM(customer_id), SUM(amount) FROM orders").fetchall()
c.execute("SELECT SUM(customer_id), SUM(length(country)) FROM customers").fetchall()
scan = time.time() - t
# The content hash plan and the freeze compute (inputs.rs content_hash,
# duckdb.rs hash_sum).
t = time.time()
for rel in ("orders", "customers"):
    c.execute("SELECT COUNT(*), CAST(COALESCE(CAST(SUM(CAST(hash(t) >> 32 AS BIGINT)) AS HUGEINT) * 4294967296"
              f" + SUM(CAST(hash(t) & 4294967295 AS BIGINT)), 0) AS VARCHAR) FROM (SELECT * FROM {rel}) AS t").fetchall()
hash_ = time.time() - t
# The floor of any content hash of every row: the row hashes alone, not
# even added up.
t = time.time()
for rel in ("orders", "customers"):
    c.execute(f"SELECT MAX(hash(t)) FROM (SELECT * FROM {rel}) AS t").fetchall()
print(f"{scan:.3f} {hash_:.3f} {time.time() - t:.3f}")
PY
)
  read -r scan hash floor <<<"${t[scan,$i]}"
  t[scan,$i]=$scan
  t[hash,$i]=$hash
  t[floor,$i]=$floor
  echo "rep $i: only-stale ${t[stale,$i]} s, m7 alone ${t[alone,$i]} s, plan ${t[plan,$i]} s, scan ${t[scan,$i]} s, hash ${t[hash,$i]} s" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { local k=$1; local v=(); for i in $(seq "$REPS"); do v+=("${t[$k,$i]}"); done; median "${v[@]}"; }
ratio() { printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"; }
s=$(col stale); a=$(col alone); p=$(col plan); c=$(col scan); h=$(col hash); f=$(col floor)
echo "| $N orders / $M customers, median of $REPS | time | ratio (target) |"
echo "|---|---:|---:|"
echo "| \`run --only-stale\`, 1 of 20 models stale | $s s | $(ratio "$s" "$a")x of m7 alone (1.3x) |"
echo "| \`run m7\` alone | $a s | |"
echo "| \`plan\` (whole process) | $p s | $(ratio "$p" "$c")x of the scan (1.5x) |"
echo "| one full scan of both inputs (in-process, no process start) | $c s | |"
echo "| the content hash of both inputs (in-process) | $h s | $(ratio "$h" "$c")x of the scan |"
echo "| the row hashes alone, not added up (in-process) | $f s | $(ratio "$f" "$c")x of the scan |"
