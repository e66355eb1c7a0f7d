#!/usr/bin/env python3
"""Figures of the warehouse side that issue 60 tracks, read from the source
(no build): non-test functions taking the warehouse handle (or one of the
lifecycle's objects that hold it), the lifecycle's public modules, the
engine traits' methods (the connection's apart), which crates depend on the
command-line plugin API, and the upward crate dependencies (against the
order of docs/architecture.md, as tests/tidy/dependencies.rs lists it).
With a built `strata` (`--strata BIN`, else `$CARGO_TARGET_DIR/release/strata`
or `target/release/strata`) and strace: how many times each warehouse command
looks for and reads `strata.toml` (bench/settings_reads.sh), and the most
searches of one `strata run`.
Run from the repository root (or give it).

    python3 bench/warehouse_side.py [ROOT] [--strata BIN]
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

args = sys.argv[1:]
strata = None
if "--strata" in args:
    i = args.index("--strata")
    strata = args[i + 1]
    del args[i : i + 2]
root = Path(args[0] if args else ".")


def code(path: Path) -> str:
    """A file's text without its test module (`#[cfg(test)] mod ...` to the end)."""
    text = path.read_text()
    cut = re.search(r"#\[cfg\(test\)\]\s*mod \w+\s*\{", text)
    return text[: cut.start()] if cut else text


HANDLE = re.compile(r"&\s*(?:'\w+\s+)?(?:Warehouse\b|dyn Engine\b|\(dyn Engine\b)")
# The lifecycle's objects that hold the handle (its session, the state and
# its read-only face, a unit of work, a build, a check's context, the join
# checks, the fixture tests' staged rows): a function given one of them (not as
# `self`) takes the handle all the same.
HOLDER = re.compile(
    r"&\s*(?:'\w+\s+)?(?:mut\s+)?(?:Session|State|StateReader|Work|Build|CheckContext|JoinChecks|Stages)\b"
)
FN = re.compile(r"\bfn\s+\w+\s*(?:<[^>]*>)?\s*\(([^)]*)\)", re.S)

taking, files = 0, set()
for crate in ["libs/lifecycle", "plugins/materialize", "plugins/docs", "libs/engine", "cli"]:
    for f in sorted((root / crate / "src").rglob("*.rs")):
        for m in FN.finditer(code(f)):
            if HANDLE.search(m.group(1)) or HOLDER.search(m.group(1)):
                taking += 1
                files.add(f)
print(f"non-test functions taking the warehouse handle: {taking} in {len(files)} files")

lib = (root / "libs/lifecycle/src/lib.rs").read_text()
mods = re.findall(r"^\s*(pub\s+)?mod\s+(\w+)\s*;", lib, re.M)
print(f"lifecycle modules: {len(mods)}, pub: {sum(1 for p, _ in mods if p)}")



def trait_methods(text: str, name: str) -> list:
    """The methods declared in `pub trait NAME` of `text` (None if absent)."""
    m = re.search(r"pub trait " + name + r"\b[^{]*\{", text)
    if not m:
        return None
    depth = 0
    for i in range(m.end() - 1, len(text)):
        depth += text[i] == "{"
        depth -= text[i] == "}"
        if depth == 0:
            return re.findall(r"^\s{4}fn\s+(\w+)", text[m.end() : i], re.M)
    return None


engine_src = root / "libs/engine/src"
traits = {}
for f in sorted(engine_src.rglob("*.rs")):
    text = f.read_text()
    for name in ["Engine", "Connection", "Relations", "Storage", "RunSql"]:
        found = trait_methods(text, name)
        if found is not None:
            traits[name] = len(found)
print("engine traits' methods:", ", ".join(f"{k} {v}" for k, v in traits.items()))
# Before the split, the connection was the whole Engine trait.
print(f"connection trait methods: {traits.get('Connection', traits.get('Engine'))}")

users = []
for toml in sorted(root.glob("**/Cargo.toml")):
    if "target" in toml.parts or toml.parent == root:
        continue
    text = toml.read_text()
    deps = text.split("[dev-dependencies]")[0]
    if re.search(r"^strata-plugin\b", deps, re.M):
        users.append(str(toml.parent.relative_to(root)))
print("crates depending on the command-line plugin API:", ", ".join(users))

# Upward dependencies: a crate depending on one below it in the order.
order = re.findall(r'\("([\w/-]+)", "([\w-]+)"\)', (root / "tests/tidy/dependencies.rs").read_text())
rank = {name: i for i, (_, name) in enumerate(order)}
upward = []
for i, (folder, name) in enumerate(order):
    text = (root / folder / "Cargo.toml").read_text()
    deps = re.search(r"^\[dependencies\]\n(.*?)(?=^\[|\Z)", text, re.M | re.S)
    for dep in re.findall(r"^([\w-]+)", deps.group(1) if deps else "", re.M):
        if rank.get(dep, -1) > i:
            upward.append(f"{name} -> {dep}")
print(f"upward crate dependencies: {len(upward)}" + (f" ({', '.join(upward)})" if upward else ""))

# Crates under plugins/ that register no command (nor, for a rule crate, a rule).
idle = [
    str(d.relative_to(root))
    for d in sorted((root / "plugins").iterdir())
    if (d / "Cargo.toml").exists()
    and not any(
        "PluginCommand::of::<" in text or "#[rule(" in text
        for text in (f.read_text() for f in (d / "src").rglob("*.rs"))
    )
]
print(f"crates under plugins/ that register no command: {len(idle)}" + (f" ({', '.join(idle)})" if idle else ""))


def discoveries(binary: str) -> None:
    """How many times each warehouse command looks for and reads
    strata.toml (bench/settings_reads.sh), and the most searches of a run."""
    out = subprocess.run(
        ["bash", str(root / "bench/settings_reads.sh")],
        env={**os.environ, "STRATA": binary},
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    print("  " + out.rstrip().replace("\n", "\n  "))
    runs = [line.split()[-2:] for line in out.splitlines() if line.startswith("strata run")]
    looked = max(int(s) for s, _ in runs)
    read = max(int(r) for _, r in runs)
    print(f"strata.toml discoveries in one run: {looked} (read {read})")


binary = strata or next(
    (str(p) for p in [Path(os.environ.get("CARGO_TARGET_DIR", root / "target")) / "release/strata"]
     if p.exists()),
    None,
)
if binary and shutil.which("strace"):
    discoveries(binary)
else:
    print("strata.toml discoveries in one run: not measured (needs a built strata and strace)")
