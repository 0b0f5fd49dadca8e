"""Fixed colours: one per core, one per pipe, deterministic."""

from __future__ import annotations

from ascendlab.analysis.cost import PIPES
from ascendlab.viz.colors import CORE_PALETTE, PIPE_COLORS, core_color, pipe_color, shade, to_rgb


def test_every_pipe_has_its_own_colour():
    assert set(PIPE_COLORS) == set(PIPES)
    assert len(set(PIPE_COLORS.values())) == len(PIPES)
    assert pipe_color("nope") == "#888888"


def test_core_colours_are_fixed_and_distinct_for_the_first_ten():
    assert [core_color(c) for c in range(10)] == list(CORE_PALETTE)
    assert len({core_color(c) for c in range(30)}) == 30  # repeats come back darker
    assert core_color(13) == core_color(13) == shade(CORE_PALETTE[3], 0.75)


def test_shade_and_rgb():
    assert shade("#808080", 1.0) == "#808080"
    assert shade("#000000", 2.0) == "#ffffff"
    assert to_rgb("#ff0000") == (1.0, 0.0, 0.0)
