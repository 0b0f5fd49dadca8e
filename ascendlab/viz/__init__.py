"""ascendlab.viz: views of a Run (the trace), each a static figure and an interactive widget.

    from ascendlab import viz
    viz.tiling(run)            # GM tensors as grids, coloured by core and tile
    viz.memory_access(run)     # GM address x time heatmaps; UB/L1/L0 occupancy vs capacity
    viz.timeline(run)          # per core x pipe lanes, bars, sync arrows, idle gaps, zoom
    viz.roofline(run, *more)   # the chip's roofline with the runs' points
    viz.hotspots(run)          # the kernel's source, each line's share of the critical path
    viz.compare(want, got)     # error heatmap/histogram, worst elements, precision verdict
    viz.explore(launcher, tile=[256, 1024], buffers=[1, 2])   # sliders that re-run a kernel
    viz.sweep(lambda n: launch(n), sizes, name="n")   # time and % of roofline against n

Each returns a View: `.model` (what is drawn, plain data), `.figure()` (matplotlib, static),
`.widget` (ipywidgets; shown when the view is displayed in Jupyter), `.save(path)`. Views read
only the Run (trace.py), its cost (cost.py) and the matched sync edges (deps.py).
"""

from __future__ import annotations

from .access import memory_access
from .compare import compare
from .explorer import explore
from .hotspots import hotspots
from .roofline import roofline
from .sweep import sweep
from .tiling_view import tiling
from .timeline_view import timeline

__all__ = ["compare", "explore", "hotspots", "memory_access", "roofline", "sweep", "tiling",
           "timeline"]
