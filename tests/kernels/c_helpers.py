"""Shared by the C-kernel tests: load the library once (skipping with the reason when there is none), and
the summation order oracle of a bias gradient."""

from __future__ import annotations

import numpy as np
import pytest

from webflow.backends.c import library as c_library


def require_c_library() -> None:
    """Skip the calling test module when the C kernels cannot be built or loaded here."""
    if not c_library.available():
        pytest.skip(f"C kernels unavailable: {c_library.unavailable_reason()}", allow_module_level=True)


def blocked_column_sums(x: np.ndarray, leading: int) -> np.ndarray:
    """x summed over its first `leading` axes in the order wasm/reduce.c promises, with one float32 rounding
    per add as NumPy's float32 adds do: each index of the first axis summed row after row from 0, then those
    sums in order from 0."""
    columns = int(np.prod(x.shape[leading:]))

    def in_order(rows: np.ndarray) -> np.ndarray:
        total = np.zeros(columns, np.float32)
        for row in rows:
            total = total + row
        return total

    return in_order(np.array([in_order(block) for block in x.reshape(x.shape[0], -1, columns)]))
