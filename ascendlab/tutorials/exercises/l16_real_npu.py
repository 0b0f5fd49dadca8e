"""Lesson 16, From here to a real NPU: a last kernel written to be carried to a chip."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ...grader.challenge import Case
from ..exercise import Exercise, cases

ALPHA = 0.01


def _inputs(case: Case, names: tuple[str, ...]) -> Mapping[str, np.ndarray]:
    """Magnitudes in [2^-6, 4) with random signs: 0.01 x stays a normal float16 (>= 2^-14).
    Closer to zero, 0.01 x falls below float16's range and no float16 kernel can meet a
    relative-error threshold there."""
    rng = np.random.default_rng(case.seed)
    mag = rng.uniform(2.0 ** -6, 4.0, case.shape)
    return {n: (mag * rng.choice([-1.0, 1.0], case.shape)).astype(case.dtype) for n in names}

EXERCISES = (
    Exercise(
        id="16.leaky_relu", lesson=16,
        title="Ready for the chip: leaky_relu for any length, 48 cores, within 1.5x of the "
              "roofline",
        inputs=("x",), outputs=("y",),
        reference=lambda a: np.where(a["x"] > 0, a["x"], ALPHA * a["x"]),
        make_inputs=_inputs,
        cases=cases((48 * 16384,), (100_003,), (1000,), (7,), dtype="float16", perf=0),
        requires=frozenset({"data_copy_pad", "leaky_relu"}),
        cycle_target=1.5, block_num=(48, 48),
        concept='any length means a tail whose byte count is not a multiple of 32 B, and cores '
                'whose share is short or empty; every copy must move exactly the elements that '
                'are there',
        api='asc.data_copy_pad with asc.DataCopyExtParams (bytes) and asc.DataCopyPadExtParams on'
            ' the way in and out, asc.leaky_relu in between, TQue enque / deque for the order',
        hint="x_l = q_in.alloc_tensor(asc.float16); data_copy_pad(x_l, xg[i * tile:], "
             "DataCopyExtParams(1, length * 2, 0, 0), DataCopyPadExtParams(asc.float16, "
             "False, 0, 0, 0)); enque/deque; leaky_relu(y_l, x_l, 0.01, length); "
             "data_copy_pad(yg[i * tile:], y_l, DataCopyExtParams(1, length * 2, 0, 0)); "
             "free both",
    ),
)
