"""hypothesis strategies: one random case of an op family (random shapes, dtypes, layouts and special values).

A `Case` holds the op's name (tests/property/catalog.py), its inputs as NumPy arrays and its attributes. Shapes
include scalars, 1-sized and 0-sized dimensions; an input may be a transposed view (a non-contiguous array, which
a Session feed hands to the kernel as it is); float values may include NaN, ±Inf, -0.0, denormals and (for
softmax / cross-entropy) extreme logits.
"""

from __future__ import annotations

import dataclasses
import math

import catalog
import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOATS = ("float32", "float64")
INTS = ("int32", "int64")
INT_UNARY = {"neg", "abs", "square", "sign", "relu"}
INT_BINARY = {"add", "sub", "mul", "maximum", "minimum", "squared_difference", "floordiv", "floormod", "equal",
              "not_equal", "less", "less_equal", "greater", "greater_equal"}
SPECIALS = {"float32": [float(np.float32(v)) for v in (math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-40, -1e-42,
                                                       1.4e-45, 3e38, -3e38)],
            "float64": [math.nan, math.inf, -math.inf, 0.0, -0.0, 1e-310, -5e-324, 1e300, -1e300]}


@dataclasses.dataclass
class Case:
    op: str
    inputs: list                 # NumPy arrays (possibly non-contiguous views)
    attrs: dict = dataclasses.field(default_factory=dict)

    def __repr__(self) -> str:   # what hypothesis prints for a failing example
        shown = ", ".join(f"{x.dtype}{list(x.shape)}{'' if x.flags.c_contiguous else ' (view)'}="
                          f"{np.array2string(x, threshold=40)}" for x in self.inputs)
        return f"Case({self.op}, [{shown}], {self.attrs})"

    def to_json(self) -> dict:
        """The case as catalog.py reads it (special values as strings)."""
        def plain(v: object) -> object:
            if isinstance(v, float) and not math.isfinite(v):
                return "nan" if v != v else ("inf" if v > 0 else "-inf")
            return v

        return {"op": self.op, "attrs": self.attrs,
                "inputs": [{"values": [plain(v) for v in x.reshape(-1).tolist()], "shape": list(x.shape),
                            "dtype": x.dtype.name} for x in self.inputs]}


def elements(dtype: str, specials: bool, low: float = -8, high: float = 8, huge: bool = True) -> st.SearchStrategy:
    """Values in [low, high], with `specials` also NaN, ±Inf, ±0, denormals and (if `huge`) values near the
    largest float, which products that sum several terms (matmul, conv) must not get: how their partial sums
    overflow depends on the summation order, in TensorFlow too."""
    if dtype in INTS:
        return st.integers(int(low), int(high))
    width = 32 if dtype == "float32" else 64
    finite = st.floats(low, high, width=width)
    if not specials:
        return finite
    chosen = [v for v in SPECIALS[dtype] if huge or not abs(v) > 1e30]
    return st.one_of(finite, finite, st.sampled_from(chosen))


@st.composite
def layout(draw: st.DrawFn, array: np.ndarray) -> np.ndarray:
    """The same values, C-contiguous or as a view with permuted strides (transposed storage)."""
    if array.ndim < 2 or not draw(st.booleans()):
        return array
    order = draw(st.permutations(range(array.ndim)))
    inverse = np.argsort(order)
    return np.transpose(np.ascontiguousarray(np.transpose(array, order)), inverse)


@st.composite
def array(draw: st.DrawFn, dtype: str, shape: tuple, specials: bool = False, low: float = -8,
          high: float = 8, huge: bool = True) -> np.ndarray:
    values = draw(hnp.arrays(dtype, shape, elements=elements(dtype, specials, low, high, huge)))
    return draw(layout(values))


def shapes(min_dims: int = 0, max_dims: int = 4, min_side: int = 0, max_side: int = 4) -> st.SearchStrategy:
    return hnp.array_shapes(min_dims=min_dims, max_dims=max_dims, min_side=min_side, max_side=max_side)


@st.composite
def unary_case(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(sorted(catalog.UNARY)))
    dtype = draw(st.sampled_from(FLOATS + (INTS if op in INT_UNARY else ())))
    wide = 1 << 20 if dtype in INTS else 8
    x = draw(array(dtype, draw(shapes()), specials=dtype in FLOATS and draw(st.booleans()), low=-wide, high=wide))
    return Case(op, [x])


@st.composite
def binary_case(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(sorted(catalog.BINARY)))
    dtype = draw(st.sampled_from(FLOATS + (INTS if op in INT_BINARY else ())))
    pair = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4))
    specials = dtype in FLOATS and draw(st.booleans())
    wide = (1 << 15) if op in ("mul", "squared_difference") else (1 << 30)
    low, high = (-wide, wide) if dtype in INTS else (-8, 8)
    a = draw(array(dtype, pair.input_shapes[0], specials, low, high))
    b = draw(array(dtype, pair.input_shapes[1], specials, low, high))
    if dtype in INTS and op in ("floordiv", "floormod"):
        b = np.where(b == 0, 3, b).astype(dtype)  # integer division by zero is an error in TensorFlow
    return Case(op, [a, b])


@st.composite
def reduction_case(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(sorted(catalog.REDUCTION)))
    numbers = op not in ("reduce_mean", "reduce_logsumexp")
    dtype = draw(st.sampled_from(FLOATS + (INTS if numbers else ())))
    arg = op in ("argmax", "argmin")
    shape = draw(shapes(min_dims=1 if arg else 0, min_side=1 if arg else 0))
    specials = dtype in FLOATS and not arg and draw(st.booleans())   # argmax with NaN: TF skips it, NumPy not
    low, high = (-3, 3) if op == "reduce_prod" else (-8, 8)
    summing = op in ("reduce_sum", "reduce_mean", "reduce_prod")   # float32 partial sums overflow order-dependently
    x = draw(array(dtype, shape, specials, low, high, huge=not summing))
    rank = len(shape)
    if arg:
        axis = draw(st.integers(-rank, rank - 1))
    elif rank and draw(st.booleans()):
        axis = draw(st.lists(st.integers(-rank, rank - 1), min_size=1, max_size=rank,
                             unique_by=lambda i: i % rank))
        axis = axis[0] if len(axis) == 1 and draw(st.booleans()) else axis
    else:
        axis = None
    attrs = {"axis": axis} if arg else {"axis": axis, "keepdims": draw(st.booleans())}
    return Case(op, [x], attrs)


@st.composite
def matmul_case(draw: st.DrawFn) -> Case:
    dtype = draw(st.sampled_from(FLOATS))
    m, k, n = (draw(st.integers(0, 6)) for _ in range(3))
    batch = draw(hnp.mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=2, max_side=3))
    ta, tb = draw(st.booleans()), draw(st.booleans())
    a_shape = batch.input_shapes[0] + ((k, m) if ta else (m, k))
    b_shape = batch.input_shapes[1] + ((n, k) if tb else (k, n))
    if len(a_shape) != len(b_shape) and draw(st.booleans()):
        b_shape = b_shape[-2:]   # a plain matrix on the right
    specials = draw(st.booleans())
    a = draw(array(dtype, a_shape, specials, -4, 4, huge=False))
    b = draw(array(dtype, b_shape, specials, -4, 4, huge=False))
    return Case("matmul", [a, b], {"ta": ta, "tb": tb})


@st.composite
def conv_case(draw: st.DrawFn) -> Case:
    dtype = draw(st.sampled_from(FLOATS))
    batch, height, width = draw(st.integers(0, 2)), draw(st.integers(1, 6)), draw(st.integers(1, 6))
    channels, filters = draw(st.integers(1, 3)), draw(st.integers(0, 3))
    fh, fw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    stride = draw(st.sampled_from([1, 2, 3]))
    dilation = 1 if stride > 1 else draw(st.sampled_from([1, 2]))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID" and (dilation * (fh - 1) + 1 > height or dilation * (fw - 1) + 1 > width):
        padding = "SAME"
    x = draw(array(dtype, (batch, height, width, channels), draw(st.booleans()), -2, 2, huge=False))
    w = draw(array(dtype, (fh, fw, channels, filters), False, -2, 2))
    return Case("conv2d", [x, w], {"strides": stride, "padding": padding, "dilations": dilation})


@st.composite
def pool_case(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(sorted(catalog.POOL)))
    dtype = draw(st.sampled_from(FLOATS))
    batch, height, width, channels = (draw(st.integers(a, b)) for a, b in ((0, 2), (1, 6), (1, 6), (0, 3)))
    kh, kw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    sh, sw = draw(st.integers(1, 3)), draw(st.integers(1, 3))
    padding = draw(st.sampled_from(["SAME", "VALID"]))
    if padding == "VALID" and (kh > height or kw > width):
        padding = "SAME"
    x = draw(array(dtype, (batch, height, width, channels), draw(st.booleans()), -8, 8, huge=False))
    return Case(op, [x], {"ksize": [kh, kw], "strides": [sh, sw], "padding": padding})


@st.composite
def gather_case(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(sorted(catalog.GATHER)))
    dtype = draw(st.sampled_from(FLOATS + INTS))
    index_dtype = draw(st.sampled_from(INTS))
    if op == "gather":
        params = draw(array(dtype, draw(shapes(min_dims=1, min_side=1)), dtype in FLOATS))
        axis = draw(st.integers(-params.ndim, params.ndim - 1))
        size = params.shape[axis]
        indices = draw(array(index_dtype, draw(shapes(max_dims=2)), False, 0, size - 1))
        return Case(op, [params, indices], {"axis": axis})
    if op == "gather_nd":
        params = draw(array(dtype, draw(shapes(min_dims=1, min_side=1)), dtype in FLOATS))
        depth = draw(st.integers(1, params.ndim))
        outer = draw(shapes(min_dims=0, max_dims=2))
        columns = [draw(array(index_dtype, outer + (1,), False, 0, params.shape[d] - 1)) for d in range(depth)]
        return Case(op, [params, np.concatenate(columns, axis=-1).astype(index_dtype)])
    out_shape = draw(shapes(min_dims=1, min_side=1, max_dims=3))
    depth = draw(st.integers(1, len(out_shape)))
    outer = draw(shapes(min_dims=1, max_dims=2))   # 1-D indices: TensorFlow's kernel refuses them (README)
    columns = [draw(array(index_dtype, outer + (1,), False, 0, out_shape[d] - 1)) for d in range(depth)]
    indices = np.concatenate(columns, axis=-1).astype(index_dtype)
    updates = draw(array(dtype, outer + tuple(out_shape[depth:]), False))
    return Case(op, [updates, indices], {"shape": list(out_shape)})


CAST_TYPES = ("float32", "float64", "int32", "int64", "uint8", "bool")


@st.composite
def cast_case(draw: st.DrawFn) -> Case:
    source, target = draw(st.sampled_from(CAST_TYPES)), draw(st.sampled_from(CAST_TYPES))
    shape = draw(shapes())
    if source == "bool":
        x = draw(hnp.arrays(np.bool_, shape))
    elif source == "uint8":
        x = draw(hnp.arrays(np.uint8, shape))
    elif source in INTS:
        x = draw(array(source, shape, False, -300, 300))
    else:
        # float -> integer out of range (NaN, Inf, 3e9) is implementation-defined in C; TF keeps x86's answer,
        # checked against TensorFlow only (test_tensorflow_slice.py); here the in-range values
        specials = target in FLOATS + ("bool",)
        x = draw(array(source, shape, specials, -300 if target != "uint8" else 0, 300))
    return Case("cast", [draw(layout(x))], {"to": target})


EXTREME_LOGITS = [float(np.float32(v)) for v in (1e4, -1e4, 3e38, -3e38, 80.0, -80.0, 0.0)]


@st.composite
def softmax_case(draw: st.DrawFn) -> Case:
    op = draw(st.sampled_from(sorted(catalog.SOFTMAX)))
    dtype = draw(st.sampled_from(FLOATS))
    extreme = draw(st.booleans())
    finite = st.floats(-8, 8, width=32 if dtype == "float32" else 64)
    logits = st.one_of(finite, st.sampled_from(EXTREME_LOGITS)) if extreme else finite
    if op in ("softmax", "log_softmax"):
        shape = draw(shapes(min_dims=1))
        x = draw(layout(draw(hnp.arrays(dtype, shape, elements=logits))))
        return Case(op, [x], {"axis": draw(st.integers(-len(shape), len(shape) - 1))})
    rows, classes = draw(st.integers(0, 5)), draw(st.integers(1, 6))
    x = draw(layout(draw(hnp.arrays(dtype, (rows, classes), elements=logits))))
    if op == "sparse_xent":
        return Case(op, [x, draw(array(draw(st.sampled_from(INTS)), (rows,), False, 0, classes - 1))])
    weights = draw(hnp.arrays(dtype, (rows, classes), elements=st.floats(0, 1, width=32)))
    labels = weights / np.maximum(weights.sum(axis=-1, keepdims=True), 1e-3)
    return Case(op, [x, draw(layout(labels.astype(dtype)))])


FAMILIES = {"unary": unary_case, "binary": binary_case, "reduction": reduction_case, "matmul": matmul_case,
            "conv": conv_case, "pool": pool_case, "gather": gather_case, "cast": cast_case,
            "softmax": softmax_case}
