"""memory_access(run): how the kernel walks GM, and how full its local memories are.

Top: per GM tensor, an address x time heatmap of the bytes copy instructions read (blue) and
write (red), in the cycle model's time (each access at the middle of its instruction). A
streaming kernel draws one diagonal per core; reuse shows as the same rows lit again later;
a strided copy as a comb. Bottom: per local memory of one core, the bytes reserved and in use
over time against the capacity (occupancy.py).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..runtime.trace import Run
from . import svg
from .colors import CAPACITY_COLOR, READ_COLOR, WRITE_COLOR, to_rgb
from .occupancy import Occupancy, occupancy_model
from .view import View, fmt_bytes, image_widget, new_figure


@dataclass
class TensorHeat:
    """Bytes read and written per (address bin, time bin) of one GM tensor."""

    name: str
    dtype: str
    elements: int
    itemsize: int
    reads: np.ndarray  # (addr_bins, time_bins) bytes
    writes: np.ndarray  # (addr_bins, time_bins) bytes
    addr_edges: np.ndarray  # element offsets, addr_bins + 1
    time_edges: np.ndarray  # cycles, time_bins + 1
    accesses: int  # copy instructions touching the tensor
    step: int  # most common element distance between a core's consecutive accesses

    @property
    def read_bytes(self) -> int:
        return int(round(self.reads.sum()))

    @property
    def write_bytes(self) -> int:
        return int(round(self.writes.sum()))

    @property
    def reuse(self) -> float:
        """GM bytes read per byte of the tensor (1.0: every byte read once)."""
        return self.read_bytes / (self.elements * self.itemsize) if self.elements else 0.0

    def traffic(self) -> str:
        """'read 2x', 'written 1x', 'read 1x, written 1x': bytes per byte of the tensor."""
        size = max(self.elements * self.itemsize, 1)
        parts = [f"{verb} {b / size:.2g}x" for verb, b in (("read", self.read_bytes),
                                                             ("written", self.write_bytes)) if b]
        return ", ".join(parts) or "not touched"

    def caption(self) -> str:
        parts = [f"{self.name} ({self.elements:,} {self.dtype}): {self.traffic()} "
                 f"({fmt_bytes(self.read_bytes + self.write_bytes)})", f"{self.accesses:,} copies"]
        if self.step:
            parts.append(f"a core's next copy starts {self.step:,} elements on")
        return ", ".join(parts)

    def rgb(self) -> np.ndarray:
        """(addr_bins, time_bins, 3): white, towards blue with reads, towards red with
        writes (square-root scaled so small traffic still shows)."""
        peak = max(self.reads.max(initial=0), self.writes.max(initial=0), 1e-12)
        r = np.sqrt(self.reads / peak)[..., None]
        w = np.sqrt(self.writes / peak)[..., None]
        blue, red = np.array(to_rgb(READ_COLOR)), np.array(to_rgb(WRITE_COLOR))
        return np.clip(1 - r * (1 - blue) - w * (1 - red), 0, 1)


@dataclass
class AccessModel:
    """The GM heatmaps of every tensor and the occupancy curves of one core."""

    kernel: str
    cycles: int
    core: int
    tensors: list[TensorHeat]
    occupancy: list[Occupancy] = field(default_factory=list)


def heat_model(run: Run, time_bins: int = 200, addr_bins: int = 128) -> list[TensorHeat]:
    """Address x time heatmaps of the GM tensors of `run`."""
    cost = run.cost
    span = max(float(cost.cycles), max((s + o for s, o in zip(cost.start, cost.occupied)),
                                       default=1.0), 1.0)
    tedges = np.linspace(0.0, span, time_bins + 1)
    rows: dict[str, list[tuple[int, float, int, int, int, int, int]]] = {n: [] for n in run.gm}
    for i, e in enumerate(run.trace):
        if e.pipe == "S" and not e.reads and not e.writes:
            continue
        t0, t1 = cost.start[i], cost.start[i] + cost.occupied[i]
        for kind, accs in ((0, e.reads), (1, e.writes)):
            for a in accs:
                if a.space != "GM":
                    continue
                arg = run.gm.get(a.name) or run.arg_at(a.addr)
                if arg is not None:
                    rows[arg.name].append((kind, t0, t1, e.core, a.addr - arg.base, a.nbytes,
                                           a.count, a.stride))
    out = []
    for name, acc in rows.items():
        arg = run.gm[name]
        n = math.prod(arg.shape)
        isz = max(arg.nbytes // max(n, 1), 1)
        nb = max(min(n, addr_bins), 1)
        aedges = np.linspace(0.0, n, nb + 1)
        grids = [np.zeros((nb, time_bins)), np.zeros((nb, time_bins))]
        if acc:
            arr = np.array(acc, dtype=np.float64)
            kind, t0, t1, core, off, nbytes, count, stride = arr.T
            # one row per block of a strided access ...
            reps = count.astype(np.int64)
            first = np.repeat(np.cumsum(reps) - reps, reps)
            j = np.arange(reps.sum()) - first
            a = (np.repeat(off, reps) + j * np.repeat(stride, reps)) / isz
            rows_ = (np.repeat(kind, reps), np.repeat(t0, reps), np.repeat(t1, reps), a,
                     a + np.repeat(nbytes, reps) / isz, np.repeat(nbytes, reps))
            # ... and per time bin it overlaps, with the bytes shared by overlap
            k, tb, a, b, byt = _over_time(*rows_, tedges)
            for kk in (0, 1):
                sel = k == kk
                if sel.any():
                    grids[kk] = _spread(a[sel], b[sel], byt[sel], tb[sel], n / nb, nb,
                                        time_bins)
            step = _step(core, off / isz, t0)
        else:
            step = 0
        out.append(TensorHeat(name, arg.dtype, n, isz, grids[0], grids[1], aedges, tedges,
                              len(acc), step))
    return out


def _over_time(kind: np.ndarray, t0: np.ndarray, t1: np.ndarray, a: np.ndarray,
               b: np.ndarray, nbytes: np.ndarray, tedges: np.ndarray, cap: int = 2_000_000
               ) -> tuple[np.ndarray, ...]:
    """Split each block over the time bins its instruction spans, bytes in proportion."""
    nt = len(tedges) - 1
    b0 = np.clip(np.searchsorted(tedges, t0, side="right") - 1, 0, nt - 1)
    b1 = np.clip(np.searchsorted(tedges, np.maximum(t1, t0), side="left") - 1, b0, nt - 1)
    reps = b1 - b0 + 1
    if reps.sum() > cap:  # too many pieces: each block at its start bin
        return kind, b0, a, b, nbytes
    first = np.repeat(np.cumsum(reps) - reps, reps)
    tb = np.repeat(b0, reps) + np.arange(reps.sum()) - first
    s, e = np.repeat(t0, reps), np.repeat(t1, reps)
    lo, hi = np.maximum(s, tedges[tb]), np.minimum(e, tedges[tb + 1])
    dur = e - s
    share = np.where(dur > 0, np.clip(hi - lo, 0, None) / np.where(dur > 0, dur, 1), 1.0)
    share = np.where(reps[np.repeat(np.arange(len(reps)), reps)] == 1, 1.0, share)
    return (np.repeat(kind, reps), tb, np.repeat(a, reps), np.repeat(b, reps),
            np.repeat(nbytes, reps) * share)


def _spread(a: np.ndarray, b: np.ndarray, nbytes: np.ndarray, tb: np.ndarray, width: float,
            nb: int, nt: int) -> np.ndarray:
    """Spread each block's bytes uniformly over the address bins [a, b) overlaps (exact, with
    prefix sums: a block adds its rate to every bin below b's bin and the fraction to b's)."""
    u = np.clip(a / width, 0, nb)
    v = np.clip(b / width, 0, nb)
    rate = nbytes / np.maximum(v - u, 1e-12)
    diff = np.zeros((nt, nb + 1))
    frac = np.zeros((nt, nb + 1))
    for x, sign in ((v, 1.0), (u, -1.0)):
        fl = np.floor(x).astype(np.int64)
        np.add.at(diff, (tb, 0), sign * rate)
        np.add.at(diff, (tb, fl), -sign * rate)
        np.add.at(frac, (tb, fl), sign * rate * (x - fl))
    grid = np.cumsum(diff, axis=1)[:, :nb] + frac[:, :nb]
    return np.clip(grid.T, 0, None)


def _step(core: np.ndarray, start: np.ndarray, t: np.ndarray) -> int:
    """Most common distance between one core's consecutive access starts (elements)."""
    steps: list[int] = []
    for c in np.unique(core):
        sel = core == c
        s = start[sel][np.argsort(t[sel], kind="stable")]
        steps.extend(np.abs(np.diff(s)).astype(np.int64).tolist())
    steps = [x for x in steps if x]
    return max(set(steps), key=steps.count) if steps else 0


class MemoryView(View):
    """GM access heatmaps and local-memory occupancy of a Run."""

    css_class = "ascendlab-memory"

    def __init__(self, run: Run, core: int = 0, time_bins: int = 200,
                 addr_bins: int = 128) -> None:
        super().__init__()
        self.run = run
        self.model = AccessModel(run.kernel, run.cycles, core,
                                 heat_model(run, time_bins, addr_bins),
                                 occupancy_model(run, core))
        self.controls: dict[str, Any] = {}

    def set_core(self, core: int) -> None:
        """Show the occupancy of another core."""
        self.model.core = core
        self.model.occupancy = occupancy_model(self.run, core)

    def summary(self) -> str:
        m = self.model
        lines = [f"memory access of {m.kernel} ({m.cycles:,} cycles):"]
        lines += [f"  {t.caption()}" for t in m.tensors]
        for o in m.occupancy:
            lines.append(f"  core {o.core} {o.space}: reserved {fmt_bytes(o.peak_reserved)}, "
                         f"peak in use {fmt_bytes(o.peak_in_use)} of {fmt_bytes(o.capacity)} "
                         f"({o.peak_reserved / o.capacity:.0%} reserved)")
        return "\n".join(lines)

    def figure(self) -> Any:
        m = self.model
        nt, no = max(len(m.tensors), 1), max(len(m.occupancy), 1)
        fig = new_figure(11, 5.2)
        top, bottom = fig.subfigures(2, 1, height_ratios=[1.15, 1])
        for ax, t in zip(top.subplots(1, nt, squeeze=False)[0], m.tensors):
            ax.imshow(t.rgb(), aspect="auto", origin="lower", interpolation="nearest",
                      extent=(t.time_edges[0], t.time_edges[-1], 0, t.elements))
            ax.set_title(f"{t.name}: {t.traffic()}, {t.accesses:,} copies", fontsize=8)
            ax.set_xlabel("cycles", fontsize=7)
            ax.set_ylabel("element offset", fontsize=7)
            ax.tick_params(labelsize=6)
        top.suptitle("GM address x time (blue: read, red: written)", fontsize=9)
        for ax, o in zip(bottom.subplots(1, no, squeeze=False)[0], m.occupancy):
            ax.step(o.t, o.reserved / 1024, where="post", color="#999", lw=1, label="reserved")
            ax.step(o.t, o.in_use / 1024, where="post", color=READ_COLOR, lw=1.2,
                    label="in use")
            top_ = max(o.peak_reserved, o.peak_in_use, 1) / 1024 * 1.3
            if o.capacity / 1024 <= 4 * top_:
                top_ = max(top_, o.capacity / 1024 * 1.08)
                ax.axhline(o.capacity / 1024, color=CAPACITY_COLOR, ls="--", lw=1,
                           label="capacity")
            else:
                ax.annotate(f"capacity {fmt_bytes(o.capacity)} (off scale)", (0.99, 0.95),
                            xycoords="axes fraction", ha="right", va="top", fontsize=7,
                            color=CAPACITY_COLOR)
            ax.set_ylim(0, top_)
            ax.set_xlim(0, max(m.cycles, float(o.t[-1]) if o.t.size else 1))
            ax.set_title(f"core {o.core} {o.space}: {fmt_bytes(o.peak_reserved)} reserved "
                         f"({o.peak_reserved / o.capacity:.0%})\npeak {fmt_bytes(o.peak_in_use)} "
                         "in use", fontsize=8)
            ax.set_xlabel("cycles", fontsize=7)
            ax.set_ylabel("KiB", fontsize=7)
            ax.tick_params(labelsize=6)
            ax.legend(fontsize=6, loc="lower right")
        bottom.suptitle("local memory occupancy", fontsize=9)
        return fig

    def build_widget(self) -> Any:
        import ipywidgets as W

        cores = sorted({e.core for e in self.run.trace}) or [0]
        self.controls["core"] = W.Dropdown(options=cores, value=self.model.core,
                                           description="core", layout=W.Layout(width="160px"))
        self._text = W.HTML()
        self._image = image_widget(self.figure())
        self._refresh_text()

        def on_core(change: dict) -> None:
            self.set_core(change["new"])
            self._image.value = image_widget(self.figure()).value
            self._refresh_text()

        self.controls["core"].observe(on_core, names="value")
        return W.VBox([self._text, self.controls["core"], self._image])

    def _refresh_text(self) -> None:
        self._text.value = f"<pre class='ascendlab-summary'>{svg.esc(self.summary())}</pre>"


def memory_access(run: Run, core: int = 0, time_bins: int = 200,
                  addr_bins: int = 128) -> MemoryView:
    """GM address x time heatmaps of reads and writes per tensor, and the occupancy of `core`'s
    local memories (UB, L1, L0A/B/C) over time against their capacity."""
    return MemoryView(run, core, time_bins, addr_bins)
