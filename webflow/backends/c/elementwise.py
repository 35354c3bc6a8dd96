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

from webflow.backends.c.library import INT, PTR, SIZE, VOID, declare

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
