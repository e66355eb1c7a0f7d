#!/usr/bin/env python3
"""Drive `strata lsp` like an editor and time it (issue 25), with strata-lang's
`lsp` on the same file side by side.

    python3 bench/lsp.py [--strata BIN] [--ref BIN] [--sizes 2000,20000] [--rounds 50]

For each module size (made by gen.py, deterministic), one server: didOpen,
then ROUNDS one-character didChange notifications (a space inserted, then
removed, at the end of a line in the middle of the file), each timed from the
write of the notification to the first byte of the `publishDiagnostics` of
that version (the client's parsing of it is not the server's latency); then
ROUNDS hover and ROUNDS definition requests on a model name read by a `from`
in the middle of the file. Peak memory is the server's VmHWM at the end.

strata-lang's server speaks newline-delimited JSON (no Content-Length) and
answers `{"method": "result"}`; it is timed where it answers at all: its
`publishDiagnostics` after a didChange, and its hover/definition replies.
Prints a Markdown table.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Framed:
    """strata: Content-Length framing."""

    def __init__(self, cmd, cwd):
        self.p = subprocess.Popen(cmd, cwd=cwd, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        self.next_id = 0

    def send(self, msg):
        body = json.dumps(msg).encode()
        self.p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.p.stdin.flush()

    def recv(self):
        length = None
        first = True
        while True:
            line = self.p.stdout.readline()
            if first:
                # The message's first byte: what follows is the client's
                # reading and parsing (2 MB of JSON with thousands of warnings).
                self.arrived = time.monotonic()
                first = False
            if not line:
                raise EOFError("server closed its output")
            line = line.strip()
            if not line:
                break
            name, _, value = line.partition(b":")
            if name.lower() == b"content-length":
                length = int(value)
        return json.loads(self.p.stdout.read(length))

    def request(self, method, params):
        self.next_id += 1
        self.send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        return self.next_id

    def is_response(self, msg, rid):
        return msg.get("id") == rid and "method" not in msg


class Lines(Framed):
    """strata-lang: one JSON object per line; replies are {"method": "result", "id": ..}."""

    def send(self, msg):
        self.p.stdin.write(json.dumps(msg).encode() + b"\n")
        self.p.stdin.flush()

    def recv(self):
        line = self.p.stdout.readline()
        self.arrived = time.monotonic()
        if not line:
            raise EOFError("server closed its output")
        return json.loads(line)

    def is_response(self, msg, rid):
        return msg.get("id") == rid


def wait(server, pick, timeout=120.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        msg = server.recv()
        if pick(msg):
            return msg
    raise TimeoutError("no answer")


def vm(pid, key):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(key + ":"):
                return int(line.split()[1]) // 1024
    return None


def pct(xs, p):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def measure(server, path, text, rounds, framed, gap):
    uri = "file://" + path
    rid = server.request("initialize", {"processId": None, "rootUri": "file://" + os.path.dirname(path), "capabilities": {}})
    wait(server, lambda m: server.is_response(m, rid))
    server.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    t0 = time.monotonic()
    server.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                 "params": {"textDocument": {"uri": uri, "languageId": "strata", "version": 1, "text": text}}})
    is_diags = lambda m: m.get("method") == "textDocument/publishDiagnostics"
    first = wait(server, is_diags)
    open_ms = (time.monotonic() - t0) * 1000
    lines = text.split("\n")
    mid = len(lines) // 2
    # A model name read by a `from` near the middle (hover/definition target).
    target = next(i for i in range(mid, len(lines)) if lines[i].strip().startswith("from "))
    col = lines[target].index("from ") + 6
    edit_line = mid
    end = len(lines[edit_line])
    change = []
    version = 1
    for r in range(rounds):
        time.sleep(gap / 1000)
        version += 1
        insert = r % 2 == 0
        rng = ({"start": {"line": edit_line, "character": end}, "end": {"line": edit_line, "character": end}}
               if insert else
               {"start": {"line": edit_line, "character": end}, "end": {"line": edit_line, "character": end + 1}})
        t = time.monotonic()
        server.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
                     "params": {"textDocument": {"uri": uri, "version": version},
                                "contentChanges": [{"range": rng, "text": " " if insert else ""}]}})
        if framed:
            wait(server, lambda m: is_diags(m) and m["params"].get("version") == version)
        else:
            wait(server, is_diags)
        change.append((server.arrived - t) * 1000)
    timings = {}
    for method in ["textDocument/hover", "textDocument/definition"]:
        xs = []
        answered = 0
        for _ in range(rounds):
            time.sleep(gap / 1000)
            t = time.monotonic()
            rid = server.request(method, {"textDocument": {"uri": uri}, "position": {"line": target, "character": col}})
            msg = wait(server, lambda m: server.is_response(m, rid))
            xs.append((time.monotonic() - t) * 1000)
            res = msg.get("result", msg.get("params"))
            answered += 1 if res not in (None, {}, []) else 0
        timings[method] = (xs, answered)
    peak = vm(server.p.pid, "VmHWM")
    return {
        "open": open_ms,
        "first": len(first["params"]["diagnostics"]),
        "change": change,
        "hover": timings["textDocument/hover"],
        "definition": timings["textDocument/definition"],
        "peak_mb": peak,
    }


def stop(server, framed):
    try:
        if framed:
            rid = server.request("shutdown", None)
            wait(server, lambda m: server.is_response(m, rid), timeout=30)
            server.send({"jsonrpc": "2.0", "method": "exit"})
        server.p.stdin.close()
        server.p.wait(timeout=30)
    except Exception:
        server.p.kill()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/strata-target"))
    ap.add_argument("--strata", default=os.path.join(target, "release", "strata"))
    ap.add_argument("--ref", default=os.path.expanduser("~/.cache/strata-ref/bin/strata"),
                    help="strata-lang's strata ('' to skip)")
    ap.add_argument("--sizes", default="2000,20000")
    ap.add_argument("--rounds", type=int, default=50)
    ap.add_argument("--gap", type=float, default=150,
                    help="ms between two edits or requests (a typist's pace; 0: back to back)")
    ap.add_argument("--lints", choices=["default", "allow"], default="default",
                    help="lint levels: the defaults (thousands of warnings on gen.py's modules) or all allowed")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="strata-lsp-bench-")
    if args.lints == "allow":
        with open(os.path.join(work, "strata.toml"), "w") as f:
            f.write('[lints]\nwarnings = "allow"\n')
    rows = []
    for n in [int(s) for s in args.sizes.split(",")]:
        path = os.path.join(work, f"m{n}.strata")
        with open(path, "w") as f:
            subprocess.run([sys.executable, os.path.join(HERE, "gen.py"), "--models", str(n), "--seed", "1"], stdout=f, check=True)
        text = open(path).read()
        servers = [("strata", Framed([args.strata, "lsp"], work), True)]
        if args.ref and os.path.exists(args.ref):
            servers.append(("strata-lang", Lines([args.ref, "lsp"], work), False))
        for name, server, framed in servers:
            try:
                r = measure(server, path, text, args.rounds, framed, args.gap)
            except (EOFError, TimeoutError, StopIteration) as e:
                rows.append(f"| {n} | {name} | no answer ({e}) | | | | | |")
                server.p.kill()
                continue
            stop(server, framed)
            ch = r["change"]
            hv, hv_ok = r["hover"]
            df, df_ok = r["definition"]
            rows.append(
                f"| {n} | {name} | {r['open']:.0f} | {statistics.median(ch):.1f} / {pct(ch, 95):.1f} "
                f"| {statistics.median(hv):.2f} ({hv_ok}/{len(hv)} answered) "
                f"| {statistics.median(df):.2f} ({df_ok}/{len(df)} answered) | {r['peak_mb']} |"
            )
            print(rows[-1], file=sys.stderr, flush=True)
    print(f"didChange -> publishDiagnostics over {args.rounds} one-character edits; hover and definition on a `from` name; ms.\n")
    print("| models | server | didOpen -> diagnostics | didChange median / p95 | hover median | definition median | peak RSS MB |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main()
