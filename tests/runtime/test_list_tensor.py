"""ListTensorDesc / TensorDesc (runtime/memory/list_tensor.py): a list of GM tensors built on the
host in Ascend C's layout, read in a kernel, against numpy."""

from __future__ import annotations

import numpy as np
import pytest

import ascendlab
import ascendlab.asc as asc
from ascendlab.errors import OutOfBoundsError, ParamError
from ascendlab.runtime.memory.list_tensor import arg_address, list_bytes


@asc.jit
def read_list(lst: asc.GlobalAddress, a: asc.GlobalAddress, b: asc.GlobalAddress,
              out: asc.GlobalAddress, n_bytes: int, count: int, pick: int):
    o = asc.GlobalTensor()
    o.set_global_buffer(out)
    desc = asc.ListTensorDesc(data=lst, length=n_bytes, shape_size=count)
    td = asc.TensorDesc(asc.float32)
    td.set_shape_addr(64)
    desc.get_desc(td, pick)
    o.set_value(0, desc.get_size())
    o.set_value(1, td.get_dim())
    o.set_value(2, td.get_shape(0))
    o.set_value(3, td.get_shape(1))
    o.set_value(4, td.get_index())
    g = td.get_data_obj()
    o.set_value(5, g.get_value(3))
    first = asc.GlobalTensor()
    first.set_global_buffer(desc.get_data_ptr(0, asc.float32))
    o.set_value(6, first.get_value(5))


def _list():
    # memory arguments in signature order: lst 0, a 1, b 2, out 3
    words = list_bytes([arg_address(1), arg_address(2, 8)], [(2, 4), (3, 2)])
    return words, words.nbytes


def test_a_list_of_two_tensors():
    words, n_bytes = _list()
    a = np.arange(8, dtype=np.float32)
    b = np.arange(100, 110, dtype=np.float32)
    out = np.zeros(8, np.float32)
    run = ascendlab.launch(read_list, 1, words, a, b, out, n_bytes, 2, 1)
    # 2 tensors; tensor 1 is 3 x 2 at b + 2 elements; tensor 0's element 5 is a[5]
    assert out[:7].tolist() == [2, 2, 3, 2, 1, b[2 + 3], a[5]]
    reads = [e for e in run.trace if e.op == "get_value" and e.reads[0].name == "lst"]
    assert len(reads) >= 6 and all(e.pipe == "S" for e in reads)


@pytest.mark.parametrize("n_bytes, count, pick, exc, words", [
    (999, 2, 1, ParamError, ["length=999 B", "2 tensors"]),
    (None, 3, 1, ParamError, ["shape_size=3"]),
    (None, 2, 2, OutOfBoundsError, ["index 2 is outside the list's 2 tensors"]),
])
def test_list_checks(n_bytes, count, pick, exc, words):
    lst, real = _list()
    z = np.zeros(8, np.float32)
    with pytest.raises(exc) as info:
        ascendlab.launch(read_list, 1, lst, z, z.copy(), z.copy(), n_bytes or real, count, pick)
    for w in words:
        assert w in str(info.value)


def test_a_malformed_list_and_a_stray_pointer():
    z = np.zeros(8, np.float32)
    with pytest.raises(ParamError, match="malformed"):
        ascendlab.launch(read_list, 1, np.zeros(8, np.uint64), z, z.copy(), z.copy(),
                         64, 2, 0)
    stray = list_bytes([arg_address(7), arg_address(2)], [(2, 4), (3, 2)])
    with pytest.raises(OutOfBoundsError, match="not inside any GM argument"):
        ascendlab.launch(read_list, 1, stray, z, z.copy(), z.copy(), stray.nbytes, 2, 0)


def test_bare_pointers():
    @asc.jit
    def bare(lst: asc.GlobalAddress, a: asc.GlobalAddress, out: asc.GlobalAddress):
        o = asc.GlobalTensor()
        o.set_global_buffer(out)
        desc = asc.ListTensorDesc()
        desc.init(lst)
        g = asc.GlobalTensor()
        g.set_global_buffer(desc.get_data_ptr(1, asc.int32))
        o.set_value(0, desc.get_size())
        o.set_value(1, g.get_value(2))

    lst = list_bytes([arg_address(1), arg_address(1, 4)])
    out = np.zeros(2, np.int32)
    ascendlab.launch(bare, 1, lst, np.arange(10, 20, dtype=np.int32), out)
    assert out.tolist() == [2, 13]  # pointer 1 is a + 1 element: its element 2 is a[3]
