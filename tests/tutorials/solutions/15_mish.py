"""Solution of exercise 15.mish (tutorials/15-python-first-operators.ipynb)."""

from ascendlab import TensorSpec, ascend_kernel
from ascendlab.ops import exp, log, tanh


@ascend_kernel(inputs=[TensorSpec("x", "float32", ["N"])],
               outputs=[TensorSpec("y", "float32", ["N"])])
def mish(x):
    return x * tanh(log(1.0 + exp(x)))


def launch(x, y, core_num):
    mish(x, out=y)
