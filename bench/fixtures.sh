#!/usr/bin/env bash
# Benchmark of fixture tests (issue 50): N fixture tests of the shop example
# (each gives its three inputs a few rows and compares the output rows) in
# one `strata test --only fixtures`, which runs them all on one in-memory
# DuckDB, beside ONE_BY_ONE runs of a single test each (a process and a
# database per test, as a runner without the shared database would pay).
# Prints a markdown table: median wall and CPU (user + system) time of RUNS
# runs, per test (CPU time says more than wall time on a loaded machine).
#
# env: STRATA (our binary), BASE (an earlier binary, optional: timed in the
#      same runs, alternating, side by side), N (tests, default 1000),
#      RUNS (default 5), ONE_BY_ONE (single-test runs, default 20)
set -euo pipefail
cd "$(dirname "$0")/.."
: "${CARGO_TARGET_DIR:=/root/.cache/strata-target}"
STRATA=${STRATA:-$CARGO_TARGET_DIR/release/strata}
N=${N:-1000}
RUNS=${RUNS:-5}
ONE_BY_ONE=${ONE_BY_ONE:-20}
OUT=bench/out/fixtures
mkdir -p "$OUT"
BASE=${BASE:-}
[ -x "$STRATA" ] || { echo "error: $STRATA not found (cargo build --release --workspace)" >&2; exit 2; }
[ -z "$BASE" ] || [ -x "$BASE" ] || { echo "error: BASE=$BASE is not an executable" >&2; exit 2; }

python3 - "$N" "$OUT/fixtures.strata" <<'PY'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
shop = open("examples/shop/shop.strata").read()
out = [shop]
for i in range(n):
    q = 1 + i % 5
    out.append(f'''
test enriched_orders "generated {i}" {{
  given orders(order_id, customer_id, product_id, quantity, status) {{
    ({i}, 10, 100, {q}, "paid")
    ({i + 1}, null, 100, 1, "pending")
  }}
  given customers(customer_id, name, country) {{
    (10, "c{i}", "ES")
  }}
  given products(product_id, category, unit_price) {{
    (100, "coffee", 3.5)
  }}
  expect rows(order_id, country, revenue) {{
    ({i}, "ES", {q * 3.5})
    ({i + 1}, "unknown", 3.5)
  }}
}}
''')
open(path, "w").write("".join(out))
PY

median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

cd "$OUT"
# The binaries timed: label and path.
bins=("this build" "$STRATA")
[ -z "$BASE" ] || bins=("this build" "$STRATA" "BASE ($(basename "$BASE"))" "$BASE")
# "wall,cpu" seconds of one run.
timed() {
  /usr/bin/time -f "%e %U %S" -o time.out "$@" >/dev/null
  awk '{printf "%s,%s", $1, $2 + $3}' time.out
}
declare -A all one
for _ in $(seq "$RUNS"); do
  for ((b = 0; b < ${#bins[@]}; b += 2)); do
    all[$b]+="$(timed "${bins[b+1]}" test fixtures.strata --only fixtures) "
  done
done
for i in $(seq 0 $((ONE_BY_ONE - 1))); do
  for ((b = 0; b < ${#bins[@]}; b += 2)); do
    one[$b]+="$(timed "${bins[b+1]}" test fixtures.strata --only fixtures --filter "\"generated $i\"") "
  done
done
col() { printf '%s\n' $1 | cut -d, -f"$2" | median; }
echo "| binary | run | tests | median wall s | median CPU s | CPU ms per test |"
echo "|---|---|---:|---:|---:|---:|"
for ((b = 0; b < ${#bins[@]}; b += 2)); do
  printf '| %s | one `strata test` (one in-memory DuckDB) | %d | %.2f | %.2f | %.1f |\n' "${bins[b]}" "$N" \
    "$(col "${all[$b]}" 1)" "$(col "${all[$b]}" 2)" "$(echo "$(col "${all[$b]}" 2) * 1000 / $N" | bc -l)"
  printf '| %s | a `strata test --filter` per test (median of %d) | 1 | %.2f | %.2f | %.1f |\n' "${bins[b]}" "$ONE_BY_ONE" \
    "$(col "${one[$b]}" 1)" "$(col "${one[$b]}" 2)" "$(echo "$(col "${one[$b]}" 2) * 1000" | bc -l)"
done
