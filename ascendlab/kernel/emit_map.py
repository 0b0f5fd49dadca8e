"""The fused element-wise kernel: one pass over GM for a group of element-wise nodes.

The output shape S splits into rows x inner (S[:k] x S[k:]) at the smallest k where every
operand either has the inner dims (a "row" operand: a tile is loaded from GM) or has them all 1
(a "scalar" operand: one value per row, read on the scalar pipe and used by the vector
instructions' scalar forms). Tiles of a row are the loop's units, split over the vector cores.
Everything is computed in float32 (fp16 operands are cast up on load, outputs cast down with
round-to-nearest-even on store), the way CANN kernels keep fp16 chains accurate.
"""

from __future__ import annotations

from dataclasses import dataclass

from .graph import COMPARE, Node
from .plan import Step, storage
from .source import (
    ESIZE,
    LANES,
    Src,
    blocks_for,
    copy_in,
    copy_out,
    core_split,
    header,
    prod,
    tile_for,
)

VV = {"add": "add", "sub": "sub", "mul": "mul", "div": "div", "maximum": "max",
      "minimum": "min"}
UNARY = {"exp": "exp", "log": "ln", "sqrt": "sqrt", "abs": "abs", "relu": "relu"}
CMP = {"gt": "GT", "ge": "GE", "lt": "LT", "le": "LE", "eq": "EQ", "ne": "NE"}


@dataclass
class Operand:
    node: Node
    kind: str  # "row" | "scalar"
    offset: str  # GM element offset of the row's first element, from `row`
    dtype: str
    var: str  # kernel parameter name


def _padded(shape: tuple[int, ...], rank: int) -> tuple[int, ...]:
    return (1,) * (rank - len(shape)) + tuple(shape)


def split(shape: tuple[int, ...], inputs: list[Node]) -> int:
    """The smallest k at which every operand is a row or a scalar operand."""
    rank = len(shape)
    for k in range(rank + 1):
        inner = shape[k:]
        if all(_padded(x.shape, rank)[k:] in (inner, (1,) * (rank - k)) for x in inputs):
            return k
    return rank


def _offset(x: Node, shape: tuple[int, ...], k: int, inner: int) -> str:
    """The GM offset (elements) of row `row`'s data in operand x (broadcast dims stride 0)."""
    s = _padded(x.shape, len(shape))
    if s[:k] == shape[:k]:
        return f"row * {inner}" if inner != 1 else "row"
    terms = []
    for d in range(k):
        if s[d] == 1:
            continue
        stride = prod(s[d + 1:])
        div = prod(shape[d + 1:k])
        terms.append(f"row // {div} % {shape[d]} * {stride}" if div != 1
                     else f"row % {shape[d]} * {stride}")
    return " + ".join(terms) or "0"


class _Regs:
    """float32 tile temporaries with reuse after a value's last use."""

    def __init__(self) -> None:
        self.free: list[int] = []
        self.count = 0

    def get(self) -> str:
        if self.free:
            return f"t{self.free.pop()}"
        self.count += 1
        return f"t{self.count - 1}"

    def put(self, name: str) -> None:
        if name.startswith("t") and name[1:].isdigit():
            self.free.append(int(name[1:]))


def _describe(n: Node) -> str:
    """A node as a learner knows it: an input's or parameter's name, else its op and id."""
    while n.op == "reshape":
        n = n.args[0]
    return n.attrs.get("name") or f"%{n.id} ({n.op})"


def _operands(n: Node) -> list[Node]:
    return [*n.args[0].args, n.args[1], n.args[2]] if n.op == "where" else list(n.args)


class MapEmitter:
    """Writes the kernel source for one map step."""

    def __init__(self, step: Step, dtypes: dict[int, str], cores: int, title: str) -> None:
        self.step, self.dtypes, self.title = step, dtypes, title
        self.shape = step.outputs[0].shape
        self.k = split(self.shape, step.inputs)
        self.inner = prod(self.shape[self.k:])
        self.rows = prod(self.shape[:self.k])
        rank = len(self.shape)
        self.ops: list[Operand] = []
        for i, x in enumerate(step.inputs):
            row = _padded(x.shape, rank)[self.k:] == self.shape[self.k:]
            kind = "row" if row else "scalar"
            inner = self.inner if row else 1
            self.ops.append(Operand(x, kind, _offset(x, self.shape, self.k, inner),
                                    dtypes[storage(x).id], f"x{i}"))
        self.out_dtypes = [dtypes[o.id] for o in step.outputs]
        self.out_count = {dt: self.out_dtypes.count(dt) for dt in ESIZE}
        self.out_index = [self.out_dtypes[:k].count(dt) for k, dt in enumerate(self.out_dtypes)]
        self.in_dtypes: list[str] = []
        self.regs = _Regs()
        self.body = Src(depth=2)
        self.val: dict[int, str] = {}  # node id -> vector tensor name or scalar expression
        self.vec: set[int] = set()
        self.uses_mask = False
        self.cores = cores

    # ---- values ---------------------------------------------------------------------------
    def _last_use(self) -> dict[int, int]:
        last: dict[int, int] = {}
        for i, n in enumerate(self.step.nodes):
            for x in _operands(n):
                last[x.id] = i
        for o in self.step.outputs:
            last[o.id] = len(self.step.nodes)
        return last

    def _release(self, i: int, n: Node, last: dict[int, int]) -> None:
        for x in {x.id: x for x in _operands(n)}.values():
            if last.get(x.id) == i and x.id in self.vec:
                self.regs.put(self.val[x.id])

    def _vector(self, x: Node, scratch: list[str]) -> str:
        """x as a tensor name, duplicating a scalar into a scratch temp when needed."""
        if x.id in self.vec:
            return self.val[x.id]
        t = self.regs.get()
        scratch.append(t)
        self.body(f"asc.duplicate({t}, {self.val[x.id]}, n)")
        return t

    # ---- instructions ---------------------------------------------------------------------
    def _unary(self, op: str, d: str, a: str) -> None:
        b = self.body
        if op in UNARY:
            b(f"asc.{UNARY[op]}({d}, {a}, n)")
        elif op == "neg":
            b(f"asc.muls({d}, {a}, -1.0, n)")
        elif op in ("copy", "broadcast_to"):
            b(f"asc.adds({d}, {a}, 0.0, n)")
        elif op == "sigmoid":  # 1 / (1 + exp(-a))
            b(f"asc.muls({d}, {a}, -1.0, n)", f"asc.exp({d}, {d}, n)",
              f"asc.adds({d}, {d}, 1.0, n)", f"asc.reciprocal({d}, {d}, n)")
        elif op == "tanh":  # 2 / (1 + exp(-2a)) - 1
            b(f"asc.muls({d}, {a}, -2.0, n)", f"asc.exp({d}, {d}, n)",
              f"asc.adds({d}, {d}, 1.0, n)", f"asc.reciprocal({d}, {d}, n)",
              f"asc.muls({d}, {d}, 2.0, n)", f"asc.adds({d}, {d}, -1.0, n)")
        else:
            raise NotImplementedError(f"lowering: no vector form for {op!r}")

    def _binary(self, n: Node, d: str, scratch: list[str]) -> None:
        a, c = n.args
        va, vc = a.id in self.vec, c.id in self.vec
        x, y = self.val[a.id], self.val[c.id]
        b = self.body
        if va and vc:
            b(f"asc.{VV[n.op]}({d}, {x}, {y}, n)")
        elif va or n.op in ("add", "mul", "maximum", "minimum"):
            vec, s = (x, y) if va else (y, x)
            form = {"add": f"asc.adds({d}, {vec}, {s}, n)", "mul": f"asc.muls({d}, {vec}, {s}, n)",
                    "maximum": f"asc.maxs({d}, {vec}, {s}, n)",
                    "minimum": f"asc.mins({d}, {vec}, {s}, n)",
                    "sub": f"asc.adds({d}, {vec}, -({s}), n)",
                    "div": f"asc.muls({d}, {vec}, 1.0 / ({s}), n)"}
            b(form[n.op])
        elif n.op == "sub":  # scalar - vector
            b(f"asc.muls({d}, {y}, -1.0, n)", f"asc.adds({d}, {d}, {x}, n)")
        else:  # scalar / vector
            b(f"asc.reciprocal({d}, {y}, n)", f"asc.muls({d}, {d}, {x}, n)")

    def _temp(self, name: str, scratch: list[str]) -> str:
        """compare reads whole 256 B repeats: past n it must read written memory, which the
        zero-filled temps are and a queue tile's tail is not, so queue operands are copied."""
        if name.startswith("t") and name[1:].isdigit():
            return name
        t = self.regs.get()
        scratch.append(t)
        self.body(f"asc.adds({t}, {name}, 0.0, n)")
        return t

    def _where(self, n: Node, d: str, scratch: list[str]) -> None:
        cmp, a, c = n.args
        p, q = (self._temp(self._vector(x, scratch), scratch) for x in cmp.args)
        self.body(f"asc.compare(mask, {p}, {q}, asc.CMPMODE.{CMP[cmp.op]}, "
                  f"(n + {LANES - 1}) // {LANES} * {LANES})")
        x, y = self._vector(a, scratch), self._vector(c, scratch)
        self.body(f"asc.select({d}, mask, {x}, {y}, asc.SelMode.VSEL_TENSOR_TENSOR_MODE, n)")
        self.uses_mask = True

    def _node(self, i: int, n: Node, last: dict[int, int], outs: dict[int, int]) -> None:
        scratch: list[str] = []
        k = outs.get(n.id)
        direct = k is not None and self.out_dtypes[k] == "float32"
        if direct:
            d = self._slot("yout", "float32", self.out_index[k], self.out_count["float32"])
        else:
            d = self.regs.get()
        if n.op == "where":
            self._where(n, d, scratch)
        elif n.op in VV:
            self._binary(n, d, scratch)
        elif n.op in COMPARE:
            raise NotImplementedError(f"lowering: a comparison ({n.op}) can only be used as the "
                                      f"condition of where()")
        else:
            self._unary(n.op, d, self._vector(n.args[0], scratch))
        for t in scratch:
            self.regs.put(t)
        self.val[n.id], _ = d, self.vec.add(n.id)
        self._release(i, n, last)

    # ---- the kernel -----------------------------------------------------------------------
    def _slot(self, group: str, dtype: str, index: int, count: int) -> str:
        """The tensor (or view) of operand `index` in its dtype's shared queue tensor."""
        name = f"{group}{ESIZE[dtype] * 8}"
        return name if count == 1 else f"{name}[{index} * TILE:]"

    def _loads(self) -> None:
        """One VECIN queue per dtype holds all row operands of that dtype (queues have at most
        8 buffers per position): copy in, enque, deque, cast fp16 up to float32 temps."""
        b = self.body
        rows = [o for o in self.ops if o.kind == "row"]
        by_dt = {dt: [o for o in rows if o.dtype == dt] for dt in ESIZE}
        self.in_dtypes = [dt for dt in ESIZE if by_dt[dt]]
        for dt in self.in_dtypes:
            b(f"xin{ESIZE[dt] * 8} = qin{ESIZE[dt] * 8}.alloc_tensor(asc.{dt})")
            for j, o in enumerate(by_dt[dt]):
                gm = f"g{o.var}[{o.offset} + col:]"
                copy_in(b, self._slot("xin", dt, j, len(by_dt[dt])), gm, "n", dt,
                        self._aligned(dt))
            b(f"qin{ESIZE[dt] * 8}.enque(xin{ESIZE[dt] * 8})")
        for o in self.ops:
            if o.kind == "scalar":
                b(f"s{o.var[1:]} = g{o.var}.get_value({o.offset})")
                self.val[o.node.id] = f"s{o.var[1:]}"
        for dt in self.in_dtypes:
            b(f"xin{ESIZE[dt] * 8} = qin{ESIZE[dt] * 8}.deque(asc.{dt})")
            for j, o in enumerate(by_dt[dt]):
                view = self._slot("xin", dt, j, len(by_dt[dt]))
                if dt == "float16":
                    t = self.regs.get()
                    b(f"asc.cast({t}, {view}, asc.RoundMode.CAST_NONE, n)")
                    self.val[o.node.id] = t
                else:
                    self.val[o.node.id] = view
                self.vec.add(o.node.id)
        if "float16" in self.in_dtypes:
            b("qin16.free_tensor(xin16)")

    def _aligned(self, dtype: str) -> bool:
        return self.inner * ESIZE[dtype] % 32 == 0

    def _stores(self) -> None:
        b = self.body
        if "float32" in self.in_dtypes:
            b("qin32.free_tensor(xin32)")
        for dt in ESIZE:
            if not self.out_count[dt]:
                continue
            bits = ESIZE[dt] * 8
            if dt != "float32":
                b(f"yout{bits} = qout{bits}.alloc_tensor(asc.{dt})")
            for k, o in enumerate(self.step.outputs):
                if self.out_dtypes[k] == dt and dt != "float32":
                    view = self._slot("yout", dt, self.out_index[k], self.out_count[dt])
                    b(f"asc.cast({view}, {self.val[o.id]}, asc.RoundMode.CAST_RINT, n)")
            b(f"qout{bits}.enque(yout{bits})", f"yout{bits} = qout{bits}.deque(asc.{dt})")
            for k in range(len(self.step.outputs)):
                if self.out_dtypes[k] == dt:
                    view = self._slot("yout", dt, self.out_index[k], self.out_count[dt])
                    copy_out(b, f"gy{k}[row * {self.inner} + col:]", view, "n", dt,
                             self._aligned(dt))
            b(f"qout{bits}.free_tensor(yout{bits})")

    def emit(self) -> tuple[str, int, int]:
        """(source, block_num)."""
        self.val.update({n.id: repr(n.attrs["value"]) for n in self._consts()})
        self._loads()
        if self.out_count["float32"]:
            self.body("yout32 = qout32.alloc_tensor(asc.float32)")
        last = self._last_use()
        outs = {o.id: k for k, o in enumerate(self.step.outputs)}
        for i, n in enumerate(self.step.nodes):
            self._node(i, n, last, outs)
        self._stores()
        return self._assemble()

    def _consts(self) -> list[Node]:
        return [x for n in self.step.nodes for x in _operands(n) if x.op == "const"]

    def _assemble(self) -> tuple[str, int, int]:
        bpe = sum(2 * ESIZE[o.dtype] for o in self.ops if o.kind == "row")
        bpe += sum(2 * ESIZE[d] for d in self.out_dtypes) + 4 * max(1, self.regs.count) + 1
        tile = tile_for(self.inner, bpe, self.rows, self.cores)
        chunks = -(-self.inner // tile)
        units = self.rows * chunks
        blocks, per_core = blocks_for(units, self.cores)
        src = Src()
        header(src, self.title, [
            ("TILE", tile, f"elements per tile ({bpe} B of UB per element incl. double buffers)"),
            ("INNER", self.inner, f"elements per row: {list(self.shape)} = {self.rows} rows"),
            ("CHUNKS", chunks, "tiles per row"),
            ("UNITS", units, f"rows x chunks, split over {blocks} vector cores")])
        params = [f"{o.var}: asc.GlobalAddress" for o in self.ops]
        params += [f"y{k}: asc.GlobalAddress" for k in range(len(self.step.outputs))]
        src("@asc.jit", f"def {self.step.name}(")
        for p in [*params, "per_core: int"]:
            src(f"        {p},")
        src("):")
        src.indent()
        for o in self.ops:
            src(f"# {o.var}: {_describe(o.node)} {o.dtype} {list(o.node.shape)}, one "
                f"{'tile' if o.kind == 'row' else 'value'} per row")
        for k, o in enumerate(self.step.outputs):
            src(f"# y{k}: {_describe(o)} {self.out_dtypes[k]} {list(o.shape)}")
        core_split(src, "UNITS")
        for v in [o.var for o in self.ops] + [f"y{k}" for k in range(len(self.out_dtypes))]:
            src(f"g{v} = asc.GlobalTensor()", f"g{v}.set_global_buffer({v})")
        src("pipe = asc.TPipe()")
        for dt in self.in_dtypes:
            count = sum(1 for o in self.ops if o.kind == "row" and o.dtype == dt)
            src(f"qin{ESIZE[dt] * 8} = asc.TQue(asc.TPosition.VECIN, 2)",
                f"pipe.init_buffer(qin{ESIZE[dt] * 8}, 2, TILE * {ESIZE[dt] * count})")
        for dt in ESIZE:
            if self.out_count[dt]:
                src(f"qout{ESIZE[dt] * 8} = asc.TQue(asc.TPosition.VECOUT, 2)",
                    f"pipe.init_buffer(qout{ESIZE[dt] * 8}, 2, TILE * "
                    f"{ESIZE[dt] * self.out_count[dt]})")
        temps = self.regs.count
        mask_bytes = tile // 8 if self.uses_mask else 0
        if temps or mask_bytes:
            src("work = asc.TBuf(asc.TPosition.VECCALC)",
                f"pipe.init_buffer(work, TILE * 4 * {temps} + {mask_bytes})")
        for t in range(temps):
            src(f"t{t} = work.get_with_offset(TILE, TILE * 4 * {t}, asc.float32)")
        if mask_bytes:
            src(f"mask = work.get_with_offset(TILE // 8, TILE * 4 * {temps}, asc.uint8)")
            for t in range(temps):  # compare reads up to a whole repeat past n: no poison there
                src(f"asc.duplicate(t{t}, 0.0, TILE)")
        src("for u in range(first, last):")
        src.indent()
        src("row = u // CHUNKS", "col = u % CHUNKS * TILE", "n = INNER - col", "if n > TILE:")
        src.indent()
        src("n = TILE")
        src.dedent()
        src.lines.extend(self.body.lines)
        return src.text(), blocks, per_core
