"""C signatures of the activation and rounding kernels (webflow/wasm/activations.c), declared for c_library.

    wf_<op>_<t>(x, y, n)                      y = op(x), contiguous
        elu selu softplus softsign floor ceil round sign relu6 (f32 f64); relu6 sign (i32 i64)
    wf_leaky_relu_<t>(x, y, n, alpha)         y = x > 0 ? x : alpha x
    wf_<op>_grad_<t>(gradients, saved, out, n)
        elu selu (saved = outputs), softplus softsign relu6 (saved = features; relu6 also i32 i64)
    wf_leaky_relu_grad_<t>(gradients, features, out, n, alpha)
    wf_is_nan_<t>(x, y, n), is_inf, is_finite  y: bool (one byte each)
"""

from __future__ import annotations

from webflow.backends.c.library import F32, F64, PTR, SIZE, VOID, declare

FLOAT_UNARY = ("elu", "selu", "softplus", "softsign", "floor", "ceil", "round", "sign", "relu6")
INT_UNARY = ("sign", "relu6")
FLOAT_GRADS = ("elu_grad", "selu_grad", "softplus_grad", "softsign_grad", "relu6_grad")
CLASSIFY = ("is_nan", "is_inf", "is_finite")

for _suffix, _scalar in (("f32", F32), ("f64", F64)):
    for _name in FLOAT_UNARY + CLASSIFY:
        declare(f"wf_{_name}_{_suffix}", [PTR, PTR, SIZE], VOID)
    for _name in FLOAT_GRADS:
        declare(f"wf_{_name}_{_suffix}", [PTR, PTR, PTR, SIZE], VOID)
    declare(f"wf_leaky_relu_{_suffix}", [PTR, PTR, SIZE, _scalar], VOID)
    declare(f"wf_leaky_relu_grad_{_suffix}", [PTR, PTR, PTR, SIZE, _scalar], VOID)
for _suffix in ("i32", "i64"):
    for _name in INT_UNARY:
        declare(f"wf_{_name}_{_suffix}", [PTR, PTR, SIZE], VOID)
    declare(f"wf_relu6_grad_{_suffix}", [PTR, PTR, PTR, SIZE], VOID)
