"""`python -m strata ARGS`: run the installed `strata` executable with ARGS."""

import os
import subprocess
import sys

from strata import find_strata_bin


def main() -> None:
    strata = find_strata_bin()
    if sys.platform == "win32":
        sys.exit(subprocess.call([strata, *sys.argv[1:]]))
    os.execv(strata, [strata, *sys.argv[1:]])


if __name__ == "__main__":
    main()
