#!/usr/bin/env bash
# Build the Python wheel that carries `strata` (pyproject.toml, maturin) for
# this machine, install it into a fresh virtualenv and use it there as a
# user would: the shop example, the broken pipeline (exit 3), `python -m
# strata`, the completions and `man strata-run`. Prints the wheel's path
# and size. Exits non-zero at the first thing that does not hold.
#
#   scripts/package.sh [OUT_DIR]     (default: target/wheels under the clone)
#
# maturin comes from PyPI into ~/.cache/strata-maturin. It builds
# `cli/` alone, in the release profile, into CARGO_TARGET_DIR (default
# ~/.cache/strata-target, as .ci/run): the features are those of the
# workspace build, so a warm target directory does not compile DuckDB again.
# The release workflow (.github/workflows/release.yml) runs the same build
# on each platform.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
out="${1:-$root/target/wheels}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/strata-target}"

maturin_version=1.16.0
tools="$HOME/.cache/strata-maturin"
if ! "$tools/bin/maturin" --version 2>/dev/null | grep -qx "maturin $maturin_version"; then
  python3 -m venv "$tools"
  "$tools/bin/python" -m pip install -q "maturin==$maturin_version"
fi

rm -f "$out"/strata_rs-*.whl
"$tools/bin/maturin" build --release --out "$out"
wheel=$(ls "$out"/strata_rs-*.whl)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q "$wheel"
strata="$work/venv/bin/strata"

fail() { echo "package.sh: $*" >&2; exit 1; }
expect_exit() { # CODE COMMAND...: run it, and say if its exit code differs
  local want=$1 got=0
  shift
  "$@" >"$work/out" 2>&1 || got=$?
  [ "$got" = "$want" ] || { cat "$work/out" >&2; fail "exit $got, not $want: $*"; }
}

echo "== the installed strata"
"$strata" --version
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
"$strata" --version | head -1 | grep -q "^strata $version" || fail "--version is not $version"
"$strata" --version | grep -Eq '^duckdb v[0-9]+\.[0-9]+\.[0-9]+$' || fail "--version names no DuckDB"
[ "$("$work/venv/bin/python" -m strata -V)" = "strata $version" ] || fail "python -m strata -V"

echo "== the shop example, then the broken pipeline (exit 3)"
expect_exit 0 "$strata" run examples/shop/shop.strata --pipeline local -o "$work/shop.duckdb"
tail -1 "$work/out"
expect_exit 3 "$strata" run examples/shop/shop.strata --pipeline broken -o "$work/shop.duckdb"
grep -q "join cardinality FAILED" "$work/out" || { cat "$work/out" >&2; fail "the broken pipeline failed otherwise"; }
tail -1 "$work/out"

echo "== completions and the manual"
"$strata" completions bash >"$work/strata.bash"
bash -n "$work/strata.bash"
if command -v zsh >/dev/null; then
  "$strata" completions zsh >"$work/_strata"
  zsh -n "$work/_strata"
fi
# man finds the wheel's pages from PATH (<venv>/bin -> <venv>/share/man).
page=$(PATH="$work/venv/bin:$PATH" MANPATH= man -w strata-run)
[ "$page" = "$work/venv/share/man/man1/strata-run.1" ] || fail "man strata-run found $page"
PATH="$work/venv/bin:$PATH" MANPATH= MANPAGER=cat man strata-run | grep -q "strata-run" || fail "man strata-run"
echo "bash -n, zsh -n and man strata-run: ok"

size=$(stat -c %s "$wheel")
echo "== $wheel"
echo "$(awk "BEGIN { printf \"%.1f\", $size / 1048576 }") MiB ($size bytes); installed binary $(stat -c %s "$strata") bytes"
