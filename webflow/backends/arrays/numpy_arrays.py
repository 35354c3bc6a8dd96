"""The NumPy backend: the reference implementation every other backend is tested against.

Op modules write their NumPy kernels against the `np` exported here, so NumPy is imported in one
place; values held by tensors are `numpy.ndarray`s. Kernels never mutate an input in place (variables
get a new array on every assign), so a value read earlier cannot change under a learner's feet; the one
exception, optimizer updates writing over a variable's array that nothing else holds, keeps that promise
(ops/training_ops.py).

Without NumPy (Pyodide may not have it) `np` is a stand-in: op modules still import (their shape
rules and gradients are needed), and only running a NumPy kernel raises `NumpyUnavailable`.
Values are then `backends.c_array.CArray`s and the C kernels run every op that has one.
"""

from __future__ import annotations

import ctypes
import math
import os
import sys
from typing import Any

from webflow.backends.arrays import allocator
from webflow.framework import dtypes

# After each multi-threaded GEMM, OpenBLAS's idle threads spin (sched_yield) for ~2^28 cycles, taking a core
# from webflow's own kernel threads (backends/c/parallel.py): a 2-thread 50x3136x1024 matmul followed by a
# convolution split over 2 threads measured 10.7 ms, the two alone 1.9 + 3.9. With OpenBLAS told to sleep
# after 2^4 cycles: 6.8 ms, and the matmul alone unchanged. OpenBLAS reads this when it loads, so it only
# applies when webflow is what imports NumPy; a value the user set wins.
if "numpy" not in sys.modules:
    os.environ.setdefault("OPENBLAS_THREAD_TIMEOUT", "4")

# Freed activations stay in the process for the next step instead of page-faulting back in (allocator.py).
allocator.keep_freed_memory()

try:
    import numpy as np

    HAVE_NUMPY = True
except ImportError:  # Pyodide without NumPy: the stand-in below
    np = None
    HAVE_NUMPY = False

NAME = "numpy"
_DTYPE_OF_NUMPY: dict[Any, Any] = {}


class NumpyUnavailable(RuntimeError):
    """A NumPy kernel ran (or a NumPy value was asked for) where NumPy is not installed."""


class _MissingMeta(type):
    """The type of each stand-in: `np.float32`, `np.random.RandomState` ... are classes that cannot be made.

    Classes (not plain objects) so module-level code such as `isinstance(x, np.ndarray)` or a dict keyed by
    `np.float32` still works: nothing is an instance of a stand-in."""

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("__"):
            raise AttributeError(name)
        return _missing(f"{cls.__qualname__}.{name}")

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise NumpyUnavailable(f"{cls.__qualname__}() needs NumPy, which is not installed here")


_STAND_INS: dict[str, type] = {}


def _missing(qualname: str) -> type:
    found = _STAND_INS.get(qualname)
    if found is None:
        found = _MissingMeta(qualname.rsplit(".", 1)[-1], (), {"__qualname__": qualname})
        _STAND_INS[qualname] = found
    return found


if not HAVE_NUMPY:
    np = _missing("numpy")  # noqa: F811 - the stand-in module


def dtype_of(array: Any) -> Any:
    """The webflow DType of a NumPy array or CArray (cached: this sits on the eager hot path)."""
    numpy_dtype = array.dtype
    found = _DTYPE_OF_NUMPY.get(numpy_dtype)
    if found is None:
        found = dtypes.as_dtype(numpy_dtype)
        _DTYPE_OF_NUMPY[numpy_dtype] = found
    return found


def as_array(value: Any, dtype: Any = None) -> Any:
    return np.asarray(value, dtype=None if dtype is None else dtype.as_numpy_dtype)


# --- arrays on 64-byte boundaries ---------------------------------------------------------------------
# The C kernels' outputs and workspaces start on a 64-byte boundary (an AVX-512 vector, a cache line), as
# TensorFlow's allocator places every tensor: malloc's 16-byte alignment makes each vector load straddle two
# cache lines (conv2 ~10% slower; benchmarks/FIGURES.md, "64-byte aligned arrays").
ALIGNMENT = 64
ALIGNED_MIN_BYTES = 16384  # below, a kernel is short and the ~1.5 us of the extra view would show


def aligned_empty(shape: Any, dtype: Any) -> Any:
    """np.empty(shape, dtype) starting on an ALIGNMENT-byte boundary: a view of a private byte block."""
    dtype = np.dtype(dtype)
    size = (int(shape) if isinstance(shape, (int, np.integer)) else math.prod(shape)) * dtype.itemsize
    if size < ALIGNED_MIN_BYTES:
        return np.empty(shape, dtype)
    block = np.empty(size + ALIGNMENT, np.uint8)
    address = ctypes.addressof(ctypes.c_char.from_buffer(block))  # (ndarray.ctypes.data is ~1 us slower)
    return np.ndarray(shape, dtype, block, -address % ALIGNMENT)


def _block_references(array: Any) -> int:
    return sys.getrefcount(array.base)


def owns_memory(array: Any) -> bool:
    """Whether no other array can see `array`'s memory: it owns it, or it is the only view of the private
    block aligned_empty made (any other view of that memory would hold the block too)."""
    block = array.base
    if block is None:
        return True
    if type(block) is not np.ndarray or block.base is not None or block.dtype != np.uint8 or block.ndim != 1:
        return False
    del block  # (not counted below)
    return _block_references(array) == _ONLY_VIEW_OF_BLOCK


# what sys.getrefcount reports for a block only its one view holds: measured, as it differs between versions
_ONLY_VIEW_OF_BLOCK = _block_references(aligned_empty(ALIGNED_MIN_BYTES, np.uint8)) if HAVE_NUMPY else 0


__all__ = ["np", "NAME", "HAVE_NUMPY", "NumpyUnavailable", "dtype_of", "as_array", "aligned_empty", "owns_memory"]
