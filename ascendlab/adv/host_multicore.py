"""asc.lib.host.MultiCoreMatmulTiling on the emulator: the tiling of a Matmul split over cores
(Ascend C's MultiCoreMatmulTiling, bmm_tiling.h). The shared setters and get_tiling are
MatmulApiTilingBase's (host_tiling.py); this class adds the core count, the single-core shape
and its queries."""

from __future__ import annotations

from .host_tiling import MatmulApiTilingBase, int32_args


class MultiCoreMatmulTiling(MatmulApiTilingBase):
    """Multi-core tiling: splits m x n into at most set_dim blocks (used_core_num of them);
    set_dim defaults to 1, as Ascend C's blockDim."""

    _multi_core = True

    def set_dim(self, dim: int) -> int:
        """The number of blocks the tiling may use (a MIX kernel counts vector cores)."""
        int32_args("set_dim", dim=dim)
        cap = self.platform.get_core_num()
        if not 1 <= dim <= cap:
            return self._fail(f"set_dim({dim}): must be 1..{cap} (the vector cores of "
                              f"{self.platform.chip.name})")
        self._s.dim = dim
        return self._ok()

    def set_single_shape(self, single_m_in: int = -1, single_n_in: int = -1,
                         single_k_in: int = -1) -> int:
        """Fix one core's block (-1: set_shape's size). With any value set, Ascend C tiles
        that one block and reports used_core_num = set_dim: how the blocks cover the shape
        (more blocks than cores, a K split) is the kernel's business."""
        int32_args("set_single_shape", single_m=single_m_in, single_n=single_n_in,
              single_k=single_k_in)
        for name, v in (("single_m", single_m_in), ("single_n", single_n_in),
                        ("single_k", single_k_in)):
            if v != -1 and v < 1:
                return self._fail(f"set_single_shape: {name} = {v} must be -1 or >= 1")
        self._s.single = (single_m_in, single_n_in, single_k_in)
        return self._ok()

    def set_align_split(self, align_m: int, align_n: int, align_k: int) -> int:
        """Make single_core_m / single_core_n multiples of align_m / align_n (-1 or 0: free).
        align_k has no effect: the generator never splits K."""
        int32_args("set_align_split", align_m=align_m, align_n=align_n, align_k=align_k)
        self._s.align = (max(1, align_m), max(1, align_n))
        return self._ok()

    def enable_multi_core_split_k(self, flag: bool) -> None:
        """Recorded: Ascend C may then split K across cores; the emulator's generator never
        does (single_core_k = k unless set_single_shape sets it)."""
        self._s.split_k = bool(flag)

    def set_single_range(self, max_m: int = -1, max_n: int = -1, max_k: int = -1,
                         min_m: int = -1, min_n: int = -1, min_k: int = -1) -> int:
        """Recorded, no effect: Ascend C's tiling does not read the range either."""
        values = (max_m, max_n, max_k, min_m, min_n, min_k)
        int32_args("set_single_range", **dict(zip("max_m max_n max_k min_m min_n min_k".split(),
                                             values, strict=True)))
        self._s.single_range = values
        return self._ok()

    def get_core_num(self) -> tuple[int, int, int]:
        """(dim, m_dim, n_dim) of the last successful get_tiling: used_core_num and
        ceil(m / single_core_m), ceil(n / single_core_n); zeros before."""
        if self._result is None:
            return (0, 0, 0)
        p, _, used = self._result
        m, n = self._shape_mn()
        return (used, -(-m // p.scm), -(-n // p.scn))

    def get_single_shape(self) -> tuple[int, int, int]:
        """(single_core_m, single_core_n, single_core_k) of the last get_tiling; zeros before."""
        if self._result is None:
            return (0, 0, 0)
        p, k, _ = self._result
        return (p.scm, p.scn, k)


__all__ = ["MultiCoreMatmulTiling"]
