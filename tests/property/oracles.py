"""NumPy oracles: the expected outputs of every op in catalog.py, written from the ops' definitions.

Float results are computed in float64 and rounded to the op's dtype (the most accurate answer a float32 kernel
can be compared with), except where TensorFlow's definition rounds on the way (the cross-entropies' shifted
logits, where float32 overflow to -Inf is part of the answer). Special values follow TensorFlow 2.21 (checked
against it by test_tensorflow_slice.py): NaN propagates through max/min, empty max is -Inf, empty mean NaN, ...
"""

from __future__ import annotations

import numpy as np

SELU_ALPHA, SELU_SCALE = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946


def _float(function):
    """A float op computed in float64, returned in the input's dtype (integer inputs stay integers)."""
    def run(x, *rest):
        with np.errstate(all="ignore"):
            return function(x.astype(np.float64), *rest).astype(x.dtype)
    return run


UNARY = {
    "neg": np.negative, "abs": np.abs, "square": np.square,
    "sqrt": _float(np.sqrt), "rsqrt": _float(lambda x: 1 / np.sqrt(x)), "reciprocal": _float(lambda x: 1 / x),
    "exp": _float(np.exp), "log": _float(np.log), "log1p": _float(np.log1p), "tanh": _float(np.tanh),
    "sigmoid": _float(lambda x: 1 / (1 + np.exp(-x))),
    "relu": lambda x: np.maximum(x, np.zeros((), x.dtype)),
    "relu6": lambda x: np.minimum(np.maximum(x, np.zeros((), x.dtype)), np.asarray(6, x.dtype)),
    "elu": _float(lambda x: np.where(x > 0, x, np.expm1(x))),
    "selu": _float(lambda x: SELU_SCALE * np.where(x > 0, x, SELU_ALPHA * np.expm1(x))),
    "softplus": _float(lambda x: np.logaddexp(0, x)), "softsign": _float(lambda x: x / (1 + np.abs(x))),
    "floor": np.floor, "ceil": np.ceil, "sign": np.sign, "round": np.round, "sin": _float(np.sin),
    "cos": _float(np.cos), "is_nan": np.isnan, "is_inf": np.isinf, "is_finite": np.isfinite,
}


def _floormod(a, b):
    if a.dtype.kind != "f":
        return np.mod(a, b)
    r = np.fmod(a, b)   # TensorFlow: fmod, then moved to the divisor's sign
    return np.where((r != 0) & ((b < 0) != (r < 0)), r + b, r).astype(a.dtype)


def _floordiv(a, b):
    return np.floor_divide(a, b) if a.dtype.kind != "f" else np.floor(a / b)


BINARY = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.true_divide, "maximum": np.maximum,
    "minimum": np.minimum, "squared_difference": lambda a, b: np.square(a - b),
    "pow": lambda a, b: _float(lambda x, y: np.power(x, y))(a, b.astype(np.float64)),
    "floordiv": _floordiv, "floormod": _floormod, "equal": np.equal, "not_equal": np.not_equal, "less": np.less,
    "less_equal": np.less_equal, "greater": np.greater, "greater_equal": np.greater_equal,
}


def _axis(x, axis):
    if axis is None:
        return tuple(range(x.ndim))
    return tuple(sorted({a % x.ndim for a in ([axis] if isinstance(axis, int) else axis)}))


def _extreme(x, high: bool):
    if x.dtype.kind == "f":
        return -np.inf if high else np.inf
    info = np.iinfo(x.dtype)
    return info.min if high else info.max


def _logsumexp(x, axis, keepdims):
    """TensorFlow's: max + log(sum(exp(x - max))) with a non-finite max replaced by 0."""
    x = x.astype(np.float64)
    top = np.max(x, axis=axis, keepdims=True, initial=-np.inf)
    top = np.where(np.isfinite(top), top, 0)
    out = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return out if keepdims else np.squeeze(out, axis=axis)


def reduction(op: str, x, attrs: dict):
    axis, keepdims = _axis(x, attrs.get("axis")), attrs.get("keepdims", False)
    with np.errstate(all="ignore"):
        if op == "argmax":
            return np.argmax(x, axis=axis[0]).astype(np.int64)
        if op == "argmin":
            return np.argmin(x, axis=axis[0]).astype(np.int64)
        if op == "reduce_logsumexp":
            return _logsumexp(x, axis, keepdims).astype(x.dtype)
        if op == "reduce_max":
            return np.max(x, axis=axis, keepdims=keepdims, initial=_extreme(x, True))
        if op == "reduce_min":
            return np.min(x, axis=axis, keepdims=keepdims, initial=_extreme(x, False))
        wide = np.float64 if x.dtype.kind == "f" else x.dtype
        if op == "reduce_sum":
            return np.sum(x, axis=axis, keepdims=keepdims, dtype=wide).astype(x.dtype)
        if op == "reduce_prod":
            return np.prod(x, axis=axis, keepdims=keepdims, dtype=wide).astype(x.dtype)
        return np.mean(x.astype(np.float64), axis=axis, keepdims=keepdims).astype(x.dtype)


def matmul(a, b, attrs: dict):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    if attrs["ta"]:
        a64 = np.swapaxes(a64, -1, -2)
    if attrs["tb"]:
        b64 = np.swapaxes(b64, -1, -2)
    with np.errstate(all="ignore"):
        return np.matmul(a64, b64).astype(a.dtype)


def _same_padding(size: int, window: int, stride: int) -> tuple:
    out = -(-size // stride)
    total = max((out - 1) * stride + window - size, 0)
    return out, total // 2


def _out_and_pad(size: int, window: int, stride: int, padding: str) -> tuple:
    if padding == "SAME":
        return _same_padding(size, window, stride)
    return (size - window) // stride + 1, 0


def conv2d(x, w, attrs: dict):
    stride, dilation, padding = attrs["strides"], attrs["dilations"], attrs["padding"]
    batch, height, width, _ = x.shape
    fh, fw, _, filters = w.shape
    oh, top = _out_and_pad(height, dilation * (fh - 1) + 1, stride, padding)
    ow, left = _out_and_pad(width, dilation * (fw - 1) + 1, stride, padding)
    out = np.zeros((batch, oh, ow, filters))
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    with np.errstate(all="ignore"):
        for i in range(oh):
            for j in range(ow):
                for di in range(fh):
                    for dj in range(fw):
                        r, c = i * stride - top + di * dilation, j * stride - left + dj * dilation
                        if 0 <= r < height and 0 <= c < width:
                            out[:, i, j, :] += x64[:, r, c, :] @ w64[di, dj]
    return out.astype(x.dtype)


def pool(op: str, x, attrs: dict):
    (kh, kw), (sh, sw), padding = attrs["ksize"], attrs["strides"], attrs["padding"]
    batch, height, width, channels = x.shape
    oh, top = _out_and_pad(height, kh, sh, padding)
    ow, left = _out_and_pad(width, kw, sw, padding)
    out = np.zeros((batch, oh, ow, channels))
    x64 = x.astype(np.float64)
    for i in range(oh):
        for j in range(ow):
            r0, c0 = max(i * sh - top, 0), max(j * sw - left, 0)
            window = x64[:, r0:i * sh - top + kh, c0:j * sw - left + kw, :]
            with np.errstate(all="ignore"):
                out[:, i, j, :] = np.fmax.reduce(window, axis=(1, 2)) if op == "max_pool" \
                    else window.mean(axis=(1, 2))
    if op == "max_pool":   # TensorFlow's max starts from the type's lowest value and never takes a NaN
        out = np.fmax(out, np.finfo(x.dtype).min)
    return out.astype(x.dtype)


def gather(op: str, params, indices, attrs: dict):
    if op == "gather":
        return np.take(params, indices, axis=attrs["axis"])
    if op == "gather_nd":
        return params[tuple(np.moveaxis(indices, -1, 0))]
    out = np.zeros(attrs["shape"], dtype=params.dtype)   # scatter_nd: (updates, indices); duplicates add up
    np.add.at(out, tuple(np.moveaxis(indices, -1, 0)), params)
    return out


def cast(x, attrs: dict):
    target = np.dtype(attrs["to"])
    if target == np.bool_:
        return x != 0
    if x.dtype.kind == "f" and target.kind in "iu":
        return np.trunc(x).astype(np.int64).astype(target)   # in range here; uint8 wraps as TF's does
    return x.astype(target)


def _shifted(x, axis):
    """The logits minus their max, in their own dtype (as TensorFlow's kernels round it)."""
    with np.errstate(all="ignore"):
        return x - np.max(x, axis=axis, keepdims=True)


def softmax(op: str, inputs: list, attrs: dict):
    x = inputs[0]
    with np.errstate(all="ignore"):
        if op in ("softmax", "log_softmax"):
            if x.size == 0:
                return x.copy()
            shifted = _shifted(x, attrs["axis"]).astype(np.float64)
            log_sum = np.log(np.sum(np.exp(shifted), axis=attrs["axis"], keepdims=True))
            return (np.exp(shifted - log_sum) if op == "softmax" else shifted - log_sum).astype(x.dtype)
        if x.shape[0] == 0:
            return np.zeros((0,), x.dtype)
        shifted = _shifted(x, -1)
        log_sum = np.log(np.sum(np.exp(shifted.astype(np.float64)), axis=-1, keepdims=True)).astype(x.dtype)
        if op == "sparse_xent":
            rows = np.arange(x.shape[0])
            return (log_sum[:, 0] - shifted[rows, inputs[1]]).astype(x.dtype)
        labels = inputs[1]
        return np.sum(labels.astype(np.float64) * (log_sum - shifted).astype(np.float64), axis=-1).astype(x.dtype)


def expected(op: str, inputs: list, attrs: dict) -> list:
    """The op's outputs (a list of NumPy arrays) by its NumPy oracle."""
    import catalog

    family = catalog.family_of(op)
    with np.errstate(all="ignore"):
        if family == "unary":
            out = UNARY[op](inputs[0])
        elif family == "binary":
            out = BINARY[op](*inputs)
        elif family == "reduction":
            out = reduction(op, inputs[0], attrs)
        elif family == "matmul":
            out = matmul(*inputs, attrs)
        elif family == "conv":
            out = conv2d(*inputs, attrs)
        elif family == "pool":
            out = pool(op, inputs[0], attrs)
        elif family == "gather":
            out = gather(op, *inputs, attrs)
        elif family == "cast":
            out = cast(inputs[0], attrs)
        else:
            out = softmax(op, inputs, attrs)
    return [np.asarray(out)]
