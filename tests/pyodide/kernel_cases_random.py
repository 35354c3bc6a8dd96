"""Kernel jobs for the float32 normal and truncated-normal kernels of webflow/wasm/philox.c (philox_normal.h),
run native or in Pyodide, with log/sin/cos pointers NULL (the kernels' own double-precision functions:
the only mode inside Pyodide). Oracle: TensorFlow's recipe written here in Python, with Python's math
log/sin/cos rounded to float32 (what the pure-Python path computes without a C library), on Philox words
from webflow/framework/philox.py. Expected: bit for bit (test_c_philox_normal.py checks every possible input
natively, and the libm-pointer mode against the NumPy path)."""

from __future__ import annotations

import math

import numpy as np
from kernel_cases_dense import Case

from webflow.backends.numpy import random_distributions as rd
from webflow.framework.philox import philox4x32

MASK32 = 0xFFFFFFFF


def box_muller_reference(x0: np.ndarray, x1: np.ndarray) -> tuple:
    """TF's float Box-Muller with math.log/sin/cos in double, each rounded to float32."""
    u1 = np.maximum(rd.uint32_to_float(x0), np.float32(1e-7))
    theta = (2.0 * math.pi * rd.uint32_to_float(x1).astype(np.float64)).astype(np.float32)
    log_u1 = np.array([math.log(v) for v in u1.tolist()]).astype(np.float32)
    radius = np.sqrt(np.float32(-2.0) * log_u1)
    sine = np.array([math.sin(v) for v in theta.tolist()]).astype(np.float32)
    cosine = np.array([math.cos(v) for v in theta.tolist()]).astype(np.float32)
    return sine * radius, cosine * radius


def stream(key: tuple, counter: int, blocks: int) -> np.ndarray:
    """uint32 words of `blocks` Philox blocks from the 128-bit `counter` on."""
    words = []
    for b in range(blocks):
        c = (counter + b) % (1 << 128)
        words += philox4x32(key, tuple((c >> (32 * i)) & MASK32 for i in range(4)))
    return np.array(words, np.uint32)


def normal_reference(key: tuple, counter: int, count: int) -> np.ndarray:
    words = stream(key, counter, -(-count // 4))
    first, second = box_muller_reference(words[0::2], words[1::2])
    return np.stack([first, second], axis=1).reshape(-1)[:count]


def truncated_reference(key: tuple, counter: int, count: int) -> np.ndarray:
    """Group g of 4 reads blocks from counter + 256 g on, keeping values with |x| < 2 until it has 4."""
    out = []
    for group in range(-(-count // 4)):
        kept, block = [], 0
        while len(kept) < 4:
            words = stream(key, counter + 256 * group + block, 1)
            first, second = box_muller_reference(words[0::2], words[1::2])
            kept += [v for v in np.stack([first, second], axis=1).reshape(-1) if abs(v) < 2.0]
            block += 1
        out += kept[:4]
    return np.array(out[:count], np.float32)


def _key_counter(case: Case, key: tuple, counter: int) -> tuple:
    return (case.job.input(np.array(key, np.uint32)),
            case.job.input(np.array([(counter >> (32 * i)) & MASK32 for i in range(4)], np.uint32)))


def box_muller_case() -> Case:
    """Every 37th of the 2^23 mantissas as u1, another spread as u2, plus the edges (u = 0 is clamped)."""
    m = np.arange(0, 1 << 23, 37, dtype=np.uint32)
    x0 = np.concatenate([[0, 1, 2, (1 << 23) - 1, 0xFFFFFFFF], m]).astype(np.uint32)
    x1 = np.concatenate([[0, (1 << 23) - 1, 1 << 22, 0xFF800000, 12345], np.random.default_rng(7).permutation(m)])
    words = np.stack([x0, x1.astype(np.uint32)], axis=1).reshape(-1)
    case = Case()
    out = case.job.output(np.zeros(words.size, np.float32))
    case.job.call("wf_box_muller_f32", case.job.input(words), out, x0.size, None, None, None)
    first, second = box_muller_reference(x0, x1.astype(np.uint32))

    def check(results, outputs):
        np.testing.assert_array_equal(outputs[out][0::2], first)
        np.testing.assert_array_equal(outputs[out][1::2], second)
    case.check(check)
    return case


def normal_case(kind: str, count: int, counter: int) -> Case:
    key = (0x12345678, 0x9ABCDEF0)
    case = Case()
    keys, counters = _key_counter(case, key, counter)
    out = case.job.output(np.full(count, np.nan, np.float32))
    case.job.call(f"wf_philox_{kind}_f32", keys, counters, out, count, None, None, None)
    expected = (normal_reference if kind == "normal" else truncated_reference)(key, counter, count)
    case.check(lambda results, outputs: np.testing.assert_array_equal(outputs[out], expected))
    return case


def random_cases() -> dict:
    cases = {"box-muller-f32-builtin": box_muller_case}
    # an odd count (the last cosine dropped), and a counter whose low words carry when groups skip ahead
    for kind in ("normal", "truncated_normal"):
        for count, counter in ((1, 5), (1001, 7 << 64), (4099, (1 << 64) - 300)):
            cases[f"philox-{kind}-f32-{count}"] = lambda k=kind, n=count, c=counter: normal_case(k, n, c)
    return cases
