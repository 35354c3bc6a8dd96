"""Kernel jobs for elementwise ops, reductions and softmax / cross-entropy, with their checks (run native
or in Pyodide). Oracles as in tests/kernels/test_c_elementwise.py, test_c_reduce.py, test_c_softmax.py:
NumPy (ulp bounds for exp/log/tanh/sigmoid, bit for bit for the exact ops), webflow's NumPy kernels."""

from __future__ import annotations

import itertools
from collections.abc import Callable

import numpy as np
from c_views import odd_view
from kernel_cases_dense import Case, _assert_equal
from test_c_elementwise import BINARY_REFERENCES, SPECIAL_F32, ULP_BOUND, exact, random_broadcast_pair, ulp_error_f32
from test_c_elementwise import SIZES as UNARY_SIZES
from test_c_reduce import random_case as random_reduction
from test_c_reduce import reference as reduce_reference

from webflow.backends.c.reduce import axis_mask
from webflow.ops import nn_ops

SUFFIX = {np.float32: "f32", np.float64: "f64", np.int32: "i32", np.int64: "i64"}
INDEX = {np.int32: "i32", np.int64: "i64"}


def _equal(out, expected) -> Callable:
    return lambda results, outputs: np.testing.assert_array_equal(outputs[out], expected)


# ---------------------------------------------------------------------------------------- elementwise
def approximation_case(name: str, dtype: type) -> Case:
    """exp/log/tanh/sigmoid within their ulp bounds: float32 on every 4099th bit pattern and special values."""
    rng = np.random.default_rng(31)
    if dtype == np.float32:
        bits = np.arange(0, 2**32, 4099, dtype=np.uint64).astype(np.uint32)
        x = np.concatenate([bits.view(np.float32), SPECIAL_F32, rng.uniform(-20, 20, 10001).astype(np.float32)])
    else:
        x = np.concatenate([rng.uniform(-750, 750, 20000), rng.uniform(-3, 3, 20000),
                            np.exp(rng.uniform(-745, 709, 20000)),
                            [0.0, -0.0, 1.0, np.inf, -np.inf, np.nan, 5e-324, 1e-310, 709.78, 709.79, -745.2, -746.0]])
        x = np.abs(x) if name == "log" else x
    case = Case()
    y = case.job.output(np.full_like(x, 7))
    case.job.call(f"wf_{name}_{SUFFIX[dtype]}", case.job.input(x), y, x.size)

    def check(results, outputs):
        truth = exact(name, x)
        if dtype == np.float32:
            with np.errstate(invalid="ignore"):
                assert np.array_equal(np.isnan(outputs[y]), np.isnan(truth))
            assert ulp_error_f32(outputs[y], truth).max() <= ULP_BOUND[(name, dtype)]
        else:
            finite = np.isfinite(truth) & (truth != 0)
            assert np.array_equal(outputs[y][~finite], truth[~finite], equal_nan=True)
            ulps = np.abs(outputs[y][finite].view(np.int64) - truth[finite].view(np.int64))
            assert ulps.max() <= ULP_BOUND[(name, dtype)], ulps.max()
    case.check(check)
    return case


def exact_unary_case(dtype: type) -> Case:
    """neg/abs/square/sqrt/rsqrt/reciprocal/relu bit for bit (floats with NaN, -inf, -0), ints wrapping."""
    rng, case = np.random.default_rng(32), Case()
    if np.dtype(dtype).kind == "f":
        references = {"neg": np.negative, "abs": np.abs, "square": np.square, "sqrt": np.sqrt,
                      "rsqrt": lambda v: 1 / np.sqrt(v), "reciprocal": lambda v: 1 / v,
                      "relu": lambda v: np.maximum(v, np.zeros((), v.dtype))}
        inputs = []
        for size in UNARY_SIZES:
            x = (rng.standard_normal(size) * 10).astype(dtype)
            if size > 4:
                x[:4] = [np.nan, -np.inf, -0.0, 0.0]
            inputs.append(x)
    else:
        info = np.iinfo(dtype)
        references = {"neg": np.negative, "abs": np.abs, "square": np.square, "relu": lambda v: np.maximum(v, 0)}
        inputs = [np.concatenate([rng.integers(-1000, 1000, 37), [info.min, info.max, 0, -1, 1 << 20]]).astype(dtype)]
    for x, (name, reference) in itertools.product(inputs, references.items()):
        y = case.job.output(np.full_like(x, 7))
        case.job.call(f"wf_{name}_{SUFFIX[dtype]}", case.job.input(x), y, x.size)
        with np.errstate(all="ignore"):
            expected = np.asarray(reference(x)).astype(dtype)
        case.check(_equal(y, expected))
    features = rng.integers(-3, 4, 101).astype(dtype)
    gradients = rng.integers(-50, 50, 101).astype(dtype)
    out = case.job.output(np.zeros(101, dtype))
    case.job.call(f"wf_relu_grad_{SUFFIX[dtype]}", case.job.input(gradients), case.job.input(features), out, 101)
    case.check(_equal(out, np.where(features > 0, gradients, 0).astype(dtype)))
    return case


def _binary(case: Case, name: str, x: np.ndarray, y: np.ndarray, expected: np.ndarray | None = None) -> int:
    """One broadcasting binary call on the views as they are (no copies); checks against NumPy."""
    shape = np.broadcast_shapes(x.shape, y.shape)
    job = case.job
    out = job.output(np.full(shape, 99, dtype=x.dtype))
    job.call(f"wf_{name}_{SUFFIX[x.dtype.type]}", job.view(x), job.view(y), out, len(shape), job.sizes(shape),
             job.strides(x, shape), job.strides(y, shape))
    if expected is None:
        with np.errstate(all="ignore"):
            expected = np.asarray(BINARY_REFERENCES[name](x, y), dtype=x.dtype)
    case.check(lambda results, outputs, index=len(job.calls) - 1: _assert_equal(results[index], 0))
    case.check(lambda results, outputs: np.testing.assert_array_equal(outputs[out], expected, err_msg=name))
    return out


def binary_case(dtype: type) -> Case:
    """60 random broadcasting shape pairs (rank 0-5, size-0 and size-1 dims), every other on strided views."""
    rng, case = np.random.default_rng(33), Case()
    names = [n for n in BINARY_REFERENCES if np.dtype(dtype).kind == "f" or n != "div"]
    for trial in range(60):
        x_shape, y_shape = random_broadcast_pair(rng)
        x = np.asarray(rng.standard_normal(x_shape) * 100).astype(dtype)
        y = np.asarray(rng.standard_normal(y_shape) * 100).astype(dtype)
        if trial % 2:
            x, y = odd_view(x, rng), odd_view(y, rng)
        for name in names:
            _binary(case, name, x, y)
    return case


def binary_edges_case() -> Case:
    """Contiguous fast paths, scalars, a transposed input, NaN in max/min, x/0, int32 wrap-around, >16 dims."""
    rng, case = np.random.default_rng(34), Case()
    x = rng.standard_normal(1003).astype(np.float32)
    scalar = np.array(2.5, np.float32)
    matrix = rng.standard_normal((37, 53)).astype(np.float32)
    for name, a, b in [("add", x, x), ("mul", x, scalar), ("sub", scalar, x), ("div", scalar, scalar),
                       ("add", matrix.T, matrix[:, 0])]:
        _binary(case, name, a, b)
    a = np.array([np.nan, 1.0, np.nan, -np.inf, 0.0, 1.0, -1.0, 0.0, np.inf, 1e38], np.float32)
    b = np.array([1.0, np.nan, np.nan, np.inf, -0.0, 0.0, 0.0, 0.0, np.inf, 1e-38], np.float32)
    for name in ("maximum", "minimum", "div"):
        _binary(case, name, a, b)
    big = np.array([2**31 - 1, -2**31], np.int32)
    _binary(case, "add", big, np.array(1, np.int32))
    _binary(case, "mul", big, big)
    ones = np.zeros([1] * 17, np.float32)
    job = case.job
    job.call("wf_add_f32", job.input(ones), job.input(ones), job.output(ones), 17, job.sizes([1] * 17),
             job.sizes([1] * 17), job.sizes([1] * 17))
    case.check(lambda results, outputs: _assert_equal(results[-1], -1))
    return case


# ----------------------------------------------------------------------------------------- reductions
def reduce_case(dtype: type) -> Case:
    """sum/mean/max/min/prod over 80 random axis sets and layouts (strided, reversed, empty axes)."""
    rng, case = np.random.default_rng(35), Case()
    for trial in range(80):
        x, axes = random_reduction(rng, dtype)
        if trial % 2:
            x = odd_view(x, rng)
        _reduce_all(case, x, axes, dtype)
    return case


def _reduce_all(case: Case, x: np.ndarray, axes: tuple, dtype: type, names=("sum", "mean", "max", "min", "prod")):
    job = case.job
    kept = tuple(d for i, d in enumerate(x.shape) if i not in axes)
    for name in names:
        out = job.output(np.full(kept, 123, dtype=x.dtype))
        job.call(f"wf_reduce_{name}_{SUFFIX[x.dtype.type]}", job.view(x), out, x.ndim, job.sizes(x.shape),
                 job.strides(x), axis_mask(axes, x.ndim))
        expected = reduce_reference(name, x, axes)

        def check(results, outputs, out=out, name=name, expected=expected, index=len(job.calls) - 1):
            assert results[index] == 0
            got = outputs[out]
            if np.dtype(dtype).kind == "f" and name in ("sum", "mean", "prod"):
                size = max(int(np.prod([x.shape[a] for a in axes])), 1)
                rounding = 4 * size * np.finfo(dtype).eps
                scale = float(np.max(np.abs(x))) if x.size else 1.0
                np.testing.assert_allclose(got, expected, rtol=rounding,
                                           atol=0.0 if name == "prod" else rounding * scale, err_msg=name)
            else:
                assert np.array_equal(got, expected, equal_nan=True), (name, x.shape, axes)
        case.check(check)


def reduce_edges_case() -> Case:
    """Big rows/columns reductions, NaN through max/min, no axes (a copy), a 0-d input."""
    rng, case = np.random.default_rng(36), Case()
    _reduce_all(case, rng.standard_normal((513, 1027)).astype(np.float32), (0,), np.float32, ("sum", "max"))
    _reduce_all(case, rng.standard_normal((301, 257)).astype(np.float32), (1,), np.float32, ("sum", "max", "mean"))
    with np.errstate(invalid="ignore"):
        nan = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]], np.float32)
        _reduce_all(case, nan, (1,), np.float32, ("max", "min"))
        _reduce_all(case, nan, (0,), np.float32, ("max", "min"))
    _reduce_all(case, rng.standard_normal((4, 6)).astype(np.float32), (), np.float32, ("sum", "max"))
    _reduce_all(case, np.asarray(np.float32(2.5)), (), np.float32, ("sum",))
    return case


# ----------------------------------------------------------------------------------- softmax and xent
SOFTMAX_SHAPES = [(0, 5), (1, 1), (3, 1), (4, 7), (5, 8), (2, 33), (64, 10), (3, 1000)]
SOFTMAX_TOLERANCE = {np.float32: dict(rtol=3e-6, atol=3e-6), np.float64: dict(rtol=1e-13, atol=1e-13)}


def softmax_case(dtype: type) -> Case:
    """softmax / log_softmax, their gradients, dense and sparse cross-entropy (+ bad labels), vs nn_ops."""
    rng, case = np.random.default_rng(37), Case()
    job = case.job
    tolerance = SOFTMAX_TOLERANCE[dtype]
    extreme = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 0.0], [50.0, 50.0, 50.0], [1e30, -1e30, 0.0]], dtype)
    for shape in SOFTMAX_SHAPES + [None]:
        x = extreme if shape is None else (rng.standard_normal(shape) * 5).astype(dtype)
        rows, classes = x.shape
        for name, kernel in (("softmax", nn_ops.softmax_kernel), ("log_softmax", nn_ops.log_softmax_kernel)):
            out = job.output(np.full_like(x, 99))
            job.call(f"wf_{name}_{SUFFIX[dtype]}", job.input(x), out, rows, classes)
            with np.errstate(all="ignore"):
                expected = kernel(x)
            case.check(lambda results, outputs, out=out, expected=expected: np.testing.assert_allclose(
                outputs[out], expected, **tolerance))
        if shape is None or shape[1] == 0:
            continue
        labels = rng.random(shape).astype(dtype)
        labels /= np.maximum(labels.sum(axis=-1, keepdims=True), 1e-3)
        loss, backprop = job.output(np.full(rows, 99, dtype)), job.output(np.full_like(x, 99))
        job.call(f"wf_softmax_xent_{SUFFIX[dtype]}", job.input(x), job.input(labels), classes, loss, backprop, rows,
                 classes)
        expected_loss, expected_backprop = nn_ops.softmax_xent_kernel(x, labels)
        loss_tolerance = dict(tolerance, atol=tolerance["atol"] * classes * 5)
        case.check(lambda results, outputs, loss=loss, e=expected_loss, t=loss_tolerance:
                   np.testing.assert_allclose(outputs[loss], e, **t))
        case.check(lambda results, outputs, b=backprop, e=expected_backprop:
                   np.testing.assert_allclose(outputs[b], e, **tolerance))
        for label_dtype in (np.int32, np.int64):
            logits = (rng.standard_normal(shape) * 30).astype(dtype)
            sparse = rng.integers(0, classes, rows).astype(label_dtype)
            loss, backprop = job.output(np.full(rows, 99, dtype)), job.output(np.full_like(x, 99))
            job.call(f"wf_sparse_xent_{SUFFIX[dtype]}_{INDEX[label_dtype]}", job.input(logits), job.input(sparse),
                     loss, backprop, rows, classes)
            e_loss, e_backprop = nn_ops.sparse_softmax_xent_kernel(logits, sparse)
            case.check(lambda results, outputs, i=len(job.calls) - 1: _assert_equal(results[i], 0))
            case.check(lambda results, outputs, loss=loss, e=e_loss: np.testing.assert_allclose(
                outputs[loss], e, **dict(tolerance, atol=tolerance["atol"] * 30)))
            case.check(lambda results, outputs, b=backprop, e=e_backprop: np.testing.assert_allclose(
                outputs[b], e, **tolerance))
    x, g = (rng.standard_normal((6, 13)) * 5).astype(dtype), rng.standard_normal((6, 13)).astype(dtype)
    y, log_y = nn_ops.softmax_kernel(x), nn_ops.log_softmax_kernel(x)
    for name, forward, expected in [
            ("softmax_grad", y, (g - np.sum(g * y, axis=-1, keepdims=True)) * y),
            ("log_softmax_grad", log_y, g - np.sum(g, axis=-1, keepdims=True) * np.exp(log_y))]:
        out = job.output(np.full_like(x, 99))
        job.call(f"wf_{name}_{SUFFIX[dtype]}", job.input(g), job.input(forward), out, 6, 13)
        case.check(lambda results, outputs, out=out, e=expected: np.testing.assert_allclose(outputs[out], e,
                                                                                           **tolerance))
    logits = (rng.standard_normal((5, 4)) * 5).astype(dtype)
    one_row = np.array([[0.1, 0.2, 0.3, 0.4]], dtype)                  # labels broadcast: row stride 0
    loss, backprop = job.output(np.zeros(5, dtype)), job.output(np.zeros_like(logits))
    job.call(f"wf_softmax_xent_{SUFFIX[dtype]}", job.input(logits), job.input(one_row), 0, loss, backprop, 5, 4)
    e_loss, e_backprop = nn_ops.softmax_xent_kernel(logits, one_row)
    case.check(lambda results, outputs, loss=loss: np.testing.assert_allclose(outputs[loss], e_loss, rtol=1e-5,
                                                                              atol=1e-5))
    case.check(lambda results, outputs, b=backprop: np.testing.assert_allclose(outputs[b], e_backprop, rtol=1e-5,
                                                                               atol=1e-6))
    for bad_row, bad_value in [(2, 3), (0, -1), (3, 1 << 20)]:         # status 1 + row, nothing written
        labels = np.array([0, 1, 2, 1], np.int64)
        labels[bad_row] = bad_value
        loss, backprop = job.output(np.full(4, 99, dtype)), job.output(np.full((4, 3), 99, dtype))
        job.call(f"wf_sparse_xent_{SUFFIX[dtype]}_i64", job.input(logits[:4, :3].copy()), job.input(labels), loss,
                 backprop, 4, 3)
        case.check(lambda results, outputs, i=len(job.calls) - 1, r=bad_row: _assert_equal(results[i], r + 1))
        case.check(lambda results, outputs, loss=loss, b=backprop: _assert_equal(
            bool((outputs[loss] == 99).all() and (outputs[b] == 99).all()), True))
    return case


def pointwise_cases() -> dict[str, Callable[[], Case]]:
    """Name -> builder, for every elementwise / reduction / softmax case."""
    cases: dict[str, Callable[[], Case]] = {}
    for name, dtype in itertools.product(("exp", "log", "tanh", "sigmoid"), (np.float32, np.float64)):
        cases[f"{name}-{SUFFIX[dtype]}-ulps"] = lambda n=name, d=dtype: approximation_case(n, d)
    for dtype in (np.float32, np.float64, np.int32, np.int64):
        cases[f"unary-exact-{SUFFIX[dtype]}"] = lambda d=dtype: exact_unary_case(d)
        cases[f"binary-broadcast-{SUFFIX[dtype]}"] = lambda d=dtype: binary_case(d)
        cases[f"reduce-{SUFFIX[dtype]}"] = lambda d=dtype: reduce_case(d)
    cases["binary-edges"] = binary_edges_case
    cases["reduce-edges"] = reduce_edges_case
    for dtype in (np.float32, np.float64):
        cases[f"softmax-xent-{SUFFIX[dtype]}"] = lambda d=dtype: softmax_case(d)
    return cases
