"""The op records (trace.OPS) of asc.adv's library routines that are ops of their own.

Their semantics live in ascendlab/adv/ (math.py, quant.py, rmsnorm.py), which builds on the
runtime; the records live here so that the registry is complete whenever the runtime is
imported, and a trace holding them costs the same in a process that never imported
ascendlab.adv (the grader's parent, a reader of a pickled Run). Each routine is one Event on
PIPE_V; the cycle model charges one vector pass of its cost class (a lower bound: the library
issues several instructions). None is re-issued by the grader's replay yet.
"""

from __future__ import annotations

from .trace import register_op

F16_F32 = frozenset({"float16", "float32"})

# the element-wise math routines of adv/math.py (one float64 function each)
UNARY_MATH_OPS: tuple[str, ...] = (
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "sin", "sinh", "tan",
    "tanh", "log", "erf", "erfc", "lgamma", "digamma", "ceil", "floor", "trunc", "round",
    "frac", "sign")

for _name in (*UNARY_MATH_OPS, "exp"):
    register_op(f"adv.{_name}", "V", "transcendental", flops_per_elem=1, dtypes=F16_F32,
                replayable=False, module=__name__)
register_op("adv.power", "V", "transcendental", flops_per_elem=1,
            dtypes=F16_F32 | {"int32"}, replayable=False, module=__name__)
register_op("adv.xor", "V", "elementwise", flops_per_elem=1,
            dtypes=frozenset({"int16", "uint16"}), replayable=False, module=__name__)
register_op("adv.axpy", "V", "elementwise", flops_per_elem=2, dtypes=F16_F32, replayable=False,
            module=__name__)
register_op("adv.quant", "V", "convert", flops_per_elem=2,
            dtypes=frozenset({"float16", "float32", "int8"}), replayable=False, module=__name__)
register_op("adv.rmsnorm", "V", "reduce", flops_per_elem=4, dtypes=F16_F32, replayable=False,
            module=__name__)
del _name
