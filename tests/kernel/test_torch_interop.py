"""PyTorch interop: op.to_torch() in an nn.Module, autograd against torch's own autograd of the
same math, and torch.autograd.gradcheck (skipped without torch)."""

from __future__ import annotations

import numpy as np
import pytest

from ascendlab import TensorSpec, ascend_kernel
from ascendlab.ops import linear, sigmoid

pytestmark = pytest.mark.torch
torch = pytest.importorskip("torch", reason="torch is optional: pip install torch==2.13.0")


@ascend_kernel(inputs=[TensorSpec("x", "float32", ["N", "F"])],
               outputs=[TensorSpec("y", "float32", ["N", 8])], seed=3)
def gated(x):
    h = linear(x, 8, name="proj")
    return h * sigmoid(h)


def _torch_gated(x, w, b):
    h = x @ w + b
    return h * torch.sigmoid(h)


def test_module_forward_backward_match_torch_autograd():
    mod = gated.to_torch(np.zeros((2, 12), np.float32))
    assert {n for n, _ in mod.named_parameters()} == {"proj_weight", "proj_bias"}
    x = torch.randn(6, 12, requires_grad=True)
    y = mod(x)
    gy = torch.randn_like(y)
    y.backward(gy)
    x2 = x.detach().clone().requires_grad_(True)
    w = mod.proj_weight.detach().clone().requires_grad_(True)
    b = mod.proj_bias.detach().clone().requires_grad_(True)
    y2 = _torch_gated(x2, w, b)
    y2.backward(gy)
    torch.testing.assert_close(y, y2, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(x.grad, x2.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(mod.proj_weight.grad, w.grad, rtol=1e-4, atol=1e-5)
    torch.testing.assert_close(mod.proj_bias.grad, b.grad, rtol=1e-4, atol=1e-5)


def test_inside_an_nn_module_one_sgd_step_lowers_the_loss():
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gate = gated.to_torch(np.zeros((1, 12), np.float32))

        def forward(self, x):
            return self.gate(x).sum(1)

    net = Net()
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    x, target = torch.randn(6, 12), torch.zeros(6)
    losses = []
    for _ in range(3):
        opt.zero_grad()
        loss = ((net(x) - target) ** 2).mean()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    assert losses[-1] < losses[0]


@pytest.mark.slow
def test_gradcheck_inputs_and_parameters():
    mod = gated.to_torch()
    x = torch.randn(3, 12, dtype=torch.float64, requires_grad=True)
    w = mod.proj_weight.detach().double().requires_grad_(True)
    b = mod.proj_bias.detach().double().requires_grad_(True)
    # the kernels compute in float32: finite differences need a float32-sized step
    assert torch.autograd.gradcheck(mod.function, (x, w, b), eps=1e-3, atol=2e-3, rtol=2e-3)


def test_torch_tensors_in_torch_tensors_out():
    x = torch.randn(4, 12)
    y = gated(x)
    assert isinstance(y, torch.Tensor) and y.shape == (4, 8)
    np.testing.assert_allclose(y.numpy(), gated(x.numpy()), rtol=0, atol=0)


def _compare_with_torch(mod, inputs, reference, atol=2e-3, rtol=2e-3):
    """Run the module and a float64 torch reference on the same values; compare outputs and
    the gradients of inputs and parameters (torch autograd on both sides)."""
    xs = [torch.from_numpy(np.asarray(x)).requires_grad_(True) for x in inputs]
    y = mod(*xs)
    gy = torch.from_numpy(np.random.default_rng(0).standard_normal(tuple(y.shape)))
    y.backward(gy.to(y.dtype))
    xr = [x.detach().double().requires_grad_(True) for x in xs]
    pr = {n: p.detach().double().requires_grad_(True) for n, p in mod.named_parameters()}
    yr = reference(*xr, **pr)
    yr.backward(gy.double())
    torch.testing.assert_close(y.double(), yr, atol=atol, rtol=rtol)
    for x, r in zip(xs, xr, strict=True):
        torch.testing.assert_close(x.grad.double(), r.grad, atol=atol, rtol=rtol)
    for n, p in mod.named_parameters():
        torch.testing.assert_close(p.grad.double(), pr[n].grad, atol=atol, rtol=rtol)


@pytest.mark.slow
def test_examples_match_torch_autograd(examples):
    def fusion(f, e, d, s, **p):
        def weight(c, n):
            v = c.mean((2, 3)) @ p[f"{n}_weight"] + p[f"{n}_bias"]
            return torch.sigmoid(v)[:, :, None, None]
        we, wd, ws = weight(e, "edge"), weight(d, "depth"), weight(s, "sem")
        return (we * e + wd * d + ws * s + f) / (we + wd + ws + 1)

    xs = examples.condition_inputs(b=2, c=16, h=4, w=4, seed=6)
    _compare_with_torch(examples.adaptive_condition_fuse.to_torch(*xs), xs, fusion)

    x = np.linspace(-5, 5, 512).astype(np.float16)
    _compare_with_torch(examples.swish.to_torch(x), [x],
                        lambda x, beta: x * torch.sigmoid(beta * x))

    ins = examples.lora_inputs(o=16, i=24, r=4, seed=2)
    _compare_with_torch(examples.lora_fuse.to_torch(*ins), ins,
                        lambda w0, a, b, wts: w0 + (wts[:, None, None] * (b @ a)).sum(0),
                        atol=1e-4, rtol=1e-4)
