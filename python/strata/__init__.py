"""The strata command-line tool, packaged as a wheel that carries its binary.

Nothing here is strata itself: the wheel installs the `strata` executable
(Rust, with DuckDB inside) into the environment's scripts directory, and
`python -m strata` runs it. `find_strata_bin()` says where it is.
"""

import os
import sys
import sysconfig


def find_strata_bin() -> str:
    """The path of the `strata` executable this package installed."""
    exe = "strata" + (sysconfig.get_config_var("EXE") or "")
    schemes = [None]
    if sys.version_info >= (3, 10):
        schemes.append(sysconfig.get_preferred_scheme("user"))
    else:
        schemes.append(f"{os.name}_user")
    for scheme in schemes:
        scripts = sysconfig.get_path("scripts", scheme) if scheme else sysconfig.get_path("scripts")
        path = os.path.join(scripts, exe)
        if os.path.isfile(path):
            return path
    # `pip install --target DIR`: the executable is in DIR/bin.
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bin", exe)
    if os.path.isfile(path):
        return path
    raise FileNotFoundError(f"the {exe} executable of this package is not installed")
