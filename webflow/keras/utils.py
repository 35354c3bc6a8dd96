"""`keras.utils`: `to_categorical` (class indices -> one-hot float32 rows)."""

from __future__ import annotations

from typing import Any

from webflow.backends.arrays.numpy_arrays import np


def to_categorical(y: Any, num_classes: int | None = None, dtype: str = "float32") -> Any:
    """[n] (or [n, 1]) class indices -> [n, num_classes] one-hot; num_classes defaults to max(y) + 1."""
    y = np.asarray(y, dtype="int64")
    shape = y.shape
    if shape and shape[-1] == 1 and len(shape) > 1:
        shape = shape[:-1]
    y = y.reshape(-1)
    num_classes = int(num_classes or (y.max() + 1))
    categorical = np.zeros((y.shape[0], num_classes), dtype=dtype)
    categorical[np.arange(y.shape[0]), y] = 1
    return categorical.reshape((*shape, num_classes))
