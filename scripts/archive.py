#!/usr/bin/env python3
"""The release archive of one platform, made from its wheel.

    scripts/archive.py WHEEL TARGET OUT_DIR

Takes the `strata` executable out of WHEEL (the very binary the wheel
installs: stripped, and on Linux checked by maturin against its manylinux
tag), adds the manual pages, the README and the license, and writes
OUT_DIR/strata-<version>-<TARGET>.tar.gz (a .zip for a Windows target)
with a `.sha256` file beside it that `sha256sum -c` reads. Prints the
archive's path. Only the standard library: it runs on every release runner.
"""

import hashlib
import io
import sys
import tarfile
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
MAN = ROOT / "python/strata.data/data/share/man/man1"


def main(wheel: Path, target: str, out_dir: Path) -> Path:
    windows = "windows" in target
    exe = "strata.exe" if windows else "strata"
    with zipfile.ZipFile(wheel) as whl:
        found = [n for n in whl.namelist() if n.endswith(f".data/scripts/{exe}")]
        if len(found) != 1:
            sys.exit(f"archive.py: {wheel} has no {exe} (a wheel for another platform than {target}?)")
        binary = found[0]
        version = binary.split("/")[0].removesuffix(".data").split("-")[1]
        executable = whl.read(binary)
    name = f"strata-{version}-{target}"
    files = [(exe, executable, 0o755)]
    files += [(f"man/man1/{p.name}", p.read_bytes(), 0o644) for p in sorted(MAN.glob("*.1"))]
    files += [(f, (ROOT / f).read_bytes(), 0o644) for f in ("README.md", "LICENSE")]
    out_dir.mkdir(parents=True, exist_ok=True)
    if windows:
        archive = out_dir / f"{name}.zip"
        with zipfile.ZipFile(archive, "w", zipfile.ZIP_DEFLATED) as z:
            for path, data, _ in files:
                z.writestr(f"{name}/{path}", data)
    else:
        archive = out_dir / f"{name}.tar.gz"
        with tarfile.open(archive, "w:gz") as tar:
            for path, data, mode in files:
                info = tarfile.TarInfo(f"{name}/{path}")
                info.size, info.mode = len(data), mode
                tar.addfile(info, io.BytesIO(data))
    digest = hashlib.sha256(archive.read_bytes()).hexdigest()
    Path(f"{archive}.sha256").write_text(f"{digest}  {archive.name}\n")
    return archive


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    print(main(Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])))
