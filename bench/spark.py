#!/usr/bin/env python3
"""Benchmark of `strata run` on Spark through Spark Connect (issue 24).

Starts one local Spark Connect server (PySpark's start-connect-server.sh,
local[2], two shuffle partitions), makes N orders / M customers with Spark's
range(), and, interleaved over REPS rounds, each on fresh databases:

* `strata run` of the seed's `enriched` (a first run: it freezes its inputs)
  against the bare statements through PySpark's own Spark Connect client
  (CREATE TABLE AS the join; the bare duplicate-group count), in the
  bench's long-lived session and in a new session (as each `strata run`
  is), then the same run again (inputs and snapshot reused, content
  hashed, checks run);
* the same run again against its own statements (from
  $STRATA_SPARK_SQL_LOG) sent one by one through PySpark in a new session;
* each cardinality check strata sent (its time as strata's client measured
  it, from $STRATA_SPARK_SQL_LOG) against the bare duplicate-group count
  sent through PySpark on the same tables, and strata's own query sent
  through PySpark.

usage: bench/spark.py [--orders N] [--customers M] [--reps R]
       (run it with the python of the virtualenv holding pyspark:
        ~/.cache/strata-spark/bin/python bench/spark.py)
"""

import argparse
import glob
import os
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
import warnings

warnings.filterwarnings("ignore")
from pyspark.sql import SparkSession  # noqa: E402

STRATA = os.environ.get("STRATA", os.path.expanduser("~/.cache/strata-target/release/strata"))
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MODULE = os.path.join(ROOT, "examples/seed/orders.strata")
JOIN = ("SELECT o.order_id, c.country FROM orders o "
        "LEFT JOIN customers c ON o.customer_id = c.customer_id")
BARE_CHECK = ("SELECT COUNT(*) FROM (SELECT 1 FROM customers WHERE customer_id IS NOT NULL "
              "GROUP BY customer_id HAVING COUNT(*) > 1) t")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(work):
    import pyspark
    home = os.path.dirname(pyspark.__file__)
    port = free_port()
    env = dict(os.environ, SPARK_HOME=home, SPARK_LOG_DIR=work, SPARK_PID_DIR=work)
    conf = [
        "spark.connect.grpc.binding.address=127.0.0.1",
        f"spark.connect.grpc.binding.port={port}",
        "spark.sql.catalogImplementation=hive",
        f"spark.sql.warehouse.dir={work}/warehouse",
        "spark.sql.shuffle.partitions=2",
        "spark.ui.enabled=false",
    ]
    args = [f"{home}/sbin/start-connect-server.sh", "--master", "local[2]", "--driver-memory", "2g",
            "--driver-java-options", f"-Dderby.system.home={work}"]
    for c in conf:
        args += ["--conf", c]
    subprocess.run(args, cwd=work, env=env, check=True, stdout=subprocess.DEVNULL)
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return home, env, port
        except OSError:
            time.sleep(0.5)
    raise SystemExit("the Spark Connect server did not start")


def show_statements(what, log):
    """The statement count and time of a run (from its SQL log), and the slowest."""
    statements = sorted((float(ms), sql) for ms, sql in (line.split("\t", 1) for line in open(log)))
    print(f"{what}: {len(statements)} statements, {sum(ms for ms, _ in statements) / 1000:.2f} s in them; the slowest:")
    for ms, sql in statements[::-1][:10]:
        print(f"  {ms:7.0f} ms  {sql.strip()[:110]}")


def timed(spark, sql):
    t0 = time.perf_counter()
    spark.sql(sql).collect()
    return time.perf_counter() - t0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--orders", type=int, default=1_000_000)
    ap.add_argument("--customers", type=int, default=100_000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    work = tempfile.mkdtemp(prefix="strata-spark-bench-")
    home, env, port = start_server(work)
    try:
        spark = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").getOrCreate()
        spark.sql("SELECT 1").collect()  # the first query starts the executors
        spark.sql("CREATE DATABASE src").collect()
        spark.sql(f"CREATE TABLE src.orders AS SELECT id AS order_id, id % {a.customers} + 1 AS customer_id, "
                  f"CAST(id % 100 AS DOUBLE) + 0.5 AS amount FROM range({a.orders})").collect()
        spark.sql(f"CREATE TABLE src.customers AS SELECT id + 1 AS customer_id, "
                  f"CASE id % 3 WHEN 0 THEN 'ES' WHEN 1 THEN 'FR' ELSE 'DE' END AS country "
                  f"FROM range({a.customers})").collect()
        ours_run, ours_rerun, bare_run, ours_check, bare_check, our_sql_pyspark = [], [], [], [], [], []
        bare_fresh, replayed = [], []
        for r in range(a.reps):
            for db in (f"s{r}", f"b{r}", f"c{r}"):
                spark.sql(f"CREATE DATABASE {db}").collect()
                for t in ("orders", "customers"):
                    spark.sql(f"CREATE TABLE {db}.{t} AS SELECT * FROM src.{t}").collect()
            # strata, a first run on its own database.
            log = os.path.join(work, f"sql-{r}.log")
            t0 = time.perf_counter()
            p = subprocess.run([STRATA, "run", MODULE, "enriched", "-o", f"sc://127.0.0.1:{port}/?schema=s{r}"],
                               env=dict(os.environ, STRATA_SPARK_SQL_LOG=log), capture_output=True, text=True)
            ours_run.append(time.perf_counter() - t0)
            if p.returncode != 0:
                raise SystemExit(p.stdout + p.stderr)
            if r == 0:
                show_statements("first run", log)
            # The same run again: its inputs and snapshot are reused (their
            # content hashed again), every check runs again.
            relog = os.path.join(work, f"sql-{r}-again.log")
            t0 = time.perf_counter()
            p = subprocess.run([STRATA, "run", MODULE, "enriched", "-o", f"sc://127.0.0.1:{port}/?schema=s{r}"],
                               env=dict(os.environ, STRATA_SPARK_SQL_LOG=relog), capture_output=True, text=True)
            ours_rerun.append(time.perf_counter() - t0)
            if p.returncode != 0:
                raise SystemExit(p.stdout + p.stderr)
            if r == 0:
                show_statements("the run again", relog)
            checks = [line.split("\t", 1) for line in open(relog) if "HAVING COUNT(*) > 1" in line]
            # strata's own statements of that run, one after another through
            # PySpark in a new session: what the run's work costs without
            # strata (its process, its client, the statements it sends at
            # once). Each is idempotent on a rerun (the lock is made then
            # dropped; the history gets one row more).
            replay = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").create()
            t0 = time.perf_counter()
            for line in open(relog):
                replay.sql(line.split("\t", 1)[1].strip()).collect()
            replayed.append(time.perf_counter() - t0)
            replay.stop()
            ours_check += [float(ms) / 1000 for ms, _ in checks]
            # The bare statements through PySpark, on the other database.
            spark.sql(f"USE b{r}").collect()
            t0 = time.perf_counter()
            spark.sql(f"CREATE TABLE t AS {JOIN}").collect()
            spark.sql(BARE_CHECK).collect()
            bare_run.append(time.perf_counter() - t0)
            # The same in a session of its own, as a `strata run` is: the
            # server's per-session state is cold (the first request makes
            # the session).
            fresh = SparkSession.builder.remote(f"sc://127.0.0.1:{port}").create()
            t0 = time.perf_counter()
            fresh.sql(f"USE c{r}").collect()
            fresh.sql(f"CREATE TABLE t AS {JOIN}").collect()
            fresh.sql(BARE_CHECK).collect()
            bare_fresh.append(time.perf_counter() - t0)
            fresh.stop()
            # Each check: the bare count and strata's own query through PySpark.
            spark.sql(f"USE s{r}").collect()
            for _, sql in checks:
                bare_check.append(timed(spark, BARE_CHECK.replace("customers", "`customers`")))
                our_sql_pyspark.append(timed(spark, sql.strip()))
        # The check alone, warm, interleaved: strata's code path and the bare
        # count through strata's client (cardinality_bench), and the bare
        # count through PySpark, on the same table.
        example = os.path.join(os.path.dirname(STRATA), "examples", "cardinality_bench")
        ledger = None
        if os.path.exists(example):
            import json
            spark.sql("USE s0").collect()
            pyspark_bare = []
            for _ in range(7):
                pyspark_bare.append(timed(spark, BARE_CHECK))
            p = subprocess.run([example, f"sc://127.0.0.1:{port}/?schema=s0", "customers", "customer_id",
                                "--reps", "7", "--joins", "1"], capture_output=True, text=True)
            if p.returncode != 0:
                raise SystemExit(p.stdout + p.stderr)
            ledger = json.loads(p.stdout)
            for _ in range(7):
                pyspark_bare.append(timed(spark, BARE_CHECK))
        med = statistics.median
        print(f"Spark {spark.version} (local[2], 2 shuffle partitions), {a.orders:,} orders / {a.customers:,} customers, "
              f"{a.reps} rounds, medians")
        print()
        print("| what | strata | PySpark | ratio |")
        print("|---|---|---|---|")
        print(f"| `strata run enriched` (first run: freezes its inputs) vs CTAS join + bare check | "
              f"{med(ours_run):.2f} s | {med(bare_run):.2f} s | {med(ours_run) / med(bare_run):.2f}x |")
        print(f"| the same run again (inputs and snapshot reused, checks run) vs the same bare statements | "
              f"{med(ours_rerun):.2f} s | {med(bare_run):.2f} s | {med(ours_rerun) / med(bare_run):.2f}x |")
        print(f"| the same run again vs the same bare statements in a new session (USE included) | "
              f"{med(ours_rerun):.2f} s | {med(bare_fresh):.2f} s | {med(ours_rerun) / med(bare_fresh):.2f}x |")
        print(f"| the same run again vs its own statements sent one by one through PySpark in a new session | "
              f"{med(ours_rerun):.2f} s | {med(replayed):.2f} s | {med(ours_rerun) / med(replayed):.2f}x |")
        print(f"| the cardinality check (strata's client, in the second run) vs the bare duplicate-group count | "
              f"{med(ours_check) * 1000:.0f} ms | {med(bare_check) * 1000:.0f} ms | "
              f"{med(ours_check) / med(bare_check):.2f}x |")
        print(f"| strata's check query sent through PySpark vs the bare count | "
              f"{med(our_sql_pyspark) * 1000:.0f} ms | {med(bare_check) * 1000:.0f} ms | "
              f"{med(our_sql_pyspark) / med(bare_check):.2f}x |")
        if ledger:
            print(f"| the check alone, warm: strata's code path vs the bare count through strata's client "
                  f"(cardinality_bench, interleaved) | {ledger['single_ms']:.0f} ms | {ledger['bare_ms']:.0f} ms | "
                  f"{ledger['single_ms'] / ledger['bare_ms']:.2f}x |")
            print(f"| the bare count: strata's client vs PySpark's (7 before and 7 after) | "
                  f"{ledger['bare_ms']:.0f} ms | {med(pyspark_bare) * 1000:.0f} ms | "
                  f"{ledger['bare_ms'] / (med(pyspark_bare) * 1000):.2f}x |")
    finally:
        subprocess.run([f"{home}/sbin/stop-connect-server.sh"], env=env, stdout=subprocess.DEVNULL)
        for pid in glob.glob(f"{work}/*.pid"):
            try:
                os.kill(int(open(pid).read().strip()), 9)
            except (OSError, ValueError):
                pass
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
