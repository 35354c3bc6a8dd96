"""The table of C kernel adapters: for an op type, a Python function that runs its C kernel on ndarrays.

An adapter has the same signature as the op's NumPy kernel (`adapter(*arrays, **attrs) -> ndarray`) and
calls the C function through ctypes, passing `ndarray.ctypes.data` pointers (zero-copy; non-contiguous
inputs are made contiguous first). Each kernel family keeps its adapters in `c_kernels_<family>.py`:

    @c_kernel("Softmax", dtypes=FLOATS, min_size=256)
    def softmax(logits):
        ...

`min_size` is the automatic selection policy (backends/selection.py): the C kernel runs when the op's
deciding input (`size_input`) has at least that many elements; None = only when a C backend is forced.
`wins(op)`, where given, narrows that for graph ops at plan time to the shapes C wins on (MatMul: a thin side).
An adapter that cannot handle its inputs (a dtype or layout its C function lacks) raises `Unsupported`
before touching anything, and the NumPy kernel runs instead.
`update=True` marks an adapter that replaces an optimizer's update formula (ops/training_ops.py) rather
than the whole kernel, so the variable plumbing (ref or resource) stays in one place.

Adapters take and return the backend's storage: NumPy arrays when NumPy exists, `c_array.CArray`s when it
does not (Pyodide). They reach both through the helpers below (`empty`, `empty_like`, `contiguous`, `ptr`,
`broadcast_shapes`), never through `np` directly, so one adapter serves both. This module is imported by
selection.py only.
"""

from __future__ import annotations

import ctypes
import dataclasses
import math
import re
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.carray import CArray
from webflow.backends.arrays.numpy_arrays import ALIGNED_MIN_BYTES, ALIGNMENT, HAVE_NUMPY, aligned_empty, np
from webflow.backends.c import library as c_library
from webflow.backends.c import parallel
from webflow.framework.dtypes import DType

FLOATS = ("float32", "float64")
NUMBERS = ("float32", "float64", "int32", "int64")
SUFFIX = {"float32": "f32", "float64": "f64", "int32": "i32", "int64": "i64"}
SYMBOL_PATTERN = re.compile(r"wf_[A-Za-z0-9_<>]+")
_DTYPE_NAMES: dict = {}  # a NumPy dtype (or a CArray's dtype) -> its name


class Unsupported(Exception):
    """This C kernel does not handle these inputs: run the NumPy kernel instead."""


@dataclasses.dataclass
class CKernel:
    """An adapter and its selection policy; an op's stanza names it (`c=gemm.matmul`). Calling it runs it."""

    adapter: Callable
    dtypes: tuple | None  # dtype names the C kernel takes on input `dtype_input` (None: any)
    min_size: int | None  # automatic selection: C from this many elements of input `size_input` on
    size_input: int = 0
    dtype_input: int = 0
    update: bool = False
    wins: Callable | None = None  # automatic selection of a graph op, also: wins(op) -> does C win its shapes

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.adapter(*args, **kwargs)

    @property
    def __name__(self) -> str:  # noqa: A003 - read by the kernel panel and traces, as a function's
        return self.adapter.__name__

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]
        return self.adapter.__doc__

    @property
    def symbol(self) -> str | None:
        """The C function's name pattern (`wf_gemm_<t>`): the adapter's docstring starts with it, the one place
        it is written; <t> (and <i>, <bits>) stand for the dtype suffixes the call fills in."""
        match = SYMBOL_PATTERN.match((self.adapter.__doc__ or "").strip())
        return None if match is None else match.group(0)


def c_kernel(*, dtypes: tuple | None = FLOATS, min_size: int | None = None, size_input: int = 0,
             dtype_input: int | None = None, update: bool = False,
             wins: Callable | None = None) -> Callable[[Callable], CKernel]:
    """Makes an adapter a CKernel with its selection policy (backends/selection.py reads it)."""

    def decorate(adapter: Callable) -> CKernel:
        return CKernel(adapter, dtypes, min_size, size_input, size_input if dtype_input is None else dtype_input,
                       update, wins)

    return decorate


# --- helpers the adapters share ---------------------------------------------------------------------
def suffix(array: Any, allowed: tuple = FLOATS) -> str:
    """The C name suffix for an array's dtype (f32, f64, i32, i64); Unsupported for any other dtype."""
    dtype = array.dtype
    name = _DTYPE_NAMES.get(dtype)
    if name is None:  # (NumPy computes dtype.name in Python on every read: slower than many kernels)
        name = _DTYPE_NAMES[dtype] = dtype.name
    if name not in allowed:
        raise Unsupported(name)
    return SUFFIX[name]


def contiguous(array: Any) -> Any:
    """The array itself when C-contiguous, else a contiguous copy (the kernels read plain row-major memory).

    Graph runs may hand a kernel a NumPy scalar (np.float32(2.0)): it becomes a 0-d array.
    A CArray is always contiguous; without NumPy a Python number becomes a 0-d CArray."""
    if type(array) is CArray:
        return array
    if not HAVE_NUMPY:
        return c_array.from_value(array)
    if type(array) is not np.ndarray:
        array = np.asarray(array)
    return array if array.flags["C_CONTIGUOUS"] else np.ascontiguousarray(array)


def ptr(array: Any) -> int:
    """The address of a C-contiguous array's data (what the kernels read or write)."""
    if type(array) is CArray:
        if array.data.typecode == "O":  # a string tensor: bytes objects, no C buffer (arrays/object_buffer.py)
            raise Unsupported("strings")
        return array.data.buffer_info()[0]  # (CArray.address inlined)
    try:  # a one-byte view's address: 0.4 us, against 1.5 us for ndarray.ctypes.data (~70 calls a training step)
        return ctypes.addressof(ctypes.c_char.from_buffer(array))
    except (TypeError, ValueError):  # read-only or empty
        return array.ctypes.data


def empty(shape: Any, dtype: Any) -> Any:
    """A new output array of `shape` and `dtype` (a NumPy dtype or a webflow DType) for a kernel to fill.

    Its elements are undefined (np.empty, 64-byte aligned from 16 KB: numpy_arrays.aligned_empty; a recycled
    CArray buffer): the kernel must write every one."""
    if not HAVE_NUMPY:
        return c_array.uninitialized(shape, dtype)
    return aligned_empty(shape, dtype.as_numpy_dtype if isinstance(dtype, DType) else dtype)


def empty_like(array: Any) -> Any:
    if type(array) is CArray:
        return c_array.uninitialized(array.shape, array.dtype)
    return aligned_empty(array.shape, array.dtype)


def is_aligned(array: Any) -> bool:
    """Whether a C-contiguous array's data starts on a 64-byte boundary, or it is too small for that to matter
    (below ALIGNED_MIN_BYTES; CArrays: the C side's concern)."""
    return type(array) is CArray or array.nbytes < ALIGNED_MIN_BYTES or ptr(array) % ALIGNMENT == 0


def aligned(array: Any) -> Any:
    """`array` (C-contiguous) itself when its data starts on a 64-byte boundary, else an aligned copy: for an
    operand the kernels read as whole vectors (a convolution's filter)."""
    if is_aligned(array):
        return array
    copy = aligned_empty(array.shape, array.dtype)
    copy[...] = array
    return copy


def zeros(shape: Any, dtype: Any) -> Any:
    if not HAVE_NUMPY:
        return c_array.empty(shape, dtype)  # CArrays start zeroed
    return np.zeros(shape, dtype.as_numpy_dtype if isinstance(dtype, DType) else dtype)


def broadcast_shapes(*shapes: tuple) -> tuple:
    """NumPy's broadcasting rule on shape tuples, in plain Python (ValueError if they do not broadcast)."""
    rank = max((len(s) for s in shapes), default=0)
    result = []
    for axis in range(rank):
        dims = {s[axis - rank + len(s)] for s in shapes if axis - rank + len(s) >= 0} - {1}
        if len(dims) > 1:
            raise ValueError(f"shapes {shapes} cannot be broadcast together")
        result.append(dims.pop() if dims else 1)
    return tuple(result)


def flat_ints(value: Any) -> list:
    """A scalar or vector of ints (axes, sizes) as a Python list."""
    if type(value) is CArray:
        return [int(v) for v in value.data]
    if isinstance(value, (int, float)):
        return [int(value)]
    if isinstance(value, (list, tuple)):
        return [int(v) for v in value]
    return [int(v) for v in np.asarray(value).reshape(-1)]


def prod(values: Any) -> int:
    return math.prod(int(v) for v in values)


def ndim(value: Any) -> int:
    shape = getattr(value, "shape", None)
    return 0 if shape is None else len(shape)


def fn(name: str) -> Any:
    """The C function `name` (declared in its c_<family>.py module)."""
    return c_library.function(name)


# Elementwise kernels from this many elements on run as slices on parallel threads (backends/c/parallel.py):
# below it the ~30 us hand-off to a worker costs more than half the work saves (Relu of 2^17 floats ~40 us).
PARALLEL_ELEMENTS = 1 << 17
# The C library's own workers (wasm/elementwise_threads.c) start at once, yet below this many elements a second
# thread gains nothing: the input sits in the caller's cache (Relu of 2^16 floats takes as long on 1 thread as on
# 2) and waking a sleeping worker costs a system call (benchmarks/FIGURES.md, "Elementwise ops ...").
C_THREADS_ELEMENTS = 1 << 17

if not c_library.IN_PYODIDE:  # native only (elementwise_threads.c): the wasm build has no threads
    c_library.declare("wf_elementwise_threads", [c_library.PTR, c_library.INT, c_library.PTR, c_library.PTR,
                                                 c_library.SIZE, c_library.SIZE], c_library.INT)
_ADDRESSES: dict = {}


def address_of(name: str) -> int:
    """The address of C function `name`, for a C kernel that calls it on its threads (elementwise_threads.c)."""
    found = _ADDRESSES.get(name)
    if found is None:
        found = _ADDRESSES[name] = ctypes.cast(fn(name), ctypes.c_void_p).value
    return found


def call_sliced(name: str, arguments: list, count: int) -> None:
    """C function `name`(*arguments, count) for an elementwise kernel (element i of every output depends only
    on element i of the inputs), cut into slices that run on parallel threads: each array argument is
    advanced to its slice's first element, the other arguments (scalars, flags) are passed as they are.
    Two or three arrays and nothing else (unary ops, ReluGrad, TanhGrad ...): the C library's threads share the
    slices out (wasm/elementwise_threads.c); other calls (optimizer updates) go through parallel.split."""
    arrays = len(arguments)
    if 2 <= arrays <= 3 and all(hasattr(a, "itemsize") for a in arguments):
        if count < C_THREADS_ELEMENTS or parallel.threads() == 1 or c_library.IN_PYODIDE:
            fn(name)(*[ptr(a) for a in arguments], count)
            return
        check(fn("wf_elementwise_threads")(address_of(name), arrays, (ctypes.c_void_p * arrays)(*map(ptr, arguments)),
                                           (c_library.SIZE * arrays)(*[a.itemsize for a in arguments]), count,
                                           parallel.threads()), name)
        return
    function = fn(name)
    if count < 2 * PARALLEL_ELEMENTS or parallel.threads() == 1:  # one call (always in Pyodide)
        function(*[ptr(a) if hasattr(a, "itemsize") else a for a in arguments], count)
        return
    places = [(ptr(a), a.itemsize) if hasattr(a, "itemsize") else (a, 0) for a in arguments]

    def run(start: int, stop: int) -> None:
        function(*[value + start * step for value, step in places], stop - start)

    parallel.split(count, run, min_part=PARALLEL_ELEMENTS)


def unary_adapter(stem: str, allowed: tuple) -> Callable:
    """The adapter of the elementwise C function wf_<stem>_<t>: y[i] = stem(x[i]) in one contiguous pass."""
    def adapter(x: Any) -> Any:
        c_suffix = suffix(x, allowed)
        x = contiguous(x)
        y = empty_like(x)
        call_sliced(f"wf_{stem}_{c_suffix}", [x, y], x.size)
        return y

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: y = {stem}(x) elementwise."
    return adapter


def check(status: int, kernel: str) -> None:
    """Turns a C status code other than WF_OK into an exception (shape errors are caught before the call)."""
    if status != 0:
        reason = {-1: "bad argument", -2: "workspace too small"}.get(status, f"status {status}")
        raise ValueError(f"C kernel {kernel} failed: {reason}")


__all__ = ["CKernel", "Unsupported", "c_kernel", "suffix", "contiguous", "ptr", "fn", "check",
           "empty", "empty_like", "zeros", "broadcast_shapes", "flat_ints", "prod", "ndim", "FLOATS", "NUMBERS"]
