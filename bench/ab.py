#!/usr/bin/env python3
"""Interleaved A/B timing of strata binaries: `strata check FILE` run by each
binary in turn, RUNS rounds (after 5 warm-ups each), then the median and 25th
percentile of wall time and the median CPU time (user+sys) per binary.

Interleaving puts every binary under the same load, minute by minute, which
a machine shared with others needs for differences of a millisecond.

usage: bench/ab.py RUNS FILE BINARY...
   eg: bench/ab.py 80 bench/out/models_2000.strata old/strata new/strata
"""
import os
import statistics
import sys
import time


def run_once(binary, path):
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
        try:
            os.execv(binary, [binary, "check", path])
        finally:
            os._exit(127)
    _, _, usage = os.wait4(pid, 0)
    return (time.perf_counter() - start) * 1e3, (usage.ru_utime + usage.ru_stime) * 1e3


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    runs, path, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    results = {b: ([], []) for b in binaries}
    for b in binaries:
        for _ in range(5):
            run_once(b, path)
    for _ in range(runs):
        for b in binaries:
            wall, cpu = run_once(b, path)
            results[b][0].append(wall)
            results[b][1].append(cpu)
    for b in binaries:
        wall, cpu = sorted(results[b][0]), sorted(results[b][1])
        print(
            f"{b}: wall median {statistics.median(wall):.2f} ms, "
            f"p25 {wall[len(wall) // 4]:.2f}, min {wall[0]:.2f} | "
            f"CPU median {statistics.median(cpu):.2f} ms"
        )


if __name__ == "__main__":
    main()
