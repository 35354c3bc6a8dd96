"""`keras.utils`: `to_categorical` (class indices -> one-hot float32 rows), `set_random_seed`."""

from __future__ import annotations

import random
from typing import Any

from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY, np
from webflow.framework import random_seed
from webflow.keras import initializer_classes


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


def set_random_seed(seed: int) -> None:
    """tf_keras's `utils.set_random_seed`: seeds Python's `random`, NumPy's global generator and `tf.random`."""
    if not isinstance(seed, int):
        raise ValueError(f"Expected `seed` argument to be an integer. Received: seed={seed} (of type {type(seed)})")
    random.seed(seed)
    if HAVE_NUMPY:
        np.random.seed(seed)
    random_seed.set_seed(seed)
    initializer_classes.SEED_GENERATOR.generator = random.Random(seed)
