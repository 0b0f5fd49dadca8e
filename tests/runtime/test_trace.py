"""The op registry of ascendlab/runtime/trace.py (trace.OPS): one record per op, complete
whenever the runtime is imported, covered by the semantics, cost and replay tables.
(tests/adv/test_softmax.py costs a pickled Run in a fresh process: the cost of a trace depends
on the trace alone.)"""

from __future__ import annotations

import pytest

from ascendlab.analysis.cost import COST, simulate
from ascendlab.errors import ParamError
from ascendlab.runtime import trace
from ascendlab.runtime.trace import COST_CLASSES, OPS, VECTOR_CLASSES, Event, register_op
from ascendlab.runtime.vector import cast as vector_cast
from ascendlab.runtime.vector import cmpscalar as vector_cmpscalar
from ascendlab.runtime.vector import cmpsel as vector_cmpsel
from ascendlab.runtime.vector import elementwise as vector
from ascendlab.runtime.vector import reduce as vector_reduce
from ascendlab.runtime.vector import rows as vector_rows


def test_every_op_has_one_record_with_a_known_class_and_pipe():
    assert len(OPS) > 50
    for name, info in OPS.items():
        assert info.name == name
        assert info.cost_class in COST_CLASSES, name
        assert info.pipe in trace.PIPES or info.pipe == "", name
        assert info.module.startswith("ascendlab.runtime."), (name, info.module)
        assert info.flops_per_elem >= 0


def test_the_cost_table_covers_the_vector_classes():
    rates = dict(COST.vector_repeat)
    assert set(VECTOR_CLASSES) == set(rates)
    vector_ops = {n for n, i in OPS.items() if i.cost_class in VECTOR_CLASSES}
    assert vector_ops == {n for n, i in OPS.items() if i.pipe == "V"}


def test_the_semantics_tables_cover_the_replayable_vector_ops():
    """Every vector op a kernel can call has a semantics entry, and every entry is registered."""
    semantics = (set(vector.BINARY) | set(vector.UNARY) | set(vector.SCALAR)
                 | {"axpy", "duplicate"} | set(vector_cast.vector_ops)
                 | set(vector_cmpsel.vector_ops) | set(vector_reduce.vector_ops)
                 | set(vector_cmpscalar.vector_ops) | set(vector_rows.vector_ops))
    callable_v = {n for n, i in OPS.items() if i.pipe == "V" and i.replayable}
    assert callable_v == semantics
    for table in (vector.BINARY, vector.UNARY, vector.SCALAR):
        for name, (_fn, dtypes) in table.items():
            assert OPS[name].dtypes == dtypes, name


# py-common: atomic config, scalar ops, system registers, hints, block sync, registers
_PY_COMMON_MODULES = ("ascendlab.runtime.dma.atomic", "ascendlab.runtime.scalar.ops",
                      "ascendlab.runtime.scalar.sysvar", "ascendlab.runtime.scalar.hints",
                      "ascendlab.runtime.sync.block", "ascendlab.runtime.scalar.registers")
# py-rest: the cmpMask register forms, fused casts, init_const_value (no replay yet)
_PY_REST_MODULES = ("ascendlab.runtime.vector.cmpreg", "ascendlab.runtime.vector.fused_cast",
                    "ascendlab.runtime.vector.cast_deq", "ascendlab.runtime.dma.params_more",
                    "ascendlab.runtime.cube.sparse")


def test_every_op_is_replayable_or_marked_not():
    from ascendlab.grader.replay import REPLAYABLE_OPS

    replayable = {n for n, i in OPS.items() if i.replayable}
    assert replayable == set(REPLAYABLE_OPS) & set(OPS), replayable ^ set(REPLAYABLE_OPS)
    assert set(REPLAYABLE_OPS) <= set(OPS), set(REPLAYABLE_OPS) - set(OPS)
    assert {n for n, i in OPS.items() if not i.replayable} == {
        "copy",  # adv.softmax (the per-row ops it records are re-issued: grader/replay/rows.py)
        "mm_request", "mm_serve", "mm_done", "mm_wait_result",  # adv.Matmul (MIX)
        "transpose", "trans_data_to_5hd", "sort32", "mrg_sort", "sort", "extract",  # py-move
        "rp_sort16", "mrg_sort4", "proposal_concat", "proposal_extract",  # py-move, no replay
        "gather", "gatherb", "scatter", "gather_mask", "load_image_to_local",
        *(n for n in OPS if n.startswith("adv."))} | {  # runtime/adv_ops.py: no replay yet
        n for n, i in OPS.items() if i.module in _PY_COMMON_MODULES  # py-common, no replay yet
        or i.module in _PY_REST_MODULES}


def test_flops_per_element():
    assert OPS["fused_mul_add"].flops_per_elem == OPS["axpy"].flops_per_elem == 2
    assert OPS["mmad"].flops_per_elem == 2
    assert OPS["cast"].flops_per_elem == OPS["duplicate"].flops_per_elem == 0
    assert OPS["add"].flops_per_elem == OPS["exp"].flops_per_elem == 1
    assert OPS["data_copy"].flops_per_elem == 0


def test_a_second_different_registration_is_an_error():
    before = dict(OPS)
    info = OPS["add"]
    assert register_op("add", "V", "elementwise", flops_per_elem=1, dtypes=info.dtypes,
                       module=info.module) == info  # the same record again: accepted
    with pytest.raises(ParamError,
                       match="'add'.*already registered by ascendlab.runtime.vector.elementwise"):
        register_op("add", "V", "transcendental", module="elsewhere")
    with pytest.raises(ParamError, match="cost class 'fast'"):
        register_op("new_op", "V", "fast")
    with pytest.raises(ParamError, match="pipe 'Q'"):
        register_op("new_op", "Q", "elementwise")
    assert OPS == before


def test_an_unregistered_op_is_an_error_in_the_cost_model():
    from ascendlab.runtime.chips import CHIPS

    ev = Event(0, "V", "warp_shuffle", (), (), 8, "float32", 1, "k.py", 3, None, ())
    run = trace.Run("k", next(iter(CHIPS.values())), 1, "aiv", [ev], {}, {}, {})
    with pytest.raises(ParamError, match="'warp_shuffle' is not registered"):
        simulate(run)


def test_event_builds_the_record_by_field_name():
    s = trace.Sync("set", "MTE2", "V", ("que", 0, 1))
    e = trace.event(3, "MTE2", "enque", file="k.py", line=7, sync=s, args=(("slot", 1),))
    assert e == Event(core=3, pipe="MTE2", op="enque", reads=(), writes=(), count=0, dtype="",
                      repeats=0, file="k.py", line=7, sync=s, args=(("slot", 1),))
    assert type(e) is Event and e.sync is s
