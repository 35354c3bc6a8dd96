"""Pure-Python kernels on CArrays that copy elements to computed positions, used only where NumPy is missing.

MirrorPad and its gradient (each output position along an axis reads one source position: a gather along
the axis, and its adjoint a scatter-add), DiagPart, MatrixSetDiagV3 (main diagonal), the bitwise ops and
Where (the coordinates of the true elements, what boolean_mask gathers).
These run on small tensors in the programs people learn with; each keeps its NumPy kernel's signature
and errors, and backends/selection.py installs it (the `python_kernel` table).

    sources = mirror_sources(3, 2, 1, "REFLECT")   # [2, 1, 0, 1, 2, 1]: which x[j] each y position copies
"""

from __future__ import annotations

import array
import math
from collections.abc import Callable
from typing import Any

from webflow.backends.arrays.carray import CArray
from webflow.backends.c.adapters import broadcast_shapes, flat_ints
from webflow.backends.portable.array_kernels import _broadcast_pair, _expanded
from webflow.framework import dtypes


# --- MirrorPad ------------------------------------------------------------------------------------
def mirror_sources(size: int, before: int, after: int, mode: str) -> list:
    """For each of the size + before + after output positions, the input position it copies.

    REFLECT mirrors about the edge element (it is not repeated), SYMMETRIC about the edge itself."""
    shift = 0 if mode == "REFLECT" else 1
    sources = []
    for position in range(-before, size + after):
        if position < 0:
            position = -position - shift
        elif position >= size:
            position = 2 * size - 2 + shift - position
        sources.append(position)
    return sources


def _pairs(paddings: Any) -> list:
    flat = flat_ints(paddings)
    return list(zip(flat[0::2], flat[1::2]))


def _take(x: CArray, axis: int, sources: list) -> CArray:
    """y = x with axis `axis` replaced by x's rows at `sources` (a gather along one axis)."""
    outer, inner = math.prod(x.shape[:axis]), math.prod(x.shape[axis + 1:])
    size, data = x.shape[axis], x.data
    out = array.array(data.typecode)
    for block in range(outer):
        base = block * size
        for j in sources:
            start = (base + j) * inner
            out.extend(data[start:start + inner])
    return CArray(out, x.shape[:axis] + (len(sources),) + x.shape[axis + 1:], x.dtype)


def _fold(g: CArray, axis: int, sources: list, size: int) -> CArray:
    """The adjoint of _take: y[.., j, ..] = sum of g[.., k, ..] over the k with sources[k] == j."""
    outer, inner = math.prod(g.shape[:axis]), math.prod(g.shape[axis + 1:])
    values = [0.0 if g.dtype.is_floating else 0] * (outer * size * inner)
    data = g.data
    for block in range(outer):
        for k, j in enumerate(sources):
            source, target = (block * len(sources) + k) * inner, (block * size + j) * inner
            for i in range(inner):
                values[target + i] += data[source + i]
    return CArray(array.array(data.typecode, values), g.shape[:axis] + (size,) + g.shape[axis + 1:], g.dtype)


def mirror_pad(x: Any, paddings: Any, *, mode: str) -> CArray:
    """y = x padded with its own mirror image (REFLECT excludes the edge element, SYMMETRIC repeats it)."""
    pairs = _pairs(paddings)
    for axis, (before, after) in enumerate(pairs):
        limit = x.shape[axis] - (1 if mode == "REFLECT" else 0)
        if before > limit or after > limit:
            raise ValueError(f"paddings must be no greater than the dimension size: {before}, {after} greater "
                             f"than {limit}")
    for axis, (before, after) in enumerate(pairs):
        if before or after:
            x = _take(x, axis, mirror_sources(x.shape[axis], before, after, mode))
    return x


def mirror_pad_grad(grad: Any, paddings: Any, *, mode: str) -> CArray:
    """dx[j] = sum of grad[k] over the output positions k that copied x[j] (folding the mirrors back)."""
    for axis, (before, after) in enumerate(_pairs(paddings)):
        if before or after:
            size = grad.shape[axis] - before - after
            grad = _fold(grad, axis, mirror_sources(size, before, after, mode), size)
    return grad


# --- diagonals ------------------------------------------------------------------------------------
def diag_part(x: Any) -> CArray:
    """y[i...] = x[i..., i...] (the diagonal of a rank-2k tensor)."""
    half = x.ndim // 2
    size = math.prod(x.shape[:half])
    return CArray(array.array(x.data.typecode, x.data[::size + 1] if size else []), x.shape[:half], x.dtype)


def matrix_set_diag(x: Any, diagonal: Any, k: Any, *, align: str = "RIGHT_LEFT") -> CArray:
    """y = x with its main diagonal (k = 0) replaced by `diagonal` (per matrix of a batch)."""
    if flat_ints(k)[0] != 0:
        raise ValueError("only the main diagonal (k=0) is supported")
    rows, cols = x.shape[-2], x.shape[-1]
    n = min(rows, cols)
    target = x.shape[:-2] + (n,)
    broadcast_shapes(target, diagonal.shape)  # ValueError unless diagonal broadcasts to [..., n]
    values = array.array(x.data.typecode, _expanded(diagonal, target))
    out = x.copy()
    for matrix in range(math.prod(x.shape[:-2])):
        out.data[matrix * rows * cols:(matrix + 1) * rows * cols:cols + 1] = values[matrix * n:(matrix + 1) * n]
    return out


# --- bitwise ops (integers) -----------------------------------------------------------------------
def _bitwise(function: Callable) -> Callable:
    def kernel(x: Any, y: Any) -> CArray:
        shape, xs, ys = _broadcast_pair(x, y)
        return CArray(array.array(x.data.typecode, [function(a, b) for a, b in zip(xs, ys)]), shape, x.dtype)

    kernel.__doc__ = function.__doc__
    return kernel


def _and(a: int, b: int) -> int:
    """z = x & y bit by bit."""
    return a & b


def _or(a: int, b: int) -> int:
    """z = x | y bit by bit."""
    return a | b


def _xor(a: int, b: int) -> int:
    """z = x ^ y bit by bit."""
    return a ^ b


bitwise_and = _bitwise(_and)
bitwise_or = _bitwise(_or)
bitwise_xor = _bitwise(_xor)


def invert(x: Any) -> CArray:
    """y = ~x (every bit flipped; Python's ~ is two's complement, masked to the width for unsigned types)."""
    if x.dtype.is_unsigned:
        mask = (1 << (8 * x.itemsize)) - 1
        values = [~v & mask for v in x.data]
    else:
        values = [~v for v in x.data]
    return CArray(array.array(x.data.typecode, values), x.shape, x.dtype)


def where_indices(x: Any) -> CArray:
    """index = [[i0, i1, ...] for every position where x is true/non-zero], int64 [num_true, rank]."""
    flat, shape = (x.data, x.shape) if isinstance(x, CArray) else ([x], ())
    coordinates, count = array.array("q"), 0
    for position, value in enumerate(flat):
        if value:
            count += 1
            digits = []
            for dim in reversed(shape):
                position, digit = divmod(position, dim)
                digits.append(digit)
            coordinates.extend(reversed(digits))
    return CArray(coordinates, (count, len(shape)), dtypes.int64)


__all__ = ["mirror_sources", "mirror_pad", "mirror_pad_grad", "diag_part", "matrix_set_diag", "invert",
           "where_indices"]
