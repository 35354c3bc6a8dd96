"""Op table rows for the pooling ops (MaxPool, AvgPool, MaxPoolGrad, AvgPoolGrad, MaxPoolGradGrad).

The references loop over output positions in plain NumPy, each window cut out with TensorFlow's padding
formula (out = ceil(in / s), pad_top = max((out - 1) * s + k - in, 0) // 2), independently of the kernels'
strided views. Max-pool inputs hold distinct values, so the numerical gradients never straddle a tie.
See tests/op_harness.py for the four checks each row makes.
"""

import numpy as np
import pytest
from op_harness import OpCase, check_case

import webflow as wf
import webflow.compat.v1 as tf
from webflow.ops.registry import apply_op

rng = np.random.default_rng(5)


def distinct(*shape, dtype=np.float32):
    """Values 0.05 apart in a random order: every window has one clear maximum."""
    size = int(np.prod(shape))
    return (rng.permutation(size).reshape(shape) * 0.05 - size * 0.025).astype(dtype)


def r(*shape):
    return rng.standard_normal(shape).astype(np.float32)


def geometry(size, k, s, padding):
    """[(start, stop)] of each window's in-bounds cells along one axis."""
    if padding == "VALID":
        out, top = (size - k) // s + 1, 0
    else:
        out = -(-size // s)
        top = max((out - 1) * s + k - size, 0) // 2
    return [(max(o * s - top, 0), min(o * s - top + k, size)) for o in range(out)]


def pool_reference(reduce, k, s, padding):
    """NumPy reference: reduce(window of x over axes (1, 2)) for each output position (NHWC)."""
    kh, kw = (k, k) if isinstance(k, int) else k
    sh, sw = (s, s) if isinstance(s, int) else s

    def reference(x):
        rows, cols = geometry(x.shape[1], kh, sh, padding), geometry(x.shape[2], kw, sw, padding)
        out = np.zeros((x.shape[0], len(rows), len(cols), x.shape[3]), x.dtype)
        for a, (r0, r1) in enumerate(rows):
            for b, (c0, c1) in enumerate(cols):
                out[:, a, b] = reduce(x[:, r0:r1, c0:c1].astype(np.float64), axis=(1, 2))
        return out

    return reference


def max_grad_reference(k, s, padding):
    """dx: each output gradient added at its window's first (row-major) maximum, found by argmax."""
    def reference(x, y, g):
        rows, cols = geometry(x.shape[1], k, s, padding), geometry(x.shape[2], k, s, padding)
        dx = np.zeros(x.shape, np.float64)
        for a, (r0, r1) in enumerate(rows):
            for b, (c0, c1) in enumerate(cols):
                for n in range(x.shape[0]):
                    for c in range(x.shape[3]):
                        window = x[n, r0:r1, c0:c1, c]
                        i, j = np.unravel_index(np.argmax(window), window.shape)
                        dx[n, r0 + i, c0 + j, c] += g[n, a, b, c]
        return dx.astype(g.dtype)

    return reference


def max_grad_grad_reference(k, s, padding):
    """y[window] = gg at the window's first maximum of x."""
    def reference(x, y, gg):
        rows, cols = geometry(x.shape[1], k, s, padding), geometry(x.shape[2], k, s, padding)
        out = np.zeros((x.shape[0], len(rows), len(cols), x.shape[3]), gg.dtype)
        for a, (r0, r1) in enumerate(rows):
            for b, (c0, c1) in enumerate(cols):
                flat = x[:, r0:r1, c0:c1].reshape(x.shape[0], -1, x.shape[3])
                cells = gg[:, r0:r1, c0:c1].reshape(x.shape[0], -1, x.shape[3])
                out[:, a, b] = np.take_along_axis(cells, np.argmax(flat, axis=1)[:, None], axis=1)[:, 0]
        return out

    return reference


def avg_grad_reference(k, s, padding):
    """dx[cell] = sum over the windows holding the cell of g / (in-bounds cells of the window)."""
    def reference(shape, g):
        rows, cols = geometry(shape[1], k, s, padding), geometry(shape[2], k, s, padding)
        dx = np.zeros(tuple(shape), np.float64)
        for a, (r0, r1) in enumerate(rows):
            for b, (c0, c1) in enumerate(cols):
                dx[:, r0:r1, c0:c1] += g[:, a, b][:, None, None] / ((r1 - r0) * (c1 - c0))
        return dx.astype(g.dtype)

    return reference


def attrs(k, s, padding, data_format="NHWC"):
    ksize, strides = [1, k, k, 1], [1, s, s, 1]
    if data_format == "NCHW":
        ksize, strides = [1, 1, k, k], [1, 1, s, s]
    return {"ksize": ksize, "strides": strides, "padding": padding, "data_format": data_format}


def keep_dtype(reference):
    return lambda x: reference(x).astype(x.dtype)


def nchw(reference):
    """An NHWC reference applied to NCHW arrays."""
    return lambda x: reference(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2).astype(x.dtype)


def pooled(x, k, s, padding):
    return pool_reference(np.max, k, s, padding)(x).astype(x.dtype)


def max_rows():
    rows = []
    for shape, k, s, padding in [((2, 5, 5, 3), 2, 2, "SAME"), ((1, 7, 6, 2), 3, 2, "SAME"),
                                 ((2, 5, 7, 2), 3, 3, "VALID"), ((1, 6, 5, 3), 2, 1, "VALID"),
                                 ((2, 4, 5, 1), 1, 3, "SAME"), ((1, 5, 5, 2), 3, 1, "SAME"),
                                 ((3, 4, 4, 2), 2, 2, "VALID"), ((1, 7, 7, 1), 2, 3, "SAME")]:
        rows.append(OpCase(f"max_pool_{'x'.join(map(str, shape))}_k{k}_s{s}_{padding}",
                           lambda x, k=k, s=s, p=padding: wf.nn.max_pool2d(x, k, s, p), [distinct(*shape)],
                           keep_dtype(pool_reference(np.max, k, s, padding))))
    return rows


def avg_rows():
    rows = []
    for shape, k, s, padding in [((2, 5, 5, 3), 2, 2, "SAME"), ((1, 7, 6, 2), 3, 2, "SAME"),
                                 ((2, 5, 7, 2), 3, 3, "VALID"), ((1, 6, 5, 3), 2, 1, "VALID"),
                                 ((2, 4, 5, 1), 1, 3, "SAME"), ((1, 5, 5, 2), 3, 1, "SAME"),
                                 ((3, 4, 4, 2), 2, 2, "VALID"), ((1, 7, 7, 1), 3, 3, "SAME")]:
        rows.append(OpCase(f"avg_pool_{'x'.join(map(str, shape))}_k{k}_s{s}_{padding}",
                           lambda x, k=k, s=s, p=padding: wf.nn.avg_pool2d(x, k, s, p), [r(*shape)],
                           keep_dtype(pool_reference(np.mean, k, s, padding))))
    return rows


X = distinct(2, 5, 6, 2)
X_SMALL = distinct(1, 5, 5, 2)

CASES = max_rows() + avg_rows() + [
    OpCase("max_pool_tf1_rect_window", lambda x: tf.nn.max_pool(x, [1, 2, 3, 1], [1, 1, 2, 1], "SAME"),
           [distinct(2, 5, 7, 2)], keep_dtype(pool_reference(np.max, (2, 3), (1, 2), "SAME"))),
    OpCase("avg_pool_tf1_rect_window", lambda x: tf.nn.avg_pool(x, [1, 3, 2, 1], [1, 2, 1, 1], "SAME"),
           [r(2, 5, 4, 3)], keep_dtype(pool_reference(np.mean, (3, 2), (2, 1), "SAME"))),
    OpCase("max_pool_nchw", lambda x: wf.nn.max_pool2d(x, 3, 2, "SAME", data_format="NCHW"),
           [distinct(2, 3, 5, 6)], nchw(pool_reference(np.max, 3, 2, "SAME"))),
    OpCase("avg_pool_nchw", lambda x: wf.nn.avg_pool2d(x, 2, 2, "SAME", data_format="NCHW"),
           [r(2, 3, 5, 5)], nchw(pool_reference(np.mean, 2, 2, "SAME"))),
    OpCase("max_pool_float64", lambda x: wf.nn.max_pool2d(x, 2, 2, "SAME"), [distinct(1, 5, 5, 2, dtype=np.float64)],
           keep_dtype(pool_reference(np.max, 2, 2, "SAME"))),
    OpCase("avg_pool_float16", lambda x: wf.nn.avg_pool2d(x, 3, 2, "SAME"), [r(1, 5, 5, 2).astype(np.float16)],
           keep_dtype(pool_reference(np.mean, 3, 2, "SAME")), grad=False, atol=2e-3, rtol=2e-3),
    OpCase("max_pool_float16", lambda x: wf.nn.max_pool2d(x, 2, 2, "VALID"), [distinct(1, 4, 6, 2, dtype=np.float16)],
           keep_dtype(pool_reference(np.max, 2, 2, "VALID")), grad=False),
    OpCase("max_pool_int32", lambda x: wf.nn.max_pool2d(x, 2, 2, "SAME"), [rng.integers(-9, 9, (1, 5, 5, 2),
                                                                                          dtype=np.int32)],
           keep_dtype(pool_reference(np.max, 2, 2, "SAME")), grad=False),
    OpCase("max_pool1d", lambda x: wf.nn.max_pool(x, 3, 2, "SAME"), [distinct(2, 7, 3)],
           lambda x: pool_reference(np.max, (1, 3), (1, 2), "SAME")(x[:, None])[:, 0].astype(x.dtype),
           unknown_shapes=False),
    OpCase("avg_pool1d", lambda x: wf.nn.avg_pool1d(x, 2, 1, "VALID"), [r(2, 6, 3)],
           lambda x: pool_reference(np.mean, (1, 2), (1, 1), "VALID")(x[:, None])[:, 0].astype(x.dtype)),
    OpCase("max_pool_grad_op_k3_s2_same",
           lambda x, y, g: apply_op("MaxPoolGrad", [x, y, g], dict(attrs(3, 2, "SAME"), explicit_paddings=[])),
           [X, pooled(X, 3, 2, "SAME"), r(2, 3, 3, 2)], max_grad_reference(3, 2, "SAME")),
    OpCase("max_pool_grad_op_k2_s1_valid",
           lambda x, y, g: apply_op("MaxPoolGrad", [x, y, g], dict(attrs(2, 1, "VALID"), explicit_paddings=[])),
           [X_SMALL, pooled(X_SMALL, 2, 1, "VALID"), r(1, 4, 4, 2)], max_grad_reference(2, 1, "VALID")),
    OpCase("max_pool_grad_grad_op_k3_s2_same",
           lambda x, y, gg: apply_op("MaxPoolGradGrad", [x, y, gg], attrs(3, 2, "SAME")),
           [X, pooled(X, 3, 2, "SAME"), r(2, 5, 6, 2)], max_grad_grad_reference(3, 2, "SAME")),
    OpCase("max_pool_grad_grad_op_k2_s2_valid",
           lambda x, y, gg: apply_op("MaxPoolGradGrad", [x, y, gg], attrs(2, 2, "VALID")),
           [X_SMALL, pooled(X_SMALL, 2, 2, "VALID"), r(1, 5, 5, 2)], max_grad_grad_reference(2, 2, "VALID")),
    OpCase("avg_pool_grad_op_k3_s2_same", lambda shape, g: apply_op("AvgPoolGrad", [shape, g], attrs(3, 2, "SAME")),
           [np.array([2, 5, 6, 2], np.int32), r(2, 3, 3, 2)], avg_grad_reference(3, 2, "SAME"), fully_static=False),
    OpCase("avg_pool_grad_op_k2_s1_valid", lambda shape, g: apply_op("AvgPoolGrad", [shape, g], attrs(2, 1, "VALID")),
           [np.array([1, 5, 4, 3], np.int32), r(1, 4, 3, 3)], avg_grad_reference(2, 1, "VALID"), fully_static=False),
    # found by the property tests' TensorFlow slice (tests/property): TensorFlow's max starts at the lowest finite
    # value and never takes a NaN, so a window of NaN and -inf gives -FLT_MAX (the C kernel gave -inf, NumPy NaN)
    OpCase("max_pool_nan_and_inf_windows", lambda x: wf.nn.max_pool2d(x, 2, 1, "SAME"),
           [np.float32([np.nan, 1, 2, 3, np.nan, np.nan, np.nan, np.nan, -np.inf]).reshape(1, 3, 3, 1)],
           lambda x: np.float32([3, 2, 2, 3] + [np.finfo(np.float32).min] * 5).reshape(1, 3, 3, 1), grad=False),
]


@pytest.mark.parametrize("case", CASES, ids=str)
def test_op(case):
    check_case(case)
