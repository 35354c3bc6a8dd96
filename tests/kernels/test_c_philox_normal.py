"""Normal and truncated normal in C (webflow/wasm/philox.c, philox_normal.h) against the NumPy path
(backends/numpy/random_distributions.py, TensorFlow's numbers) and the pure-Python one
(backends/portable/random_kernels.py).

Box-Muller's inputs are 23-bit mantissas, so every input it can see (2^23 values of u1 and of u2) is checked:
  - with the C library's logf/sinf/cosf passed in (natively): bit for bit the NumPy path's values;
  - with NULL (the kernels' own double log/sin/cos, the mode inside Pyodide): bit for bit Python's math
    functions rounded to float32, which is the pure-Python path where ctypes finds no C library.
Then the whole ops: RandomStandardNormal / TruncatedNormal through the C adapters equal the NumPy kernels."""

from __future__ import annotations

import math

import numpy as np
import pytest
from c_helpers import require_c_library

from webflow.backends.c import library as c
from webflow.backends.c import philox as c_philox
from webflow.backends.c.philox import key_and_counter
from webflow.backends.numpy import random_distributions as rd
from webflow.framework.philox import PhiloxGenerator

require_c_library()

MANTISSAS = np.arange(1 << 23, dtype=np.uint32)


def _box_muller(x0: np.ndarray, x1: np.ndarray, pointers: tuple) -> tuple:
    words = np.stack([x0, x1], axis=1).reshape(-1).astype(np.uint32)
    out = np.zeros(words.size, np.float32)
    c.function("wf_box_muller_f32")(c.address(words), c.address(out), x0.size, *pointers)
    return out[0::2], out[1::2]


def test_libm_pointers_give_the_numpy_paths_numbers_for_every_input():
    pointers = c_philox.libm_pointers()
    if pointers[0] is None:
        pytest.skip("ctypes finds no C library here: the NumPy path itself uses NumPy's float64 functions")
    shuffled = np.random.default_rng(3).permutation(MANTISSAS)
    for part in range(2):  # NumPy's path calls libm for up to 2^22 values at once (else NumPy's float64)
        chunk = slice(part << 22, (part + 1) << 22)
        got = _box_muller(MANTISSAS[chunk], shuffled[chunk], pointers)
        expected = rd.box_muller_float(MANTISSAS[chunk], shuffled[chunk])
        np.testing.assert_array_equal(got[0], expected[0])
        np.testing.assert_array_equal(got[1], expected[1])


def test_builtin_log_sin_cos_round_like_python_math_for_every_input():
    """log(u1), sin(theta) and cos(theta) each over all 2^23 inputs: u2 = 0 leaves the radius alone (cos 0 = 1,
    so log is checked through sqrt(-2 log u1)), then a fixed u1 checks every angle."""
    u1 = np.maximum(rd.uint32_to_float(MANTISSAS), np.float32(1e-7))
    theta = (2.0 * math.pi * rd.uint32_to_float(MANTISSAS).astype(np.float64)).astype(np.float32)
    log_u1 = np.array([math.log(v) for v in u1.tolist()]).astype(np.float32)
    radius = np.sqrt(np.float32(-2.0) * log_u1)
    # u2 = 0 (theta 0: sin 0, cos 1): the second value is the radius alone, so every log(u1) is checked
    _, only_radius = _box_muller(MANTISSAS, np.zeros_like(MANTISSAS), (None, None, None))
    np.testing.assert_array_equal(only_radius, radius)
    fixed = np.full_like(MANTISSAS, 1 << 20)  # u1 = 1/8
    sine, cosine = _box_muller(fixed, MANTISSAS, (None, None, None))
    r = radius[1 << 20]
    expected_sin = np.array([math.sin(v) for v in theta.tolist()]).astype(np.float32) * r
    expected_cos = np.array([math.cos(v) for v in theta.tolist()]).astype(np.float32) * r
    np.testing.assert_array_equal(sine, expected_sin)
    np.testing.assert_array_equal(cosine, expected_cos)


@pytest.mark.parametrize("seed", [(1, 2), (87654321, 0), (2**63 + 5, 2**64 - 1)])
@pytest.mark.parametrize("count", [0, 1, 3, 4, 5, 1001, 20000])
def test_normal_and_truncated_normal_streams_equal_the_numpy_path(seed, count):
    pointers = c_philox.libm_pointers()
    if pointers[0] is None:
        pytest.skip("ctypes finds no C library here")
    for name, reference in (("wf_philox_normal_f32", rd.normal), ("wf_philox_truncated_normal_f32",
                                                                   rd.truncated_normal)):
        generator = PhiloxGenerator(*seed)
        generator.skip(12345)
        key, counter = key_and_counter(generator)
        out = np.zeros(count, np.float32)
        c.function(name)(c.address(key), c.address(counter), c.address(out), count, *pointers)
        np.testing.assert_array_equal(out, reference(generator.copy(), count, np.float32), err_msg=name)


def test_ops_on_a_forced_c_backend_equal_the_numpy_kernels():
    """tf.random.normal / truncated_normal with the C adapters (forced) and with the NumPy kernels."""
    import webflow as wf
    from webflow import config

    def draw() -> list:
        wf.random.set_seed(5)
        return [wf.random.normal([37, 11]).numpy(), wf.random.truncated_normal([101, 3], stddev=0.1).numpy()]

    try:
        config.set_backend("numpy")
        expected = draw()
        config.set_backend("native")
        got = draw()
    finally:
        config.set_backend(None)
    for g, e in zip(got, expected):
        np.testing.assert_array_equal(g, e)
