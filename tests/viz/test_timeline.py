"""The timeline model (lanes, bars, arrows, gaps, binning) and its renderers."""

from __future__ import annotations

import re
import time

import numpy as np
import pytest

from ascendlab import viz
from ascendlab.analysis.cost import PIPES
from ascendlab.analysis.deps import match_syncs
from ascendlab.viz.colors import core_color, pipe_color
from ascendlab.viz.timeline import LEVELS, TimelineIndex, describe_event, timeline_model

from .conftest import vadd_run


def _bar_events(run, cores=None):
    cost = run.cost
    out = []
    for i, e in enumerate(run.trace):
        if cores is not None and e.core not in cores:
            continue
        end = cost.end[i] if e.pipe == "S" else cost.start[i] + cost.occupied[i]
        if end > cost.start[i]:
            out.append(i)
    return out


def test_lanes_are_core_by_pipe_in_pipe_order(small):
    m = timeline_model(small)
    assert m.mode == "bars" and m.cores_shown == tuple(range(8)) and m.cores_total == 8
    per_core = {}
    for lane in m.lanes:
        per_core.setdefault(lane.core, []).append(lane.pipe)
    assert sorted(per_core) == list(range(8))
    for pipes in per_core.values():
        assert pipes == ["MTE2", "V", "MTE3", "S"]
        assert pipes == sorted(pipes, key=PIPES.index)
    assert [lane.core for lane in m.lanes] == sorted(lane.core for lane in m.lanes)
    assert m.lanes[0].label == "core 0" and m.lanes[0].color == pipe_color("MTE2")


def test_bars_are_the_costed_instructions_at_the_models_times(small):
    m = timeline_model(small)
    cost = small.cost
    assert sorted(b.event for b in m.bars) == _bar_events(small)
    assert m.visible == len(m.bars)
    for b in m.bars:
        e = small.trace[b.event]
        lane = m.lanes[b.lane]
        assert (lane.core, lane.pipe, b.op) == (e.core, e.pipe, e.op)
        assert b.start == cost.start[b.event]
        if e.pipe != "S":
            assert b.end == pytest.approx(cost.start[b.event] + cost.occupied[b.event])
        assert b.color == pipe_color(e.pipe)
    ops = {b.op for b in m.bars}
    assert {"data_copy", "add"} <= ops and "enque" not in ops  # sync events draw no bar
    # the lane's busy cycles are the sum of its bars
    for k, lane in enumerate(m.lanes):
        assert lane.busy == pytest.approx(sum(b.end - b.start for b in m.bars if b.lane == k))
        assert lane.count == sum(1 for b in m.bars if b.lane == k)


def test_colour_by_core(small):
    m = timeline_model(small, color_by="core")
    for b in m.bars:
        assert b.color == core_color(m.lanes[b.lane].core)
    assert len({core_color(c) for c in range(8)}) == 8


def test_sync_arrows_are_the_matched_cross_pipe_edges(small):
    m = timeline_model(small, max_arrows=10_000)
    trace = small.trace
    want = sorted((s, w) for w, s in match_syncs(trace).set_of.items()
                  if trace[s].pipe != trace[w].pipe)
    got = sorted((a.set_event, a.wait_event) for a in m.arrows)
    assert got == want and m.arrows_hidden == 0
    kinds = {(trace[s].op, trace[w].op) for s, w in got}
    assert ("enque", "deque") in kinds and ("free_tensor", "alloc_tensor") in kinds
    for a in m.arrows:
        assert m.lanes[a.src_lane].pipe == trace[a.set_event].pipe
        assert m.lanes[a.dst_lane].pipe == trace[a.wait_event].pipe
        assert a.src_t == small.cost.start[a.set_event]
    capped = timeline_model(small, max_arrows=50)
    assert len(capped.arrows) == 50 and capped.arrows_hidden == len(want) - 50


def test_idle_gaps_name_the_wait_that_ended_them(single):
    m = timeline_model(single)
    v_gaps = [g for g in m.gaps if m.lanes[g.lane].pipe == "V"]
    assert len(v_gaps) == 8  # one per core
    g = v_gaps[0]
    assert g.end > g.start and "deque (waits on MTE2)" in g.cause
    lane = m.lanes[g.lane]
    bars = sorted((b.start, b.end) for b in m.bars if b.lane == g.lane)
    longest = max(s2 - e1 for (_, e1), (s2, _) in zip(bars, bars[1:]))
    assert g.end - g.start == pytest.approx(longest)
    assert lane.core == 0


def test_zoomed_window_keeps_only_overlapping_bars(small):
    index = TimelineIndex(small)
    m = index.model((500, 900))
    assert m.mode == "bars" and m.window == (500, 900)
    assert m.bars and all(b.end > 500 and b.start < 900 for b in m.bars)
    full = index.model()
    inside = [b for b in full.bars if b.end > 500 and b.start < 900]
    assert len(m.bars) == len(inside)
    assert all(max(a.src_t, a.dst_t) >= 500 and min(a.src_t, a.dst_t) <= 900 for a in m.arrows)


def test_20k_instruction_run_is_binned_to_a_bounded_number_of_shapes(large):
    assert len(large.trace) > 19_000
    t = time.perf_counter()
    index = TimelineIndex(large)
    t_index = time.perf_counter() - t
    t = time.perf_counter()
    m = index.model()
    t_model = time.perf_counter() - t
    print(f"\n20k timeline: {len(large.trace):,} events, index {t_index * 1e3:.1f} ms, "
          f"full-range model {t_model * 1e3:.1f} ms, {m.items:,} shapes")
    assert m.mode == "binned" and m.visible == len(_bar_events(large)) > 3000
    assert not m.bars and not m.arrows and m.arrows_hidden > 1000
    assert m.items <= len(m.lanes) * (200 + 1)
    assert all(0 < b.busy <= 1 and (b.busy * LEVELS).is_integer() for b in m.bins)
    # a bucket's shade is its busy fraction, rounded up to an eighth
    for k, lane in enumerate(m.lanes):
        shaded = sum(b.busy * (b.end - b.start) for b in m.bins if b.lane == k)
        width = (m.window[1] - m.window[0]) / 200
        assert lane.busy <= shaded + 1e-6 <= lane.busy + 200 * width / LEVELS + 1e-6
    assert sum(b.count for b in m.bins) == m.visible
    zoomed = index.model((1000, 2000))
    assert zoomed.mode == "bars" and 0 < len(zoomed.bars) < 3000


def test_binned_busy_matches_the_exact_busy_time(large):
    index = TimelineIndex(large)
    k = 0
    s, e = index.starts[k], index.ends[k]
    edges = np.array([0.0, s[10] + 1.0, e[-1] + 5])
    got = index.busy_until(k, edges)
    assert got[0] == 0
    assert got[1] == pytest.approx(float((e[:10] - s[:10]).sum()) + 1.0)
    assert got[2] == pytest.approx(float((e - s).sum()))


def test_cores_beyond_max_cores_are_hidden_and_selectable():
    run = vadd_run(cores=16, n=16 * 2048, tile=1024)
    m = timeline_model(run)
    assert m.cores_shown == tuple(range(8)) and m.cores_total == 16
    m = timeline_model(run, cores=[3, 12])
    assert {lane.core for lane in m.lanes} == {3, 12}
    assert "2 of 16 cores" in str(viz.timeline(run, cores=[3, 12]))


def test_hover_text_names_op_bytes_and_source_line(small):
    i = next(i for i, e in enumerate(small.trace) if e.op == "data_copy")
    text = describe_event(small, i)
    assert text.startswith("data_copy  [MTE2, core 0]")
    assert "reads GM x 2 KiB" in text and "writes UB que0[0] 2 KiB" in text
    assert re.search(r"kernels\.py:\d+$", text)


def test_svg_carries_bars_arrows_and_stable_classes(small):
    view = viz.timeline(small)
    html = view.html()
    assert html.startswith('<svg class="ascendlab-timeline-svg"')
    assert html.count("data-event=") == len(view.model.bars)
    assert html.count("data-arrow-edge=") == len(view.model.arrows)
    assert html.count("data-gap=") == len(view.model.gaps)
    assert "kernels.py:" in html and 'data-op="add"' in html


def test_widget_zoom_and_core_controls(large):
    view = viz.timeline(large)
    w = view.widget
    assert {"ascendlab-view", "ascendlab-timeline"} <= set(w._dom_classes)
    c = view.controls
    assert view.model.mode == "binned" and "zoom in" in view._footer.value
    c["window"].value = (1000, 2000)
    assert view.model.window == (1000, 2000) and view.model.mode == "bars"
    assert 'data-event="' in view._body.value
    c["zoom_in"].click()
    assert c["window"].value == (1250, 1750) and view.model.window == (1250, 1750)
    c["right"].click()
    assert c["window"].value == (1500, 2000)
    c["zoom_out"].click()
    assert c["window"].value == (1250, 2250)
    c["cores"].value = (2, 3)
    assert {lane.core for lane in view.model.lanes} == {2, 3}
    c["color_by"].value = "core"
    assert all(b.color == core_color(view.model.lanes[b.lane].core) for b in view.model.bars)
    c["reset"].click()
    assert view.model.window[0] == 0 and view.model.mode == "bars"  # 2 cores: few enough
    c["cores"].value = (0, 7)
    assert view.model.mode == "binned"
    assert "cycles" in view._header.value
    view.set_window(100, 400)
    assert c["window"].value == (100, 400)


def test_static_figure_has_one_row_per_lane(small):
    view = viz.timeline(small)
    fig = view.figure()
    ax = fig.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == len(view.model.lanes) and labels[-1] == "core 0 MTE2"
    assert f"{small.cycles:,} cycles" in ax.get_title(loc="left")
    assert view.png()[:4] == b"\x89PNG"


def test_summary_reports_cycles_bound_and_busy(small):
    text = str(viz.timeline(small))
    assert f"{small.cycles:,} cycles" in text and "memory-bound" in text
    assert "MTE2" in text and "longest V idle gap" in text


def test_header_cycles_vs_bar_end_is_explained_and_drawn(small):
    m = viz.timeline(small).model
    last_bar = max(b.end for b in m.bars)
    assert m.cycles == round(m.lands) and m.lands > last_bar  # the last copy's latency
    note = m.end_note()
    assert f"bars end at {last_bar:,.0f}" in note and f"({m.cycles:,})" in note
    assert m.window[1] >= m.lands  # the full view reaches the kernel's end
    html = viz.timeline(small).html()
    assert 'data-kernel-end="1"' in html and f'data-lands="{m.lands:.0f}"' in html


def test_waves_explain_cycles_beyond_every_bar():
    from .conftest import vadd_run

    run = vadd_run(cores=96, n=96 * 2048, tile=1024)  # 96 blocks on 48 vector cores: 2 waves
    m = viz.timeline(run).model
    assert m.cycles > m.core_span + 1 and "waves" in m.end_note()


def test_static_figure_leaves_room_after_the_last_bar(small):
    fig = viz.timeline(small).figure()
    right = fig.axes[0].get_xlim()[1]
    m = viz.timeline(small).model
    assert right > max(m.lands, max(b.end for b in m.bars))


def test_zoom_buttons_fit_their_labels(small):
    c = viz.timeline(small)
    _ = c.widget
    assert c.controls["zoom_out"].layout.width == "auto"


def test_cores_note_names_the_cores_shown():
    from ascendlab.viz.timeline_view import cores_note

    from .conftest import vadd_run

    m = viz.timeline(vadd_run(cores=48, n=48 * 2048)).model
    assert cores_note(m) == "cores 0-7 of 48"
    assert "showing cores 0-7 of 48" in viz.timeline(vadd_run(cores=48, n=48 * 2048)).figure(
        ).axes[0].get_title(loc="left")
