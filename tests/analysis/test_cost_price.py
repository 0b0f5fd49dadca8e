"""The cycle model's pricing pass: pricing each distinct Event object once gives what pricing
every occurrence in trace order gives, and an Event object whose price depends on its place
(a GM transfer) that recurs falls back to the in-order pass."""

from __future__ import annotations

import dataclasses

import numpy as np

import ascendlab
from ascendlab.analysis import cost_price
from ascendlab.analysis.cost import COST, simulate

from ..runtime.kernels import vadd_framework


def _run(cores=3, n=3 * 2048, tile=512, buffers=2):
    x = np.arange(n, dtype=np.float16)
    return ascendlab.launch(vadd_framework, cores, x, x, np.zeros_like(x), n // cores, tile,
                            buffers)


RUN = _run()


def _rates():
    return RUN.chip.gm_rates(3)[:2]


def test_each_object_once_equals_every_occurrence_in_order():
    trace = RUN.trace
    assert len({id(e) for e in trace}) < len(trace)  # the runtime shares recurring events
    ids = [id(e) for e in trace]
    rd, wr = _rates()
    times, first = cost_price.occurrences(ids)
    once = cost_price._Pricer(COST, RUN.chip, rd, wr, times, False).run(trace, ids, first)
    every = cost_price._Pricer(COST, RUN.chip, rd, wr, times, True).run(trace, ids, first)
    assert once == every
    assert once.gm_read == sum(e.reads[0].nbytes for e in trace
                               if e.op == "data_copy" and e.reads[0].space == "GM")


def test_occurrences_counts_each_object_and_finds_its_first_index():
    a, b, c = object(), object(), object()
    ids = [id(o) for o in (b, a, b, c, a, b)]
    times, first = cost_price.occurrences(ids)
    assert times == {id(a): 2, id(b): 3, id(c): 1}
    assert first == [0, 1, 3]  # trace order of first occurrences: b, a, c
    assert cost_price.occurrences([]) == ({}, [])


def test_a_recurring_gm_transfer_object_is_priced_at_each_place():
    trace = list(RUN.trace)
    first_read = next(i for i, e in enumerate(trace)
                      if e.op == "data_copy" and e.reads[0].space == "GM")
    # the same GM read Event object issued a second time, right after the first
    trace.insert(first_read + 1, trace[first_read])
    rd, wr = _rates()
    got = cost_price.price(trace, COST, RUN.chip, rd, wr)
    ids = [id(e) for e in trace]
    times, first = cost_price.occurrences(ids)
    every = cost_price._Pricer(COST, RUN.chip, rd, wr, times, True).run(trace, ids, first)
    assert got == every
    assert [r[0] for r in got.gm_reads[:2]] == [first_read, first_read + 1]
    assert got.gm_read == RUN.trace[first_read].reads[0].nbytes + _price_plain().gm_read


def _price_plain():
    rd, wr = _rates()
    return cost_price.price(RUN.trace, COST, RUN.chip, rd, wr)


def test_simulate_of_a_run_with_a_recurring_gm_transfer_counts_both():
    trace = list(RUN.trace)
    k = next(i for i, e in enumerate(trace) if e.op == "data_copy" and e.writes[0].space == "GM")
    twice = dataclasses.replace(RUN, trace=trace[:k + 1] + [trace[k]] + trace[k + 1:], _cost=None)
    a, b = simulate(RUN), simulate(twice)
    moved = trace[k].writes[0].nbytes
    assert b.bytes_moved["UB->GM"] == a.bytes_moved["UB->GM"] + moved
    assert b.gm_bytes == a.gm_bytes + moved
    assert b.cycles >= a.cycles
