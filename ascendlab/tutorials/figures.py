"""Pictures the lessons draw: the AI Core, with each memory's size taken from the emulated chip.

    from ascendlab.tutorials.figures import ai_core
    ai_core(ascendlab.get_chip("Ascend910B2"))     # a matplotlib Figure

The layout follows the separated ("AIC + AIV") organisation of the 910B in CANN's Ascend C
guide (ADK `HW/基本架构.md`, summarised in docs/hardware-facts.md §2.1): the
cube core holds L1, L0A, L0B, L0C and the cube unit; each vector core holds the Unified Buffer
and the vector unit; data between them and GM moves on MTE1/MTE2/MTE3 and FIX; each core has
its own scalar unit (S) that issues the instructions.
"""

from __future__ import annotations

from typing import Any


def _kib(n: int) -> str:
    return f"{n // 1024} KiB" if n % 1024 == 0 else f"{n:,} B"


def ai_core(chip: Any) -> Any:
    """The AI Core of `chip` (a ChipSpec) as a matplotlib Figure: memories (with capacities)
    as boxes, the data movers as labelled arrows."""
    import matplotlib.pyplot as plt
    from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

    fig, ax = plt.subplots(figsize=(10, 5.6))
    ax.set_xlim(0, 100)
    ax.set_ylim(0, 66)
    ax.axis("off")

    def box(x: float, y: float, w: float, h: float, text: str, color: str) -> None:
        ax.add_patch(FancyBboxPatch((x, y), w, h, boxstyle="round,pad=0.4", fc=color,
                                    ec="#37474f", lw=1.2))
        ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=9)

    def arrow(a: tuple[float, float], b: tuple[float, float], label: str, color: str,
              bend: float = 0.0, at: tuple[float, float] | None = None) -> None:
        ax.add_patch(FancyArrowPatch(a, b, arrowstyle="-|>", mutation_scale=14, lw=1.8,
                                     color=color, connectionstyle=f"arc3,rad={bend}"))
        x, y = at or ((a[0] + b[0]) / 2 + 0.8, (a[1] + b[1]) / 2 + 0.8)
        ax.text(x, y, label, fontsize=9, color=color, fontweight="bold")

    # outlines of the two kinds of core
    ax.add_patch(FancyBboxPatch((2, 30), 60, 30, boxstyle="round,pad=0.5", fc="#fafafa",
                                ec="#90a4ae", ls="--"))
    ax.text(3, 57.5, f"AIC: cube core (x{chip.aic_cores})", fontsize=10, fontweight="bold")
    ax.add_patch(FancyBboxPatch((2, 2), 60, 24, boxstyle="round,pad=0.5", fc="#fafafa",
                                ec="#90a4ae", ls="--"))
    ax.text(3, 23.5, f"AIV: vector core (x{chip.aiv_cores})", fontsize=10, fontweight="bold")
    box(72, 20, 24, 22, f"GM\nglobal memory (HBM)\n{chip.gm_bytes / 2**30:.0f} GiB,\n"
                        f"{chip.hbm_gbps:.0f} GB/s shared", "#fff3e0")
    box(6, 42, 14, 10, f"L1\n{_kib(chip.l1_bytes)}", "#e3f2fd")
    box(26, 49, 12, 7, f"L0A\n{_kib(chip.l0a_bytes)}", "#e3f2fd")
    box(26, 34, 12, 7, f"L0B\n{_kib(chip.l0b_bytes)}", "#e3f2fd")
    box(43, 41, 8, 8, "cube\nunit (M)", "#c8e6c9")
    box(54, 41, 6, 8, f"L0C\n{_kib(chip.l0c_bytes)}", "#e3f2fd")
    box(6, 4, 22, 11, f"UB\nUnified Buffer\n{_kib(chip.ub_bytes)}", "#e3f2fd")
    box(34, 14, 11, 7, "vector\nunit (V)", "#c8e6c9")
    box(15, 17, 9, 4.5, "scalar (S)", "#f3e5f5")
    arrow((84, 42.5), (13, 52.6), "MTE2", "#1565c0", bend=0.35, at=(50, 58))
    arrow((20, 47), (26, 52), "MTE1", "#6a1b9a", at=(19, 51))
    arrow((20, 45), (26, 38), "MTE1", "#6a1b9a", at=(19, 39))
    arrow((38, 52), (43, 47), "", "#2e7d32")
    arrow((38, 38), (43, 43), "", "#2e7d32")
    arrow((51, 45), (54, 45), "", "#2e7d32")
    arrow((60, 47), (72, 36), "FIX", "#ef6c00")
    arrow((72, 22), (28.8, 11), "MTE2", "#1565c0", at=(58, 19.5))
    arrow((28.8, 7), (72, 20), "MTE3", "#c62828", at=(52, 9.5))
    arrow((28.8, 14), (34, 17), "V", "#2e7d32", at=(29.5, 17))
    ax.set_title(f"One AI Core of the emulated {chip.name} ({chip.clock_mhz} MHz)")
    fig.tight_layout()
    return fig


__all__ = ["ai_core"]
