#!/usr/bin/env python3
"""Benchmark of `strata import-dbt` (issue 48) against `dbt parse`, on the
same generated dbt project of N models, side by side in one run.

The project (deterministic per --seed) has five seeds, their staging
models, and N - 5 models over them drawn from a few shapes dbt projects
are made of: CTE chains with a join and a group by, a Jinja loop of
`sum(case ...)`, a union, a window; about one model in four has YAML tests.

Each round times, interleaved:

* `strata import-dbt PROJECT -o OUT` into a fresh directory (reading,
  rendering, translating, checking every model, writing the modules and
  IMPORT.md), and
* `dbt parse --no-partial-parse` (dbt reading and rendering the same
  project into target/manifest.json; no SQL is translated or checked).

usage: bench/import_dbt.py [--models N] [--rounds R] [--seed S]
       STRATA (default: $CARGO_TARGET_DIR/release/strata) and STRATA_DBT
       (default: ~/.cache/strata-dbt/bin/dbt, what .ci/run installs) name
       the two programs.
"""

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import time

TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/strata-target"))
STRATA = os.environ.get("STRATA", os.path.join(TARGET, "release/strata"))
DBT = os.environ.get("STRATA_DBT", os.path.expanduser("~/.cache/strata-dbt/bin/dbt"))

SEEDS = {
    "raw_customers": "id,name,country,signup_date\n" + "".join(
        f"{i},name{i},{['FR', 'US', 'DE'][i % 3]},2023-01-{(i % 28) + 1:02d}\n" for i in range(1, 51)),
    "raw_orders": "id,customer_id,ordered_at,status,amount_cents\n" + "".join(
        f"{i},{i % 50 + 1},2023-02-{(i % 28) + 1:02d},{['placed', 'shipped', 'completed'][i % 3]},{i * 37 % 5000}\n"
        for i in range(1, 301)),
    "raw_payments": "id,order_id,method,amount_cents\n" + "".join(
        f"{i},{i % 300 + 1},{['card', 'coupon', 'transfer'][i % 3]},{i * 13 % 3000}\n" for i in range(1, 401)),
    "raw_products": "product_id,title,category,price\n" + "".join(
        f"{i},product{i},{['a', 'b', 'c'][i % 3]},{i}.50\n" for i in range(1, 21)),
    "raw_items": "order_id,line_no,product_id,quantity\n" + "".join(
        f"{i % 300 + 1},{i // 300 + 1},{i % 20 + 1},{i % 4 + 1}\n" for i in range(1, 601)),
}

STAGING = {
    "stg_customers": ("select id as customer_id, name, country, signup_date from {{ ref('raw_customers') }}",
                      "customer_id"),
    "stg_orders": ("with source as (select * from {{ ref('raw_orders') }})\n"
                   "select id as order_id, customer_id, ordered_at as ordered_on, status,\n"
                   "       amount_cents / 100 as amount\nfrom source", "order_id"),
    "stg_payments": ("select id as payment_id, order_id, method, amount_cents / 100.0 as amount\n"
                     "from {{ ref('raw_payments') }}", "payment_id"),
    "stg_products": ("select * from {{ ref('raw_products') }}", "product_id"),
    "stg_items": ("select order_id, line_no, product_id, quantity from {{ ref('raw_items') }}", None),
}


def model_text(i, rng, earlier):
    """Model number i: one of the shapes, over staging models and earlier ones."""
    shape = rng.randrange(5)
    if shape == 0:
        return ("with per_customer as (\n"
                "    select customer_id, count(*) as orders, sum(amount) as total\n"
                "    from {{ ref('stg_orders') }}\n    group by customer_id\n)\n"
                "select c.customer_id, c.name, p.orders, p.total\n"
                "from {{ ref('stg_customers') }} c\n"
                "left join per_customer p on c.customer_id = p.customer_id\n"
                f"where c.customer_id > {i % 7}\n")
    if shape == 1:
        methods = ["card", "coupon", "transfer"]
        return ("{% set methods = " + json.dumps(methods).replace('"', "'") + " %}\n"
                "select order_id,\n"
                "{% for m in methods %}    sum(case when method = '{{ m }}' then amount else 0 end) as {{ m }}_amount,\n"
                "{% endfor %}    sum(amount) as total\n"
                "from {{ ref('stg_payments') }}\ngroup by order_id\n")
    if shape == 2:
        return ("select o.order_id, o.status, i.line_no, i.quantity * p.price as line_total\n"
                "from {{ ref('stg_items') }} i\n"
                "join {{ ref('stg_orders') }} o on i.order_id = o.order_id\n"
                "join {{ ref('stg_products') }} p on i.product_id = p.product_id\n"
                f"where i.quantity >= {i % 3 + 1}\n")
    if shape == 3:
        return ("select order_id, customer_id,\n"
                "       row_number() over (partition by customer_id order by ordered_on, order_id) as n\n"
                "from {{ ref('stg_orders') }}\n"
                f"where status in ('placed', 'shipped') and amount > {i % 11}\n")
    if earlier:
        prev = rng.choice(earlier)
        return (f"select * from {{{{ ref('{prev}') }}}}\n")
    return "select customer_id, country from {{ ref('stg_customers') }}\n"


def generate(root, n, seed):
    rng = random.Random(seed)
    os.makedirs(os.path.join(root, "seeds"))
    os.makedirs(os.path.join(root, "models/staging"))
    os.makedirs(os.path.join(root, "models/marts"))
    with open(os.path.join(root, "dbt_project.yml"), "w") as f:
        f.write("name: bench\nversion: '1.0'\nconfig-version: 2\nprofile: bench\n"
                "models:\n  bench:\n    +materialized: view\n")
    with open(os.path.join(root, "profiles.yml"), "w") as f:
        f.write("bench:\n  target: dev\n  outputs:\n    dev:\n      type: duckdb\n      path: bench.duckdb\n")
    for name, text in SEEDS.items():
        with open(os.path.join(root, "seeds", name + ".csv"), "w") as f:
            f.write(text)
    yml = ["version: 2", "models:"]
    for name, (sql, key) in STAGING.items():
        with open(os.path.join(root, "models/staging", name + ".sql"), "w") as f:
            f.write(sql + "\n")
        if key:
            yml += [f"  - name: {name}", "    columns:", f"      - name: {key}",
                    "        data_tests: [unique, not_null]"]
    earlier = []
    for i in range(n - len(STAGING)):
        name = f"model_{i:04d}"
        with open(os.path.join(root, "models/marts", name + ".sql"), "w") as f:
            f.write(model_text(i, rng, earlier))
        earlier.append(name)
        if i % 4 == 0:
            yml += [f"  - name: {name}", f"    description: Model number {i}."]
    with open(os.path.join(root, "models/schema.yml"), "w") as f:
        f.write("\n".join(yml) + "\n")


def timed(cmd, cwd):
    start = time.perf_counter()
    p = subprocess.run(cmd, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - start
    if p.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout}\n{p.stderr}")
    return wall, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--models", type=int, default=1000)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=48)
    a = ap.parse_args()
    for prog in (STRATA, DBT):
        if not os.path.exists(prog):
            raise SystemExit(f"not found: {prog} (set STRATA / STRATA_DBT)")
    work = tempfile.mkdtemp(prefix="import-dbt-bench-")
    try:
        project = os.path.join(work, "project")
        generate(project, a.models, a.seed)
        ours, theirs = [], []
        summary = None
        for r in range(a.rounds):
            out = os.path.join(work, f"out{r}")
            w, stdout = timed([STRATA, "import-dbt", project, "-o", out, "--format", "json"], work)
            ours.append(w)
            summary = json.loads(stdout)["summary"]
            shutil.rmtree(out)
            w, _ = timed([DBT, "parse", "--no-partial-parse", "--profiles-dir", "."], project)
            theirs.append(w)
        ms = lambda xs: statistics.median(xs) * 1000
        print(f"# strata import-dbt vs dbt parse, {a.models} models, {a.rounds} rounds (median wall time)\n")
        print("| what | median | min | max |\n|---|---|---|---|")
        print(f"| `strata import-dbt` (render, translate, check, write) | {ms(ours):.0f} ms | "
              f"{min(ours) * 1000:.0f} ms | {max(ours) * 1000:.0f} ms |")
        print(f"| `dbt parse --no-partial-parse` | {ms(theirs):.0f} ms | "
              f"{min(theirs) * 1000:.0f} ms | {max(theirs) * 1000:.0f} ms |")
        print(f"\nratio: {statistics.median(ours) / statistics.median(theirs):.2f}x "
              f"(import / parse); converted {summary['converted']} of {summary['models']} models, "
              f"{summary['joins']} joins audited")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
