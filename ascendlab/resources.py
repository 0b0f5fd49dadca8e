"""Where the course material lives: the repository's folders from a source checkout (or an
editable install), ascendlab/_data/ inside an installed wheel.

hatch_build.py copies each path of SHIPPED into the wheel as ascendlab/_data/<path>, so
`ascendlab grade swish f.py` and `ascendlab lab` work after a plain `pip install .` too.
"""

from __future__ import annotations

from pathlib import Path

# Paths relative to the repository root that ship in the wheel (read by hatch_build.py).
# docs/hardware-facts.md: the sources of the course's hardware facts; examples/vadd.py: the
# pyasc-style script lesson 12 runs (both found with data_path from the course folder).
SHIPPED: tuple[str, ...] = ("challenges", "tutorials", "examples/widgets.ipynb",
                            "examples/vadd.py", "docs/hardware-facts.md")

PACKAGE = Path(__file__).resolve().parent
CHECKOUT = PACKAGE.parent  # the repository root when running from a source checkout


def in_checkout() -> bool:
    """True when ascendlab runs from its repository (a clone, editable install)."""
    return (CHECKOUT / "pyproject.toml").is_file() and (CHECKOUT / "ascendlab").is_dir()


def data_path(rel: str) -> Path | None:
    """The shipped path `rel` (one of SHIPPED): the checkout's, else the wheel's; None when
    neither exists (tutorials/ before any tutorial is written)."""
    if rel not in SHIPPED:
        raise ValueError(f"data_path: {rel!r} is not shipped; shipped paths: {list(SHIPPED)}")
    for base in ((CHECKOUT,) if in_checkout() else ()) + (PACKAGE / "_data",):
        if (base / rel).exists():
            return base / rel
    return None


__all__ = ["SHIPPED", "data_path", "in_checkout"]
