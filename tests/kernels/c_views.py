"""Passing NumPy views (any strides, broadcasting) to the strided C kernels, for the kernel tests."""

from __future__ import annotations

import numpy as np

from webflow.backends.c.elementwise import size_array


def first_element(view: np.ndarray) -> int:
    """Address of a view's first element (not necessarily the lowest address when strides are negative)."""
    return view.__array_interface__["data"][0]


def element_strides(view: np.ndarray, shape: tuple | None = None) -> object:
    """The view's strides in elements, as a C size array; with `shape`, as broadcast to that shape (0s)."""
    if shape is not None:
        view = np.broadcast_to(view, shape)
    return size_array([s // view.itemsize for s in view.strides])


def odd_view(array: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """`array`'s values in a non-contiguous view: inside a bigger buffer, possibly reversed along an axis."""
    if array.ndim == 0 or array.size == 0:
        return array
    padded = np.empty(tuple(2 * d for d in array.shape), dtype=array.dtype)
    window = tuple(slice(None, None, 2) for _ in array.shape)
    padded[window] = array
    view = padded[window]
    axis = int(rng.integers(array.ndim))
    flipped = np.flip(padded, axis=axis)[window]          # same values, reversed along `axis` ...
    flipped[...] = np.flip(array, axis=axis)              # ... so flipping back gives `array`
    result = np.flip(flipped, axis=axis)
    assert np.array_equal(result, array, equal_nan=True)
    return result if rng.integers(2) else view
