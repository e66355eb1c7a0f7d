#!/usr/bin/env bash
# strata run vs dbt build on TPC-H (issue 27, part 8): one denormalising
# model (tpch/tpch.strata) with seven `expect many_to_one` joins, and the
# same model in dbt-duckdb with `unique` tests on the seven keys
# (tpch/dbt/), over the eight parquet files of tpchgen-cli. Measured in
# alternation, REPS times each:
#   first   strata run into a new warehouse / dbt build into a new database
#   rerun   the same again, inputs unchanged
#   edited  strata run after the model changed (inputs unchanged: every
#           input is recognised by its file hash, the model is rebuilt)
# Knobs: SF (scale factor, default 1), REPS (default 3), VENV (a virtualenv
# with tpchgen-cli, dbt-core 1.10 and dbt-duckdb 1.9; made if missing),
# STRATA (the binary; default $CARGO_TARGET_DIR/release/strata).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
SF=${SF:-1}
REPS=${REPS:-3}
VENV=${VENV:-$HOME/.cache/strata-bench-venv}
STRATA=${STRATA:-${CARGO_TARGET_DIR:-$HOME/.cache/strata-target}/release/strata}
out=$here/out/tpch-sf$SF
if [ ! -x "$VENV/bin/dbt" ]; then
  python3 -m venv "$VENV"
  # dbt-core 1.11+ downloads a parser from GitHub at install time.
  "$VENV/bin/pip" install -q tpchgen-cli "dbt-core>=1.10,<1.11" "dbt-duckdb>=1.9,<1.10"
fi
mkdir -p "$out/data"
[ -f "$out/data/lineitem.parquet" ] || "$VENV/bin/tpchgen-cli" parquet -s "$SF" --output-dir="$out/data"
rm -rf "$out/strata" "$out/dbt"
mkdir -p "$out/strata"
cp "$here/tpch/tpch.strata" "$out/strata/"
ln -sfn "$out/data" "$out/strata/data"
cp -r "$here/tpch/dbt" "$out/dbt"
ln -sfn "$out/data" "$out/dbt/data"

secs() { local t0 t1; t0=$(date +%s.%N); "$@" >/dev/null 2>&1; t1=$(date +%s.%N); printf '%.2f' "$(echo "$t1 - $t0" | bc)"; }
strata_run() { (cd "$out/strata" && "$STRATA" run tpch.strata --pipeline sf1 -o w.duckdb); }
dbt_build() { (cd "$out/dbt" && "$VENV/bin/dbt" build --profiles-dir . --no-version-check); }
declare -A t
for i in $(seq "$REPS"); do
  rm -rf "$out/strata/w.duckdb" "$out/strata/w.duckdb.inputs" "$out/dbt/dbt.duckdb"
  t[sf,$i]=$(secs strata_run)
  t[df,$i]=$(secs dbt_build)
  t[sr,$i]=$(secs strata_run)
  t[dr,$i]=$(secs dbt_build)
  # An edit that changes the model's fingerprint, not its rows.
  sed -i "s/^model wide_lineitem {/model wide_lineitem {\n  owner: \"bench $i\"/" "$out/strata/tpch.strata"
  t[se,$i]=$(secs strata_run)
  cp "$here/tpch/tpch.strata" "$out/strata/"
  echo "rep $i: strata first ${t[sf,$i]} s, dbt first ${t[df,$i]} s, strata rerun ${t[sr,$i]} s, dbt rerun ${t[dr,$i]} s, strata edited ${t[se,$i]} s" >&2
done
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
col() { local k=$1; local v=(); for i in $(seq "$REPS"); do v+=("${t[$k,$i]}"); done; median "${v[@]}"; }
sf=$(col sf); df=$(col df); sr=$(col sr); dr=$(col dr); se=$(col se)
ratio() { printf '%.2f' "$(echo "scale=4; $1 / $2" | bc)"; }
echo "| TPC-H SF$SF, median of $REPS | strata | dbt build | strata / dbt (target) |"
echo "|---|---:|---:|---:|"
echo "| first run (new warehouse) | $sf s | $df s | $(ratio "$sf" "$df")x (0.8x) |"
echo "| rerun, inputs unchanged | $sr s | $dr s | $(ratio "$sr" "$dr")x (0.5x) |"
echo "| rerun after a model edit, inputs unchanged | $se s | $dr s | $(ratio "$se" "$dr")x |"
