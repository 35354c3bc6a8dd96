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

from typing import Any

from webflow.backends.c.adapters import (
    FLOATS,
    NUMBERS,
    Unsupported,
    c_kernel,
    contiguous,
    empty,
    empty_like,
    fn,
    ptr,
    suffix,
    unary_adapter,
)
from webflow.backends.c.library import F32, F64, PTR, SIZE, VOID, declare
from webflow.framework import dtypes
from webflow.framework.errors import InvalidArgumentError

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


def same_shapes(op_type: str, first: Any, second: Any) -> None:
    """TF's run-time error for a *Grad op whose two inputs differ in shape (no fallback raises it without NumPy)."""
    if first.shape != second.shape:
        raise InvalidArgumentError(None, None, f"Inputs to operation {op_type} of type {op_type} must have the same "
                                               f"size and shape.  Input 0: [{','.join(map(str, first.shape))}] != "
                                               f"input 1: [{','.join(map(str, second.shape))}]")


def _grad(stem: str, allowed: tuple, op_type: str = "") -> Any:
    def adapter(gradients: Any, saved: Any) -> Any:
        c_suffix = suffix(gradients, allowed)
        if saved.dtype != gradients.dtype:
            raise Unsupported("dtypes")
        same_shapes(op_type, gradients, saved)
        gradients, saved = contiguous(gradients), contiguous(saved)
        out = empty_like(gradients)
        fn(f"wf_{stem}_{c_suffix}")(ptr(gradients), ptr(saved), ptr(out), out.size)
        return out

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: backprops of {stem.removesuffix('_grad')}, elementwise."
    return adapter


elu = c_kernel(dtypes=FLOATS)(unary_adapter("elu", FLOATS))
selu = c_kernel(dtypes=FLOATS)(unary_adapter("selu", FLOATS))
softplus = c_kernel(dtypes=FLOATS)(unary_adapter("softplus", FLOATS))
softsign = c_kernel(dtypes=FLOATS)(unary_adapter("softsign", FLOATS))
floor = c_kernel(dtypes=FLOATS)(unary_adapter("floor", FLOATS))
ceil = c_kernel(dtypes=FLOATS)(unary_adapter("ceil", FLOATS))
relu6 = c_kernel(dtypes=NUMBERS)(unary_adapter("relu6", NUMBERS))
sign = c_kernel(dtypes=NUMBERS)(unary_adapter("sign", NUMBERS))
elu_grad = c_kernel(dtypes=FLOATS)(_grad("elu_grad", FLOATS, "EluGrad"))
selu_grad = c_kernel(dtypes=FLOATS)(_grad("selu_grad", FLOATS, "SeluGrad"))
softplus_grad = c_kernel(dtypes=FLOATS)(_grad("softplus_grad", FLOATS, "SoftplusGrad"))
softsign_grad = c_kernel(dtypes=FLOATS)(_grad("softsign_grad", FLOATS, "SoftsignGrad"))
relu6_grad = c_kernel(dtypes=NUMBERS)(_grad("relu6_grad", NUMBERS, "Relu6Grad"))


@c_kernel(dtypes=NUMBERS)
def round_(x: Any) -> Any:
    """wf_round_<t>: y = x rounded half to even (integers come back as they are)."""
    if x.dtype.name in ("int32", "int64"):
        return x
    c_suffix = suffix(x)
    x = contiguous(x)
    y = empty_like(x)
    fn(f"wf_round_{c_suffix}")(ptr(x), ptr(y), x.size)
    return y


def _attr_float(alpha: float) -> float:
    """alpha as TensorFlow's kernel sees it: a float32 attr (then widened to the input's dtype)."""
    import array

    return array.array("f", [alpha])[0]


@c_kernel(dtypes=FLOATS)
def leaky_relu(features: Any, *, alpha: float = 0.2) -> Any:
    """wf_leaky_relu_<t>: y = x where x > 0, else alpha x."""
    c_suffix = suffix(features)
    features = contiguous(features)
    y = empty_like(features)
    fn(f"wf_leaky_relu_{c_suffix}")(ptr(features), ptr(y), features.size, _attr_float(alpha))
    return y


@c_kernel(dtypes=FLOATS)
def leaky_relu_grad(gradients: Any, features: Any, *, alpha: float = 0.2) -> Any:
    """wf_leaky_relu_grad_<t>: backprops = gradients where features > 0, else alpha gradients."""
    c_suffix = suffix(gradients)
    if features.dtype != gradients.dtype:
        raise Unsupported("dtypes")
    same_shapes("LeakyReluGrad", gradients, features)
    gradients, features = contiguous(gradients), contiguous(features)
    out = empty_like(gradients)
    fn(f"wf_leaky_relu_grad_{c_suffix}")(ptr(gradients), ptr(features), ptr(out), out.size, _attr_float(alpha))
    return out


def _classify(stem: str) -> Any:
    def adapter(x: Any) -> Any:
        c_suffix = suffix(x)
        x = contiguous(x)
        y = empty(x.shape, dtypes.bool)
        fn(f"wf_{stem}_{c_suffix}")(ptr(x), ptr(y), x.size)
        return y

    adapter.__name__ = f"c_{stem}"
    adapter.__doc__ = f"wf_{stem}_<t>: y = {stem}(x) elementwise (bool)."
    return adapter


is_nan = c_kernel(dtypes=FLOATS)(_classify("is_nan"))
is_inf = c_kernel(dtypes=FLOATS)(_classify("is_inf"))
is_finite = c_kernel(dtypes=FLOATS)(_classify("is_finite"))
