"""The host side of Ascend C's ListTensorDesc: list_tensor_desc lays out, in a uint64 numpy array, the descriptor a
kernel decodes with asc.ListTensorDesc (src/ir/ops_list_tensor.cpp gives the layout and cites the documentation).

A data pointer is a GM address: a torch_npu tensor's data_ptr() on a board; on the Model, the address of a numpy
array's (or a CPU torch tensor's) data, which the launch must have among its arguments: the Model's GM is the
launch's arguments. The array holds raw addresses: keep the tensors alive while kernels use it."""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

_LOW32 = 0xFFFFFFFF


def _address_and_shape(t: Any, i: int) -> tuple[int, tuple[int, ...]]:
    if isinstance(t, np.ndarray):
        if not t.flags.c_contiguous:
            raise ValueError(f"list_tensor_desc: tensor {i} is not C-contiguous; a kernel reads its data as one run")
        return int(t.ctypes.data), tuple(int(s) for s in t.shape)
    if hasattr(t, "data_ptr") and hasattr(t, "shape"):  # a torch tensor
        if hasattr(t, "is_contiguous") and not t.is_contiguous():
            raise ValueError(f"list_tensor_desc: tensor {i} is not contiguous; a kernel reads its data as one run")
        return int(t.data_ptr()), tuple(int(s) for s in t.shape)
    raise TypeError(f"list_tensor_desc: tensor {i} must be a numpy array or a torch tensor, got {type(t).__name__}")


def list_tensor_desc(tensors: Sequence[Any], shapes: bool = True) -> np.ndarray:
    """The ListTensorDesc buffer of `tensors` (numpy arrays or torch tensors), as uint64 words: the pointer array's
    byte offset, then per tensor a header word (dim | index << 32) and its shape, then the data pointers. Every
    tensor must have the first's number of dimensions (the layout has one record size). ``shapes=False`` gives
    the list of data pointers only (dim 0), whose TensorDescs have no shapes. Pass it and the tensors to the
    kernel; ``asc.ListTensorDesc(data, length=buf.nbytes, shape_size=len(tensors))`` checks both."""
    items = [_address_and_shape(t, i) for i, t in enumerate(tensors)]
    if not items:
        raise ValueError("list_tensor_desc: the list needs at least one tensor")
    if len(items) > _LOW32:
        raise ValueError(f"list_tensor_desc: {len(items)} tensors do not fit the 32-bit count")
    pointers = [p for p, _ in items]
    if not shapes:
        return np.array([24, len(items) << 32, _LOW32, *pointers], dtype=np.uint64)
    dim = len(items[0][1])
    if dim == 0:
        raise ValueError("list_tensor_desc: 0-d tensors have no shape words; use shapes=False for a list of pointers")
    words: list[int] = [0]
    for i, (_, shape) in enumerate(items):
        if len(shape) != dim:
            raise ValueError(
                f"list_tensor_desc: tensor {i} has {len(shape)} dimensions and tensor 0 has {dim}: the layout gives "
                "every tensor the same number"
            )
        words += [dim | (i << 32), *shape]
    words[0] = 8 * len(words)
    return np.array(words + pointers, dtype=np.uint64)
