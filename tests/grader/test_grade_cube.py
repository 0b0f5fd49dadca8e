"""Grading cube and MIX submissions end to end (asc.adv.Matmul through the sandbox, the replay
and the accumulative precision standard), on the mini_mm test challenges."""

from __future__ import annotations

import pytest

from ascendlab.grader import GradeOptions, Verdict, grade
from ascendlab.grader.challenge import load_challenge
from ascendlab.grader.perf import bound_cycles, cube_bound

from .conftest import HERE, SECRET, SOLUTIONS

MM = HERE / "challenges" / "mini_mm"
MM_MIX = HERE / "challenges" / "mini_mm_mix"


def _grade(challenge, path):
    return grade(challenge, path, GradeOptions(secret=SECRET))


@pytest.mark.slow
def test_a_cube_only_matmul_is_accepted():
    r = _grade(MM, SOLUTIONS / "mini_mm_cube.py")
    assert r.verdict == Verdict.ACCEPTED, r
    assert r.perf[0].cycles > r.perf[0].bound_cycles


@pytest.mark.slow
def test_a_mix_matmul_is_accepted():
    r = _grade(MM_MIX, SOLUTIONS / "mini_mm_mix.py")
    assert r.verdict == Verdict.ACCEPTED, r.message


@pytest.mark.slow
def test_a_vector_kernel_is_refused_by_a_cube_challenge():
    r = _grade(MM_MIX, SOLUTIONS / "mini_mm_cube.py")
    assert r.verdict == Verdict.RULE_VIOLATION and "MIX" in r.message, r


@pytest.mark.slow
def test_c_written_with_numpy_after_the_matmul_is_caught(tmp_path):
    src = (SOLUTIONS / "mini_mm_cube.py").read_text()
    src = src.replace("    mm_kernel[tiling.used_core_num](a, b, c, tiling)\n",
                      "    mm_kernel[tiling.used_core_num](a, b, c, tiling)\n"
                      "    c[...] = (a.astype('float64') @ b.astype('float64')).astype(c.dtype)\n")
    p = tmp_path / "numpy_c.py"
    p.write_text(src)
    r = _grade(MM, p)
    assert r.verdict == Verdict.RULE_VIOLATION, r
    assert "outside emulated instructions" in r.message


def test_the_cube_bound_counts_fractal_steps():
    spec = load_challenge(MM).spec
    case = next(c for c in spec.hidden_cases(SECRET) if c.perf)
    m, k, n = case.shape
    steps = (m // 16) * (n // 16) * (k // 16)  # fp16: 16 x 16 x 16 per step, rate 1
    assert cube_bound(m, n, k, "float16", "Ascend910B2", cores=1) == steps
    assert bound_cycles(spec, case, "Ascend910B2") >= cube_bound(m, n, k, "float16",
                                                                  "Ascend910B2")
