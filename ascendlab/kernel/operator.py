"""@ascend_kernel: a NumPy-style body becomes an operator that runs generated pyasc kernels.

    @ascend_kernel(inputs=[TensorSpec("x", "float16", ["N"])],
                   outputs=[TensorSpec("y", "float16", ["N"])])
    def swish(x):
        return x * sigmoid(param("beta", (1,), init="ones") * x)

    y = swish(x)              # validates, traces, lowers, runs on the emulated core
    ascendlab.last_run()      # the Run of the op's last kernel (swish.runs: all of them)
    print(swish.lower())      # the generated kernel source
    print(swish.explain())    # kernels, tiles, fused vs unfused modelled cycles
    g = swish.backward(dy, x) # g.inputs[0], g.params["beta"]: generated backward kernels
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..errors import ShapeError
from . import autodiff
from .graph import _CURRENT, Graph, ParamSpec, Value
from .lower import Lowered, compile_graph, execute, prepare
from .spec import TensorSpec, bind, validate_inputs


@dataclass
class Compiled:
    """A graph for one input binding, its buffer dtypes and its kernels."""

    graph: Graph
    dtypes: dict[int, str]
    kernels: list[Lowered]


@dataclass
class Gradients:
    """op.backward's result: gradients of the inputs (in order) and of the parameters
    (float32, computed by generated kernels on the emulator)."""

    inputs: tuple[np.ndarray, ...]
    params: dict[str, np.ndarray] = field(default_factory=dict)
    runs: list[Any] = field(default_factory=list)


def init_param(spec: ParamSpec, seed: int) -> np.ndarray:
    """A parameter's initial value; the generator is seeded by (op seed, name)."""
    rng = np.random.default_rng([seed, zlib.crc32(spec.name.encode())])
    init, shape = spec.init, spec.shape
    if callable(init):
        value = np.asarray(init(shape, rng))
    elif isinstance(init, (int, float)):
        value = np.full(shape, float(init))
    elif init == "zeros":
        value = np.zeros(shape)
    elif init == "ones":
        value = np.ones(shape)
    elif init == "normal":
        value = rng.normal(0.0, 0.02, shape)
    elif init == "xavier_uniform":
        fan_in, fan_out = (shape[-2], shape[-1]) if len(shape) >= 2 else (1, max(shape, default=1))
        bound = float(np.sqrt(6.0 / (fan_in + fan_out)))
        value = rng.uniform(-bound, bound, shape)
    else:
        raise ValueError(f"parameter {spec.name!r}: unknown initialiser {init!r} (zeros, ones, "
                         f"normal, xavier_uniform, a number or a callable(shape, rng))")
    if value.shape != shape:
        raise ShapeError(f"parameter {spec.name!r}: initialiser gave shape {list(value.shape)}, "
                         f"expected {list(shape)}")
    return value.astype(spec.dtype)


class AscendKernel:
    """An operator defined in NumPy style; see the module docstring."""

    def __init__(self, fn: Callable[..., Any], inputs: Sequence[TensorSpec],
                 outputs: Sequence[TensorSpec], name: str | None = None, seed: int = 0) -> None:
        self.fn = fn
        self.name = name or fn.__name__
        self.inputs = tuple(inputs)
        self.outputs = tuple(outputs)
        self.seed = seed
        self.params: dict[str, np.ndarray] = {}
        self.runs: list[Any] = []  # the Runs of the latest call (forward or backward), in order
        self._cache: dict[tuple, Compiled] = {}
        self._last_shapes: tuple[tuple[int, ...], ...] | None = None
        self._last_args: list[np.ndarray] | None = None
        self.__doc__ = fn.__doc__

    def __repr__(self) -> str:
        ins = ", ".join(str(s) for s in self.inputs)
        return f"<ascend_kernel {self.name}({ins}) params={sorted(self.params)}>"

    # ---- tracing --------------------------------------------------------------------------
    def trace(self, shapes: Sequence[tuple[int, ...]]) -> Graph:
        """The graph of the body for these input shapes (outputs checked against the specs)."""
        graph = Graph()
        values = [Value(graph.input(i, s, spec.dtype, spec.name))
                  for i, (s, spec) in enumerate(zip(shapes, self.inputs, strict=True))]
        _CURRENT.append(graph)
        try:
            result = self.fn(*values)
        finally:
            _CURRENT.pop()
        results = result if isinstance(result, (tuple, list)) else (result,)
        if not all(isinstance(r, Value) for r in results):
            raise TypeError(f"{self.name}: the body must return traced tensors (ascendlab.ops "
                            f"results), got {[type(r).__name__ for r in results]}")
        graph.outputs = [r.node for r in results]
        dims: dict[str, tuple[int, str, int]] = {}
        bind(self.name, "input", self.inputs, list(shapes), None, dims)
        bind(self.name, "output", self.outputs, [o.shape for o in graph.outputs], None, dims)
        for spec in graph.params.values():
            if spec.name not in self.params:
                self.params[spec.name] = init_param(spec, self.seed)
            elif self.params[spec.name].shape != spec.shape:
                raise ShapeError(f"{self.name}: parameter {spec.name!r} has shape "
                                 f"{list(self.params[spec.name].shape)}, but inputs of shapes "
                                 f"{[list(s) for s in shapes]} need {list(spec.shape)}")
        return graph

    def _compiled(self, shapes: tuple[tuple[int, ...], ...], kind: str,
                  fuse: bool = True) -> Compiled:
        key = (kind, fuse, shapes)
        if key not in self._cache:
            graph = self.trace(shapes)
            if kind == "forward":
                out_dtypes = [s.dtype for s in self.outputs]
            else:
                grads = [graph.input(len(shapes) + j, o.shape, "float32", f"grad_{s.name}")
                         for j, (o, s) in enumerate(zip(graph.outputs, self.outputs,
                                                        strict=True))]
                wrt = list(graph.inputs[:len(shapes)]) + list(graph.param_nodes.values())
                graph.outputs = autodiff.backward(graph, grads, wrt)
                out_dtypes = ["float32"] * len(wrt)
            dtypes = prepare(graph, out_dtypes)
            self._cache[key] = Compiled(graph, dtypes,
                                        compile_graph(graph, dtypes, self.name, fuse))
        return self._cache[key]

    # ---- running --------------------------------------------------------------------------
    def _arrays(self, args: Sequence[Any]) -> tuple[list[np.ndarray], bool]:
        validate_inputs(self.name, self.inputs, args)
        torch_in = any(type(a).__module__.startswith("torch") for a in args)
        arrays = [np.asarray(a.detach().cpu().numpy() if hasattr(a, "detach") else a)
                  for a in args]
        return arrays, torch_in

    def __call__(self, *args: Any, out: Any = None) -> Any:
        """Run on numpy arrays (or CPU torch tensors); out= (an array or a tuple, one per
        output, contiguous, of the output spec's dtype and shape) receives the results in
        place: the generated kernels write it directly."""
        arrays, torch_in = self._arrays(args)
        outs = self.forward(*arrays, out=out)
        if torch_in:
            import torch

            outs = tuple(torch.from_numpy(np.array(o)) for o in outs)
        return outs[0] if len(outs) == 1 else outs

    def forward(self, *arrays: np.ndarray, fuse: bool = True,
                out: Any = None) -> tuple[np.ndarray, ...]:
        """Run the forward kernels on numpy arrays (validated); a tuple of outputs."""
        validate_inputs(self.name, self.inputs, arrays)
        shapes = tuple(tuple(a.shape) for a in arrays)
        comp = self._compiled(shapes, "forward", fuse)
        given = None
        if out is not None:
            given = list(out) if isinstance(out, (tuple, list)) else [out]
            bind(self.name, "out", self.outputs, [np.shape(o) for o in given],
                 [np.asarray(o).dtype.name for o in given], {})
        outs, runs = execute(comp.kernels, comp.graph, comp.dtypes, list(arrays), self.params,
                             given)
        if fuse:
            self.runs = runs
            self._last_shapes, self._last_args = shapes, list(arrays)
        return tuple(outs)

    def backward(self, grad_out: Any, *inputs: Any) -> Gradients:
        """Gradients of sum(output * grad_out) w.r.t. the inputs and the parameters, computed
        by generated backward kernels. grad_out: one array per output (a tuple if several),
        converted to float32."""
        arrays, _ = self._arrays(inputs)
        gouts = grad_out if isinstance(grad_out, (tuple, list)) else (grad_out,)
        gouts = [np.asarray(g.detach().cpu().numpy() if hasattr(g, "detach") else g,
                            dtype=np.float32) for g in gouts]
        shapes = tuple(tuple(a.shape) for a in arrays)
        comp = self._compiled(shapes, "backward")
        want = [o.shape for o in comp.graph.inputs[len(shapes):]]
        bind(self.name, "grad_out", [TensorSpec(f"grad_{s.name}", "float32", w)
                                     for s, w in zip(self.outputs, want, strict=True)],
             [g.shape for g in gouts], None, {})
        outs, runs = execute(comp.kernels, comp.graph, comp.dtypes, [*arrays, *gouts],
                             self.params)
        self.runs = runs
        n = len(arrays)
        names = list(comp.graph.param_nodes)
        return Gradients(tuple(outs[:n]), dict(zip(names, outs[n:], strict=True)), runs)

    # ---- looking inside -------------------------------------------------------------------
    def _shapes(self, args: Sequence[Any]) -> tuple[tuple[int, ...], ...]:
        if args:
            arrays, _ = self._arrays(args)
            return tuple(tuple(a.shape) for a in arrays)
        if self._last_shapes is None:
            raise RuntimeError(f"{self.name}: call the operator once (or pass example inputs) "
                               f"so its dims are bound")
        return self._last_shapes

    def kernels(self, *args: Any, backward: bool = False, fuse: bool = True) -> list[Lowered]:
        """The generated kernels for these inputs (default: the latest call's shapes)."""
        kind = "backward" if backward else "forward"
        return self._compiled(self._shapes(args), kind, fuse).kernels

    def lower(self, *args: Any, backward: bool = False, fuse: bool = True) -> str:
        """The generated pyasc source of every kernel, in launch order."""
        ks = self.kernels(*args, backward=backward, fuse=fuse)
        return "\n\n".join(f"# ---- {k.filename} ({k.blocks} cores) ----\n{k.source}"
                           for k in ks)

    def edit_kernel(self, name: str, source: str, *args: Any, backward: bool = False) -> None:
        """Replace the generated kernel `name` (e.g. "map_10") by an edited version of its
        source (same function name and parameters); later calls with these shapes (default:
        the latest call's) run the edited kernel."""
        from .lower import exec_source

        for k in self.kernels(*args, backward=backward):
            if k.step.name == name:
                k.kernel = exec_source(source, f"{k.filename[:-1]} (edited)>", name)
                k.source = source
                return
        names = [k.step.name for k in self.kernels(*args, backward=backward)]
        raise KeyError(f"{self.name}: no kernel {name!r}; the kernels are {names}")

    def graph(self, *args: Any, backward: bool = False) -> Graph:
        kind = "backward" if backward else "forward"
        return self._compiled(self._shapes(args), kind).graph

    def explain(self, *args: Any) -> Any:
        """Kernels, tiles and modelled cycles of the fused lowering beside the unfused one
        (each element-wise op its own kernel), both run on these inputs (default: the latest
        call's)."""
        from .explain import explain

        arrays = self._arrays(args)[0] if args else self._last_args
        if arrays is None:
            raise RuntimeError(f"{self.name}: call the operator once (or pass example inputs)")
        return explain(self, arrays)

    def to_torch(self, *examples: Any) -> Any:
        """A torch.nn.Module whose forward is backed by a torch.autograd.Function running this
        operator's forward and backward kernels; parameters become nn.Parameters. Parameter
        shapes come from example inputs (default: the latest call's)."""
        from .torch_interop import TorchOperator

        return TorchOperator(self, examples)


def ascend_kernel(inputs: Sequence[TensorSpec], outputs: Sequence[TensorSpec],
                  name: str | None = None, seed: int = 0
                  ) -> Callable[[Callable[..., Any]], AscendKernel]:
    """Decorator: define an operator's logic in NumPy style (ascendlab.ops), get kernels."""

    def wrap(fn: Callable[..., Any]) -> AscendKernel:
        return AscendKernel(fn, inputs, outputs, name, seed)

    return wrap


def grad(op: AscendKernel) -> Callable[..., Gradients]:
    """f(*inputs, grad_out=None) -> Gradients of sum(outputs * grad_out); grad_out defaults to
    ones (the gradient of the outputs' sum)."""

    def f(*inputs: Any, grad_out: Any = None) -> Gradients:
        if grad_out is None:
            outs = op.forward(*op._arrays(inputs)[0])
            grad_out = tuple(np.ones(o.shape, np.float32) for o in outs)
        return op.backward(grad_out, *inputs)

    return f
