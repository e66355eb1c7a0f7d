#!/usr/bin/env python3
"""`strata import-dbt` on a real dbt project: how many models convert, and
why the others need review (issues 57 and 58).

Give it a dbt project directory (a copy: dbt writes target/ and the
warehouse into it). It imports the project with `strata import-dbt
--format json` into a temporary directory and prints the models dbt has,
the converted ones, and the needs-review reasons grouped by their text
(numbers, quoted names and relation names folded, so `round()` in 26 models
counts as one reason), biggest first. Build the project with dbt first
(`$STRATA_DBT build`) so target/manifest.json holds the compiled SQL; run
`dbt deps` before if it has packages.

With `--rows WAREHOUSE.duckdb` (the DuckDB file `dbt build` wrote; run
with a Python that has the duckdb module, e.g. ~/.cache/strata-dbt/bin/python)
it also runs the import's `seeds` pipeline and compares every converted
model it publishes with dbt's relation of the same name: column names and
order, and the rows as a multiset (a per-invocation column, dbt's
`invocation_id` or `run_started_at`, whose strata values are strata's run
id or clock, is named and its values skipped: each run has its own).

With `--dbt` (and `--rows` naming the same file the profile names) it runs
the import as printed, `strata run ROOT --target dbt`, on dbt's warehouse
itself (strata publishes into its schema `strata`, beside dbt's relations:
work on a copy of the project) and compares every converted model dbt built
with strata's view of it, side by side in the one file.

usage: python3 bench/import_dbt_reasons.py PATH/TO/dbt_project [--top N] [--rows W.duckdb [--dbt]] [-- import-dbt args...]
       STRATA (default $CARGO_TARGET_DIR/release/strata) names the program.
"""

import collections
import json
import os
import re
import subprocess
import sys
import tempfile

TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/strata-target"))
STRATA = os.environ.get("STRATA", os.path.join(TARGET, "release/strata"))


def fold(reason):
    """A reason without what is particular to one model: the line, names in
    backticks or quotes, numbers."""
    r = reason.split("\n")[0]
    r = re.sub(r"^[^:]*\.(sql|yml|yaml):\d+(:\d+)?: ", "", r)
    r = re.sub(r"`[^`]*`", "`_`", r)
    r = re.sub(r"'[^']*'", "'_'", r)
    r = re.sub(r"\b\d+\b", "N", r)
    return r[:160]


def main():
    args = sys.argv[1:]
    extra = []
    if "--" in args:
        i = args.index("--")
        args, extra = args[:i], args[i + 1:]
    top = 15
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    warehouse = None
    on_dbt = "--dbt" in args
    if on_dbt:
        args.remove("--dbt")
    if "--rows" in args:
        i = args.index("--rows")
        warehouse = os.path.abspath(args[i + 1])
        del args[i:i + 2]
    if len(args) != 1:
        sys.exit(__doc__)
    project = os.path.abspath(args[0])
    with tempfile.TemporaryDirectory() as out:
        p = subprocess.run([STRATA, "import-dbt", project, "-o", os.path.join(out, "s"),
                            "--format", "json"] + extra,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if not p.stdout.strip():
            sys.exit(f"strata import-dbt exited {p.returncode}: {p.stderr}")
        report = json.loads(p.stdout)
        check = subprocess.run([STRATA, "check", os.path.join(out, "s")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if warehouse and on_dbt:
            compare_on_dbt(report, os.path.join(out, "s"), warehouse)
        elif warehouse:
            compare_rows(report, os.path.join(out, "s"), warehouse)
    s = report["summary"]
    enabled = s["models"] - s.get("disabled", 0)
    print(f"{project}: {s['converted']} of {enabled} models converted "
          f"({100 * s['converted'] / max(enabled, 1):.0f} %), "
          f"{enabled - s['converted']} need review; strata check exit {check.returncode}")
    reasons = collections.Counter()
    for m in report.get("models", []):
        if m["status"] in ("converted", "disabled"):
            continue
        why = m["reasons"][0]["message"] if m.get("reasons") else m["status"]
        reasons[fold(why)] += 1
    for r, n in reasons.most_common(top):
        print(f"  {n:4}  {r}")


def compare_rows(report, out, warehouse):
    """Run the seeds pipeline; compare each converted model it publishes
    (`v_<model>`) with dbt's relation of the same name."""
    import duckdb

    wh = os.path.join(out, "strata.duckdb")
    if not report.get("pipeline"):
        print("no seeds pipeline: no model reads only seeds")
        return
    p = subprocess.run([STRATA, "run", os.path.join(out, report["root"]), "--pipeline",
                        report["pipeline"], "-o", wh],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(f"strata run --pipeline {report['pipeline']}: exit {p.returncode}")
    if p.returncode != 0:
        print(p.stderr[-2000:])
        return
    dbt_con = duckdb.connect(warehouse, read_only=True)
    s_con = duckdb.connect(wh, read_only=True)

    same = differ = 0
    runs = run_values(s_con, '"_strata_runs"')
    for m in report["models"]:
        if m["status"] != "converted" or not m.get("in_pipeline"):
            continue
        found = dbt_con.sql("SELECT table_schema FROM information_schema.tables WHERE table_name = ?",
                            params=[m["name"]]).fetchall()
        if not found:
            print(f"  {m['name']}: dbt built no relation of that name")
            continue
        if same_rows(m["name"], dbt_con, f'"{found[0][0]}"."{m["name"]}"', s_con, f'"v_{m["name"]}"',
                     runs):
            same += 1
        else:
            differ += 1
    print(f"  {same} converted models publish dbt's rows, {differ} differ")


def same_rows(name, dbt_con, dbt_rel, s_con, s_rel, runs=frozenset()):
    """Whether strata's relation has dbt's columns and rows (as a multiset);
    prints the difference when not. A per-invocation column (dbt's
    `invocation_id` or `run_started_at`: every strata value one of `runs`,
    strata's run ids and clocks) is named and its values skipped."""
    dc, dr = sorted_rows(dbt_con, dbt_rel)
    sc, sr = sorted_rows(s_con, s_rel)
    skipped = [i for i in range(len(sc))
               if sr and all(as_text(r[i]) in runs for r in sr)]
    if skipped and dc == sc:
        print(f"  {name}: per-invocation, skipped: {', '.join(sc[i] for i in skipped)}")
        dr, sr = (sorted(tuple(v for i, v in enumerate(r) if i not in skipped) for r in rows)
                  for rows in (dr, sr))
    if dc == sc and dr == sr:
        return True
    print(f"  {name}: DIFFERS: columns dbt {dc} / strata {sc}; "
          f"{len(dr)} rows dbt, {len(sr)} strata")
    return False


def sorted_rows(con, rel):
    cols = [r[0] for r in con.sql(f"DESCRIBE SELECT * FROM {rel}").fetchall()]
    data = con.sql(f"SELECT * FROM {rel}").fetchall()
    return cols, sorted(data, key=lambda r: tuple((v is None, str(v)) for v in r))


def as_text(v):
    """A value as the run history writes run ids and clocks."""
    if hasattr(v, "strftime"):
        return v.strftime("%Y-%m-%d %H:%M:%S.%f")
    return str(v)


def run_values(con, runs_rel):
    """strata's run ids and clocks (`runs_rel`: its `_strata_runs`)."""
    rows = con.sql(f"SELECT run_id, clock FROM {runs_rel}").fetchall()
    return frozenset(v for r in rows for v in r if v is not None)


def compare_on_dbt(report, out, warehouse):
    """Run the import as it prints it (`--target dbt`), then compare each
    converted model dbt built with strata's view of it in schema
    `strata` of the same file."""
    import duckdb

    if not report.get("target"):
        print("no dbt target written (IMPORT.md's notes say why)")
        return
    p = subprocess.run([STRATA, "run", os.path.join(out, report["root"]), "--target", "dbt"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    print(f"strata run --target dbt: exit {p.returncode}")
    if p.returncode != 0:
        print(p.stderr[-2000:])
        return
    schema = report["target"]["schema"]
    con = duckdb.connect(warehouse, read_only=True)
    same = differ = unbuilt = 0
    runs = run_values(con, f'"{schema}"."_strata_runs"')
    for m in report["models"]:
        if m["status"] != "converted":
            continue
        found = con.sql("SELECT table_schema FROM information_schema.tables WHERE table_name = ? "
                        "AND table_schema <> ? AND table_catalog = current_database()",
                        params=[m["name"], schema]).fetchall()
        if not found:
            unbuilt += 1
            continue
        if same_rows(m["name"], con, f'"{found[0][0]}"."{m["name"]}"', con, f'"{schema}"."v_{m["name"]}"',
                     runs):
            same += 1
        else:
            differ += 1
    print(f"  {same} converted models publish dbt's rows, {differ} differ, "
          f"{unbuilt} not built by dbt (ephemeral, or not run)")


if __name__ == "__main__":
    main()
