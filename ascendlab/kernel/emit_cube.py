"""Matmul and transpose kernels.

Matmul runs on the cube through `asc.adv.Matmul` (GM -> L1 -> L0A/L0B -> mmad -> L0C ->
fixpipe, fp32 accumulation in L0C) as a cube-only kernel; the tiling comes from
`asc.lib.host.MultiCoreMatmulTiling`, as pyasc's own tutorials build it. Batch axes loop
inside the kernel (each core keeps its M x N block of every batch); broadcast batch axes read
the same operand again.

Limitations: a transpose is an element-by-element copy on the scalar pipe (get_value /
set_value in UB when the input fits, else in GM, which is far slower); ascendlab does not
emulate the vector `transpose` instruction yet, and real kernels would use it or a transposed
cube load.
"""

from __future__ import annotations

from typing import Any

import ascendlab.asc as asc
import ascendlab.asc.lib.host as host

from .plan import Step, storage
from .source import (
    ESIZE,
    UB_BUDGET,
    Src,
    blocks_for,
    ceil_to,
    copy_in,
    copy_out,
    core_split,
    header,
    prod,
)


def _batch_offset(shape: tuple[int, ...], batch: tuple[int, ...], var: str) -> str:
    """Offset (elements) of operand batch `var` given C's batch shape (broadcast: stride 0)."""
    own = (1,) * (len(batch) - len(shape[:-2])) + tuple(shape[:-2])
    mat = shape[-1] * shape[-2]
    terms = []
    for d, size in enumerate(own):
        if size == 1:
            continue
        div = prod(batch[d + 1:])
        stride = prod(own[d + 1:]) * mat
        terms.append(f"{var} // {div} % {size} * {stride}" if div != 1
                     else f"{var} % {size} * {stride}")
    return " + ".join(terms) or "0"


def matmul_tiling(m: int, n: int, k: int, dtype: str, cores: int) -> Any:
    t = host.MultiCoreMatmulTiling(host.get_ascendc_platform())
    dt = host.DataType.DT_FLOAT16 if dtype == "float16" else host.DataType.DT_FLOAT
    t.set_a_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    t.set_b_type(host.TPosition.GM, host.CubeFormat.ND, dt, False)
    t.set_c_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_bias_type(host.TPosition.GM, host.CubeFormat.ND, host.DataType.DT_FLOAT)
    t.set_dim(cores)
    t.set_org_shape(m, n, k)
    t.set_shape(m, n, k)
    t.enable_bias(False)
    t.set_buffer_space(-1, -1, -1)
    tiling = asc.adv.TCubeTiling()
    if t.get_tiling(tiling) != 0:
        raise NotImplementedError(f"lowering: MultiCoreMatmulTiling found no tiling for "
                                  f"M={m} N={n} K={k} ({dtype})")
    return tiling


def emit_matmul(step: Step, dtypes: dict[int, str], cube_cores: int,
                title: str) -> tuple[str, Any]:
    """(source, tiling); launch on tiling.used_core_num cube cores."""
    c = step.nodes[0]
    a, b = c.args
    m, k, n = a.shape[-2], a.shape[-1], b.shape[-1]
    batch = c.shape[:-2]
    dt = dtypes[storage(a).id]
    tiling = matmul_tiling(m, n, k, dt, cube_cores)
    src = Src()
    header(src, title, [("BATCH", prod(batch), f"matrices: C {list(c.shape)}"),
                        ("M", m, "rows of A and C"), ("N", n, "columns of B and C"),
                        ("K", k, f"inner dim ({dt} operands, float32 accumulation)")])
    src("@asc.jit(matmul_cube_only=True)",
        f"def {step.name}(a: asc.GlobalAddress, b: asc.GlobalAddress, c: asc.GlobalAddress, "
        "tiling: asc.adv.TCubeTiling):")
    src.indent()
    src("if asc.ascend_is_aic():")
    src.indent()
    src("idx = asc.get_block_idx()", "m_blocks = tiling.m.ceildiv(tiling.single_core_m)",
        "mi = idx % m_blocks", "ni = idx // m_blocks",
        "rows = M - mi * tiling.single_core_m", "if rows > tiling.single_core_m:",
        "    rows = tiling.single_core_m", "cols = N - ni * tiling.single_core_n",
        "if cols > tiling.single_core_n:", "    cols = tiling.single_core_n",
        "ga = asc.GlobalTensor()", "gb = asc.GlobalTensor()", "gc = asc.GlobalTensor()",
        "pipe = asc.TPipe()",
        "mm = asc.adv.Matmul(",
        f"    a=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.{dt}),",
        f"    b=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.{dt}),",
        "    c=asc.adv.MatmulType(asc.TPosition.GM, asc.CubeFormat.ND, asc.float32))",
        "asc.adv.register_matmul(pipe, mm, tiling)",
        "if idx < tiling.used_core_num:")
    src.indent()
    src("for bi in range(BATCH):")
    src.indent()
    src(f"ga.set_global_buffer(a + {_batch_offset(a.shape, batch, 'bi')} "
        "+ mi * tiling.single_core_m * K)",
        f"gb.set_global_buffer(b + {_batch_offset(b.shape, batch, 'bi')} "
        "+ ni * tiling.single_core_n)",
        "gc.set_global_buffer(c + bi * M * N + mi * tiling.single_core_m * N "
        "+ ni * tiling.single_core_n)",
        "mm.set_tensor_a(ga)", "mm.set_tensor_b(gb)", "mm.set_tail(rows, cols, K)",
        "mm.iterate_all(gc)")
    src.dedent()
    src("mm.end()")
    src.dedent()
    src("asc.pipe_barrier(asc.PipeID.PIPE_ALL)")
    return src.text(), tiling


def emit_transpose(step: Step, dtypes: dict[int, str], cores: int,
                   title: str) -> tuple[str, int, int]:
    """Each core owns a range of output elements. When the input fits in UB (the usual case:
    weights, small activations) every core copies it in once and permutes on the scalar pipe
    in UB (cheap per element); otherwise it reads GM element by element (slow)."""
    y = step.nodes[0]
    x = y.args[0]
    dt = dtypes[storage(x).id]
    perm = y.attrs["perm"]
    total = y.size
    blocks, per_core = blocks_for(total, cores)
    in_strides = [prod(x.shape[d + 1:]) for d in range(len(x.shape))]
    terms = []
    for d, p in enumerate(perm):  # output axis d is input axis p
        div = prod(y.shape[d + 1:])
        if y.shape[d] != 1:
            terms.append(f"i // {div} % {y.shape[d]} * {in_strides[p]}")
    index = " + ".join(terms) or "0"
    in_ub = ceil_to(total * ESIZE[dt], 32) <= UB_BUDGET // 2
    src = Src()
    header(src, title, [("UNITS", total, f"elements of {list(y.shape)}, over {blocks} cores")])
    src("@asc.jit", f"def {step.name}(x0: asc.GlobalAddress, y0: asc.GlobalAddress, "
        "per_core: int):")
    src.indent()
    core_split(src, "UNITS")
    src("gx0 = asc.GlobalTensor()", "gx0.set_global_buffer(x0)", "gy0 = asc.GlobalTensor()",
        "gy0.set_global_buffer(y0)")
    if not in_ub:
        src("for i in range(first, last):")
        src(f"    gy0.set_value(i, gx0.get_value({index}))")
        return src.text(), blocks, per_core
    x_bytes = ceil_to(total * ESIZE[dt], 32)
    src("pipe = asc.TPipe()", "buf = asc.TBuf(asc.TPosition.VECCALC)",
        f"pipe.init_buffer(buf, {x_bytes + ceil_to(per_core * ESIZE[dt], 32)})",
        f"xl = buf.get_with_offset(UNITS, 0, asc.{dt})",
        f"yl = buf.get_with_offset(per_core, {x_bytes}, asc.{dt})")
    copy_in(src, "xl", "gx0", "UNITS", dt, total * ESIZE[dt] % 32 == 0)
    src("asc.set_flag(asc.HardEvent.MTE2_S, 0)", "asc.wait_flag(asc.HardEvent.MTE2_S, 0)",
        "for i in range(first, last):")
    src(f"    yl.set_value(i - first, xl.get_value({index}))")
    src("asc.set_flag(asc.HardEvent.S_MTE3, 0)", "asc.wait_flag(asc.HardEvent.S_MTE3, 0)")
    copy_out(src, "gy0[first:]", "yl", "last - first", dt, False)
    return src.text(), blocks, per_core
