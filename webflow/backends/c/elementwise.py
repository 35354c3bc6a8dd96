"""C signatures of the elementwise kernels (webflow/wasm/elementwise.c), declared once for c_library.function().

    wf_<unary>_<t>(x, y, n)                          y[i] = f(x[i]), contiguous
        f32/f64: neg abs square sqrt rsqrt reciprocal relu exp log tanh sigmoid;  i32/i64: neg abs square relu
    wf_relu_grad_<t>(gradients, features, out, n)    out = gradients where features > 0 else 0
    wf_<binary>_<t>(x, y, out, ndim, shape, x_strides, y_strides) -> int status
        add sub mul maximum minimum squared_difference (f32 f64 i32 i64), div (f32 f64);
        `out` is contiguous with `shape`; strides are in elements, 0 on broadcast dimensions.
`shape` and the strides are arrays of c_ssize_t: build them with `size_array`.
"""

from __future__ import annotations

from typing import Any

from webflow.backends.c import parallel
from webflow.backends.c.activations import same_shapes
from webflow.backends.c.adapters import (
    C_THREADS_ELEMENTS,
    FLOATS,
    NUMBERS,
    Unsupported,
    address_of,
    broadcast_shapes,
    c_kernel,
    call_sliced,
    check,
    contiguous,
    empty,
    empty_like,
    fn,
    prod,
    ptr,
    suffix,
    unary_adapter,
)
from webflow.backends.c.library import IN_PYODIDE, INT, PTR, SIZE, VOID, declare

FLOAT_UNARY = ("neg", "abs", "square", "sqrt", "rsqrt", "reciprocal", "relu", "exp", "log", "tanh", "sigmoid")
INT_UNARY = ("neg", "abs", "square", "relu")
BINARY = ("add", "sub", "mul", "maximum", "minimum", "squared_difference")
FLOAT_BINARY = BINARY + ("div",)
MAX_DIMS = 16  # WF_MAX_DIMS in webflow/wasm/strided.h


def size_array(values: Any) -> Any:
    """A C array of wf_size (c_ssize_t) holding `values`: shapes and strides for the strided kernels."""
    values = [int(v) for v in values]
    return (SIZE * max(len(values), 1))(*values)


for _suffix in ("f32", "f64", "i32", "i64"):
    _floating = _suffix.startswith("f")
    for _name in FLOAT_UNARY if _floating else INT_UNARY:
        declare(f"wf_{_name}_{_suffix}", [PTR, PTR, SIZE], VOID)
    declare(f"wf_relu_grad_{_suffix}", [PTR, PTR, PTR, SIZE], VOID)
    for _name in FLOAT_BINARY if _floating else BINARY:
        declare(f"wf_{_name}_{_suffix}", [PTR, PTR, PTR, INT, PTR, PTR, PTR], INT)
if not IN_PYODIDE:  # native only (elementwise_threads.c): the wasm build has no threads
    declare("wf_binary_threads", [PTR, PTR, PTR, PTR, INT, PTR, PTR, PTR, SIZE, SIZE], INT)


INTEGER_UNARY = NUMBERS   # neg abs square relu also exist for i32/i64


# --- unary (contiguous): y[i] = f(x[i]) ---------------------------------------------------------------
# measured (selection.py): NumPy's loops here use AVX-512 (its exp/tanh/sigmoid too), and a ctypes call
# costs ~5 us, so only relu on large arrays runs in C automatically; the rest when forced.
neg = c_kernel(dtypes=NUMBERS)(unary_adapter("neg", NUMBERS))
absolute = c_kernel(dtypes=NUMBERS)(unary_adapter("abs", NUMBERS))
square = c_kernel(dtypes=NUMBERS)(unary_adapter("square", NUMBERS))
sqrt = c_kernel(dtypes=FLOATS)(unary_adapter("sqrt", FLOATS))
rsqrt = c_kernel(dtypes=FLOATS)(unary_adapter("rsqrt", FLOATS))
reciprocal = c_kernel(dtypes=FLOATS)(unary_adapter("reciprocal", FLOATS))
relu = c_kernel(dtypes=NUMBERS, min_size=65536)(unary_adapter("relu", NUMBERS))
exp = c_kernel(dtypes=FLOATS)(unary_adapter("exp", FLOATS))
log = c_kernel(dtypes=FLOATS)(unary_adapter("log", FLOATS))
tanh = c_kernel(dtypes=FLOATS)(unary_adapter("tanh", FLOATS))
sigmoid = c_kernel(dtypes=FLOATS)(unary_adapter("sigmoid", FLOATS))


@c_kernel(dtypes=NUMBERS, min_size=8192)
def relu_grad(gradients: Any, features: Any) -> Any:
    """wf_relu_grad_<t>: backprops = gradients where features > 0, else 0."""
    c_suffix = suffix(gradients, NUMBERS)
    if features.dtype != gradients.dtype:
        raise Unsupported("dtypes")
    same_shapes("ReluGrad", gradients, features)
    gradients, features = contiguous(gradients), contiguous(features)
    out = empty_like(gradients)
    call_sliced(f"wf_relu_grad_{c_suffix}", [gradients, features, out], out.size)
    return out


# --- binary with broadcasting: strides 0 on broadcast dimensions --------------------------------------
def broadcast_strides(array: Any, shape: tuple) -> list:
    """Element strides of a contiguous `array` read as broadcast to `shape` (0 where it is broadcast)."""
    lead = len(shape) - array.ndim
    strides = [0] * lead
    for dim, size, stride in zip(shape[lead:], array.shape, array.strides):
        strides.append(0 if size == 1 and dim != 1 else stride // array.itemsize)
    return strides


def _row_major(shape: tuple) -> list:
    """Element strides of a contiguous array of `shape`."""
    strides, step = [], 1
    for dim in reversed(shape):
        strides.append(step)
        step *= max(dim, 1)
    return strides[::-1]


def _broadcast_plan(x_shape: tuple, y_shape: tuple) -> tuple:
    """(output shape, and the C arrays of its shape and of x's and y's broadcast strides) for two shapes.

    Made once per pair of shapes (a training step repeats the same few): computing them on every call
    cost ~10 us per binary op in Pyodide."""
    key = (x_shape, y_shape)
    found = _BROADCAST_PLANS.get(key)
    if found is None:
        shape = broadcast_shapes(x_shape, y_shape)
        if len(_BROADCAST_PLANS) >= 1024:
            _BROADCAST_PLANS.clear()
        found = _BROADCAST_PLANS[key] = (shape, size_array(shape), *(
            size_array(broadcast_element_strides(s, shape)) for s in (x_shape, y_shape)))
    return found


def broadcast_element_strides(own: tuple, shape: tuple) -> list:
    """broadcast_strides for a contiguous array of shape `own` (0 where it is broadcast)."""
    lead = len(shape) - len(own)
    return [0] * lead + [0 if size == 1 and dim != 1 else stride
                         for dim, size, stride in zip(shape[lead:], own, _row_major(own))]


_BROADCAST_PLANS: dict[tuple, tuple] = {}


def _binary(stem: str, allowed: tuple) -> Any:
    def adapter(x: Any, y: Any) -> Any:
        c_suffix = suffix(x, allowed)
        if y.dtype != x.dtype:
            raise Unsupported("mixed dtypes")
        x_shape, y_shape = tuple(x.shape), tuple(y.shape)
        same = x_shape == y_shape
        if same:  # the common case, as one long row: any shape then cuts into slices of rows
            x_shape = y_shape = (prod(x_shape),)
        shape, c_shape, x_strides, y_strides = _broadcast_plan(x_shape, y_shape)
        if len(shape) > MAX_DIMS:
            raise Unsupported("rank")
        out = empty(tuple(x.shape) if same else shape, x.dtype)
        if out.size:
            x, y = contiguous(x), contiguous(y)
            name = f"wf_{stem}_{c_suffix}"
            if out.size >= C_THREADS_ELEMENTS and shape[0] > 1 and parallel.threads() > 1 and not IN_PYODIDE:
                status = fn("wf_binary_threads")(address_of(name), ptr(x), ptr(y), ptr(out), len(shape), c_shape,
                                                 x_strides, y_strides, out.itemsize, parallel.threads())
            else:
                status = fn(name)(ptr(x), ptr(y), ptr(out), len(shape), c_shape, x_strides, y_strides)
            check(status, stem)
        return out

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: z = {stem}(x, y), broadcasting."
    return adapter


# Plain arithmetic runs in C only when forced (NumPy's loops are as fast and a ufunc call is cheaper), except
# big AddV2s (a conv layer's bias add), which the C library's threads share out: from ADD_MIN elements that beats
# NumPy's one-thread loop when the second core is free (2^17: a tie; benchmarks/FIGURES.md, "Elementwise ops and
# whole-array sums").
ADD_MIN = 1 << 18
add = c_kernel(dtypes=NUMBERS, min_size=ADD_MIN)(_binary("add", NUMBERS))
sub = c_kernel(dtypes=NUMBERS)(_binary("sub", NUMBERS))
mul = c_kernel(dtypes=NUMBERS)(_binary("mul", NUMBERS))
maximum = c_kernel(dtypes=NUMBERS)(_binary("maximum", NUMBERS))
minimum = c_kernel(dtypes=NUMBERS)(_binary("minimum", NUMBERS))
squared_difference = c_kernel(dtypes=NUMBERS)(_binary("squared_difference", NUMBERS))
div = c_kernel(dtypes=FLOATS)(_binary("div", FLOATS))
