"""The emulated AI Core, in rooms by hardware unit (see README.md here). Dataflow order:

chips, dtypes, enums, params, structs -> trace -> core -> memory/ -> framework/ -> dma/
-> vector/ -> cube/ -> sync/ -> scalar/ -> launch/
"""

# The modules that implement ops register them in trace.OPS when imported; importing them here
# makes the registry complete as soon as anything of the runtime (trace.py included) is imported,
# so the cost of a trace never depends on which other modules a process happened to import.
from . import adv_ops
from .cube import fixpipe, mmad, sparse
from .dma import aipp, atomic, params_more
from .dma import copy as dma_copy
from .framework import queue, tbufpool, tpipe
from .memory import tensor
from .scalar import debug, hints, ops, registers, sysvar
from .sync import block, cross_core, flags
from .vector import (
    cast,
    cast_deq,
    cmpreg,
    cmpscalar,
    cmpsel,
    elementwise,
    fused_cast,
    gather,
    proposal,
    reduce,
    rows,
    sort,
    transpose,
)
from .vector import copy as vector_copy

__all__ = ["adv_ops", "aipp", "atomic", "block", "cast", "cast_deq", "cmpreg", "cmpscalar",
           "cmpsel", "cross_core", "debug", "dma_copy", "elementwise", "fixpipe", "flags",
           "fused_cast", "gather", "hints", "mmad", "ops", "params_more", "proposal", "queue",
           "reduce", "registers", "rows", "sort", "sparse", "sysvar", "tbufpool", "tensor",
           "tpipe", "transpose", "vector_copy"]
