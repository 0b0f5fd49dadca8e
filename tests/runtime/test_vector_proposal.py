"""Region-proposal instructions (ascendlab/runtime/vector/proposal.py) on Ascend310P against
numpy, and their "not supported" finding on Ascend910B."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab.asc as asc

from .vector_harness import Ref, launch

P310 = "Ascend310P3"


@pytest.mark.parametrize("mode", [0, 4, 5])
def test_proposal_concat_and_extract_move_one_field(mode):
    src = np.arange(32, dtype=np.float16) + 1
    props = np.zeros(32 * 8, np.float16)
    out, run = launch(asc.proposal_concat, [("S", "float16", 32, src),
                                            ("D", "float16", 256, props)],
                      [Ref("D"), Ref("S"), 2, mode], chip=P310)
    want = props.reshape(32, 8).copy()
    want[:, mode] = src
    np.testing.assert_array_equal(out.reshape(32, 8), want)
    back, _ = launch(asc.proposal_extract, [("S", "float16", 256, out), ("D", "float16", 32)],
                     [Ref("D"), Ref("S"), 2, mode], chip=P310)
    np.testing.assert_array_equal(back, src)
    assert [e.pipe for e in run.trace if e.op == "proposal_concat"] == ["V"]


def test_rp_sort16_and_mrg_sort4_by_score():
    rng = np.random.default_rng(2)
    props = rng.integers(0, 9, (32, 8)).astype(np.float32)  # ties on the score (field 4)
    out, _ = launch(asc.rp_sort16, [("S", "float32", 256, props.ravel()), ("D", "float32", 256)],
                    [Ref("D"), Ref("S"), 2], chip=P310)
    got = out.reshape(32, 8)
    for g in (0, 16):
        part = props[g:g + 16]
        np.testing.assert_array_equal(got[g:g + 16],
                                      part[np.argsort(-part[:, 4], kind="stable")])

    def merge(d, s):
        info = asc.MrgSort4Info([16, 16], False, 0b11, 1)
        asc.mrg_sort4(d, asc.MrgSortSrcList(asc.float32, s, s[128]), info)

    merged, _ = launch(merge, [("S", "float32", 256, got.ravel()), ("D", "float32", 256)],
                       [Ref("D"), Ref("S")], chip=P310)
    np.testing.assert_array_equal(merged.reshape(32, 8),
                                  got[np.argsort(-got[:, 4], kind="stable")])


def test_not_supported_on_910b_is_a_finding_with_no_effect():
    src = np.ones(16, np.float16)
    with pytest.warns(Warning, match="not supported on Ascend910B"):
        out, run = launch(asc.proposal_concat, [("S", "float16", 16, src),
                                                ("D", "float16", 128)],
                          [Ref("D"), Ref("S"), 1, 4], strict=False)
    assert not out.any() and [f.kind for f in run.findings] == ["chip"]
    with pytest.raises(NotImplementedError, match="proposal_concat"):
        launch(asc.proposal_concat, [("S", "float16", 16, src), ("D", "float16", 128)],
               [Ref("D"), Ref("S"), 1, 4])
