"""Op table rows on bfloat16: each row casts its float32 inputs to bfloat16, runs the op there and returns the
bfloat16 result; see tests/op_harness.py for what each row checks (eager forward vs NumPy, static shapes, graph ==
eager). The reference rounds to bfloat16 independently of webflow (`to_bfloat16`: frexp and NumPy's round-half-even
on the 8 significant bits, in float64) before and after the same float32 math, as TensorFlow's CPU kernels do
(inputs widened to float, the result rounded). Rows have no gradient check: a rounded function has no useful
numerical derivative (the gradients' dtypes and values are checked against TensorFlow in
tests/keras/test_mixed_bfloat16.py)."""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf

rng = np.random.default_rng(14)
BF16 = wf.bfloat16
ULP = 2.0**-7  # bfloat16's relative spacing at worst (8 significant bits): float32 math may end 1 ulp apart


def to_bfloat16(x):
    """x rounded to the nearest bfloat16 (ties to even), as float32: 8 significant bits, exponents down to -133."""
    x = np.asarray(x, dtype=np.float64)
    mantissa, exponent = np.frexp(np.where(np.isfinite(x), x, 0.0))
    step = np.maximum(exponent - 8, -133).astype(np.float64)   # the value of the last kept bit
    rounded = np.round(x / 2.0**step) * 2.0**step               # np.round: half to even
    with np.errstate(over="ignore"):
        return np.where(np.isfinite(x), rounded, x).astype(np.float32)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def pos(*shape):
    return rng.uniform(0.5, 2.0, shape).astype(np.float32)


def b(x):
    return wf.cast(x, BF16)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _conv_valid(x, k):
    """NHWC x HWIO, stride 1, VALID, by explicit sums over the window."""
    n, h, w, _ = x.shape
    kh, kw, _, out = k.shape
    y = np.zeros((n, h - kh + 1, w - kw + 1, out), np.float32)
    for i in range(h - kh + 1):
        for j in range(w - kw + 1):
            y[:, i, j, :] = np.tensordot(x[:, i:i + kh, j:j + kw, :], k, axes=3)
    return y


# bit patterns that exercise the rounding: ties (to even, down and up), just above a tie, NaN, infinities,
# a float32 denormal, the largest float32 (rounds to inf), the largest bfloat16, -0
TIES = np.array([1.00390625, 1.01171875, 1.0039063, -3.00390625, np.inf, -np.inf, np.nan, 1e-40, 3.4028235e38,
                 3.3895314e38, -0.0, 65504.0, 3.14159], np.float32)

CASES = [
    OpCase("cast_rounding", lambda x: b(x), [TIES], lambda x: to_bfloat16(x), grad=False, atol=0, rtol=0),
    OpCase("cast_back_to_float32", lambda x: wf.cast(b(x), wf.float32), [TIES], lambda x: to_bfloat16(x),
           grad=False, atol=0, rtol=0),
    OpCase("add", lambda x, y: b(x) + b(y), [r(3, 4), r(3, 4)],
           lambda x, y: to_bfloat16(to_bfloat16(x) + to_bfloat16(y)), grad=False, atol=0, rtol=0),
    OpCase("mul_broadcast", lambda x, y: b(x) * b(y), [r(3, 4), r(4)],
           lambda x, y: to_bfloat16(to_bfloat16(x) * to_bfloat16(y)), grad=False, atol=0, rtol=0),
    OpCase("realdiv", lambda x, y: b(x) / b(y), [r(5), pos(5)],
           lambda x, y: to_bfloat16(to_bfloat16(x) / to_bfloat16(y)), grad=False, atol=0, rtol=0),
    OpCase("relu", lambda x: wf.nn.relu(b(x)), [r(2, 5)], lambda x: np.maximum(to_bfloat16(x), 0), grad=False),
    OpCase("sigmoid", lambda x: wf.sigmoid(b(x)), [r(6)],
           lambda x: to_bfloat16(1 / (1 + np.exp(-to_bfloat16(x)))), grad=False, rtol=ULP, atol=0),
    OpCase("tanh", lambda x: wf.tanh(b(x)), [r(6)], lambda x: to_bfloat16(np.tanh(to_bfloat16(x))),
           grad=False, rtol=ULP, atol=0),
    OpCase("exp", lambda x: wf.exp(b(x)), [r(6)], lambda x: to_bfloat16(np.exp(to_bfloat16(x))),
           grad=False, rtol=ULP, atol=0),
    OpCase("sqrt", lambda x: wf.sqrt(b(x)), [pos(6)], lambda x: to_bfloat16(np.sqrt(to_bfloat16(x))),
           grad=False, rtol=ULP, atol=0),
    OpCase("matmul", lambda x, y: wf.matmul(b(x), b(y)), [r(3, 8), r(8, 2)],
           lambda x, y: to_bfloat16(to_bfloat16(x) @ to_bfloat16(y)), grad=False, rtol=ULP, atol=1e-6),
    OpCase("batch_matmul", lambda x, y: wf.matmul(b(x), b(y)), [r(2, 3, 4), r(2, 4, 2)],
           lambda x, y: to_bfloat16(to_bfloat16(x) @ to_bfloat16(y)), grad=False, rtol=ULP, atol=1e-6),
    OpCase("bias_add", lambda x, y: wf.nn.bias_add(b(x), b(y)), [r(3, 4), r(4)],
           lambda x, y: to_bfloat16(to_bfloat16(x) + to_bfloat16(y)), grad=False, atol=0, rtol=0),
    OpCase("softmax", lambda x: wf.nn.softmax(b(x)), [r(3, 5)],
           lambda x: to_bfloat16(_softmax(to_bfloat16(x))), grad=False, rtol=ULP, atol=1e-6),
    OpCase("reduce_sum", lambda x: wf.reduce_sum(b(x), axis=1), [r(3, 6)],
           lambda x: to_bfloat16(to_bfloat16(x).sum(1)), grad=False, rtol=ULP, atol=1e-6),
    OpCase("reduce_max", lambda x: wf.reduce_max(b(x), axis=0), [r(3, 6)],
           lambda x: to_bfloat16(x).max(0), grad=False, atol=0, rtol=0),
    OpCase("conv2d", lambda x, k: wf.nn.conv2d(b(x), b(k), 1, "VALID"), [r(1, 5, 5, 2), r(3, 3, 2, 3)],
           lambda x, k: to_bfloat16(_conv_valid(to_bfloat16(x), to_bfloat16(k))), grad=False, rtol=ULP,
           atol=1e-6),
    OpCase("max_pool", lambda x: wf.nn.max_pool2d(b(x), 2, 2, "VALID"), [r(1, 4, 4, 2)],
           lambda x: to_bfloat16(x).reshape(1, 2, 2, 2, 2, 2).max((2, 4)), grad=False, atol=0, rtol=0),
    OpCase("avg_pool", lambda x: wf.nn.avg_pool2d(b(x), 2, 2, "VALID"), [r(1, 4, 4, 2)],
           lambda x: to_bfloat16(to_bfloat16(x).reshape(1, 2, 2, 2, 2, 2).mean((2, 4))), grad=False,
           rtol=ULP, atol=1e-6),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_bfloat16_op(case: OpCase) -> None:
    check_case(case)
