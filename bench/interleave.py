#!/usr/bin/env python3
"""Time two commands in alternation: ROUNDS rounds, each PER_ROUND runs of
the first command (ours) then one run of the second (the reference), after
WARMUP runs of the first. Prints "OURS_WALL OURS_CPU REF_WALL REF_CPU": the
median wall time and the median CPU time (user+sys) of each, in ms, or ERR
when a run fails.

Run one after the other, a 30-run batch of ours takes under a second and the
reference's runs the next ten: on a machine shared with other virtual
machines the two then see different loads, and the speed-up swings with
whichever minute each landed in. Alternating puts both under the same load.

With PAUSE (environment, seconds) set, each timed run waits that long
first, as a check typed now and then does: on a virtual machine that hands
free memory back to its host, memory freed seconds ago costs more to touch
again than memory freed by the run just before (bench/README.md).

usage: bench/interleave.py ROUNDS PER_ROUND WARMUP OURS... -- REF...
"""
import os
import statistics
import sys
import time


def run(cmd):
    """Wall and CPU time of one run in ms, or None when it fails."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    try:
        start = time.perf_counter()
        pid = os.posix_spawn(
            cmd[0],
            cmd,
            os.environ,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, devnull, 1),
                (os.POSIX_SPAWN_DUP2, devnull, 2),
            ],
        )
        _, status, usage = os.wait4(pid, 0)
        wall = (time.perf_counter() - start) * 1e3
    finally:
        os.close(devnull)
    if os.waitstatus_to_exitcode(status) != 0:
        return None
    return wall, (usage.ru_utime + usage.ru_stime) * 1e3


def main():
    args = sys.argv[1:]
    if len(args) < 6 or "--" not in args[3:]:
        sys.exit(__doc__)
    rounds, per_round, warmup = (int(a) for a in args[:3])
    split = args.index("--", 3)
    ours, ref = args[3:split], args[split + 1 :]
    for _ in range(warmup):
        if run(ours) is None:
            print("ERR")
            return
    pause = float(os.environ.get("PAUSE") or 0)
    times = {"ours": [], "ref": []}
    for _ in range(rounds):
        for name, cmd, n in (("ours", ours, per_round), ("ref", ref, 1)):
            for _ in range(n):
                time.sleep(pause)
                r = run(cmd)
                if r is None:
                    print("ERR")
                    return
                times[name].append(r)
    out = []
    for name in ("ours", "ref"):
        wall = statistics.median(t[0] for t in times[name])
        cpu = statistics.median(t[1] for t in times[name])
        out.append("%.1f %.1f" % (wall, cpu))
    print(" ".join(out))


if __name__ == "__main__":
    main()
