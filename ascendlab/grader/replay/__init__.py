"""The grader's replay: re-issue a submitted trace through this process's runtime, on the
grader's own inputs, and require the same events (docs/grader.md).

run.py walks the trace; operands.py rebuilds operands and frames; vector.py, rows.py and ops.py
hold the re-issue table, one handler per op; adv_matmul.py and adv_softmax.py replay the asc.adv
library (ADV_MATMUL_OPS, SOFTMAX_OPS: the ops a challenge that allows them lists). Unlike the
analysis readers, replay *executes*: it calls the runtime's own instruction implementations,
so it imports them.
"""

from .adv_matmul import ADV_MATMUL_OPS
from .adv_softmax import SOFTMAX_OPS
from .run import (
    LIBRARY_OPS,
    RECORDABLE_OPS,
    REPLAYABLE_OPS,
    ReplayError,
    ReplayMismatch,
    check_order,
    describe_event,
    replay,
)

__all__ = ["ADV_MATMUL_OPS", "LIBRARY_OPS", "RECORDABLE_OPS", "REPLAYABLE_OPS", "SOFTMAX_OPS",
           "ReplayError", "ReplayMismatch", "check_order", "describe_event", "replay"]
