#!/usr/bin/env bash
# Benchmark `strata check` and `strata compile` (ours, Rust) against the
# reference's `check` and `compile` (strata-lang 0.1.6, Python) on generated
# modules of 200, 2,000 and 20,000 models. Prints markdown tables. See
# bench/README.md.
#
# Environment:
#   STRATA            our binary   (default $CARGO_TARGET_DIR/release/strata,
#                                   CARGO_TARGET_DIR defaults to /root/.cache/strata-target)
#   COMMANDS          what to measure (default "check compile")
#   STRATA_REF        reference    (default /opt/strata-ref/bin/strata)
#   SIZES             model counts (default "200 2000 20000")
#   SEED              generator seed (default 1)
#   OUT               where modules go (default bench/out, gitignored)
#   RUNS              timed runs of ours per size (default 10, after 2 warm-ups)
#   REF_RUNS          timed runs of the reference for sizes < 20,000 (default 3);
#                     there, ours and the reference are timed in alternation
#                     (interleave.py): REF_RUNS rounds of RUNS/REF_RUNS runs
#                     of ours, then one of the reference
#   REF_TIMEOUT       seconds before a reference run is abandoned (default 300)
#   NO_HYPERFINE=1    time with a python3 loop even if hyperfine is installed
#   REF_ONCE_FROM     size from which the reference is run once only (default 20000)
#   PAUSE             seconds to wait before each timed run where the two are
#                     timed in alternation (default 0: back to back); a check
#                     is usually typed after a pause, see bench/README.md
set -uo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
: "${CARGO_TARGET_DIR:=/root/.cache/strata-target}"
STRATA="${STRATA:-$CARGO_TARGET_DIR/release/strata}"
STRATA_REF="${STRATA_REF:-/opt/strata-ref/bin/strata}"
SIZES="${SIZES:-200 2000 20000}"
COMMANDS="${COMMANDS:-check compile}"
SEED="${SEED:-1}"
OUT="${OUT:-$here/out}"
RUNS="${RUNS:-10}"
REF_RUNS="${REF_RUNS:-3}"
REF_TIMEOUT="${REF_TIMEOUT:-300}"
BIG="${REF_ONCE_FROM:-20000}"   # from this size on the reference is run once, under REF_TIMEOUT
export PAUSE="${PAUSE:-0}"     # read by interleave.py

mkdir -p "$OUT"
log() { printf '%s\n' "$*" >&2; }

if [ ! -x "$STRATA" ]; then
  log "error: our binary not found at $STRATA (build with: cargo build --release -p strata-cli, or set STRATA)"
  exit 2
fi
have_ref=1
if [ ! -x "$STRATA_REF" ]; then
  have_ref=0
  log "note: reference not found at $STRATA_REF: measuring ours only"
fi
have_hf=0; [ -z "${NO_HYPERFINE:-}" ] && command -v hyperfine >/dev/null 2>&1 && have_hf=1
have_time=0; [ -x /usr/bin/time ] && have_time=1

# ---------------------------------------------------------------- helpers
# median_ms CMD... : "WALL CPU": median wall time in ms over $N runs (after $W
# warm-ups), and CPU time (user+sys) per run in ms (hyperfine: its mean; loop:
# the median). Uses hyperfine when installed, else a python3 perf_counter loop.
median_ms() {
  local json="$OUT/.hf.json"
  if [ "$have_hf" = 1 ]; then
    local extra=()
    [ "$W" -gt 0 ] && extra+=(--warmup "$W")
    if ! hyperfine -N --style none "${extra[@]}" --runs "$N" --export-json "$json" -- "$*" >/dev/null 2>"$OUT/.hf.err"; then
      echo "ERR"; return
    fi
    python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("%.1f %.1f" % (r["median"] * 1000, (r["user"] + r["system"]) * 1000))' "$json"
  else
    python3 - "$W" "$N" "$@" <<'EOF'
import resource, subprocess, sys, time, statistics
w, n, cmd = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
def cpu():
    u = resource.getrusage(resource.RUSAGE_CHILDREN)
    return u.ru_utime + u.ru_stime
ts, cs = [], []
for i in range(w + n):
    c, t = cpu(), time.perf_counter()
    r = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    dt, dc = time.perf_counter() - t, cpu() - c
    if r.returncode != 0:
        print("ERR"); sys.exit(0)
    if i >= w:
        ts.append(dt); cs.append(dc)
print("%.1f %.1f" % (statistics.median(ts) * 1000, statistics.median(cs) * 1000))
EOF
  fi
}

# peak_mb CMD... : peak RSS in MB of one run (/usr/bin/time -f %M, KB).
peak_mb() {
  local f="$OUT/.rss"
  if [ "$have_time" = 1 ]; then
    /usr/bin/time -f %M -o "$f" "$@" >/dev/null 2>&1 || { echo "ERR"; return; }
    awk '{printf "%.1f", $1/1024}' "$f"
  else
    python3 - "$@" <<'EOF'
import resource, subprocess, sys
r = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print("ERR" if r.returncode else "%.1f" % (resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024))
EOF
  fi
}

# once CMD... : one run under REF_TIMEOUT; prints "WALL_MS RSS_MB CPU_MS",
# "TIMEOUT" or "ERR". A `check` must also end with "check OK".
once() {
  local f="$OUT/.once"
  python3 - "$REF_TIMEOUT" "$f" "$@" <<'EOF'
import resource, subprocess, sys, time
limit, f, cmd = float(sys.argv[1]), sys.argv[2], sys.argv[3:]
is_check = "check" in cmd
t = time.perf_counter()
try:
    with open(f, "wb") as out:
        r = subprocess.run(cmd, stdout=out, stderr=subprocess.STDOUT, timeout=limit)
except subprocess.TimeoutExpired:
    print("TIMEOUT"); sys.exit(0)
dt = time.perf_counter() - t
# a clean module exits 0 and ends with "check OK"
if r.returncode or (is_check and b"check OK" not in open(f, "rb").read()[-300:]):
    print("ERR"); sys.exit(0)
u = resource.getrusage(resource.RUSAGE_CHILDREN)
print("%.1f %.1f %.1f" % (dt * 1000, u.ru_maxrss / 1024, (u.ru_utime + u.ru_stime) * 1000))
EOF
}

human_size() { awk -v b="$1" 'BEGIN{ if (b>=1048576) printf "%.1f MB", b/1048576; else printf "%.0f KB", b/1024 }'; }
fmt_int() { python3 -c 'import sys; print(f"{int(sys.argv[1]):,}")' "$1"; }

# --------------------------------------------------------------- machine
cpu="$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
log "machine: $(nproc) cores, ${cpu:-unknown CPU}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
log "ours: $STRATA"
[ "$have_ref" = 1 ] && log "reference: $STRATA_REF"
log "timing: ours and strata-lang in alternation by bench/interleave.py where strata-lang runs several times; otherwise $([ "$have_hf" = 1 ] && hyperfine --version || echo 'a python3 perf_counter loop (hyperfine not installed)'); RSS: $([ "$have_time" = 1 ] && echo '/usr/bin/time -f %M' || echo 'getrusage')"

# ----------------------------------------------------------- generate
for n in $SIZES; do
  f="$OUT/models_$n.strata"
  python3 "$here/gen.py" --models "$n" --seed "$SEED" > "$f.tmp" && mv "$f.tmp" "$f" || { log "error: gen.py failed for $n"; exit 2; }
done

# --------------------------------------------------- sanity: both accept
for n in $SIZES; do
  f="$OUT/models_$n.strata"
  if ! "$STRATA" check "$f" >/dev/null 2>"$OUT/.err"; then
    log "error: our 'strata check' rejects $f:"; head -20 "$OUT/.err" >&2; exit 1
  fi
done
if [ "$have_ref" = 1 ]; then
  # The biggest module is validated by its timed run below.
  for n in $SIZES; do
    [ "$n" -ge "$BIG" ] && continue
    if ! "$STRATA_REF" check "$OUT/models_$n.strata" 2>&1 | tail -1 | grep -q 'check OK'; then
      log "error: the reference rejects $OUT/models_$n.strata"; exit 1
    fi
  done
fi

# ------------------------------------------------------------- measure
# Keys are "<command>:<size>".
declare -A OURS OURS_RSS OURS_CPU REF REF_RSS REF_CPU
for n in $SIZES; do
  f="$OUT/models_$n.strata"
  log "== $n models ($(human_size "$(stat -c %s "$f")"))"
  for c in $COMMANDS; do
    k="$c:$n"
    if [ "$have_ref" = 1 ] && [ "$n" -lt "$BIG" ]; then
      # Both timed in the same minutes: REF_RUNS rounds of (RUNS/REF_RUNS
      # runs of ours, one of the reference); see interleave.py.
      per_round=$(( (RUNS + REF_RUNS - 1) / REF_RUNS ))
      r="$(python3 "$here/interleave.py" "$REF_RUNS" "$per_round" 2 "$STRATA" "$c" "$f" -- "$STRATA_REF" "$c" "$f")"
      if [ "$r" = ERR ]; then
        OURS[$k]=ERR; OURS_CPU[$k]=ERR; REF[$k]=ERR; REF_CPU[$k]=ERR
      else
        read -r OURS[$k] OURS_CPU[$k] REF[$k] REF_CPU[$k] <<<"$r"
      fi
    else
      W=2 N="$RUNS"; r="$(median_ms "$STRATA" "$c" "$f")"
      OURS[$k]="${r% *}"; OURS_CPU[$k]="${r#* }"
    fi
    OURS_RSS[$k]="$(peak_mb "$STRATA" "$c" "$f")"
    log "   strata $c:      ${OURS[$k]} ms wall, ${OURS_CPU[$k]} ms CPU, ${OURS_RSS[$k]} MB"
    if [ "$have_ref" = 1 ]; then
      if [ "$n" -ge "$BIG" ]; then
        r="$(once "$STRATA_REF" "$c" "$f")"
        case "$r" in
          TIMEOUT) REF[$k]="> ${REF_TIMEOUT} s"; REF_RSS[$k]="n/a"; REF_CPU[$k]="n/a" ;;
          ERR)     REF[$k]="ERR"; REF_RSS[$k]="ERR"; REF_CPU[$k]="ERR"; log "   reference $c failed on $f:"; tail -5 "$OUT/.once" >&2 ;;
          *)       read -r REF[$k] REF_RSS[$k] REF_CPU[$k] <<<"$r" ;;
        esac
      else
        REF_RSS[$k]="$(peak_mb "$STRATA_REF" "$c" "$f")"
      fi
      log "   strata-lang $c: ${REF[$k]} ms wall, ${REF_CPU[$k]} ms CPU, ${REF_RSS[$k]} MB"
    fi
  done
done

# --------------------------------------------------------------- report
# speedup OURS REF: REF/OURS as "12x" (or "> 12x" when REF is "> N s").
speedup() {
  python3 -c '
import sys
o, r = sys.argv[1], sys.argv[2]
try:
    x = float(r) / float(o)
    print(("%.1fx" if x < 10 else "%.0fx") % x)
except ValueError:
    try:
        print("> %.0fx" % (float(r[1:].split()[0]) * 1000 / float(o)))
    except ValueError:
        print("n/a")
' "$1" "$2"
}
ratio() {
  python3 -c '
import sys
try:
    print("%.2f" % (float(sys.argv[2]) / float(sys.argv[1])))
except ValueError:
    print("n/a")
' "$1" "$2"
}

load_after="$(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "Run $(date -u '+%Y-%m-%d %H:%M UTC') on $(nproc) cores, ${cpu:-unknown CPU}; load average after: $load_after; seed $SEED; $RUNS runs of ours (after 2 warm-ups), $REF_RUNS of strata-lang, in alternation (bench/interleave.py), each after a pause of ${PAUSE} s; from $(fmt_int "$BIG") models 1 of strata-lang, after ours"
for c in $COMMANDS; do
  echo
  echo "\`$c\`, wall time (median) and peak RSS:"
  echo
  if [ "$have_ref" = 1 ]; then
    echo "| models | file size | strata (ms) | strata-lang (ms) | speed-up | strata peak RSS (MB) | strata-lang peak RSS (MB) |"
    echo "|---:|---:|---:|---:|---:|---:|---:|"
  else
    echo "| models | file size | strata (ms) | strata peak RSS (MB) |"
    echo "|---:|---:|---:|---:|"
  fi
  for n in $SIZES; do
    k="$c:$n"
    size="$(human_size "$(stat -c %s "$OUT/models_$n.strata")")"
    if [ "$have_ref" = 1 ]; then
      echo "| $(fmt_int "$n") | $size | ${OURS[$k]} | ${REF[$k]} | $(speedup "${OURS[$k]}" "${REF[$k]}") | ${OURS_RSS[$k]} | ${REF_RSS[$k]} |"
    else
      echo "| $(fmt_int "$n") | $size | ${OURS[$k]} | ${OURS_RSS[$k]} |"
    fi
  done
  echo
  echo "\`$c\`, CPU time (user+sys) of the same runs; less sensitive to other load on the machine than wall time:"
  echo
  if [ "$have_ref" = 1 ]; then
    echo "| models | strata CPU (ms) | strata-lang CPU (ms) | CPU speed-up |"
    echo "|---:|---:|---:|---:|"
  else
    echo "| models | strata CPU (ms) |"
    echo "|---:|---:|"
  fi
  for n in $SIZES; do
    k="$c:$n"
    if [ "$have_ref" = 1 ]; then
      echo "| $(fmt_int "$n") | ${OURS_CPU[$k]} | ${REF_CPU[$k]} | $(speedup "${OURS_CPU[$k]}" "${REF_CPU[$k]}") |"
    else
      echo "| $(fmt_int "$n") | ${OURS_CPU[$k]} |"
    fi
  done
  echo
  if [[ " $SIZES " == *" 2000 "* && " $SIZES " == *" 20000 "* ]]; then
    echo "strata $c time(20,000) / time(2,000) = $(ratio "${OURS[$c:2000]}" "${OURS[$c:20000]}") wall, $(ratio "${OURS_CPU[$c:2000]}" "${OURS_CPU[$c:20000]}") CPU (linear = 10)"
  fi
  for n in $SIZES; do
    [[ "${REF[$c:$n]:-}" == ">"* ]] && echo "(strata-lang $c did not finish $n models within ${REF_TIMEOUT} s)"
  done
done
[ "$have_ref" = 1 ] || echo "(reference not installed at $STRATA_REF: ours only)"
rm -f "$OUT/.hf.json" "$OUT/.hf.err" "$OUT/.rss" "$OUT/.once" "$OUT/.err"
exit 0
