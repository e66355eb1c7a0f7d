#!/usr/bin/env bash
# Benchmark `strata docs` on a generated module of 2,000 models (gen.py),
# side by side in one run: the time to write the site, and in headless
# Chromium the time until its index page is interactive. Prints a markdown
# table. See bench/README.md ("strata docs").
#
# Interactive means: the graph's first frame is on the screen with every
# node and edge drawn and its click and hover handlers on (the page's
# `strataReady`, from navigation start), and a search typed at that moment
# has answered (the lists below the graph may still be arriving then; the
# search waits for them). Each page load is in a fresh browser profile.
#
# Environment:
#   STRATA        our binary (default $CARGO_TARGET_DIR/release/strata,
#                 CARGO_TARGET_DIR defaults to /root/.cache/strata-target)
#   MODELS        model count (default 2000)
#   SEED          generator seed (default 1)
#   RUNS          timed runs of each (default 10; the build after 2 warm-ups)
#   OUT           where the module and sites go (default bench/out, gitignored)
#   STRATA_DOCS_MODULES  node_modules with tests/docs/package.json's packages
#                 (default ~/.cache/strata-docs/node_modules; .ci/run installs it)
#   STRATA_CHROMIUM      Chromium (default /usr/bin/chromium)
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${CARGO_TARGET_DIR:=/root/.cache/strata-target}"
STRATA="${STRATA:-$CARGO_TARGET_DIR/release/strata}"
MODELS="${MODELS:-2000}"
SEED="${SEED:-1}"
RUNS="${RUNS:-10}"
OUT="${OUT:-$here/out}"
MODULES="${STRATA_DOCS_MODULES:-$HOME/.cache/strata-docs/node_modules}"
log() { printf '%s\n' "$*" >&2; }

[ -x "$STRATA" ] || { log "error: no binary at $STRATA (cargo build --release --workspace)"; exit 2; }
[ -f "$MODULES/playwright-core/package.json" ] || {
  log "error: no playwright-core in $MODULES (cd tests/docs && npm ci, or run .ci/run)"; exit 2; }
mkdir -p "$OUT"
module="$OUT/docs_$MODELS.strata"
site="$OUT/docs_site_$MODELS"
python3 "$here/gen.py" --models "$MODELS" --seed "$SEED" > "$module.tmp" && mv "$module.tmp" "$module"
"$STRATA" check "$module" >/dev/null

cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
log "machine: $(nproc) cores, ${cpu:-unknown CPU}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"

# The build: wall time of the whole process, median of RUNS after 2 warm-ups.
build="$(python3 - "$RUNS" "$STRATA" docs "$module" -o "$site" <<'EOF'
import statistics, subprocess, sys, time
runs, cmd = int(sys.argv[1]), sys.argv[2:]
times = []
for i in range(runs + 2):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    if i >= 2:
        times.append(time.perf_counter() - t)
print("%.0f %.0f %.0f" % (statistics.median(times) * 1000, min(times) * 1000, max(times) * 1000))
EOF
)"
read -r build_med build_min build_max <<<"$build"
files="$(find "$site" -type f | wc -l)"
size="$(du -sh "$site" | cut -f1)"

# The page: RUNS loads, each in a fresh browser.
json="$(node "$here/../tests/docs/browser.mjs" bench "$MODULES" "$site" "$RUNS" txt)"
read -r ready_med ready_max inter_med inter_max search_med click_med nodes edges errors <<<"$(python3 -c '
import json, statistics, sys
runs = json.loads(sys.argv[1])
med = lambda k: statistics.median(r[k] for r in runs)
print("%.0f %.0f %.0f %.0f %.0f %.0f %d %d %d" % (
    med("ready"), max(r["ready"] for r in runs), med("interactive"), max(r["interactive"] for r in runs),
    med("search_ms"), med("click_to_page_ms"), runs[0]["nodes"], runs[0]["edges_drawn"],
    sum(len(r["errors"]) for r in runs)))' "$json")"

echo
echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, ${cpu:-unknown CPU}; load average after: $(cut -d' ' -f1-3 /proc/loadavg); $MODELS models (gen.py --seed $SEED), $RUNS runs each"
echo
echo "| \`strata docs\`, $MODELS models | median | worst | target |"
echo "|---|---:|---:|---:|"
echo "| build the site ($files files, $size) | ${build_med} ms | ${build_max} ms | < 2000 ms |"
echo "| index: graph drawn ($nodes nodes, $edges edges) and clickable | ${ready_med} ms | ${ready_max} ms | |"
echo "| index: interactive (graph drawn, and a search typed then answered) | ${inter_med} ms | ${inter_max} ms | < 2000 ms |"
echo "| a search over names and columns, once the page is up | ${search_med} ms | | |"
echo "| a click on a node until its page has loaded | ${click_med} ms | | |"
echo
echo "console errors in all runs: $errors"
