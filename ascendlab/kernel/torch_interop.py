"""PyTorch interop: an AscendKernel as an nn.Module backed by a torch.autograd.Function.

Inputs are converted to the operator's spec dtypes, the forward and backward kernels run on
the emulator, and outputs / gradients come back in the dtype of the first input (so float64
tensors work with torch.autograd.gradcheck, while the kernels compute in the spec dtypes).

torch is optional: importing this module does not import it. The classes are built on first
use (`TorchOperator`, or `AscendKernel.to_torch`), and without torch that use raises an
ImportError that says what to install.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np


def _torch() -> Any:
    try:
        import torch
    except ImportError as e:
        raise ImportError("AscendKernel.to_torch needs PyTorch, which is not installed: "
                          "python -m pip install torch (the CPU build is enough)") from e
    return torch


def _np(t: Any, dtype: str) -> np.ndarray:
    return t.detach().cpu().numpy().astype(dtype)


@cache
def _classes() -> tuple[type, type]:
    """(the autograd Function, the Module class), built once torch is imported."""
    torch = _torch()

    class _Function(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, op: Any, n_in: int, *tensors: Any) -> Any:
            xs, ps = tensors[:n_in], tensors[n_in:]
            names = list(op.params)
            for name, p in zip(names, ps, strict=True):
                op.params[name] = _np(p, op.params[name].dtype.name)
            arrays = [_np(x, s.dtype) for x, s in zip(xs, op.inputs, strict=True)]
            outs = op.forward(*arrays)
            ctx.op, ctx.n_in, ctx.like = op, n_in, xs[0]
            ctx.save_for_backward(*xs)
            res = tuple(torch.from_numpy(np.array(o)).to(xs[0].dtype) for o in outs)
            return res[0] if len(res) == 1 else res

        @staticmethod
        def backward(ctx: Any, *grads: Any) -> Any:
            op = ctx.op
            xs = ctx.saved_tensors
            arrays = [_np(x, s.dtype) for x, s in zip(xs, op.inputs, strict=True)]
            g = op.backward(tuple(_np(t, "float32") for t in grads), *arrays)
            dx = [torch.from_numpy(np.array(a)).to(x.dtype)
                  for a, x in zip(g.inputs, xs, strict=True)]
            dp = [torch.from_numpy(np.array(g.params[n])).to(ctx.like.dtype)
                  for n in op.params]
            return (None, None, *dx, *dp)

    class TorchOperator(torch.nn.Module):
        """The operator as a module: parameters are nn.Parameters named like op.params (dots
        become underscores); `function(*inputs, *params)` is the functional form for
        gradcheck."""

        def __init__(self, op: Any, examples: tuple[Any, ...] = ()) -> None:
            super().__init__()
            self.op = op
            if examples or not op.params:  # trace once so the parameters exist
                op.graph(*examples)
            self.names = list(op.params)
            for name in self.names:
                self.register_parameter(name.replace(".", "_"),
                                        torch.nn.Parameter(torch.from_numpy(
                                            op.params[name].astype(np.float32).copy())))

        def function(self, *tensors: Any) -> Any:
            return _Function.apply(self.op, len(self.op.inputs), *tensors)

        def forward(self, *inputs: Any) -> Any:
            params = [getattr(self, n.replace(".", "_")) for n in self.names]
            return self.function(*inputs, *params)

    return _Function, TorchOperator


def __getattr__(name: str) -> Any:
    """`TorchOperator` is built (and torch imported) when first asked for."""
    if name == "TorchOperator":
        return _classes()[1]
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["TorchOperator"]  # noqa: F822 - built on first access (__getattr__)
