"""Build hook: ship the course material inside the wheel as ascendlab/_data/<folder>.

A hook rather than a static `force-include` table because hatch fails on a missing path, and
the course grows folder by folder (tutorials/ may not exist yet on a branch). The list of
shipped folders is ascendlab.resources.SHIPPED, read here without importing the package.
"""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def shipped(root: Path) -> tuple[str, ...]:
    """ascendlab.resources.SHIPPED, parsed from the source (the package is not importable at
    build time: numpy may not be installed yet)."""
    tree = ast.parse((root / "ascendlab" / "resources.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "SHIPPED":
            return tuple(ast.literal_eval(node.value))
    raise LookupError("ascendlab/resources.py defines no SHIPPED")


class CustomBuildHook(BuildHookInterface):
    """Force-include each shipped path that exists under ascendlab/_data/."""

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        for rel in shipped(root):
            if (root / rel).exists():
                build_data["force_include"][str(root / rel)] = f"ascendlab/_data/{rel}"
