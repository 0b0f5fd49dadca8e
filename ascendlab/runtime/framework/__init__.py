"""Ascend C's kernel framework: TPipe carves UB/L1 into queue slots (TQue, TBuf), TBufPool
shares a region between stages, LocalMemAllocator places static tensors without a TPipe."""
