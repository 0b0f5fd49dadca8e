"""The pipe timeline model: per core x pipe lanes, instruction bars, sync arrows, idle gaps.

Times are the cycle model's (Run.cost): an instruction's bar spans the cycles it occupies its
pipe (start .. start + occupied; for the scalar unit, start .. end). Zero-cost instructions
(enque/deque, flags, alloc/free) draw no bar; their sync edges draw arrows from the set to the
wait it satisfies (deps.match_syncs; cross-core flags of MIX runs too). When a window holds
more bars than `max_items`, each lane is binned into `bins` buckets of the window instead: a
bucket's shade is the fraction of its cycles the pipe was busy (quantised to eighths, equal
neighbours merged), so a 20 000-instruction run draws a bounded number of shapes. Zoom in and
the bars come back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, NamedTuple

import numpy as np

from ..analysis.deps import match_syncs
from ..runtime.trace import PIPES, Run
from .colors import core_color, pipe_color
from .view import fmt_bytes, short_file

LEVELS = 8  # binned busy fractions are quantised to 1/8 steps


class Lane(NamedTuple):
    """One row of the timeline: a pipe of a core, with its busy share of the window."""

    core: int
    pipe: str
    label: str  # "core 3" ("core 16 aic" for the cube cores of a MIX run)
    color: str  # the pipe's colour
    core_color: str
    busy: float  # cycles busy inside the window
    count: int  # instructions (bars) inside the window


class Bar(NamedTuple):
    """One instruction on its lane (start/end in cycles, end = when it stops occupying)."""

    lane: int  # index into TimelineModel.lanes
    start: float
    end: float
    event: int  # index into Run.trace
    op: str
    color: str


class Bin(NamedTuple):
    """A run of equal-busy buckets on one lane (binned mode)."""

    lane: int
    start: float
    end: float
    busy: float  # fraction of the cycles the pipe was busy, a multiple of 1/LEVELS
    count: int  # instructions starting inside


class Arrow(NamedTuple):
    """A sync edge: the set on its lane fires the wait on another lane."""

    src_lane: int
    src_t: float
    dst_lane: int
    dst_t: float
    set_event: int
    wait_event: int


class Gap(NamedTuple):
    """The longest idle stretch of a lane between two of its instructions in the window."""

    lane: int
    start: float
    end: float
    cause: str  # the waits issued on the lane in between ("" if none)


@dataclass
class TimelineModel:
    """What the timeline draws for one window of one Run."""

    kernel: str
    chip: str
    core_kind: str
    cycles: int  # the modelled kernel span
    bound: str  # "memory" | "vector" | "cube"
    bound_cycles: int
    efficiency: float
    time_us: float
    launch_us: float
    window: tuple[float, float]  # cycles shown
    span: float  # the last cycle anything is busy (the full range)
    mode: Literal["bars", "binned"]
    lanes: list[Lane]
    bars: list[Bar] = field(default_factory=list)
    bins: list[Bin] = field(default_factory=list)
    arrows: list[Arrow] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    visible: int = 0  # instructions inside the window (drawn as bars or binned)
    arrows_hidden: int = 0  # sync edges in the window not drawn (binned mode or over the cap)
    cores_shown: tuple[int, ...] = ()
    cores_total: int = 0
    lands: float = 0.0  # when the last result is ready (a copy's latency after its bar ends)
    core_span: float = 0.0  # the longest core's span: `cycles` is larger only with waves

    def end_note(self) -> str:
        """Why the header's cycles differ from where the bars end ('' when they agree)."""
        if self.cycles > self.core_span + 1:  # more blocks than physical cores
            return (f"the {self.cycles:,} cycles add up waves of blocks (more blocks than "
                    f"physical cores, each wave after the last); every block is drawn from "
                    f"cycle 0, the longest ends at {self.core_span:,.0f}")
        if self.lands > self.span + 1:
            return (f"bars end at {self.span:,.0f}; the last result lands "
                    f"{self.lands - self.span:,.0f} cycles later (the last copy's latency), "
                    f"at the kernel's end ({self.cycles:,})")
        return ""

    @property
    def items(self) -> int:
        """Shapes to draw (bars or bins, arrows, gaps)."""
        return len(self.bars) + len(self.bins) + len(self.arrows) + len(self.gaps)

    def readout(self) -> str:
        """The cycles readout and the bound, one line."""
        return (f"{self.kernel} on {self.chip}: {self.cycles:,} cycles "
                f"({self.cycles and self.time_us - self.launch_us:.2f} us + "
                f"{self.launch_us:.1f} us launch); {self.bound}-bound, roofline "
                f"{self.bound_cycles:,} cycles ({self.efficiency:.0%} of it)")


class TimelineIndex:
    """Per-lane arrays of one Run, built once, so each window's model is a few searchsorted
    calls (zooming and panning stay fast on 20 000-instruction runs)."""

    def __init__(self, run: Run) -> None:
        self.run = run
        cost = self.cost = run.cost
        trace = run.trace
        n = len(trace)
        start = np.asarray(cost.start, dtype=np.float64)
        occ = np.asarray(cost.occupied, dtype=np.float64)
        end = np.asarray(cost.end, dtype=np.float64)
        core = np.fromiter((e.core for e in trace), dtype=np.int64, count=n)
        pix = {p: k for k, p in enumerate(PIPES)}
        pipe = np.fromiter((pix.get(e.pipe, len(PIPES) - 1) for e in trace), np.int64, count=n)
        scalar = pipe == pix["S"]
        busy_end = np.where(scalar, end, start + occ)
        costed = busy_end > start
        self.span = float(busy_end.max()) if n else 0.0
        self.lands = float(end.max()) if n else 0.0  # the last result ready
        self.lane_keys: list[tuple[int, str]] = []
        self.starts: list[np.ndarray] = []
        self.ends: list[np.ndarray] = []
        self.cum: list[np.ndarray] = []  # busy cycles before bar i
        self.events: list[np.ndarray] = []  # trace index of bar i
        self.all_events: list[np.ndarray] = []  # every event of the lane (program order)
        self.lane_of: dict[tuple[int, int], int] = {}
        order = np.lexsort((np.arange(n), pipe, core))  # by core, pipe, program order
        keys = core[order] * 16 + pipe[order]
        cuts = np.flatnonzero(np.diff(keys)) + 1
        for group in np.split(order, cuts) if n else []:
            c, p = int(core[group[0]]), int(pipe[group[0]])
            bars = group[costed[group]]
            bars = bars[np.argsort(start[bars], kind="stable")]
            s, e = start[bars], busy_end[bars]
            self.lane_of[(c, p)] = len(self.lane_keys)
            self.lane_keys.append((c, PIPES[p]))
            self.starts.append(s)
            self.ends.append(e)
            self.cum.append(np.concatenate(([0.0], np.cumsum(e - s)))[:-1])
            self.events.append(bars)
            self.all_events.append(group)
        self.cores = sorted({c for c, _ in self.lane_keys})
        # sync edges between different lanes: (set, wait) trace indices
        matched = match_syncs(trace)
        pairs = {**matched.set_of, **getattr(matched, "xset_of", {})}  # + cross-core flags
        edges = [(s, w) for w, s in pairs.items()
                 if (trace[s].core, trace[s].pipe) != (trace[w].core, trace[w].pipe)]
        edges.sort()
        self.edge_set = np.array([s for s, _ in edges], dtype=np.int64)
        self.edge_wait = np.array([w for _, w in edges], dtype=np.int64)
        self.edge_src_lane = np.array([self.lane_of[(int(core[s]), int(pipe[s]))]
                                       for s, _ in edges], dtype=np.int64)
        self.edge_dst_lane = np.array([self.lane_of[(int(core[w]), int(pipe[w]))]
                                       for _, w in edges], dtype=np.int64)
        self.edge_src_t = start[self.edge_set] if edges else np.zeros(0)
        self.edge_dst_t = start[self.edge_wait] if edges else np.zeros(0)

    def busy_until(self, lane: int, t: np.ndarray) -> np.ndarray:
        """Cycles lane `lane` was busy from 0 to each time in `t` (bars do not overlap)."""
        s, e, cum = self.starts[lane], self.ends[lane], self.cum[lane]
        if not len(s):
            return np.zeros_like(t)
        k = np.searchsorted(s, t, side="right") - 1
        kk = np.maximum(k, 0)
        got = cum[kk] + np.clip(t - s[kk], 0.0, e[kk] - s[kk])
        return np.where(k >= 0, got, 0.0)

    def model(self, window: tuple[float, float] | None = None,
              cores: list[int] | tuple[int, ...] | None = None, *, max_items: int = 3000,
              bins: int = 200, color_by: Literal["pipe", "core"] = "pipe",
              max_arrows: int = 400, max_cores: int = 8) -> TimelineModel:
        """The model of `window` (cycles; default everything) for `cores` (default the first
        `max_cores`)."""
        run, cost = self.run, self.cost
        t0, t1 = window if window is not None else (0.0, max(self.span, self.lands, 1.0))
        t0, t1 = float(max(t0, 0.0)), float(t1)
        if t1 <= t0:
            t1 = t0 + 1.0
        shown = tuple(cores) if cores is not None else tuple(self.cores[:max_cores])
        wanted = set(shown)
        lane_ids = [k for k, (c, _) in enumerate(self.lane_keys) if c in wanted]
        ranges = []
        for k in lane_ids:
            s, e = self.starts[k], self.ends[k]
            ranges.append((int(np.searchsorted(e, t0, side="right")),
                           int(np.searchsorted(s, t1, side="left"))))
        visible = sum(b - a for a, b in ranges)
        mode: Literal["bars", "binned"] = "bars" if visible <= max_items else "binned"
        m = TimelineModel(
            kernel=run.kernel, chip=run.chip.name, core_kind=run.core_kind, cycles=cost.cycles,
            bound=cost.bound, bound_cycles=cost.bound_cycles, efficiency=cost.efficiency,
            time_us=cost.time_us, launch_us=cost.launch_overhead_us, window=(t0, t1),
            span=self.span, mode=mode, lanes=[], visible=visible, cores_shown=shown,
            cores_total=len(self.cores), lands=self.lands,
            core_span=max(cost.core_cycles.values(), default=0.0))
        edges_t = np.array([t0, t1])
        trace = run.trace
        for row, (k, (a, b)) in enumerate(zip(lane_ids, ranges)):
            c, p = self.lane_keys[k]
            busy = np.diff(self.busy_until(k, edges_t))[0]
            m.lanes.append(Lane(c, p, self._core_label(c), pipe_color(p), core_color(c),
                                float(busy), b - a))
            color = pipe_color(p) if color_by == "pipe" else core_color(c)
            if mode == "bars":
                s, e, ev = self.starts[k], self.ends[k], self.events[k]
                m.bars.extend(Bar(row, float(s[i]), float(e[i]), int(ev[i]), trace[ev[i]].op,
                                  color) for i in range(a, b))
            else:
                m.bins.extend(self._bins(k, row, t0, t1, bins))
            gap = self._longest_gap(k, row, a, b)
            if gap is not None:
                m.gaps.append(gap)
        self._arrows(m, lane_ids, t0, t1, max_arrows)
        return m

    def _core_label(self, core: int) -> str:
        run = self.run
        if run.core_kind != "mix":
            return f"core {core}"
        kind_of = getattr(run, "kind_of", None)  # MIX runs: which cores are cube cores
        return f"core {core} {kind_of(core)}" if kind_of else f"core {core}"

    def _bins(self, k: int, row: int, t0: float, t1: float, nbins: int) -> list[Bin]:
        """Busy fraction per bucket, quantised, equal neighbours merged, empty ones dropped."""
        edges = np.linspace(t0, t1, nbins + 1)
        busy = np.diff(self.busy_until(k, edges)) / np.diff(edges)
        level = np.ceil(np.clip(busy, 0.0, 1.0) * LEVELS - 1e-9).astype(np.int64)
        count = np.diff(np.searchsorted(self.starts[k], edges, side="left"))
        out: list[Bin] = []
        cuts = np.flatnonzero(np.diff(level)) + 1
        for a, b in zip(np.concatenate(([0], cuts)), np.concatenate((cuts, [nbins]))):
            if level[a] > 0:
                out.append(Bin(row, float(edges[a]), float(edges[b]), level[a] / LEVELS,
                               int(count[a:b].sum())))
        return out

    def _longest_gap(self, k: int, row: int, a: int, b: int) -> Gap | None:
        if b - a < 2:
            return None
        s, e = self.starts[k][a + 1:b], self.ends[k][a:b - 1]
        gaps = s - e
        j = int(np.argmax(gaps))
        if gaps[j] <= 0:
            return None
        before, after = int(self.events[k][a + j]), int(self.events[k][a + j + 1])
        allev = self.all_events[k]
        between = allev[np.searchsorted(allev, before, side="right"):
                        np.searchsorted(allev, after, side="left")]
        trace = self.run.trace
        waits = [trace[i] for i in between
                 if trace[i].sync is not None and trace[i].sync.kind in ("wait", "barrier")]
        cause = "; ".join(f"{w.op} (waits on {w.sync.src}) {short_file(w.file)}:{w.line}"
                          for w in waits[:3])
        return Gap(row, float(e[j]), float(s[j]), cause)

    def _arrows(self, m: TimelineModel, lane_ids: list[int], t0: float, t1: float,
                cap: int) -> None:
        if not len(self.edge_set):
            return
        row_of = np.full(len(self.lane_keys), -1, dtype=np.int64)
        row_of[lane_ids] = np.arange(len(lane_ids))
        src, dst = row_of[self.edge_src_lane], row_of[self.edge_dst_lane]
        inside = ((src >= 0) & (dst >= 0) & (np.maximum(self.edge_src_t, self.edge_dst_t) >= t0)
                  & (np.minimum(self.edge_src_t, self.edge_dst_t) <= t1))
        idx = np.flatnonzero(inside)
        if m.mode == "binned":
            m.arrows_hidden = len(idx)
            return
        m.arrows_hidden = max(0, len(idx) - cap)
        m.arrows = [Arrow(int(src[i]), float(self.edge_src_t[i]), int(dst[i]),
                          float(self.edge_dst_t[i]), int(self.edge_set[i]),
                          int(self.edge_wait[i])) for i in idx[:cap]]


def timeline_model(run: Run, window: tuple[float, float] | None = None,
                   cores: list[int] | None = None, **kw: Any) -> TimelineModel:
    """The timeline model of `run` (see TimelineIndex.model for the options)."""
    return TimelineIndex(run).model(window, cores, **kw)


def describe_event(run: Run, i: int) -> str:
    """Hover text of trace event `i`: op, pipe, core, cycles, bytes, element count, source."""
    e = run.trace[i]
    cost = run.cost
    s, occ, end = cost.start[i], cost.occupied[i], cost.end[i]
    busy = end - s if e.pipe == "S" else occ
    lines = [f"{e.op}  [{e.pipe}, core {e.core}]",
             f"cycles {s:,.0f} - {s + busy:,.0f} ({busy:,.0f} busy; result at {end:,.0f})"]
    if e.reads:
        lines.append("reads " + ", ".join(f"{a.space} {a.name} {fmt_bytes(a.total_bytes)}"
                                          for a in e.reads))
    if e.writes:
        lines.append("writes " + ", ".join(f"{a.space} {a.name} {fmt_bytes(a.total_bytes)}"
                                           for a in e.writes))
    if e.count:
        rep = f", {e.repeats} repeats" if e.repeats else ""
        lines.append(f"{e.count:,} {e.dtype or 'elements'}{rep}")
    if e.sync is not None:
        lines.append(f"{e.sync.kind} {e.sync.src}->{e.sync.dst} {e.sync.key}")
    lines.append(f"{short_file(e.file)}:{e.line}")
    return "\n".join(lines)
