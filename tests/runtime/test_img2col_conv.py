"""The conv2d + bias + GELU MIX kernel (tests/challenges/day8-conv-gelu/reference.py) against an
independent float64 reference built from numpy im2col, BatchNorm folding against conv -> BN,
torch's conv2d when torch is importable, the sanitizer, and the grader's replay of its
cross-core flags (including a forged trace)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import ascendlab
from ascendlab.analysis import sanitize
from ascendlab.grader.challenge import load_challenge
from tests.runtime.test_img2col import ref_im2col

REPO = Path(__file__).resolve().parents[2]
REF = REPO / "tests" / "challenges" / "day8-conv-gelu" / "reference.py"
K_GELU = -1.5957691216057308


def _module(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def ref():
    return _module(REF, "day8_reference")


@pytest.fixture(scope="module")
def spec():
    return load_challenge("day8-conv-gelu").spec


def _want(x: np.ndarray, w5: np.ndarray, bias: np.ndarray, stride: int, pad: int):
    """float64 conv via the im2col matrix (rows: output pixels, columns (c1, kh, kw, c0)),
    + bias, GELU (tanh form)."""
    n = x.shape[0]
    c1, k, _, _, cout = w5.shape
    outs = []
    for b in range(n):
        cols = ref_im2col(x[b].transpose(2, 0, 1).astype(np.float64), k, k, (stride, stride),
                          (pad,) * 4, (1, 1), 16)
        outs.append(cols @ w5.reshape(-1, cout).astype(np.float64))
    h, wd = x.shape[1:3]
    ho, wo = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    u = np.stack(outs).reshape(n, ho, wo, cout) + bias.astype(np.float64)
    return u / (1 + np.exp(K_GELU * (u + 0.044715 * u ** 3)))


def _launch(ref, x, w5, bias, stride, pad, cores=24):
    h, wd = x.shape[1:3]
    k = w5.shape[1]
    ho, wo = (h + 2 * pad - k) // stride + 1, (wd + 2 * pad - k) // stride + 1
    y = np.full((x.shape[0], ho, wo, w5.shape[-1]), np.nan, np.float16)
    old = ascendlab.configure().chip
    try:
        ascendlab.configure(chip="Ascend910B2")
        run = ref.launch(x, w5, bias, y, stride, pad, cores)
    finally:
        ascendlab.configure(chip=old)
    return y, run


@pytest.mark.parametrize("shape, stride, pad", [
    ((1, 7, 9, 3, 20, 3), 1, 1),
    ((2, 11, 6, 33, 16, 3), 2, 1),
    ((1, 5, 5, 16, 40, 1), 1, 0),
    ((1, 9, 8, 8, 16, 5), 1, 2),
])
def test_conv_gelu_matches_float64(ref, spec, shape, stride, pad):
    from ascendlab.grader.challenge import Case

    case = Case(name="t", shape=shape, dtype="float16", seed=sum(shape),
                params={"stride": stride, "pad": pad})
    inputs = spec.make_inputs(case)
    y, run = _launch(ref, inputs["x"], inputs["w"], inputs["bias"], stride, pad)
    want = _want(inputs["x"], inputs["w"], inputs["bias"], stride, pad)
    assert want.shape == y.shape
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=4e-3, atol=2e-3)
    # and the spec's golden (a different float64 conv: padded map, strided slices) agrees
    np.testing.assert_allclose(spec.golden(case, inputs)["y"], want, rtol=1e-10, atol=1e-12)
    assert run.core_kind == "mix" and not sanitize(run)
    ops = {e.op for e in run.trace}
    assert {"load_data_3d", "mmad", "fixpipe", "cross_core_set_flag", "exp"} <= ops


def test_batchnorm_folds_into_the_conv(spec):
    """conv(x, w') + b' == BN(conv(x, w) + b) for the folded w', b' (inference BatchNorm)."""
    rng = np.random.default_rng(0)
    cout, cin, k = 5, 3, 3
    x = rng.standard_normal((1, 6, 6, cin))
    w = rng.standard_normal((cout, cin, k, k))
    b = rng.standard_normal(cout)
    gamma, beta = rng.uniform(0.5, 1.5, cout), rng.standard_normal(cout)
    mean, var = rng.standard_normal(cout), rng.uniform(0.5, 2, cout)
    wf, bf = spec_module().fold_batchnorm(w, gamma, beta, mean, var, b)
    conv = spec_module().conv_f64
    plain = conv(x, spec_module().to_w5(w), 1, 1) + b
    bn = (plain - mean) / np.sqrt(var + spec_module().BN_EPS) * gamma + beta
    np.testing.assert_allclose(conv(x, spec_module().to_w5(wf), 1, 1) + bf, bn, rtol=1e-12,
                               atol=1e-12)


def spec_module():
    return _module(REPO / "challenges" / "day8-conv-gelu" / "spec.py", "day8_spec")


@pytest.mark.torch
def test_against_torch_conv2d_when_present(ref, spec):
    torch = pytest.importorskip("torch")
    from ascendlab.grader.challenge import Case

    case = Case(name="t", shape=(1, 9, 7, 20, 24, 3), dtype="float16", seed=5,
                params={"stride": 2, "pad": 1})
    inputs = spec.make_inputs(case)
    y, _ = _launch(ref, inputs["x"], inputs["w"], inputs["bias"], 2, 1)
    w5 = inputs["w"].astype(np.float64)
    c1, k, _, _, cout = w5.shape
    w = w5.transpose(4, 0, 3, 1, 2).reshape(cout, c1 * 16, k, k)[:, :20]
    x = torch.tensor(inputs["x"].astype(np.float64)).permute(0, 3, 1, 2)
    u = torch.nn.functional.conv2d(x, torch.tensor(w), torch.tensor(
        inputs["bias"].astype(np.float64)), stride=2, padding=1)
    want = torch.nn.functional.gelu(u, approximate="tanh").permute(0, 2, 3, 1).numpy()
    np.testing.assert_allclose(y.astype(np.float64), want, rtol=4e-3, atol=2e-3)


def test_replay_checks_cross_core_flags(ref, spec):
    """The grader re-derives the cross-core events; a trace whose wait has lost its set (or
    names a core that is not its peer) does not replay."""
    from ascendlab.grader.challenge import Case
    from ascendlab.grader.replay import ReplayError, replay

    case = Case(name="t", shape=(1, 9, 7, 20, 24, 3), dtype="float16", seed=6,
                params={"stride": 1, "pad": 1})
    inputs = spec.make_inputs(case)
    y, run = _launch(ref, inputs["x"], inputs["w"], inputs["bias"], 1, 1, cores=2)
    start = {n: np.zeros(g.nbytes, np.uint8) for n, g in run.gm.items()}
    start.update(x=inputs["x"], w=inputs["w"], bias=inputs["bias"])
    opts = dict(run.options, core_kinds=run.core_kinds)

    def again(events):
        return replay(events, run.gm, start, run.chip, run.block_num, run.core_kind, opts,
                      kernel=run.kernel)

    rep = again(run.trace)
    assert rep.trace == run.trace and rep.cycles == run.cycles
    np.testing.assert_array_equal(rep.outputs["y"].view(np.uint16).reshape(y.shape),
                                  y.view(np.uint16))
    first_set = next(i for i, e in enumerate(run.trace) if e.op == "cross_core_set_flag")
    with pytest.raises(ReplayError, match="has not set"):
        again(run.trace[:first_set] + run.trace[first_set + 1:])
    e = run.trace[first_set]
    forged = e._replace(args=tuple((k, 7 if k == "to" else v) for k, v in e.args))
    with pytest.raises(ReplayError, match="does not signal core 7"):
        again(run.trace[:first_set] + [forged] + run.trace[first_set + 1:])


def test_challenge_list_marks_day8_bonus(tmp_path):
    from ascendlab.grader.challenge_cli import render_list

    line = next(x for x in render_list("nobody", str(tmp_path / "lb.db")).splitlines()
                if "day8-conv-gelu" in x)
    assert line.split()[0] == "8" and "Bonus:" in line
