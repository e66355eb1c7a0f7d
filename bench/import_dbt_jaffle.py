#!/usr/bin/env python3
"""`strata import-dbt` on dbt Labs' jaffle_shop_duckdb (issue 48), measured
against what `dbt build` writes, beside strata-lang 0.1.6's `import-dbt`.

Give it a checkout of https://github.com/dbt-labs/jaffle_shop_duckdb (not
part of this repository). In a copy of it, it runs `dbt build` (dbt-core
1.10 and dbt-duckdb 1.9, as .ci/run installs them), then `strata
import-dbt`, `strata check` and `strata run --pipeline seeds`, and compares
`customers` and `orders` as dbt wrote them with what strata published:
column names and order, and every row (as a multiset). Then strata-lang's
`import-dbt` on the same project, as a new user would try it.

usage: ~/.cache/strata-dbt/bin/python bench/import_dbt_jaffle.py PATH/TO/jaffle_shop_duckdb
       STRATA (default $CARGO_TARGET_DIR/release/strata), STRATA_DBT and
       STRATA_LANG (default ~/.cache/strata-ref/bin/strata) name the programs.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

import duckdb

TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/strata-target"))
STRATA = os.environ.get("STRATA", os.path.join(TARGET, "release/strata"))
DBT = os.environ.get("STRATA_DBT", os.path.expanduser("~/.cache/strata-dbt/bin/dbt"))
STRATA_LANG = os.environ.get("STRATA_LANG", os.path.expanduser("~/.cache/strata-ref/bin/strata"))


def run(cmd, cwd, env=None):
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    return p, time.perf_counter() - start


def rows(con, relation):
    cols = [r[0] for r in con.sql(f"DESCRIBE SELECT * FROM {relation}").fetchall()]
    data = con.sql(f"SELECT * FROM {relation}").fetchall()
    return cols, sorted(data, key=lambda r: tuple((v is None, str(v)) for v in r))


def compare(project, work, extra):
    """Import, check, run on the seeds, compare customers and orders with dbt's."""
    out = os.path.join(work, "strata" + ("-jinja" if extra else ""))
    p, t_imp = run([STRATA, "import-dbt", project, "-o", out, "--format", "json"] + extra, work)
    print(f"strata import-dbt: exit {p.returncode} in {t_imp * 1000:.0f} ms")
    report = json.loads(p.stdout)
    s = report["summary"]
    print(f"  {s['converted']} of {s['models'] - s['disabled']} models converted, "
          f"{s['joins']} joins ({s['joins_with_promise']} with a promise, "
          f"{s['joins_without_evidence']} without evidence), "
          f"{s['tests_carried']} of {s['tests']} tests carried"
          f"{' (compiled SQL from target/manifest.json)' if report['compiled_from_manifest'] else ''}")
    for j in report["joins"]:
        print(f"  join {j['strata_model']} {j['kind']} {j['right']} on {', '.join(j['keys'])}: "
              f"{j['promise'] or 'no promise'} -- {j['evidence']}")
    for m in report["models"]:
        if m["status"] != "converted":
            print(f"  {m['name']}: {m['status']}: {m['reasons']}")

    p, _ = run([STRATA, "check", out], work)
    print(f"strata check: exit {p.returncode} {p.stderr.strip()[:500]}")
    root = os.path.join(out, report["root"])
    wh = os.path.join(work, "strata" + ("-jinja" if extra else "") + ".duckdb")
    p, t_run = run([STRATA, "run", root, "--pipeline", "seeds", "-o", wh], work)
    print(f"strata run --pipeline seeds: exit {p.returncode} in {t_run:.1f} s")
    if p.returncode != 0:
        print(p.stdout, p.stderr)
        raise SystemExit(1)

    dbt_con = duckdb.connect(os.path.join(project, "jaffle_shop.duckdb"), read_only=True)
    s_con = duckdb.connect(wh, read_only=True)
    for model in ("customers", "orders"):
        dc, dr = rows(dbt_con, f"main.{model}")
        sc, sr = rows(s_con, f"v_{model}")
        same_cols = dc == sc
        same_rows = dr == sr
        print(f"{model}: columns {'equal' if same_cols else 'DIFFER'} ({len(dc)}: {', '.join(dc)}); "
              f"rows {'equal' if same_rows else 'DIFFER'} ({len(dr)} dbt, {len(sr)} strata)")
        if not same_cols:
            print(f"  dbt    {dc}\n  strata {sc}")
        if not same_rows:
            for a, b in zip(dr, sr):
                if a != b:
                    print(f"  first difference: dbt {a} / strata {b}")
                    break



def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    src = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="jaffle-")
    try:
        project = os.path.join(work, "jaffle_shop_duckdb")
        shutil.copytree(src, project, ignore=shutil.ignore_patterns(".git", "target", "*.duckdb"))
        env = dict(os.environ, DBT_PROFILES_DIR=project, DBT_SEND_ANONYMOUS_USAGE_STATS="false")
        p, t_dbt = run([DBT, "build"], project, env)
        print(f"dbt build: exit {p.returncode} in {t_dbt:.1f} s")
        if p.returncode != 0:
            print(p.stdout[-3000:])
            raise SystemExit(1)

        for variant, extra in (("compiled SQL of target/manifest.json", []),
                               ("Jinja rendered by import-dbt (--no-manifest)", ["--no-manifest"])):
            print(f"\n== strata import-dbt, {variant}")
            compare(project, work, extra)

        # strata-lang 0.1.6 on the same project, as a new user would try it.
        print("\nstrata-lang 0.1.6 import-dbt:")
        ref_out = os.path.join(work, "ref")
        os.makedirs(ref_out)
        for yml in ("models/schema.yml", "models/staging/schema.yml"):
            for extra in ([], ["--models", os.path.join(project, "models")]):
                target = os.path.join(ref_out, yml.replace("/", "_") + ("_models" if extra else "") + ".strata")
                p, _ = run([STRATA_LANG, "import-dbt", os.path.join(project, yml), "--output", target] + extra, work)
                msg = (p.stderr or p.stdout).strip().splitlines()
                print(f"  import-dbt {yml}{' --models models' if extra else ''}: exit {p.returncode}"
                      f"{': ' + msg[0] if msg else ''}")
                if p.returncode == 0 and os.path.exists(target):
                    text = open(target).read()
                    models = [l.split()[1] for l in text.splitlines() if l.startswith("model ")]
                    print(f"    wrote {len(models)} model(s): {', '.join(models)}")
                    q, _ = run([STRATA_LANG, "check", target], work)
                    print(f"    strata-lang check: exit {q.returncode} {(q.stderr or q.stdout).strip()[:200]}")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
