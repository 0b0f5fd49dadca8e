"""python -m ascendlab.tutorials strip [NOTEBOOK ...] | verify [NOTEBOOK ...]"""

from __future__ import annotations

import sys
from pathlib import Path

from .notebooks import notebooks, problems, read, strip, write


def main(argv: list[str]) -> int:
    if not argv or argv[0] not in ("strip", "verify"):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    paths = [Path(a) for a in argv[1:]] or notebooks()
    bad = 0
    for p in paths:
        nb = read(p)
        found = problems(nb)
        if argv[0] == "strip":
            if found:
                write(p, strip(nb))
                print(f"stripped {p}")
        elif found:
            bad += 1
            print(f"{p}: {'; '.join(found)} (run: python -m ascendlab.tutorials strip {p})")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
