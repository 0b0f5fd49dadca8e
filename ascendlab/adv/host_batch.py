"""asc.lib.host.BatchMatmulTiling on the emulator: the tiling of one batch of a batched Matmul
(the kernel's IterateBatch), as Ascend C's BatchMatmulTiling (bmm_tiling.h) builds it.

It is MatmulApiTilingBase with one core (Ascend C's blockDim stays 1: the class has no set_dim)
and its own `get_core_num`. The batch layout setters (`set_a/b/c_layout`, `set_batch_num`,
`set_batch_info_for_normal`) are the base class's: their values are copied into the tiling.
The kernel-side IterateBatch is not emulated.
"""

from __future__ import annotations

from .host_tiling import MatmulApiTilingBase


class BatchMatmulTiling(MatmulApiTilingBase):
    """Tiling of one batch on one core (used_core_num = 1); batch_m = batch_n = 1."""

    def get_core_num(self) -> tuple[int, int, int, int, int]:
        """(dim, m_dim, n_dim, batch_core_m, batch_core_n) of the last successful get_tiling:
        used_core_num, ceil(m / single_core_m), ceil(n / single_core_n) over the org m, n, and
        the batch splits (Ascend C fixes batch_m = batch_n = single_batch_m/n = 1, so 1 and 1);
        zeros before."""
        if self._result is None:
            return (0, 0, 0, 0, 0)
        p, _, used = self._result
        s = self._s
        m, n = s.org[:2] if s.org else self._shape_mn()
        return (used, -(-m // p.scm), -(-n // p.scn), 1, 1)


__all__ = ["BatchMatmulTiling"]
