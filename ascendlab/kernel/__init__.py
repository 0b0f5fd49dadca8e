"""Python-first operators: @ascend_kernel + TensorSpec (NumPy-style bodies built from
ascendlab.ops), lowered to generated pyasc kernels, with autodiff and PyTorch interop.
See docs/python-first.md."""

from .operator import AscendKernel, Gradients, ascend_kernel, grad
from .spec import TensorSpec

__all__ = ["AscendKernel", "Gradients", "TensorSpec", "ascend_kernel", "grad"]
