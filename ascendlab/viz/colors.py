"""Fixed, deterministic colours: one per core, one per pipe, reads and writes.

Every view uses these, so core 3 is the same orange in the tiling map, the timeline and the
legend, and MTE2 is the same blue in every timeline.
"""

from __future__ import annotations

# Vega's Tableau-10: distinct for the first 10 cores; later cores repeat them, darker
CORE_PALETTE = ("#4c78a8", "#f58518", "#54a24b", "#e45756", "#72b7b2",
                "#eeca3b", "#b279a2", "#ff9da6", "#9d755d", "#bab0ac")
PIPE_COLORS = {
    "MTE2": "#4c78a8",  # GM -> local: blue, like reads
    "MTE1": "#72b7b2",  # L1 -> L0A/L0B
    "M": "#b279a2",  # cube
    "FIX": "#f58518",  # L0C -> GM
    "V": "#54a24b",  # vector
    "MTE3": "#e45756",  # local -> GM: red, like writes
    "S": "#9d755d",  # scalar unit
}
READ_COLOR = "#4c78a8"
WRITE_COLOR = "#e45756"
SYNC_COLOR = "#555555"  # sync arrows
IDLE_COLOR = "#d62728"  # the longest idle gap of a lane
UNTOUCHED_COLOR = "#eeeeee"  # GM elements no copy instruction touched
CAPACITY_COLOR = "#d62728"


def core_color(core: int) -> str:
    """The colour of core `core` (block index): a fixed palette, darker on each repeat."""
    base = CORE_PALETTE[core % len(CORE_PALETTE)]
    return shade(base, 1.0 - 0.25 * ((core // len(CORE_PALETTE)) % 3))


def pipe_color(pipe: str) -> str:
    """The colour of a pipe; unknown pipes are grey."""
    return PIPE_COLORS.get(pipe, "#888888")


def shade(color: str, factor: float) -> str:
    """`color` darkened (factor < 1) or lightened towards white (factor > 1)."""
    r, g, b = to_rgb(color)
    if factor <= 1:
        r, g, b = r * factor, g * factor, b * factor
    else:
        t = min(factor - 1, 1.0)
        r, g, b = r + (1 - r) * t, g + (1 - g) * t, b + (1 - b) * t
    return "#" + "".join(f"{round(c * 255):02x}" for c in (r, g, b))


def to_rgb(color: str) -> tuple[float, float, float]:
    """'#rrggbb' -> (r, g, b) in [0, 1]."""
    h = color.lstrip("#")
    return (int(h[0:2], 16) / 255, int(h[2:4], 16) / 255, int(h[4:6], 16) / 255)
