"""The emulated AI Core. Files, in dataflow order (see README.md here):

chips -> dtypes, enums, params -> trace -> core -> memory -> tensor -> queue -> dma -> vector
-> cube -> sync -> kernel_ast -> scheduler -> launch
"""

# The modules that implement ops register them in trace.OPS when imported; importing them here
# makes the registry complete as soon as anything of the runtime (trace.py included) is imported,
# so the cost of a trace never depends on which other modules a process happened to import.
# asc.adv's routines that are ops of their own (adv.acos ... adv.axpy, adv.quant, adv.rmsnorm)
# are registered here too, for the same reason.
from ..adv import math as _adv_math  # noqa: E402,F401
from ..adv import quant as _adv_quant  # noqa: E402,F401
from ..adv import rmsnorm as _adv_rmsnorm  # noqa: E402,F401
from . import (
    cube,
    cube_fixpipe,
    dma,
    queue,
    sync,
    tensor,
    tpipe,
    vector,
    vector_cast,
    vector_cmpsel,
    vector_reduce,
    vector_rows,
)

__all__ = ["cube", "cube_fixpipe", "dma", "queue", "sync", "tensor", "tpipe", "vector",
           "vector_cast", "vector_cmpsel", "vector_reduce", "vector_rows"]
