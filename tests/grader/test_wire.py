"""wire.py: a Run's record survives JSON exactly; anything else is refused with a reason."""

from __future__ import annotations

import copy
import json
import math

import numpy as np
import pytest

import ascendlab
from ascendlab.grader.wire import WireError, dump_run, load_meta, load_run, load_trace
from tests.runtime import kernels as K

from .test_replay import _forms


@pytest.fixture(scope="module")
def record():
    x = np.random.default_rng(3).standard_normal(512).astype(np.float32)
    run = ascendlab.launch(_forms, 1, x, np.zeros(512, np.float32))
    return run, json.loads(json.dumps(dump_run(run)))


def _plain(v):
    """Tuples and lists compare alike (JSON has one sequence type)."""
    if isinstance(v, (tuple, list)):
        return [_plain(x) for x in v]
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    return v


def test_round_trip(record):
    run, obj = record
    meta, events = load_run(obj)
    assert meta.chip == run.chip.name and meta.block_num == 1 and meta.core_kind == "aiv"
    assert [g.name for g in meta.gm] == list(run.gm)
    assert len(events) == len(run.trace)
    for a, b in zip(events, run.trace):
        assert a[:10] == b[:10]
        assert a.sync == b.sync
        assert _plain(a.args) == _plain(b.args)


def test_sync_objects_are_shared(record):
    _, obj = record
    events = load_trace(obj)
    flags = [e.sync for e in events if e.op == "set_flag"]
    assert len({id(s) for s in flags}) == len(set(flags))


def test_nan_and_enum_arguments():
    x = np.zeros(1024, np.float16)
    run = ascendlab.launch(K.vadd_framework, 1, x, x.copy(), x.copy(), 1024, 256, 2)
    obj = dump_run(run)
    assert json.loads(json.dumps(obj))["events"]


def _bad(obj, path, value):
    o = copy.deepcopy(obj)
    target = o
    for k in path[:-1]:
        target = target[k]
    target[path[-1]] = value
    return o


@pytest.mark.parametrize("path,value,words", [
    (("events", 0, 2), "rm_rf", "not an instruction the grader can replay"),
    (("events", 0, 1), "GPU", "pipe"),
    (("events", 0, 0), -1, "core"),
    (("events", 0, 0), True, "core"),
    (("events", 0, 8), 10**9, "file"),
    (("events", 0, 9), "12", "line"),
    (("events", 0, 6), "complex128", "dtype"),
    (("events", 0, 11), [["x", {"__class__": "os.system"}]], "not a number"),
    (("events", 0, 11), [["x", [[[[[1]]]]]]], "not a number"),
    (("events", 0, 11), [["x", 10**40]], "out of range"),
    (("events", 0, 10), ["set", "V", "MTE3", [["nested"]], False], "sync key"),
    (("events", 0), [0, 1, 2], "12 fields"),
    (("strings",), "abc", "strings"),
    (("chip",), "RTX4090", "chip"),
    (("core_kind",), "gpu", "core_kind"),
    (("gm", 0, 2), 3, "is not 3 B"),
    (("version",), 1, "v2"),
])
def test_validation(record, path, value, words):
    _, obj = record
    with pytest.raises(WireError) as e:
        load_run(_bad(obj, path, value))
    assert words in str(e.value)


def test_accesses_are_checked(record):
    _, obj = record
    i = next(k for k, e in enumerate(obj["events"]) if e[3])
    for field, value in ((0, "DRAM"), (1, -5), (2, 1 << 41), (3, 999_999), (4, 1.5)):
        bad = copy.deepcopy(obj)
        bad["events"][i][3][0][field] = value
        with pytest.raises(WireError, match=f"event {i}"):
            load_trace(bad)


def test_caps(record):
    _, obj = record
    with pytest.raises(WireError, match="at most 5"):
        load_trace(obj, max_events=5)
    big = copy.deepcopy(obj)
    big["strings"] = ["x" * 5000]
    with pytest.raises(WireError, match="4096"):
        load_trace(big)
    with pytest.raises(WireError):
        load_meta([])


@pytest.fixture(scope="module")
def loop_record():
    """A loop's framework events are shared Event objects in the runtime's trace."""
    n = 4096
    x = np.arange(n, dtype=np.float32)
    run = ascendlab.launch(K.vadd_framework, 1, x, x, np.zeros(n, np.float32), n, 256, 2)
    return run, json.loads(json.dumps(dump_run(run)))


def test_repeated_events_are_written_once_and_shared_when_read(loop_record):
    run, obj = loop_record
    refs = [k for k in obj["events"] if type(k) is int]
    assert len(refs) == len(run.trace) - len({id(e) for e in run.trace}) > 0
    events = load_trace(obj)
    assert len(events) == len(run.trace)
    for a, b in zip(events, run.trace):
        assert a[:11] == b[:11] and _plain(a.args) == _plain(b.args)
    # the reader shares the object where the runtime did
    assert len({id(e) for e in events}) == len({id(e) for e in run.trace})


@pytest.mark.parametrize("bad", ["self", "later", "negative", "to a reference", "bool"])
def test_a_back_reference_must_name_an_earlier_full_event(loop_record, bad):
    _, obj = loop_record
    obj = copy.deepcopy(obj)
    events = obj["events"]
    i = next(k for k, e in enumerate(events) if type(e) is int)
    events[i] = {"self": i, "later": i + 1, "negative": -1, "bool": True,
                 "to a reference": next(k for k, e in enumerate(events) if type(e) is int)}[bad]
    if bad == "to a reference":  # make event i point at another back-reference
        j = next(k for k, e in enumerate(events[i + 1:], i + 1) if type(e) is int)
        events[j] = i
    with pytest.raises(WireError, match=r"event \d+: "):
        load_trace(obj)
