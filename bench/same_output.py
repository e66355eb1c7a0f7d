#!/usr/bin/env python3
"""Compare what two strata binaries print for the same modules.

Runs `check`, `check --format json`, `check --lints`, `lint`, `build`,
`build --format json`, `compile` (every dialect, human and json) and
`fmt --check` with each binary on each file, and compares exit code, stdout
and stderr. Outputs that differ are compared again after normalising:

* fingerprints (16 or 64 hex digits) are replaced by `<fp>`;
* with --column-order, the column order: each output becomes the sorted
  list of its items, an item being what lies between line ends, `, `, runs
  of two or more spaces and `SELECT ` (escaped newlines in JSON strings taken
  as line ends). An output then still differs when any column, lineage entry,
  type, name or word is added, lost or changed, but not when columns (or the
  lines of a lineage block, whose label heads only its first line) move.

It prints one line per (command, file) that still differs, then a count:
`N outputs compared, D differ raw, R differ after normalising`. Exit 1 when
R > 0.

usage: bench/same_output.py [--column-order] OLD NEW FILE...
"""
import re
import subprocess
import sys

DIALECTS = ["duckdb", "postgres", "bigquery", "snowflake"]
COMMANDS = (
    [["check"], ["check", "--format", "json"], ["check", "--lints"], ["lint"],
     ["build"], ["build", "--format", "json"], ["fmt", "--check"]]
    + [["compile", "--dialect", d] for d in DIALECTS]
    + [["compile", "--dialect", d, "--format", "json"] for d in DIALECTS]
)
FINGERPRINT = re.compile(r"\b(?:[0-9a-f]{64}|[0-9a-f]{16})\b")


def run(binary, args, path):
    p = subprocess.run([binary, *args, path], capture_output=True, text=True)
    return p.returncode, p.stdout.replace(binary, "<strata>"), p.stderr.replace(binary, "<strata>")


def normalise(out, column_order):
    code, stdout, stderr = out
    texts = []
    for text in (stdout, stderr):
        text = FINGERPRINT.sub("<fp>", text)
        if column_order:
            # JSON strings hold SQL on escaped lines; a select list starts
            # after its SELECT.
            text = text.replace("\\n", "\n")
            items = re.split(r"\n|, |\s{2,}|SELECT (?:DISTINCT )?", text)
            text = "\n".join(sorted(i.strip() for i in items if i.strip()))
        texts.append(text)
    return code, *texts


def main():
    args = sys.argv[1:]
    column_order = "--column-order" in args
    args = [a for a in args if a != "--column-order"]
    if len(args) < 3:
        sys.exit(__doc__)
    old, new, files = args[0], args[1], args[2:]
    compared = raw = left = 0
    for path in files:
        for command in COMMANDS:
            compared += 1
            a, b = run(old, command, path), run(new, command, path)
            if a == b:
                continue
            raw += 1
            if normalise(a, column_order) != normalise(b, column_order):
                left += 1
                print(f"differs: strata {' '.join(command)} {path}")
    print(f"{compared} outputs compared, {raw} differ raw, {left} differ after normalising")
    sys.exit(1 if left else 0)


if __name__ == "__main__":
    main()
