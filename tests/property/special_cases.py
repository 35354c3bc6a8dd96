"""Cases whose answer NumPy does not define the way TensorFlow does, checked against TensorFlow itself
(test_tensorflow_slice.py) and, with the native kernels' answers, inside Pyodide (test_ops_in_pyodide.py)."""

from __future__ import annotations

import math

import numpy as np
from strategies import Case

NAN, INF = math.nan, math.inf


def beyond_numpy() -> list:
    """Cases whose answer NumPy does not define the way TensorFlow does."""
    f32 = np.float32
    cases = [Case("argmax", [f32([NAN, 1, -INF, 0])], {"axis": 0}), Case("argmax", [f32([1, NAN, 3])], {"axis": 0}),
             Case("argmin", [f32([[1, NAN, 0], [NAN, NAN, NAN]])], {"axis": 1}),
             Case("argmax", [np.array([[NAN, -INF], [-INF, NAN]])], {"axis": 0}),
             Case("max_pool", [f32([NAN, 1, 2, 3, NAN, NAN, NAN, NAN, -INF]).reshape(1, 3, 3, 1)],
                  {"ksize": [2, 2], "strides": [1, 1], "padding": "SAME"})]
    specials = [NAN, INF, -INF, 3e9, -3e9, 2.5e38, 255.5, 256.0, -1.0, -0.5]
    for source in (np.float32, np.float64):
        for target in ("int32", "int64", "uint8"):
            cases.append(Case("cast", [np.array(specials, source)], {"to": target}))
    return cases
