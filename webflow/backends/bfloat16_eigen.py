"""Where TensorFlow's bfloat16 results depend on how Eigen computes them on a CPU (checked against TF 2.21):

- NaN signs: Eigen's scalar float -> bfloat16 keeps a NaN's sign (0xFFC0 / 0x7FC0), its vectorised conversion
  (packets of 8 floats in TensorFlow's x86 wheels) writes 0x7FC0 for every NaN. An elementwise kernel converts
  whole packets first and the last `size % 8` values one by one, so a NaN's sign survives only in that tail.
  A cast from float64 converts value by value, and ops that only move bits convert nothing: signs are kept.
- Denormals: TensorFlow runs its kernels with the CPU flushing denormals (FTZ and DAZ), so an op that computes
  (add, mul, exp, matmul, a sum, a comparison ...) reads a denormal input as 0 and writes a denormal result as 0;
  casts, data movement, negation and abs keep a denormal's bits; max / min / relu compare as 0 and return an
  operand's own bits. (webflow's float32 ops do not flush: bfloat16 ones do.)
- Sigmoid: Eigen's logistic functor runs on bfloat16 values, each step rounded: e = exp(x), then e / (1 + e)
  (1 where e is inf), not float32's sigmoid rounded once (which is up to one bfloat16 step away).
"""

from __future__ import annotations

import array
import math
from typing import Any

from webflow.backends.arrays import carray as c_array
from webflow.backends.arrays.numpy_arrays import HAVE_NUMPY
from webflow.framework import bfloat16_bits, dtypes

PACKET = 8   # floats per Eigen packet in TensorFlow's x86 builds (AVX)


def packet_nans(rounded: Any) -> Any:
    """`rounded` (float32 holding bfloat16 values) with the NaNs of its whole packets made 0x7FC0."""
    whole = (_size(rounded) // PACKET) * PACKET
    if not whole:
        return rounded
    if HAVE_NUMPY and not isinstance(rounded, c_array.CArray):
        from webflow.backends.arrays.numpy_arrays import np
        values = np.asarray(rounded)
        head = np.isnan(values.reshape(-1)[:whole])
        if not head.any():
            return rounded
        flat = values.reshape(-1).copy()
        flat.view(np.uint32)[:whole][head] = np.uint32(bfloat16_bits.QUIET_NAN)
        return flat.reshape(values.shape)
    bits = array.array("I", rounded.data.tobytes()[:4 * rounded.size])
    for index in range(whole):
        if bfloat16_bits.is_nan_bits(bits[index]):
            bits[index] = bfloat16_bits.QUIET_NAN
    return c_array.CArray(array.array("f", bits.tobytes()), rounded.shape, dtypes.float32)


def _size(value: Any) -> int:
    return int(getattr(value, "size", 1))


# ops that compute new values (listed from TensorFlow's bfloat16 CPU kernels); the others move or compare bits
FLUSHING = frozenset({
    "Add", "AddV2", "Sub", "Mul", "RealDiv", "DivNoNan", "AddN", "Sum", "Mean", "Prod", "MatMul", "BatchMatMulV2",
    "BiasAdd", "BiasAddGrad", "Conv2D", "Conv2DBackpropFilter", "Conv2DBackpropInput", "Exp", "Log", "Log1p", "Sqrt",
    "Rsqrt", "Square", "SquaredDifference", "Sigmoid", "SigmoidGrad", "Tanh", "TanhGrad", "Softmax", "LogSoftmax",
    "Softplus", "Pow", "Reciprocal", "L2Loss", "Elu", "Selu", "Sin", "Cos", "AvgPool", "Cumsum", "Cumprod",
    # these read their inputs through the FPU too (DAZ): a denormal compares equal to 0, its sign and floor are 0
    "Greater", "GreaterEqual", "Less", "LessEqual", "Equal", "NotEqual", "Sign", "Floor", "Ceil", "Round",
    "LeakyRelu"})
# max / min compare under DAZ, then return one operand's own bits: a denormal that ties with 0 wins as the
# first operand (relu(-d) = -d, maximum(d, 0) = d, maximum(0, d) = 0)
TIES = frozenset({"Maximum", "Minimum", "Relu", "Relu6"})
TINY = 2.0 ** -126   # the smallest normal float32 (and bfloat16)


def flush_denormals(value: Any) -> Any:
    """`value` (float32 storage) with its denormals made zeros of the same sign (FTZ / DAZ)."""
    if HAVE_NUMPY and not isinstance(value, c_array.CArray):
        from webflow.backends.arrays.numpy_arrays import np
        values = np.asarray(value)
        if values.dtype != np.float32:
            return value
        tiny = np.abs(values) < np.float32(TINY)   # zeros too: copysign(0, ±0) leaves them as they are
        if not tiny.any():
            return value
        return np.where(tiny, np.copysign(np.float32(0.0), values), values).astype(np.float32)
    if not isinstance(value, c_array.CArray) or value.dtype is not dtypes.float32:
        return value
    flat = [math.copysign(0.0, v) if 0 < abs(v) < TINY else v for v in array.array("f", value.data.tobytes())]
    return c_array.CArray(array.array("f", flat), value.shape, dtypes.float32)


def break_ties(op_type: str, inputs: list, result: Any) -> Any:
    """`result` of Maximum / Minimum / Relu / Relu6 where an input is a denormal or a signed zero: the operand
    TensorFlow returns when the comparison, with denormals read as 0, ties (the first operand, with its own bits:
    relu(-0) = -0, maximum(0, -0) = 0)."""
    if op_type not in TIES:
        return result
    if isinstance(result, c_array.CArray) or not HAVE_NUMPY or any(isinstance(v, c_array.CArray) for v in inputs[:2]):
        return _break_ties_portable(op_type, inputs, result)
    from webflow.backends.arrays.numpy_arrays import np
    first = np.asarray(inputs[0], np.float32)
    tiny_first = np.abs(first) < np.float32(TINY)   # a denormal or a signed zero: compares as 0
    if op_type in ("Relu", "Relu6"):
        return np.where(tiny_first, first, result).astype(np.float32) if tiny_first.any() else result
    second = np.asarray(inputs[1], np.float32)
    tiny_second = np.abs(second) < np.float32(TINY)
    if not (tiny_first.any() or tiny_second.any()):
        return result
    a, b = np.where(tiny_first, np.float32(0), first), np.where(tiny_second, np.float32(0), second)
    wins = b > a if op_type == "Maximum" else b < a
    chosen = np.where(wins, second, first)
    return np.where(tiny_first | tiny_second, chosen, result).astype(np.float32)


def _is_tiny(value: float) -> bool:
    """A denormal or a signed zero: what compares as 0 under DAZ."""
    return abs(value) < TINY


def _floats(value: Any) -> tuple:
    """(flat float32 values, shape) of a CArray or a Python number."""
    if isinstance(value, c_array.CArray):
        return list(array.array("f", value.data.tobytes()[:4 * value.size])), tuple(value.shape)
    return [float(value)], ()


def _broadcast(values: list, shape: tuple, target: tuple) -> list:
    """`values` of `shape` repeated along the broadcast axes to `target` (bits untouched: no arithmetic)."""
    if shape == target:
        return values
    shape = (1,) * (len(target) - len(shape)) + shape
    strides, step = [], 1
    for size in reversed(shape):
        strides.insert(0, step if size > 1 else 0)
        step *= size
    out = []
    for flat in range(math.prod(target)):
        index, rest = 0, flat
        for size, stride in zip(reversed(target), reversed(strides)):
            index += (rest % size) * stride
            rest //= size
        out.append(values[index])
    return out


def _break_ties_portable(op_type: str, inputs: list, result: Any) -> Any:
    """break_ties on flat lists (no NumPy, as in Pyodide): the same choice, element by element."""
    first, first_shape = _floats(inputs[0])
    pair = op_type in ("Maximum", "Minimum")
    second, second_shape = _floats(inputs[1]) if pair else ([], ())
    if not any(_is_tiny(v) for v in first) and not any(_is_tiny(v) for v in second):
        return result
    values, shape = _floats(result)
    first = _broadcast(first, first_shape, shape)
    if not pair:   # relu(d) = max(d, 0) ties: d itself
        chosen = [x if _is_tiny(x) else y for x, y in zip(first, values)]
    else:
        second = _broadcast(second, second_shape, shape)
        chosen = []
        for x, y, out in zip(first, second, values):
            if not (_is_tiny(x) or _is_tiny(y)):
                chosen.append(out)
                continue
            a, b = (0.0 if _is_tiny(x) else x), (0.0 if _is_tiny(y) else y)
            chosen.append(y if (b > a if op_type == "Maximum" else b < a) else x)
    return c_array.CArray(array.array("f", chosen), shape, dtypes.float32)


def keeps_nan_signs(op_type: str, attrs: dict) -> bool:
    """Whether an op's bfloat16 output keeps its NaNs' signs: ops that only move bits (Reshape, ConcatV2 ...) and a
    Cast from anything but float32 (value by value) keep them; a Cast from float32 and the ops that compute go
    through the vectorised conversion."""
    if op_type == "Cast":
        return attrs.get("SrcT") not in (None, dtypes.float32)
    return op_type not in FLUSHING


def sigmoid(x: Any, round_to_bfloat16: Any) -> Any:
    """Eigen's logistic on bfloat16 `x` (float32 storage): e = bf16(exp(x)); bf16(e / bf16(1 + e)); 1 where e = inf.
    (The caller rounds the result, as every bfloat16 output.)"""
    if HAVE_NUMPY and not isinstance(x, c_array.CArray):
        from webflow.backends.arrays.numpy_arrays import np
        with np.errstate(over="ignore", invalid="ignore"):
            e = round_to_bfloat16(np.exp(np.asarray(x, np.float32)))
            ratio = e / round_to_bfloat16(np.float32(1.0) + e)
        return np.where(np.isinf(e), np.float32(1.0), ratio).astype(np.float32)
    values = [_sigmoid_one(v, round_to_bfloat16) for v in x.tolist()] if isinstance(x, c_array.CArray) else \
        _sigmoid_one(float(x), round_to_bfloat16)
    return c_array.from_value(values, dtypes.float32) if isinstance(values, list) else values


def _sigmoid_one(value: Any, round_to_bfloat16: Any) -> Any:
    if isinstance(value, list):
        return [_sigmoid_one(v, round_to_bfloat16) for v in value]
    e = _round_one(math.exp(value) if value < 89.0 else math.inf)   # (exp(89) is past float32's range)
    if math.isinf(e):
        return 1.0
    return e / _round_one(1.0 + e)


def _round_one(value: float) -> float:
    import struct
    try:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
    except OverflowError:   # beyond float32's range: inf, as float32's exp gives
        return math.inf
    return struct.unpack("<f", struct.pack("<I", bfloat16_bits.round_bits(bits)))[0]


# the op types whose bfloat16 kernel is not the float32 one rounded: kernel(input) -> float32 storage
BFLOAT16_MATH = {"Sigmoid": sigmoid}
