#!/usr/bin/env python3
"""The wheel strata ships, beside ruff's for scale: the wheel's size, the
installed binary's size, and the start-up time of the installed binary
(`--version`, and strata's `-V`, which does not start DuckDB): median and
25th percentile of RUNS runs each, the programs timed in alternation so
that load on the machine falls on all of them alike.

    python3 bench/package.py WHEEL [--runs 30] [--ruff VERSION]

WHEEL is strata's (scripts/package.sh prints its path). ruff's wheel for
this platform is fetched with `pip download ruff` (the newest, or
--ruff VERSION). Both are installed into fresh virtualenvs in a temporary
directory. Prints a markdown table.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def install(wheel: Path, venv: Path) -> Path:
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run([venv / "bin/python", "-m", "pip", "install", "-q", str(wheel)], check=True)
    return venv / "bin"


def timed(argv: list) -> float:
    start = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("wheel", type=Path)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--ruff", default="")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        ruff_spec = f"ruff=={args.ruff}" if args.ruff else "ruff"
        subprocess.run(
            [sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--only-binary", ":all:",
             "-d", str(tmp / "ruff"), ruff_spec],
            check=True,
        )
        [ruff_wheel] = (tmp / "ruff").glob("*.whl")
        strata_bin = install(args.wheel, tmp / "strata-venv") / "strata"
        ruff_bin = install(ruff_wheel, tmp / "ruff-venv") / "ruff"
        commands = {
            "strata --version": [strata_bin, "--version"],
            "strata -V": [strata_bin, "-V"],
            "ruff --version": [ruff_bin, "--version"],
        }
        for argv in commands.values():  # warm the page cache
            timed(argv)
        times = {name: [] for name in commands}
        for _ in range(args.runs):
            for name, argv in commands.items():
                times[name].append(timed(argv))
        version = lambda argv: subprocess.run(argv, capture_output=True, text=True).stdout.splitlines()[0]
        print(f"| | wheel | installed binary | command | median | p25 |")
        print("|---|---|---|---|---|---|")
        for name, argv in commands.items():
            wheel = args.wheel if name.startswith("strata") else ruff_wheel
            ms = sorted(t * 1000 for t in times[name])
            print(
                f"| {version([argv[0], '-V'])} | {wheel.stat().st_size / 2**20:.1f} MiB "
                f"| {Path(argv[0]).stat().st_size / 2**20:.1f} MiB | `{name}` "
                f"| {statistics.median(ms):.1f} ms | {ms[len(ms) // 4]:.1f} ms |"
            )
        print(f"\n{args.runs} runs each, in alternation; `{args.wheel.name}`, `{ruff_wheel.name}`")


if __name__ == "__main__":
    main()
