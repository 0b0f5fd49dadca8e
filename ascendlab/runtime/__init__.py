"""The emulated AI Core. Files, in dataflow order (see README.md here):

chips -> dtypes, enums, params -> trace -> core -> memory -> tensor -> queue -> dma -> vector
-> cube -> sync -> kernel_ast -> scheduler -> launch
"""

# The modules that implement ops register them in trace.OPS when imported; importing them here
# makes the registry complete as soon as anything of the runtime (trace.py included) is imported,
# so the cost of a trace never depends on which other modules a process happened to import.
from . import (
    adv_ops,
    aipp,
    atomic,
    block_sync,
    cross_core,
    cube,
    cube_fixpipe,
    cube_sparse,
    dma,
    hints,
    params_more,
    queue,
    registers,
    scalar_ops,
    sync,
    sysvar,
    tbufpool,
    tensor,
    tpipe,
    vector,
    vector_cast,
    vector_cast_deq,
    vector_cmpscalar,
    vector_cmpsel,
    vector_copy,
    vector_fused_cast,
    vector_gather,
    vector_proposal,
    vector_reduce,
    vector_rows,
    vector_sort,
    vector_transpose,
)

__all__ = ["adv_ops", "aipp", "atomic", "block_sync", "cross_core", "cube", "cube_fixpipe",
           "cube_sparse", "dma", "hints", "params_more", "queue", "registers", "scalar_ops",
           "sync", "sysvar", "tbufpool", "tensor", "tpipe", "vector", "vector_cast",
           "vector_cast_deq", "vector_cmpscalar", "vector_cmpsel", "vector_copy",
           "vector_fused_cast", "vector_gather", "vector_proposal", "vector_reduce", "vector_rows",
           "vector_sort", "vector_transpose"]
