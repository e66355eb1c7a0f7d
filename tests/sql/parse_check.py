#!/usr/bin/env python3
"""Independent parser check of `strata compile` (issue 4, acceptance).

For every valid program of the conformance corpus (tests/corpus: verdict `ok`
in differences.tsv, else in reference.tsv), every example module
(examples/**/*.strata), every execution fixture (tests/sql/exec/*.strata) and
the edge programs (tests/sql/programs/*.strata), the golden showcase
(tests/cmd/compile/compile-showcase.strata), and for each of the
four dialects, run

    strata compile FILE --dialect D --format json

and parse every view statement and every join cardinality check query with
sqlglot as that dialect (`sqlglot.parse_one(sql, read=D)`, error level
RAISE). A statement passes when it is exactly one statement, of the expected
kind (a `CREATE VIEW ... AS <query>` for a view, a `SELECT` for a check), and
sqlglot did not fall back to an opaque `Command` anywhere in it.

Two lists, both read from tests/sql/ and both strict (an entry that no longer
applies is a failure too, so they cannot rot):

* expected_compile_errors.txt: `file<TAB>dialect<TAB>code<TAB>reason`, a
  program that must NOT compile for that dialect (E070: a type the dialect
  cannot express). Any other compile failure is a failure.
* known_sqlglot_limits.txt: `file<TAB>dialect<TAB>reason`, valid SQL that
  sqlglot rejects (a parser limitation, not a lowering bug). Its statements
  are reported as known, not counted as parsed or failed.

Prints `sqlglot: N statements parsed, F failed` (plus a per-dialect line and
every failure) and exits 1 on any failure.

Usage: parse_check.py [--strata BIN] [--root REPO] [-v]
The strata binary defaults to $STRATA_BIN, else
$CARGO_TARGET_DIR/release/strata, else target/release/strata.
"""

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

DIALECTS = ["duckdb", "postgres", "bigquery", "snowflake", "spark"]


def read_rows(path, width):
    """Tab-separated rows of a list file; `#` comments and blank lines skipped."""
    rows = []
    if not path.exists():
        return rows
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.startswith("#"):
            continue
        parts = line.split("\t")
        if len(parts) != width or not all(p.strip() for p in parts):
            sys.exit(f"{path}:{n}: expected {width} tab-separated non-empty fields: {line!r}")
        rows.append(parts)
    return rows


def corpus_programs(root):
    """The corpus root programs whose verdict is `ok`."""
    corpus = root / "tests" / "corpus"
    verdict = {}
    for name in ["reference.tsv", "differences.tsv"]:
        for line in (corpus / name).read_text(encoding="utf-8").splitlines():
            if not line.strip() or line.startswith("#"):
                continue
            parts = line.split("\t")
            verdict[parts[0]] = parts[1]  # differences.tsv overrides reference.tsv
    files = sorted(p.name for p in corpus.glob("*.strata"))
    missing = [f for f in files if f not in verdict]
    if missing:
        sys.exit(f"corpus programs without a recorded verdict: {missing}")
    return [corpus / f for f in files if verdict[f] == "ok"]


def programs(root):
    found = corpus_programs(root)
    found += sorted((root / "examples").rglob("*.strata"))
    found += sorted((root / "tests" / "sql" / "exec").glob("*.strata"))
    found += sorted((root / "tests" / "sql" / "programs").glob("*.strata"))
    found.append(root / "tests" / "cmd" / "compile" / "compile-showcase.strata")
    return found


def default_strata(root):
    if os.environ.get("STRATA_BIN"):
        return os.environ["STRATA_BIN"]
    target = os.environ.get("CARGO_TARGET_DIR") or str(root / "target")
    return str(Path(target) / "release" / "strata")


def check_statement(sqlglot, exp, sql, dialect, kind):
    """None when `sql` parses as one statement of `kind`, else the reason."""
    from sqlglot.errors import ErrorLevel

    try:
        tree = sqlglot.parse_one(sql, read=dialect, error_level=ErrorLevel.RAISE)
        statements = [s for s in sqlglot.parse(sql, read=dialect, error_level=ErrorLevel.RAISE) if s]
    except Exception as e:  # sqlglot raises ParseError, TokenError, ...
        return f"{type(e).__name__}: {e}"
    if len(statements) != 1:
        return f"{len(statements)} statements, expected 1"
    if kind == "view":
        ok = (
            isinstance(tree, exp.Create)
            and str(tree.args.get("kind", "")).upper() == "VIEW"
            and isinstance(tree.expression, exp.Query)
        )
        if not ok:
            return f"not a CREATE VIEW ... AS <query>: parsed as {type(tree).__name__}"
    elif not isinstance(tree, exp.Select):
        return f"not a SELECT: parsed as {type(tree).__name__}"
    opaque = next(tree.find_all(exp.Command), None)
    if opaque is not None:
        return f"sqlglot fell back to an unparsed Command: {opaque.sql()[:80]!r}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=str(Path(__file__).resolve().parents[2]))
    ap.add_argument("--strata")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    root = Path(args.root).resolve()
    strata = args.strata or default_strata(root)
    try:
        import sqlglot
        from sqlglot import exp
    except ImportError:
        sys.exit("sqlglot is not installed (pip install sqlglot)")

    here = root / "tests" / "sql"
    expected_errors = {(f, d): (code, reason) for f, d, code, reason in read_rows(here / "expected_compile_errors.txt", 4)}
    limits = {(f, d): reason for f, d, reason in read_rows(here / "known_sqlglot_limits.txt", 3)}
    for f, d in list(expected_errors) + list(limits):
        if d not in DIALECTS:
            sys.exit(f"tests/sql lists: unknown dialect {d!r} for {f}")

    parsed = {d: 0 for d in DIALECTS}
    known = {d: 0 for d in DIALECTS}
    failures = []
    used_errors, used_limits = set(), set()
    files = programs(root)
    for path in files:
        rel = path.relative_to(root).as_posix()
        for d in DIALECTS:
            run = subprocess.run(
                [strata, "compile", str(path), "--dialect", d, "--format", "json"],
                capture_output=True,
                text=True,
            )
            if (rel, d) in expected_errors:
                used_errors.add((rel, d))
                code = expected_errors[(rel, d)][0]
                if run.returncode == 0 or not (f"[{code}]" in run.stderr or f'"code": "{code}"' in run.stdout):
                    failures.append(f"{rel} [{d}]: expected compile error {code}, got exit {run.returncode}\n{run.stderr}")
                continue
            if run.returncode != 0:
                failures.append(f"{rel} [{d}]: strata compile exited {run.returncode}\n{run.stderr}")
                continue
            out = json.loads(run.stdout)
            statements = [("view", f"view {v['view']}", v["sql"]) for v in out["views"]]
            statements += [("check", f"check [{c['join']}] on {c['table']}", c["sql"]) for c in out["cardinality_checks"]]
            bad = []
            for kind, label, sql in statements:
                why = check_statement(sqlglot, exp, sql, d, kind)
                if why is not None:
                    bad.append(f"{rel} [{d}] {label}: {why}\n{sql}")
            if (rel, d) in limits:
                used_limits.add((rel, d))
                if not bad:
                    failures.append(f"{rel} [{d}]: listed in known_sqlglot_limits.txt but every statement parses; remove the entry")
                else:
                    known[d] += len(statements)
                    print(f"known sqlglot limit ({limits[(rel, d)]}): {len(bad)} of {len(statements)} statements rejected")
                    for b in bad:
                        print("  " + b.replace("\n", "\n    "))
                continue
            parsed[d] += len(statements) - len(bad)
            failures.extend(bad)
            if args.verbose:
                print(f"{rel} [{d}]: {len(statements)} statements")
    for key in sorted(set(expected_errors) - used_errors):
        failures.append(f"expected_compile_errors.txt: {key[0]} [{key[1]}] is not a checked program")
    for key in sorted(set(limits) - used_limits):
        failures.append(f"known_sqlglot_limits.txt: {key[0]} [{key[1]}] is not a checked program")

    for f in failures:
        print("FAILED: " + f.replace("\n", "\n    "))
    print(f"programs: {len(files)}; sqlglot {sqlglot.__version__}")
    for d in DIALECTS:
        extra = f", {known[d]} in known sqlglot limits" if known[d] else ""
        print(f"  {d}: {parsed[d]} statements parsed{extra}")
    print(f"sqlglot: {sum(parsed.values())} statements parsed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
